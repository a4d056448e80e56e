/*
 * Crashed ranks: who failed first (a CUDA error, OOM, a dead proxy, an
 * exception, a fatal signal, a nonzero exit) while the others wait.  The
 * SIGABRT a watchdog sends its own process, the agent's SIGTERM, an exit
 * that only echoes an error the log shows, and torchrun's "Root Cause"
 * (just the earliest exit) never pick a culprit.
 */
#include "config.h"

#include <string.h>

#include "hd-const.h"
#include "hd-sig-util.h"
#include "hd-sort.h"
#include "hd-banned.h"

/* Did this rank's watchdog time out (so its abort is a consequence)? */
static bool rank_timed_out(const struct hd_store *s, int rank)
{
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);

		if (sig->rank == rank && sig->type == HD_SIGT_WATCHDOG_TIMEOUT)
			return true;
	}
	return false;
}

/*
 * Whether the log holds an error that makes a Python process exit with
 * code 1 (c10d, issue 11): a ProcessGroupWrapper mismatch, an "NCCL
 * error in:" or a setup failure; that exit is then its echo.
 */
static bool has_explained_exit(const struct hd_store *s)
{
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);

		if (sig->type == HD_SIGT_COLL_MISMATCH ||
		    sig->type == HD_SIGT_NCCL_ERROR ||
		    sig->type == HD_SIGT_DUPLICATE_GPU ||
		    sig->cat == HD_SIG_INIT || sig->cat == HD_SIG_CONFIG)
			return true;
	}
	return false;
}

/* A failure that starts trouble, rather than one that follows it. */
static bool is_crash_cause(const struct hd_store *s,
			   const struct hd_signal *sig)
{
	switch (sig->type) {
	case HD_SIGT_CUDA_ERROR:
	case HD_SIGT_OOM:
	case HD_SIGT_PROXY_DIED:
		return true;
	case HD_SIGT_TRACEBACK:
		/* An exception raised by the watchdog or NCCL is a consequence. */
		return !(sig->text && (strstr(sig->text, "DistBackendError") ||
				       strstr(sig->text, "NCCL") ||
				       strstr(sig->text, "Watchdog") ||
				       strstr(sig->text, "timed out") ||
				       strstr(sig->text, "DistNetworkError")));
	case HD_SIGT_FATAL_SIGNAL:
		/* SIGABRT after a timeout is the watchdog's own abort */
		return !(sig->code == 6 && rank_timed_out(s, sig->rank));
	case HD_SIGT_PROCESS_EXIT:
		/* -6 after a timeout is the watchdog's own abort; -15 the agent's. */
		if (sig->code == -15)
			return false;
		/* exit 1 is the exception of an error the log shows itself */
		if (sig->code == 1 && has_explained_exit(s))
			return false;
		if (sig->code == -6 && rank_timed_out(s, sig->rank))
			return false;
		return sig->code != 0;
	default:
		return false;
	}
}

/* The name of a fatal signal's number, Linux numbering. */
static const char *signal_name(int signo)
{
	switch (signo) {
	case 4:
		return "SIGILL";
	case 6:
		return "SIGABRT";
	case 7:
		return "SIGBUS";
	case 8:
		return "SIGFPE";
	case 9:
		return "SIGKILL";
	case 11:
		return "SIGSEGV";
	default:
		return "signal";
	}
}

/* Whether a frame is NCCL's: its function or its library. */
static bool frame_is_nccl(const struct hd_frame *f)
{
	return (f->name && (g_str_has_prefix(f->name, "nccl") ||
			    g_str_has_prefix(f->name, "rccl"))) ||
	       (f->file &&
		(strstr(f->file, "libnccl") || strstr(f->file, "librccl")));
}

/* The innermost NCCL frame of a fatal signal's stack, or NULL. */
static const struct hd_frame *nccl_frame(const struct hd_store *s,
					 const struct hd_signal *sig)
{
	size_t n = 0;
	const struct hd_frame *f = hd_store_stack(s, sig->stack, &n);

	for (size_t i = 0; i < n; i++)
		if (frame_is_nccl(&f[i]) && f[i].name &&
		    strcmp(f[i].name, "???") != 0)
			return &f[i];
	for (size_t i = 0; i < n; i++)
		if (frame_is_nccl(&f[i]))
			return &f[i];
	return NULL;
}

