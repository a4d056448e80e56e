/*
 * What the signal checks share (hd-signals.c, hd-sig-*.c, hd-c10d.c):
 * citing a signal as capped evidence, ordering signals in time on clocks
 * that compare, naming who a signal comes from, and telling a failure in
 * communicator setup.  Docs in hd-sig-util.h.
 */
#include "config.h"

#include <string.h>

#include "hd-const.h"
#include "hd-sig-util.h"
#include "hd-sort.h"
#include "hd-banned.h"

bool hd_sig_cite_upto(const struct hd_store *s, struct hd_verdict *v,
		      const struct hd_signal *sig, guint max)
{
	g_autofree char *src = NULL;
	const char *text = sig->text ? sig->text : hd_signal_cat_name(sig->cat);

	if (v->evidence->len >= max)
		return false;
	src = hd_prov_format(s, &sig->prov);
	hd_verdict_add_evidence(v, sig->rank,
				sig->prov.kind != HD_PROV_NONE ? src : NULL,
				"%s", text);
	return true;
}

bool hd_sig_cite(const struct hd_store *s, struct hd_verdict *v,
		 const struct hd_signal *sig)
{
	return hd_sig_cite_upto(s, v, sig, HD_SIG_MAX_EVIDENCE);
}

/*
 * Drops the repeats of set, keeping each int's first place: one pass
 * with a hash of those seen, so adding n ranks costs n, never n^2 (an
 * input can name a hundred thousand ranks).
 */
void hd_sig_verdict_end(struct hd_analysis *a, struct hd_verdict *v, guint n,
			const char *what, const char *ruled_out)
{
	if (n > 1)
		hd_verdict_add_evidence(v, -1, NULL, "%u %s", n, what);
	hd_verdict_add_ruled_out(v, "%s", ruled_out);
	g_ptr_array_add(a->verdicts, v);
}

void hd_sig_int_set_unique(GArray *set)
{
	g_autoptr(GHashTable) seen = g_hash_table_new(NULL, NULL);
	guint out = 0;

	for (guint i = 0; i < set->len; i++) {
		int v = g_array_index(set, int, i);

		if (g_hash_table_add(seen, GINT_TO_POINTER(v)))
			g_array_index(set, int, out++) = v;
	}
	g_array_set_size(set, out);
}

void hd_sig_cands_init(struct hd_sig_cands *c)
{
	c->sigs = g_ptr_array_new();
	c->ranks = g_array_new(FALSE, FALSE, sizeof(int));
	c->rankless = 0;
	c->untimed = false;
}

void hd_sig_cands_clear(struct hd_sig_cands *c)
{
	g_clear_pointer(&c->sigs, g_ptr_array_unref);
	g_clear_pointer(&c->ranks, g_array_unref);
}

void hd_sig_cands_add(struct hd_sig_cands *c, const struct hd_signal *sig)
{
	if (sig->rank >= 0)
		g_array_append_val(c->ranks, sig->rank);
	else
		c->rankless++;
	if (!hd_time_known(sig->time))
		c->untimed = true;
	g_ptr_array_add(c->sigs, hd_unconst(sig));
}

const struct hd_signal *hd_sig_cands_first(const struct hd_store *s,
					   struct hd_sig_cands *c,
					   GPtrArray **firsts, bool *tie)
{
	hd_sig_int_set_unique(c->ranks);
	*firsts = NULL;
	*tie = false;
	if (!c->sigs->len)
		return NULL;
	*firsts = hd_sig_first_timed(s, c->sigs, tie);
	return *firsts ? g_ptr_array_index(*firsts, 0)
		       : g_ptr_array_index(c->sigs, 0);
}

bool hd_signal_is_trouble(const struct hd_signal *sig)
{
	switch (sig->cat) {
	case HD_SIG_PROGRESS:
	case HD_SIG_INFO:
		return false;
	default:
		break;
	}
	if (sig->type == HD_SIGT_PROCESS_EXIT && hd_signal_exit_code(sig) == 0)
		return false;
	if (sig->type == HD_SIGT_DUMP)
		return false;
	return true;
}

/*
 * Where signal x is against y in time: compared only on clocks that can
 * be (hd_time_comparable()), and across hosts only beyond HD_TIME_SKEW_NS,
 * the clock skew hosts of a healthy job may have; closer is HD_ORDER_SAME.
 */
