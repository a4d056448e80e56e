/*
 * Network faults: who saw the first network error, and which peer it
 * names; errors several processes saw first that the times cannot order
 * name each of them.  IB WR_FLUSH errors and error-unwind lines are
 * consequences; alone (or a connection a peer closed) they still show the
 * network failed, at lower confidence.
 */
#include "config.h"

#include <string.h>

#include "hd-const.h"
#include "hd-sig-util.h"
#include "hd-sort.h"
#include "hd-text.h"
#include "hd-banned.h"

/*
 * Ranks on a host, named by its hostname or by the address it bootstrapped
 * on (what IB and socket errors print).  *name receives the hostname of a
 * host found by address, or NULL.
 */
static GArray *ranks_on_host(const struct hd_store *s, const char *host,
			     const char **name)
{
	GArray *out = g_array_new(FALSE, FALSE, sizeof(int));
	GHashTableIter it;
	gpointer k, val;

	if (name)
		*name = NULL;
	g_hash_table_iter_init(&it, s->ranks);
	while (g_hash_table_iter_next(&it, &k, &val)) {
		const struct hd_rank *r = val;

		if (!host)
			continue;
		if (r->host && strcmp(r->host, host) == 0) {
			g_array_append_val(out, r->rank);
		} else if (r->addr && strcmp(r->addr, host) == 0) {
			g_array_append_val(out, r->rank);
			if (name && r->host)
				*name = r->host;
		}
	}
	g_array_sort(out, hd_compare_int);
	return out;
}

/*
 * Where the hang was first detected, for the closes after it: per input,
 * the line of its first watchdog timeout (0 none), and the first
 * timeouts in time over all inputs.
 */
struct hang_seen {
	uint64_t *line; /* by input */
	GPtrArray *firsts; /* const struct hd_signal *, or NULL */
};

static void hang_seen_init(const struct hd_store *s, struct hang_seen *h)
{
	h->line = g_new0(uint64_t, s->inputs->len + 1);
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);
		uint64_t *at;

		if (sig->type != HD_SIGT_WATCHDOG_TIMEOUT ||
		    sig->prov.kind != HD_PROV_LINE ||
		    sig->prov.input >= s->inputs->len)
			continue;
		at = &h->line[sig->prov.input];
		if (!*at || sig->prov.at < *at)
			*at = sig->prov.at;
	}
	h->firsts = hd_sig_first_timeouts(s);
}

static void hang_seen_clear(struct hang_seen *h)
{
	g_free(h->line);
	if (h->firsts)
		g_ptr_array_unref(h->firsts);
}

/*
 * Whether sig came after a watchdog timeout: a later line of the same
 * log, or a time after the first timeout's.  A connection closed then is
 * the timed-out process tearing its comm down (the watchdog aborts it),
 * not what stopped the job.
 */
static bool after_hang_seen(const struct hd_store *s, const struct hang_seen *h,
			    const struct hd_signal *sig)
{
	if (sig->prov.kind == HD_PROV_LINE &&
	    sig->prov.input < s->inputs->len && h->line[sig->prov.input] &&
	    h->line[sig->prov.input] < sig->prov.at)
		return true;
	for (guint i = 0; h->firsts && i < h->firsts->len && i < 8; i++)
		if (hd_sig_order(s, g_ptr_array_index(h->firsts, i), sig) ==
		    HD_ORDER_BEFORE)
			return true;
	return false;
}

/* A close by a process of the same host (NCCL's "closed by localRank N"). */
static bool local_close(const struct hd_signal *sig)
{
	return sig->text && strstr(sig->text, "closed by localRank ");
}

/*
 * No network error that is a cause and no crash: IB flush errors alone
 * (the first failure is on another host, or was not pasted), or a
 * connection a peer closed, still show the network failed; at low
 * confidence, without a culprit rank (a close blames the peer, whose rank
 * NCCL does not print).
 */
