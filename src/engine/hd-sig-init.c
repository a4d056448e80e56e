/*
 * Communicator setup failures: the WARN that names the cause (two ranks
 * on one GPU, /dev/shm, a bootstrap socket, configuration, a CUDA driver
 * NCCL could not load) over the "NCCL error in:" lines that echo it;
 * without one, an error unwind through init or bootstrap, at low
 * confidence.  A WARN of the failing process that names no cause is
 * still cited, and the verdict then never says the WARN is missing.
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

/*
 * A duplicate GPU explains the others, then /dev/shm, then the other
 * setup errors, then a CUDA driver NCCL could not load (NCCL may go on
 * without the libcuda it loads itself, so another setup error is the one
 * that stopped it), then "NCCL error in:" echoes.
 */
static int init_rank(const struct hd_signal *sig)
{
	int r;

	switch (sig->type) {
	case HD_SIGT_DUPLICATE_GPU:
		r = 4;
		break;
	case HD_SIGT_NCCL_ERROR:
		r = 0;
		break;
	case HD_SIGT_CUDA_DRIVER:
		r = 1;
		break;
	case HD_SIGT_SHM:
		r = 3;
		break;
	default:
		r = 2;
		break;
	}
	/* the WARN itself before a rank's echo of it as its Last error */
	return 2 * r + !is_echo(sig);
}

/* What the init check reads beyond the store. */
struct init_scan {
	const struct hd_store *s;
	struct hd_index *ix;
	GHashTable *ran_ops; /* ranks with ops; built on first use */
};

/* Whether rank has ops in the index: its communicators were set up. */
static bool ran_ops(struct init_scan *c, int rank)
{
	struct hd_lane_iter it;
	const struct hd_lane *lane;

	if (rank < 0)
		return false;
	if (!c->ran_ops) {
		c->ran_ops = g_hash_table_new(NULL, NULL);
		hd_lane_iter_init(&it, c->ix);
		while ((lane = hd_lane_iter_next(&it)))
			if (lane->n && lane->rank >= 0)
				g_hash_table_add(c->ran_ops,
						 GINT_TO_POINTER(lane->rank));
	}
	return g_hash_table_contains(c->ran_ops, GINT_TO_POINTER(rank));
}

/* One process as far as x and y tell: one rank, else one host and pid. */
static bool one_process(const struct hd_signal *x, const struct hd_signal *y)
{
	if (x->rank >= 0 && y->rank >= 0)
		return x->rank == y->rank;
	return hd_sig_same_process(x, y);
}

/* Whether sig is a setup failure hd_sig_check_init weighs. */
static bool is_init_candidate(struct init_scan *c, guint i)
{
	const struct hd_signal *sig = hd_sig_at(c->s, i);

	if (sig->cat == HD_SIG_INIT || sig->cat == HD_SIG_CONFIG)
		return true;
	/* a driver NCCL could not load, unless its rank ran collectives
	   after all (NCCL went on without it) */
	if (sig->type == HD_SIGT_CUDA_DRIVER)
		return hd_sig_from_log(c->s, sig) && !ran_ops(c, sig->rank);
	/* a CUDA error or a dead proxy while the comm was being set up */
	return (sig->type == HD_SIGT_CUDA_ERROR || sig->type == HD_SIGT_OOM ||
		sig->type == HD_SIGT_PROXY_DIED) &&
	       hd_sig_from_log(c->s, sig) && hd_sig_failed_in_init(c->s, i);
}

/*
 * Whether the process of signal i shows a failure after it: an error
 * unwind, an "NCCL error in:" echo, a CUDA error.
 */
static bool failure_follows(const struct hd_store *s, guint i)
{
	const struct hd_signal *sig = hd_sig_at(s, i);

	for (guint k = i + 1; k < s->signals->len; k++) {
		const struct hd_signal *u = hd_sig_at(s, k);

		if (!one_process(sig, u) || !hd_sig_from_log(s, u))
			continue;
		if ((u->type == HD_SIGT_UNWIND && hd_signal_nccl_result(u)) ||
		    is_echo(u) || u->type == HD_SIGT_CUDA_ERROR ||
		    u->type == HD_SIGT_OOM)
			return true;
	}
	return false;
}

/*
 * The first WARN of fail's process, whatever it says (NULL when it
 * printed none): an echo or an unwind only repeats a result, the WARN
 * is NCCL's own word on why.
 */
static const struct hd_signal *process_warn(const struct hd_store *s,
					    const struct hd_signal *fail)
{
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);

		if (sig == fail || !sig->text || !one_process(sig, fail) ||
		    !hd_sig_from_log(s, sig) || is_echo(sig) ||
		    sig->type == HD_SIGT_UNWIND || !hd_signal_is_trouble(sig))
			continue;
		if (strstr(sig->text, "WARN"))
			return sig;
	}
	return NULL;
}