/* A local wall clock: its zone is the host's. */
static bool local_clock(struct hd_time t)
{
	return t.clock == HD_CLOCK_LOCAL || t.clock == HD_CLOCK_MONTH_DAY;
}

const char *hd_sig_host(const struct hd_store *s, const struct hd_signal *sig)
{
	const struct hd_rank *r;

	if (sig->host || sig->rank < 0)
		return sig->host;
	r = hd_store_find_rank(s, sig->rank);
	return r ? r->host : NULL;
}

/* Whether x and y are known to come from two different hosts. */
static bool other_hosts(const struct hd_store *s, const struct hd_signal *x,
			const struct hd_signal *y)
{
	const char *a = hd_sig_host(s, x), *b = hd_sig_host(s, y);

	return a && b && strcmp(a, b) != 0;
}

enum hd_order hd_sig_order(const struct hd_store *s, const struct hd_signal *x,
			   const struct hd_signal *y)
{
	enum hd_time_scope scope =
		x->prov.input == y->prov.input ? HD_SCOPE_INPUT
		: x->host && y->host && strcmp(x->host, y->host) == 0
			? HD_SCOPE_HOST
			: HD_SCOPE_APART;

	/*
	 * Hosts in different zones: their local times are no order, in
	 * one file too (two hosts' logs concatenated keep their clocks).
	 */
	if (s->local_zones_apart && local_clock(x->time) &&
	    (scope == HD_SCOPE_APART || other_hosts(s, x, y)))
		return HD_ORDER_UNKNOWN;

	/* two hosts' clocks may be skewed, in one file too */
	return hd_time_order(x->time, y->time, scope,
			     scope == HD_SCOPE_APART || other_hosts(s, x, y)
				     ? HD_TIME_SKEW_NS
				     : 0);
}

/*
 * -1 when x is known to come before y, or has a time and y none (a signal
 * without a time is placed after those with one); else 0 (keep the one
 * read first).
 */
int hd_sig_compare_time(const struct hd_store *s, const struct hd_signal *x,
			const struct hd_signal *y)
{
	if (hd_time_known(x->time) && !hd_time_known(y->time))
		return -1;
	return hd_sig_order(s, x, y) == HD_ORDER_BEFORE ? -1 : 0;
}

/*
 * Of the candidates, those no other candidate is known to precede: one
 * when the times order them, several when they tie within the skew or
 * are on clocks that cannot be compared (or have no time).  In input
 * order.  (transfer container)
 */
static GPtrArray *first_signals(const struct hd_store *s,
				const GPtrArray *cands)
{
	/* the earliest of each group of mutually comparable clocks: clock
	   kind, plus the input (or host) for clocks that only compare
	   there */
	g_autoptr(GHashTable) mins =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autoptr(GPtrArray) near = g_ptr_array_new();
	GPtrArray *out = g_ptr_array_new();

	for (int pass = 0; pass < 2; pass++) {
		for (guint i = 0; i < cands->len; i++) {
			const struct hd_signal *x = g_ptr_array_index(cands, i);
			char *key = g_strdup_printf(
				"%d|%u|%s", x->time.clock,
				x->time.clock == HD_CLOCK_TIME_OF_DAY ||
						x->time.clock == HD_CLOCK_TRACE
					? x->prov.input
					: 0,
				(x->time.clock == HD_CLOCK_BOOT ||
				 (s->local_zones_apart &&
				  local_clock(x->time))) &&
						x->host
					? x->host
					: "");
			const struct hd_signal *m =
				g_hash_table_lookup(mins, key);

			if (pass == 0) {
				if (!m || x->time.ns < m->time.ns)
					g_hash_table_replace(mins, key,
							     hd_unconst(x));
				else
					g_free(key);
				continue;
			}
			g_free(key);
			/* nothing earlier than the group's earliest can
			   precede it; only those near it are candidates */
			if (hd_sig_order(s, m, x) != HD_ORDER_BEFORE)
				g_ptr_array_add(near, hd_unconst(x));
		}
	}
	/* the exact test among those (bounded: a tie of hundreds is kept
	   whole) */
	for (guint i = 0; i < near->len; i++) {
		const struct hd_signal *x = g_ptr_array_index(near, i);
		bool preceded = false;

		for (guint j = 0;
		     j < near->len && near->len <= 512 && !preceded; j++)
			preceded = j != i &&
				   hd_sig_order(s, g_ptr_array_index(near, j),
						x) == HD_ORDER_BEFORE;
		if (!preceded)
			g_ptr_array_add(out, hd_unconst(x));
	}
	return out;
}