void hd_sig_check_network_weak(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	const struct hd_signal *flush = NULL, *closed = NULL;
	g_autofree char *who = NULL;
	struct hd_verdict *v;
	struct hang_seen seen;

	/* only where no network error or crash explains the trouble */
	for (guint i = 0; i < a->verdicts->len; i++) {
		const struct hd_verdict *w = g_ptr_array_index(a->verdicts, i);

		if (w->kind == HD_V_NETWORK_FAULT ||
		    w->kind == HD_V_RANK_CRASHED || w->kind == HD_V_GPU_FAULT)
			return;
	}

	hang_seen_init(s, &seen);
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);

		if (hd_sig_ib_flush(sig) &&
		    (!flush || hd_sig_compare_time(s, sig, flush) < 0))
			flush = sig;
		if (sig->type == HD_SIGT_PEER_CLOSED &&
		    sig->cat != HD_SIG_INFO &&
		    !after_hang_seen(s, &seen, sig) &&
		    (!closed || hd_sig_compare_time(s, sig, closed) < 0))
			closed = sig;
	}
	hang_seen_clear(&seen);
	if (flush) {
		who = hd_sig_who(flush);
		v = hd_verdict_new(
			HD_V_NETWORK_FAULT, HD_CONF_LOW,
			"only IB flush errors (status 5, WR_FLUSH) were seen, first by %s%s%s: the network failed, but the first failure is elsewhere (another host, or not in the excerpt)",
			who, flush->peer ? " with peer " : "",
			flush->peer ? flush->peer : "");
		hd_sig_cite(s, v, flush);
		hd_verdict_add_ruled_out(
			v,
			"nothing: a flush error follows another failure; that failure's WARN (on this host or its peer) is missing");
	} else if (closed && local_close(closed)) {
		/*
		 * "[Service thread] Connection closed by localRank 3": a
		 * process of the same host closed its connection to this
		 * one's proxy mid-run, through no network: it exited or died.
		 * Low, and no culprit: NCCL names it by local rank alone.
		 */
		const char *lr =
			strstr(closed->text, "closed by localRank ") + 20;
		char num[16] = "?";
		size_t k = 0;

		while (k + 1 < sizeof(num) && g_ascii_isdigit(lr[k])) {
			num[k] = lr[k];
			k++;
		}
		if (k)
			num[k] = '\0';
		who = hd_sig_who(closed);
		v = hd_verdict_new(
			HD_V_RANK_CRASHED, HD_CONF_LOW,
			"the process of local rank %s on the host of %s closed its connection to that process's NCCL proxy mid-run: it exited or died (its global rank is not in the data)",
			num, who);
		hd_sig_cite(s, v, closed);
		hd_verdict_add_ruled_out(
			v,
			"the network: a local rank's connection to the proxy "
			"does not cross it");
		v->score = HD_SCORE_LAGGING - 5.0;
		g_ptr_array_add(a->verdicts, v);
		return;
	} else if (closed) {
		/*
		 * The close names the peer, never the reporter: every rank
		 * that talked to a process killed without a word (the OOM
		 * killer's SIGKILL) logs one, the first in file order among
		 * them.  Low, and no culprit: the peer's log or its silence
		 * (missing_rank) says who.
		 */
		who = hd_sig_who(closed);
		v = hd_verdict_new(
			HD_V_NETWORK_FAULT, HD_CONF_LOW,
			"%s saw its connection closed by peer %s: that peer's process died or the link dropped",
			who, closed->peer ? closed->peer : "?");
		hd_sig_cite(s, v, closed);
		hd_verdict_add_ruled_out(
			v,
			"nothing: whether the peer crashed or the link dropped needs the peer's log");
	} else {
		return;
	}
	/*
	 * A close with no culprit ranks below a rank shown missing or
	 * lagging: it is that rank's death seen from the other side.
	 */
	v->score = flush ? HD_SCORE_NETWORK : HD_SCORE_LAGGING - 5.0;
	g_ptr_array_add(a->verdicts, v);
}