/* "fatal signal 7 (SIGBUS) inside NCCL (ncclGroupEnd)".  (transfer full) */
static char *fatal_what(const struct hd_store *s, const struct hd_signal *sig)
{
	const struct hd_frame *f = nccl_frame(s, sig);

	if (f)
		return g_strdup_printf("fatal signal %d (%s) inside NCCL (%s)",
				       sig->code, signal_name(sig->code),
				       f->name ? f->name : "libnccl");
	return g_strdup_printf("fatal signal %d (%s)", sig->code,
			       signal_name(sig->code));
}

/*
 * A fatal signal's frames as evidence, and what an NCCL frame on the
 * crashing stack says: the crash is inside NCCL, not the training code;
 * SIGBUS there is a mapped shared-memory segment with no memory behind it.
 */
static void fatal_evidence(const struct hd_store *s, struct hd_verdict *v,
			   const struct hd_signal *sig)
{
	size_t n = 0;
	const struct hd_frame *f;
	GString *t;

	if (sig->type != HD_SIGT_FATAL_SIGNAL)
		return;
	f = hd_store_stack(s, sig->stack, &n);
	if (n) {
		t = g_string_new("crashing stack, innermost first: ");
		for (size_t i = 0; i < n && i < 6; i++) {
			g_string_append_printf(t, "%s%s", i ? " <- " : "",
					       f[i].name ? f[i].name : "?");
			if (f[i].file && f[i].line > 0)
				g_string_append_printf(t, " (%s:%d)", f[i].file,
						       f[i].line);
		}
		if (n > 6)
			g_string_append_printf(t, " <- %zu more", n - 6);
		hd_verdict_add_evidence(v, sig->rank, NULL, "%s", t->str);
		g_string_free(t, TRUE);
	}
	if (!nccl_frame(s, sig))
		return;
	if (sig->code == 7)
		hd_verdict_add_evidence(
			v, sig->rank, NULL,
			"SIGBUS inside NCCL: a shared-memory segment NCCL mapped (/dev/shm, its setup of the SHM transport or proxy) has no memory behind it; /dev/shm is too small or full (a container's default is 64 MB)");
	else
		hd_verdict_add_evidence(
			v, sig->rank, NULL,
			"an NCCL function is on the crashing stack: NCCL itself (its setup, proxy or transport) failed, not the training code");
}