/*
 * The first of the candidates with a time (first_signals()), and whether
 * they tie across processes; NULL when none has a time (a signal without
 * one is placed after those with one, as it always was).
 */
GPtrArray *hd_sig_first_timed(const struct hd_store *s, const GPtrArray *cands,
			      bool *tie)
{
	g_autoptr(GPtrArray) timed = g_ptr_array_new();
	GPtrArray *firsts;

	*tie = false;
	for (guint i = 0; i < cands->len; i++)
		if (hd_time_known(((const struct hd_signal *)g_ptr_array_index(
					   cands, i))
					  ->time))
			g_ptr_array_add(timed, g_ptr_array_index(cands, i));
	if (!timed->len)
		return NULL;
	firsts = first_signals(s, timed);
	for (guint i = 1; i < firsts->len; i++) {
		const struct hd_signal *x = g_ptr_array_index(firsts, 0);
		const struct hd_signal *y = g_ptr_array_index(firsts, i);

		/* one rank's own failures (its log and its stderr) are
		   no tie; different ranks, or processes, are */
		if (x->rank >= 0 && y->rank >= 0 ? x->rank != y->rank
						 : !hd_sig_same_process(x, y))
			*tie = true;
	}
	return firsts;
}

/*
 * NET/IB's status 5, WR_FLUSH: the queue pair was already in error.  An
 * aws-ofi-nccl completion shares the type, but its "RC: 5" is a provider
 * errno (EIO), a failure of its own.
 */
bool hd_sig_ib_flush(const struct hd_signal *sig)
{
	return sig->type == HD_SIGT_IB_COMPLETION &&
	       hd_signal_ib_status(sig) == 5 &&
	       !(sig->text && strstr(sig->text, "NET/OFI"));
}

/* A WR_FLUSH, or an error unwind, only follows another failure. */
bool hd_sig_net_consequence(const struct hd_signal *sig)
{
	return sig->type == HD_SIGT_UNWIND || hd_sig_ib_flush(sig);
}

/* A host's link state or counters (issue 21): hd-kernel.c reads them. */
bool hd_sig_port_state(const struct hd_signal *sig)
{
	return sig->type == HD_SIGT_LINK_EVENT ||
	       sig->type == HD_SIGT_IB_COUNTERS;
}

bool hd_sig_net_cause(const struct hd_signal *sig)
{
	return sig->cat == HD_SIG_NETWORK && !hd_sig_net_consequence(sig) &&
	       !hd_sig_port_state(sig);
}

GPtrArray *hd_sig_first_timeouts(const struct hd_store *s)
{
	g_autoptr(GPtrArray) timeouts = g_ptr_array_new();
	bool tie;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);

		if (sig->type == HD_SIGT_WATCHDOG_TIMEOUT &&
		    hd_time_known(sig->time))
			g_ptr_array_add(timeouts, hd_unconst(sig));
	}
	return timeouts->len ? hd_sig_first_timed(s, timeouts, &tie) : NULL;
}

/*
 * Why the first signals could not be told apart: they tie within the
 * skew, or some cannot be compared.  (static)
 */
const char *hd_sig_tie_reason(const struct hd_store *s, const GPtrArray *firsts)
{
	/* the first 512 tell (a tie of 100k torchrun exits in one second
	   was 5e9 comparisons for this one phrase) */
	guint n = MIN(firsts->len, 512);

	for (guint i = 0; i < n; i++)
		for (guint j = i + 1; j < n; j++)
			if (hd_sig_order(s, g_ptr_array_index(firsts, i),
					 g_ptr_array_index(firsts, j)) ==
			    HD_ORDER_UNKNOWN)
				return "their times are missing or on clocks that cannot be compared";
	return "their times lie within the clock skew of different hosts (or are equal), which is no order";
}

/* The distinct ranks (>= 0) of signals, ascending, and whether any has none. */
GArray *hd_sig_ranks(const GPtrArray *sigs, bool *rankless)
{
	GArray *r = g_array_new(FALSE, FALSE, sizeof(int));

	*rankless = false;
	for (guint i = 0; i < sigs->len; i++) {
		const struct hd_signal *sig = g_ptr_array_index(sigs, i);

		if (sig->rank >= 0)
			g_array_append_val(r, sig->rank);
		else
			*rankless = true;
	}
	hd_sig_int_set_unique(r);
	g_array_sort(r, hd_compare_int);
	return r;
}