/* What net_decide() chose; net_build() states it. */
struct net_decision {
	/*
	 * Network errors first seen by several processes that the times
	 * cannot order (a tie within the skew, or clocks that cannot be
	 * compared): each is named, at low confidence, whichever file was
	 * read first.
	 */
	bool tie;
	enum hd_confidence conf;
	GArray *culprits; /* int: who saw the first error, and its peer */
	const struct hd_signal *first; /* the first error */
	GPtrArray *firsts; /* the tied first errors (tie), or NULL */
	bool rankless; /* tie: some tied processes are of unknown rank */
	char *host; /* the host of first's peer, or NULL */
	GArray *peer_ranks; /* int: the ranks on that host, or NULL */
	int peer_rank; /* first's peer's rank, or -1 */
	const char *peer_name; /* the host of a peer named by address */
	guint same_peer; /* other errors that name the same peer host */
	guint nsig; /* network errors that are causes */
	guint reporters; /* ranks that reported one */
};

static void net_decision_clear(struct net_decision *d)
{
	g_clear_pointer(&d->culprits, g_array_unref);
	g_clear_pointer(&d->firsts, g_ptr_array_unref);
	g_clear_pointer(&d->peer_ranks, g_array_unref);
	g_clear_pointer(&d->host, g_free);
}

/*
 * Chooses the first network error that is a cause (not a consequence, not
 * a host's port state) and the peer it names.  False when there is none;
 * else fills *d (net_decision_clear() it).
 */
static bool net_decide(const struct hd_store *s, struct net_decision *d)
{
	const struct hd_signal *first;
	struct hd_sig_cands c;
	GPtrArray *firsts;
	bool tie;

	hd_sig_cands_init(&c);
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);

		/* a host's port state is hd-kernel.c's (boot clock) */
		if (!hd_sig_net_cause(sig))
			continue;
		hd_sig_cands_add(&c, sig);
	}
	first = hd_sig_cands_first(s, &c, &firsts, &tie);
	if (first)
		*d = (struct net_decision){ .peer_rank = -1,
					    .nsig = c.sigs->len,
					    .reporters = c.ranks->len,
					    .firsts = firsts,
					    .first = first };
	hd_sig_cands_clear(&c);
	if (!first)
		return false;
	if (tie) {
		d->tie = true;
		d->conf = HD_CONF_LOW;
		d->culprits = hd_sig_ranks(d->firsts, &d->rankless);
		return true;
	}
	if (first->peer) {
		d->host = hd_sig_peer_host(first->peer);
		d->peer_ranks = ranks_on_host(s, d->host, &d->peer_name);
		d->peer_rank = first->peer_rank;
		if (d->peer_rank < 0 && d->peer_ranks->len == 1)
			d->peer_rank = g_array_index(d->peer_ranks, int, 0);
		for (guint i = 0; i < s->signals->len; i++) {
			const struct hd_signal *sig = hd_sig_at(s, i);
			g_autofree char *h = NULL;

			if (sig->cat != HD_SIG_NETWORK || !sig->peer ||
			    sig == first || hd_sig_port_state(sig))
				continue;
			h = hd_sig_peer_host(sig->peer);
			if (strcmp(h, d->host) == 0)
				d->same_peer++;
		}
	}
	d->conf =
		d->same_peer > 0 || (hd_time_known(first->time) && d->nsig > 1)
			? HD_CONF_HIGH
			: HD_CONF_MEDIUM;
	d->culprits = g_array_new(FALSE, FALSE, sizeof(int));
	if (first->rank >= 0)
		g_array_append_val(d->culprits, first->rank);
	if (d->peer_rank >= 0)
		g_array_append_val(d->culprits, d->peer_rank);
	return true;
}