void hd_sig_check_crashes(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	const struct hd_signal *first = NULL;
	g_autoptr(GArray) crashed = g_array_new(FALSE, FALSE, sizeof(int));
	guint timeouts = 0, closed_naming = 0, rankless = 0;
	struct hd_verdict *v;
	bool timed = true, tie = false;
	g_autoptr(GPtrArray) cands = g_ptr_array_new();
	g_autoptr(GPtrArray) firsts = NULL;
	g_autofree char *what = NULL;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);

		if (sig->type == HD_SIGT_WATCHDOG_TIMEOUT)
			timeouts++;
		if (!is_crash_cause(s, sig))
			continue;
		/* A failure in communicator setup is hd_sig_check_init's. */
		if (hd_sig_from_log(s, sig) &&
		    sig->type != HD_SIGT_PROCESS_EXIT &&
		    sig->type != HD_SIGT_FATAL_SIGNAL &&
		    hd_sig_failed_in_init(s, i))
			continue;
		/*
		 * Without a rank only NCCL's own failures (CUDA, its proxy)
		 * say enough; an exit or exception could be anyone's.
		 */
		if (sig->rank < 0 && sig->type != HD_SIGT_CUDA_ERROR &&
		    sig->type != HD_SIGT_OOM &&
		    sig->type != HD_SIGT_PROXY_DIED &&
		    sig->type != HD_SIGT_FATAL_SIGNAL)
			continue;
		if (sig->rank >= 0)
			g_array_append_val(crashed, sig->rank);
		else
			rankless++;
		if (!hd_time_known(sig->time))
			timed = false;
		if (!first)
			first = sig;
		g_ptr_array_add(cands, hd_unconst(sig));
	}
	hd_sig_int_set_unique(crashed);
	if (!first)
		return;
	firsts = hd_sig_first_timed(cands, &tie);
	if (firsts)
		first = g_ptr_array_index(firsts, 0);
	/* Peers that saw a connection closed by the crashed rank's host. */
	if (first->host) {
		for (guint i = 0; i < s->signals->len; i++) {
			const struct hd_signal *sig = hd_sig_at(s, i);
			g_autofree char *h = NULL;

			if (sig->type != HD_SIGT_PEER_CLOSED || !sig->peer)
				continue;
			h = hd_sig_peer_host(sig->peer);
			if (strcmp(h, first->host) == 0)
				closed_naming++;
		}
	}
	g_array_sort(crashed, hd_compare_int);
	if (tie) {
		bool rl;
		g_autoptr(GArray) tied = hd_sig_ranks(firsts, &rl);
		g_autofree char *ct = hd_ranks_text(tied, 8);

		v = hd_verdict_new(
			HD_V_RANK_CRASHED, HD_CONF_LOW,
			"ranks %s%s failed, and which failed first cannot be told: %s",
			tied->len ? ct : "?",
			rl ? " and processes of unknown rank" : "",
			hd_sig_tie_reason(firsts));
		for (guint i = 0; i < tied->len; i++)
			hd_verdict_add_culprit(v, g_array_index(tied, int, i));
		v->score = HD_SCORE_CRASH;
		for (guint i = 0;
		     i < firsts->len && v->evidence->len < HD_SIG_MAX_EVIDENCE;
		     i++)
			hd_sig_cite(s, v, g_ptr_array_index(firsts, i));
		for (guint i = 0; i < s->signals->len &&
				  v->evidence->len < HD_SIG_MAX_EVIDENCE;
		     i++) {
			const struct hd_signal *sig = hd_sig_at(s, i);

			if (sig->rank >= 0 && is_crash_cause(s, sig) &&
			    !g_ptr_array_find(firsts, sig, NULL))
				hd_sig_cite(s, v, sig);
		}
		if (timeouts)
			hd_verdict_add_evidence(
				v, -1, NULL,
				"%u watchdog timeout%s on other ranks follow%s",
				timeouts, timeouts == 1 ? "" : "s",
				timeouts == 1 ? "s" : "");
		hd_verdict_add_ruled_out(
			v,
			"nothing: the first failure is among these; times on one clock would tell which");
		g_ptr_array_add(a->verdicts, v);
		return;
	}
	if (crashed->len + rankless == 1 || timed) {
		g_autofree char *who =
			first->rank >= 0
				? g_strdup_printf("rank %d", first->rank)
				: hd_sig_who(first);

		v = hd_verdict_new(
			HD_V_RANK_CRASHED,
			first->rank < 0		    ? HD_CONF_LOW
			: timeouts || closed_naming ? HD_CONF_HIGH
						    : HD_CONF_MEDIUM,
			"%s failed first (%s)%s", who,
			first->type == HD_SIGT_OOM ? "CUDA out of memory"
			: first->type == HD_SIGT_CUDA_ERROR   ? "CUDA error"
			: first->type == HD_SIGT_PROCESS_EXIT ? "process exited"
			: first->type == HD_SIGT_PROXY_DIED
				? "its NCCL proxy thread died"
			: first->type == HD_SIGT_FATAL_SIGNAL
				? (what = fatal_what(s, first))
				: "exception",
			timeouts
				? "; the other ranks then timed out waiting for it"
				: "");
		if (first->rank >= 0)
			hd_verdict_add_culprit(v, first->rank);
	} else {
		g_autofree char *ct = hd_ranks_text(crashed, 8);

		v = hd_verdict_new(
			HD_V_RANK_CRASHED, HD_CONF_LOW,
			"ranks %s%s failed, and without timestamps which failed first cannot be told",
			ct, rankless ? " and processes of unknown rank" : "");
		for (guint i = 0; i < crashed->len; i++)
			hd_verdict_add_culprit(v,
					       g_array_index(crashed, int, i));
	}
	v->score = HD_SCORE_CRASH;
	hd_sig_cite(s, v, first);
	fatal_evidence(s, v, first);
	for (guint i = 0;
	     i < s->signals->len && v->evidence->len < HD_SIG_MAX_EVIDENCE;
	     i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);

		if (sig != first && sig->rank >= 0 && is_crash_cause(s, sig))
			hd_sig_cite(s, v, sig);
	}
	if (timeouts)
		hd_verdict_add_evidence(
			v, -1, NULL,
			"%u watchdog timeout%s on other ranks follow%s",
			timeouts, timeouts == 1 ? "" : "s",
			timeouts == 1 ? "s" : "");
	if (closed_naming)
		hd_verdict_add_evidence(
			v, -1, NULL,
			"%u peers saw their connection closed by %s",
			closed_naming, first->host);
	hd_verdict_add_ruled_out(
		v,
		"SIGABRT from a rank's own watchdog and SIGTERM from the agent: consequences, not causes");
	hd_verdict_add_ruled_out(
		v,
		"torchrun's \"Root Cause\": it only names the earliest exit, to the second");
	g_ptr_array_add(a->verdicts, v);
}