/* Who a signal comes from: its rank, else its process.  (transfer full) */
char *hd_sig_who(const struct hd_signal *sig)
{
	if (sig->rank >= 0)
		return g_strdup_printf(
			"rank %d%s%s%s", sig->rank, sig->host ? " (" : "",
			sig->host ? sig->host : "", sig->host ? ")" : "");
	if (sig->host && sig->pid > 0)
		return g_strdup_printf("process %s:%d (rank unknown)",
				       sig->host, sig->pid);
	if (sig->host)
		return g_strdup_printf("host %s (rank unknown)", sig->host);
	if (sig->pid > 0)
		return g_strdup_printf("process %d (host and rank not shown)",
				       sig->pid);
	return g_strdup(
		"a process whose host and rank the excerpt does not show");
}

/* Whether two signals come from one process as far as they tell. */
bool hd_sig_same_process(const struct hd_signal *x, const struct hd_signal *y)
{
	if (x->prov.input != y->prov.input && !(x->host && y->host))
		return false;
	if (x->host && y->host)
		return strcmp(x->host, y->host) == 0 && x->pid == y->pid;
	return !x->host && !y->host;
}

char *hd_sig_pid_ranks(const struct hd_store *s, int32_t pid, const char *host,
		       char **hosts)
{
	g_autoptr(GArray) with = g_array_new(FALSE, FALSE, sizeof(int));
	g_autoptr(GPtrArray) seen = g_ptr_array_new();
	GString *out;
	GHashTableIter it;
	gpointer k, v;
	guint shown = 0;

	if (hosts)
		*hosts = NULL;
	if (pid <= 0)
		return NULL;
	g_hash_table_iter_init(&it, s->ranks);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		const struct hd_rank *r = v;

		if (r->pid == pid &&
		    (!host || (r->host && strcmp(r->host, host) == 0)))
			g_array_append_val(with, r->rank);
	}
	if (with->len < 2)
		return NULL;
	g_array_sort(with, hd_compare_int);
	out = g_string_new(NULL);
	for (guint i = 0; i < with->len; i++) {
		int rank = g_array_index(with, int, i);
		const struct hd_rank *r = hd_store_find_rank(s, rank);

		if (r && r->host && seen->len < 8 &&
		    !g_ptr_array_find_with_equal_func(seen, r->host,
						      g_str_equal, NULL))
			g_ptr_array_add(seen, (gpointer)hd_unconst(r->host));
		if (shown == 8)
			continue;
		if (i)
			g_string_append(out,
					i + 1 == with->len ? " or " : ", ");
		g_string_append_printf(out, "rank %d", rank);
		shown++;
	}
	if (shown < with->len)
		g_string_append_printf(out, " or %u more ranks",
				       with->len - shown);
	if (hosts && seen->len > 1) {
		GString *h = g_string_new(NULL);

		for (guint i = 0; i < seen->len; i++)
			g_string_append_printf(
				h, "%s%s",
				i == 0		     ? ""
				: i + 1 == seen->len ? " and "
						     : ", ",
				(const char *)g_ptr_array_index(seen, i));
		*hosts = g_string_free(h, FALSE);
	}
	return g_string_free(out, FALSE);
}

char *hd_sig_unjoined_note(const struct hd_store *s, const char *what,
			   const struct hd_signal *sig)
{
	g_autofree char *hosts = NULL;
	g_autofree char *who = hd_sig_pid_ranks(s, sig->pid, sig->host, &hosts);
	const char *path = hd_store_input(s, sig->prov.input)->path;

	if (who)
		return g_strdup_printf(
			"%s '%s' (pid %d) joins no rank: pid %d is %s%s%s%s, and %s",
			what, path, sig->pid, sig->pid, who,
			hosts ? " (on " : "", hosts ? hosts : "",
			hosts ? ")" : "",
			sig->host ? "they ran on the same host"
				  : "the file names no host");
	return g_strdup_printf(
		"%s '%s' (pid %d) joins no rank: no input names that pid for one rank alone",
		what, path, sig->pid);
}