/* The verdict of a tie among the first errors.  (transfer full) */
static struct hd_verdict *net_build_tie(const struct hd_store *s,
					const struct net_decision *d)
{
	g_autofree char *rt = hd_ranks_text(d->culprits, 8);
	struct hd_verdict *v = hd_verdict_new(
		HD_V_NETWORK_FAULT, d->conf,
		"ranks %s%s saw network errors, and which came first cannot be told: %s",
		d->culprits->len ? rt : "?",
		d->rankless ? " and processes of unknown rank" : "",
		hd_sig_tie_reason(s, d->firsts));

	for (guint i = 0; i < d->culprits->len; i++)
		hd_verdict_add_culprit(v, g_array_index(d->culprits, int, i));
	v->score = HD_SCORE_NETWORK;
	for (guint i = 0;
	     i < d->firsts->len && v->evidence->len < HD_SIG_MAX_EVIDENCE; i++)
		hd_sig_cite(s, v, g_ptr_array_index(d->firsts, i));
	hd_verdict_add_ruled_out(
		v,
		"nothing: the first failure is among these; their logs' other lines, or times on one clock, would tell which");
	return v;
}

/* " with peer node-b<41873> (node-b, rank 5)", or "".  (transfer full) */
static char *net_peer_text(const struct net_decision *d)
{
	const struct hd_signal *first = d->first;
	const char *on = d->peer_name ? d->peer_name : "";
	const char *sep = d->peer_name ? ", " : "";

	if (first->peer && d->peer_rank >= 0)
		return g_strdup_printf(" with peer %s (%s%srank %d)",
				       first->peer, on, sep, d->peer_rank);
	if (first->peer && d->peer_ranks && d->peer_ranks->len > 1) {
		g_autofree char *pr = hd_ranks_text(d->peer_ranks, 8);

		return g_strdup_printf(" with peer %s (%s%shost of ranks %s)",
				       first->peer, on, sep, pr);
	}
	if (first->peer)
		return g_strdup_printf(" with peer %s", first->peer);
	return g_strdup("");
}

/* The verdict of decision d, with the errors cited.  (transfer full) */
static struct hd_verdict *net_build(const struct hd_store *s,
				    const struct net_decision *d)
{
	const struct hd_signal *first = d->first;
	g_autofree char *who = NULL;
	g_autofree char *peer = NULL;
	struct hd_verdict *v;

	if (d->tie)
		return net_build_tie(s, d);
	who = hd_sig_who(first);
	peer = net_peer_text(d);
	v = hd_verdict_new(HD_V_NETWORK_FAULT, d->conf,
			   "%s saw the first network error%s%s", who, peer,
			   !hd_time_known(first->time) && d->nsig > 1
				   ? " (no timestamps: order unknown)"
				   : "");
	for (guint i = 0; i < d->culprits->len; i++)
		hd_verdict_add_culprit(v, g_array_index(d->culprits, int, i));
	v->score = HD_SCORE_NETWORK;
	hd_sig_cite(s, v, first);
	for (guint i = 0;
	     i < s->signals->len && v->evidence->len < HD_SIG_MAX_EVIDENCE;
	     i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);

		if (sig != first && hd_sig_net_cause(sig))
			hd_sig_cite(s, v, sig);
	}
	if (d->same_peer)
		hd_verdict_add_evidence(
			v, -1, NULL,
			"%u other network error%s the same peer host %s",
			d->same_peer, d->same_peer == 1 ? " names" : "s name",
			d->host);
	if (d->reporters > 1) {
		g_autofree char *n = hd_text_count(d->reporters);

		hd_verdict_add_evidence(v, -1, NULL,
					"%s ranks reported network errors", n);
	}
	hd_verdict_add_ruled_out(
		v,
		"IB WR_FLUSH errors and error-unwind lines: consequences of the first failure");
	return v;
}

void hd_sig_check_network(struct hd_index *ix, struct hd_analysis *a)
{
	struct net_decision d;

	if (!net_decide(ix->store, &d))
		return;
	g_ptr_array_add(a->verdicts, net_build(ix->store, &d));
	net_decision_clear(&d);
}

GArray *hd_ranks_on_peer_host(const struct hd_store *s, const char *host,
			      const char **name)
{
	g_autofree char *h = hd_sig_peer_host(host);

	return ranks_on_host(s, h, name);
}
