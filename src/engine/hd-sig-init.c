/*
 * Communicator setup failures: the WARN that names the cause (two ranks
 * on one GPU, /dev/shm, a bootstrap socket, configuration) over the
 * "NCCL error in:" lines that echo it; without one, an error unwind
 * through init or bootstrap, at low confidence.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hd-sig-util.h"
#include "hd-banned.h"

/* "Duplicate GPU detected : rank 1 and rank 3 both on ..." */
static void duplicate_gpu_ranks(const char *text, struct hd_verdict *v)
{
	const char *p = text ? strstr(text, "rank ") : NULL;

	for (int k = 0; p && k < 2; k++) {
		char *end;
		long r = strtol(p + 5, &end, 10);

		if (end != p + 5 && r >= 0 && r < (1 << 22))
			hd_verdict_add_culprit(v, (int)r);
		p = strstr(end, "rank ");
	}
}

/*
 * Which init signal explains the others: NCCL's own WARN names the cause,
 * while "NCCL error in:" on every rank only echoes it as its Last error.
 */
static bool is_echo(const struct hd_signal *sig)
{
	return sig->type == HD_SIGT_NCCL_ERROR ||
	       (sig->text && strstr(sig->text, "NCCL error in:"));
}

static int init_rank(const struct hd_signal *sig)
{
	int r;

	switch (sig->type) {
	case HD_SIGT_DUPLICATE_GPU:
		r = 3;
		break;
	case HD_SIGT_NCCL_ERROR:
		r = 0;
		break;
	case HD_SIGT_SHM:
		r = 2;
		break;
	default:
		r = 1;
		break;
	}
	/* the WARN itself before a rank's echo of it as its Last error */
	return 2 * r + !is_echo(sig);
}

/* Whether sig is a setup failure hd_sig_check_init weighs. */
static bool is_init_candidate(const struct hd_store *s, guint i)
{
	const struct hd_signal *sig = hd_sig_at(s, i);

	if (sig->cat == HD_SIG_INIT || sig->cat == HD_SIG_CONFIG)
		return true;
	/* a CUDA error or a dead proxy while the comm was being set up */
	return (sig->type == HD_SIGT_CUDA_ERROR || sig->type == HD_SIGT_OOM ||
		sig->type == HD_SIGT_PROXY_DIED) &&
	       hd_sig_from_log(s, sig) && hd_sig_failed_in_init(s, i);
}

static const char *init_what(const struct hd_signal *sig)
{
	switch (sig->type) {
	case HD_SIGT_DUPLICATE_GPU:
		return "two ranks on one GPU";
	case HD_SIGT_NCCL_ERROR:
		if (sig->cat == HD_SIG_CONFIG)
			return "configuration error";
		return "NCCL returned an error (its result is in the evidence; the WARN saying why is not in the data)";
	case HD_SIGT_SHM:
		return "/dev/shm too small or full";
	case HD_SIGT_CUDA_ERROR:
	case HD_SIGT_OOM:
		return "a CUDA call failed while the communicator was set up";
	case HD_SIGT_PROXY_DIED:
		return "the local proxy died while the communicator was set up";
	case HD_SIGT_SOCKET:
		return sig->cat == HD_SIG_CONFIG
			       ? "configuration error (network interface, address family or transport)"
			       : "a bootstrap socket could not be bound or connected";
	default:
		return sig->cat == HD_SIG_CONFIG ? "configuration error"
						 : "bootstrap or store failure";
	}
}

/*
 * No WARN says why, but an error unwind runs through bootstrap or init:
 * communicator setup failed with that result, the cause not shown.
 */
static void check_init_unwinds(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	const struct hd_signal *first = NULL;
	g_autofree char *who = NULL;
	struct hd_verdict *v;
	guint n = 0;
	int32_t res;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);

		if (!hd_sig_is_init_unwind(sig) ||
		    hd_signal_nccl_result(sig) == 0)
			continue;
		n++;
		if (!first)
			first = sig;
	}
	if (!first)
		return;
	who = hd_sig_who(first);
	res = hd_signal_nccl_result(first);
	v = hd_verdict_new(
		HD_V_INIT_FAILURE, HD_CONF_LOW,
		"communicator setup failed on %s with NCCL result %d%s: only NCCL's error unwind is in the data, not the WARN that says why",
		who, res,
		res == 2   ? " (system error: a socket or bootstrap call)"
		: res == 1 ? " (CUDA error)"
		: res == 3 ? " (internal error)"
		: res == 6 ? " (remote error)"
			   : "");
	if (first->rank >= 0)
		hd_verdict_add_culprit(v, first->rank);
	v->score = s->ops->len ? HD_SCORE_INIT - 20 : HD_SCORE_INIT;
	hd_sig_cite(s, v, first);
	hd_sig_verdict_end(
		a, v, n, "unwind lines run through setup",
		"nothing: the first WARN of the failing process (NCCL_DEBUG=WARN or INFO) is missing");
}

void hd_sig_check_init(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	struct hd_verdict *v = NULL;
	const struct hd_signal *first = NULL;
	g_autofree char *who = NULL;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);

		if (!is_init_candidate(s, i))
			continue;
		if (!first || init_rank(sig) > init_rank(first) ||
		    (init_rank(sig) == init_rank(first) &&
		     hd_sig_compare_time(s, sig, first) < 0))
			first = sig;
	}
	if (!first) {
		check_init_unwinds(ix, a);
		return;
	}
	if (first->rank >= 0)
		v = hd_verdict_new(HD_V_INIT_FAILURE, HD_CONF_MEDIUM,
				   "communicator setup failed on rank %d: %s",
				   first->rank, init_what(first));
	else if (first->host) {
		who = hd_sig_who(first);
		v = hd_verdict_new(HD_V_INIT_FAILURE, HD_CONF_MEDIUM,
				   "communicator setup failed on %s: %s", who,
				   init_what(first));
	} else
		v = hd_verdict_new(HD_V_INIT_FAILURE, HD_CONF_MEDIUM,
				   "communicator setup failed: %s",
				   init_what(first));
	if (first->type == HD_SIGT_DUPLICATE_GPU) {
		duplicate_gpu_ranks(first->text, v);
		v->confidence = HD_CONF_HIGH;
	}
	if (v->culprits->len == 0 && first->rank >= 0)
		hd_verdict_add_culprit(v, first->rank);
	/* Setup errors after collectives ran are less likely the cause. */
	v->score = s->ops->len ? HD_SCORE_INIT - 20 : HD_SCORE_INIT;
	hd_sig_cite(s, v, first);
	for (guint i = 0;
	     i < s->signals->len && v->evidence->len < HD_SIG_MAX_EVIDENCE;
	     i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);

		if (sig != first && is_init_candidate(s, i))
			hd_sig_cite(s, v, sig);
	}
	g_ptr_array_add(a->verdicts, v);
}