/* An unwind line through communicator setup (init, bootstrap, group). */
bool hd_sig_is_init_unwind(const struct hd_signal *sig)
{
	const char *t = sig->text;

	if (sig->type != HD_SIGT_UNWIND || !t)
		return false;
	return strstr(t, "init.cc:") || strstr(t, "init.cu:") ||
	       strstr(t, "bootstrap.cc:") || strstr(t, "bootstrap.cu:") ||
	       (strstr(t, "group.cc:") && strstr(t, "[Async thread]"));
}

/*
 * The CUDA errors of a kernel that already ran, by code and by the text
 * both NCCL ("Cuda failure 'an illegal memory access was encountered'")
 * and PyTorch ("CUDA error: misaligned address") print.  Such an error is
 * sticky: the next CUDA call of the process returns it, wherever that
 * call is, so the file of the WARN says nothing of when it happened.
 */
bool hd_sig_driver_call_failed(const struct hd_signal *sig)
{
	return sig->type == HD_SIGT_CUDA_DRIVER && sig->text &&
	       (strstr(sig->text, "Cuda failure") ||
		strstr(sig->text, "CUDA error") ||
		strstr(sig->text, "cudaError"));
}

bool hd_sig_cuda_kernel_fault(const struct hd_signal *sig)
{
	static const int32_t codes[] = { 214, 700, 702, 710, 714,
					 715, 716, 717, 718, 719 };
	static const char *const texts[] = {
		"illegal memory access",      "illegal address",
		"unspecified launch failure", "launch timed out",
		"device-side assert",	      "hardware stack error",
		"illegal instruction",	      "misaligned address",
		"invalid program counter",    "uncorrectable ECC error",
	};

	if (sig->type != HD_SIGT_CUDA_ERROR)
		return false;
	for (size_t k = 0; k < G_N_ELEMENTS(codes); k++)
		if (hd_signal_cuda_code(sig) == codes[k])
			return true;
	for (size_t k = 0; sig->text && k < G_N_ELEMENTS(texts); k++)
		if (strstr(sig->text, texts[k]))
			return true;
	return false;
}

/*
 * Whether the failure at index i happened during communicator setup: its
 * process's error unwind, right after it, runs through init or bootstrap.
 * A kernel fault only surfaced there: what failed ran before.
 */
bool hd_sig_failed_in_init(const struct hd_store *s, guint i)
{
	const struct hd_signal *sig = hd_sig_at(s, i);

	if (hd_sig_cuda_kernel_fault(sig))
		return false;

	for (guint k = i + 1, seen = 0; k < s->signals->len && seen < 32; k++) {
		const struct hd_signal *u = hd_sig_at(s, k);

		if (!hd_sig_same_process(sig, u))
			continue;
		if (u->type != HD_SIGT_UNWIND)
			return false;
		seen++;
		if (hd_sig_is_init_unwind(u))
			return true;
	}
	return false;
}

/* "node-b<41873>" -> "node-b"; an IP stays an IP.  (transfer full) */
char *hd_sig_peer_host(const char *peer)
{
	const char *lt = strchr(peer, '<');
	size_t n = lt ? (size_t)(lt - peer) : strlen(peer);
	char *h = g_strndup(peer, n);
	char *dot;

	g_strstrip(h);
	/* Hostnames are cut at the first '.', as NCCL prints them. */
	if (!g_ascii_isdigit(h[0]) && (dot = strchr(h, '.')))
		*dot = '\0';
	return h;
}

bool hd_sig_outlived(struct hd_index *ix, const struct hd_signal *sig, int rank,
		     struct hd_time *last)
{
	const struct hd_rank *r;

	if (rank < 0 || !hd_time_known(sig->time) ||
	    sig->time.clock >= HD_CLOCK_COUNT)
		return false;
	/* hosts in different zones: a local time is its own host's only */
	r = hd_store_find_rank(ix->store, rank);
	if (ix->store->local_zones_apart && local_clock(sig->time) &&
	    (!sig->host || !r || !r->host || strcmp(sig->host, r->host) != 0))
		return false;
	*last = hd_index_last_active(ix, rank, (enum hd_clock)sig->time.clock);
	return hd_time_order(sig->time, *last, HD_SCOPE_APART,
			     HD_SIG_OUTLIVED_NS) == HD_ORDER_BEFORE;
}