static const char *init_what(const struct hd_signal *sig,
			     const struct hd_signal *warn)
{
	switch (sig->type) {
	case HD_SIGT_DUPLICATE_GPU:
		return "two ranks on one GPU";
	case HD_SIGT_NCCL_ERROR:
		if (sig->cat == HD_SIG_CONFIG)
			return "configuration error";
		if (warn)
			return "NCCL returned an error after a WARN of that process (both are in the evidence, the WARN first)";
		return "NCCL returned an error (its result is in the evidence; the WARN saying why is not in the data)";
	case HD_SIGT_CUDA_DRIVER:
		return "NCCL could not load or use the CUDA driver (libcuda missing or a stub, older than the CUDA runtime, or not initialised)";
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
 * No WARN names a cause, but an error unwind runs through bootstrap or
 * init: communicator setup failed with that result.  A WARN of the
 * failing process that names no cause hangdoc knows is cited first;
 * without one, the verdict says the WARN is missing.
 */
static void check_init_unwinds(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	const struct hd_signal *first = NULL, *warn;
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
	warn = process_warn(s, first);
	who = hd_sig_who(first);
	res = hd_signal_nccl_result(first);
	v = hd_verdict_new(
		HD_V_INIT_FAILURE, HD_CONF_LOW,
		"communicator setup failed on %s with NCCL result %d%s: %s",
		who, res,
		res == 2   ? " (system error: a socket or bootstrap call)"
		: res == 1 ? " (CUDA error)"
		: res == 3 ? " (internal error)"
		: res == 6 ? " (remote error)"
			   : "",
		warn ? "the WARN of that process is in the evidence, first, and names no cause hangdoc knows"
		     : "only NCCL's error unwind is in the data, not the WARN that says why");
	if (first->rank >= 0)
		hd_verdict_add_culprit(v, first->rank);
	v->score = s->ops->len ? HD_SCORE_INIT - 20 : HD_SCORE_INIT;
	if (warn)
		hd_sig_cite(s, v, warn);
	hd_sig_cite(s, v, first);
	hd_sig_verdict_end(
		a, v, n, "unwind lines run through setup",
		warn ? "nothing: the WARN cited first is the process's own word on why; hangdoc has no rule for it"
		     : "nothing: the first WARN of the failing process (NCCL_DEBUG=WARN or INFO) is missing");
}

void hd_sig_check_init(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	struct init_scan c = { .s = s, .ix = ix };
	struct hd_verdict *v = NULL;
	const struct hd_signal *first = NULL, *warn = NULL;
	g_autofree char *who = NULL;
	guint at = 0;
	bool unsure;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);

		if (!is_init_candidate(&c, i))
			continue;
		if (!first || init_rank(sig) > init_rank(first) ||
		    (init_rank(sig) == init_rank(first) &&
		     hd_sig_compare_time(s, sig, first) < 0)) {
			first = sig;
			at = i;
		}
	}
	if (!first) {
		g_clear_pointer(&c.ran_ops, g_hash_table_unref);
		check_init_unwinds(ix, a);
		return;
	}
	if (is_echo(first))
		warn = process_warn(s, first);
	/* a driver NCCL could not load, and nothing failing after it (an
	   echo whose Last error names the driver is that failure) */
	unsure = first->type == HD_SIGT_CUDA_DRIVER && !is_echo(first) &&
		 !failure_follows(s, at);
	if (first->rank >= 0)
		who = g_strdup_printf("rank %d", first->rank);
	else if (first->host)
		who = hd_sig_who(first);
	if (unsure)
		v = hd_verdict_new(
			HD_V_INIT_FAILURE, HD_CONF_LOW,
			"%s%s%s; no failure of that process follows in the data, so whether communicator setup stopped there is not shown",
			init_what(first, NULL), who ? " on " : "",
			who ? who : "");
	else if (who)
		v = hd_verdict_new(HD_V_INIT_FAILURE, HD_CONF_MEDIUM,
				   "communicator setup failed on %s: %s", who,
				   init_what(first, warn));
	else
		v = hd_verdict_new(HD_V_INIT_FAILURE, HD_CONF_MEDIUM,
				   "communicator setup failed: %s",
				   init_what(first, warn));
	if (first->type == HD_SIGT_DUPLICATE_GPU) {
		duplicate_gpu_ranks(first->text, v);
		v->confidence = HD_CONF_HIGH;
	}
	if (v->culprits->len == 0 && first->rank >= 0)
		hd_verdict_add_culprit(v, first->rank);
	/* Setup errors after collectives ran are less likely the cause. */
	v->score = s->ops->len ? HD_SCORE_INIT - 20 : HD_SCORE_INIT;
	if (warn)
		hd_sig_cite(s, v, warn);
	hd_sig_cite(s, v, first);
	for (guint i = 0;
	     i < s->signals->len && v->evidence->len < HD_SIG_MAX_EVIDENCE;
	     i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);

		if (sig != first && sig != warn && is_init_candidate(&c, i))
			hd_sig_cite(s, v, sig);
	}
	g_clear_pointer(&c.ran_ops, g_hash_table_unref);
	g_ptr_array_add(a->verdicts, v);
}
