/*
 * What the analysis says about itself as a whole (hd-summary.h): the
 * verdict that stands when no check found a fault, the refusal to blame
 * for inconsistent inputs, and the note on job attempts not analyzed.
 * Healthy (no_fault) needs ops that show progress, every input read
 * whole and no trouble signal; trouble no check could attribute is an
 * undecided insufficient_data, never no_fault.  An NCCL WARN is trouble
 * unless it is advice on the environment (HD_SIGT_ADVISORY, from the
 * WARN rules) or its process outlived it (warns_outlived()): both are
 * notes of a no_fault.
 */
#include "config.h"

#include "hd-summary.h"

#include <string.h>

#include "hd-checks.h"
#include "hd-sig-util.h"
#include "hd-sort.h"
#include "hd-banned.h"

/*
 * The ranks all of whose logs hold none of the job attempt analyzed
 * (hd_input.attempt_none), ascending.  (transfer full)
 */
static GArray *ranks_of_other_attempts(const struct hd_store *s)
{
	GArray *out = g_array_new(FALSE, FALSE, sizeof(int));
	GHashTableIter it;
	gpointer value;

	g_hash_table_iter_init(&it, s->ranks);
	while (g_hash_table_iter_next(&it, NULL, &value)) {
		const struct hd_rank *r = value;
		bool none = false, some = false;

		for (guint i = 0; i < r->inputs->len; i++) {
			const struct hd_input *in = hd_store_input(
				s, g_array_index(r->inputs, uint32_t, i));

			if (in->attempt_none)
				none = true;
			else if (in->records)
				some = true;
		}
		if (none && !some)
			g_array_append_val(out, r->rank);
	}
	g_array_sort(out, hd_compare_int);
	return out;
}

/* A process of an input: its ops' completion, for the WARNs it outlived. */
struct proc_done {
	bool all_done; /* every op it recorded there completed */
	bool groups_done; /* and every op of their groups, on every rank */
	uint64_t last_at; /* the line of its last op */
};

static uint64_t proc_key(uint32_t input, int rank)
{
	return (uint64_t)input << 32 | (uint32_t)rank;
}

/* Whether sig is an NCCL WARN no rule classified, read from a log line. */
static bool unclassified_warn(const struct hd_store *s,
			      const struct hd_signal *sig)
{
	return sig->cat == HD_SIG_NCCL_INTERNAL && sig->type == HD_SIGT_OTHER &&
	       sig->rank >= 0 && sig->prov.kind == HD_PROV_LINE &&
	       hd_sig_from_log(s, sig);
}

/*
 * The unclassified NCCL WARNs their process outlived: every op it
 * recorded in that log completed, one of them after the WARN, and so did
 * every op of the groups those ops are in, on every rank.  In an NCCL
 * log a COLL line is completed by a clean Destroy COMPLETE of its comm,
 * which counts only when no WARN that is not advice came after the
 * comm's first op (parsers/nccl-record.c), or by the watchdog's
 * counters; so the WARN was followed by proven completion of its
 * group's ops and a clean end of its process.  A WARN of an error class
 * (an IB completion, a Cuda failure, a socket error ...) is never
 * outlived.  Returns the set of their indices + 1.  (transfer full)
 */
static GHashTable *warns_outlived(const struct hd_store *s)
{
	GHashTable *out = g_hash_table_new(NULL, NULL);
	g_autoptr(GHashTable) procs = NULL;
	g_autofree bool *group_bad = NULL;
	g_autofree struct proc_done *done = NULL;
	g_autofree uint64_t *keys = NULL;
	guint nprocs = 0;

	for (guint i = 0; i < s->signals->len; i++)
		nprocs += unclassified_warn(s, hd_sig_at(s, i));
	if (!nprocs)
		return out;
	/* key -> index + 1 into done */
	procs = g_hash_table_new(g_int64_hash, g_int64_equal);
	done = g_new0(struct proc_done, nprocs);
	keys = g_new0(uint64_t, nprocs);
	nprocs = 0;
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);

		if (!unclassified_warn(s, sig))
			continue;
		keys[nprocs] = proc_key(sig->prov.input, sig->rank);
		if (g_hash_table_contains(procs, &keys[nprocs]))
			continue;
		done[nprocs].all_done = done[nprocs].groups_done = true;
		g_hash_table_insert(procs, &keys[nprocs],
				    GUINT_TO_POINTER(nprocs + 1));
		nprocs++;
	}
	group_bad = g_new0(bool, s->groups->len + 1);
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);

		if (op->state != HD_STATE_COMPLETED &&
		    op->group < s->groups->len)
			group_bad[op->group] = true;
	}
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);
		struct hd_prov prov;
		uint64_t key;
		guint at;
		struct proc_done *d;

		if (hd_op_rank(op) < 0)
			continue;
		key = proc_key(op->input, hd_op_rank(op));
		at = GPOINTER_TO_UINT(g_hash_table_lookup(procs, &key));
		if (!at)
			continue;
		d = &done[at - 1];
		prov = hd_op_prov(s, op);
		if (op->state != HD_STATE_COMPLETED)
			d->all_done = false;
		if (op->group >= s->groups->len || group_bad[op->group])
			d->groups_done = false;
		if (prov.kind == HD_PROV_LINE)
			d->last_at = MAX(d->last_at, prov.at);
	}
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);
		uint64_t key;
		const struct proc_done *d;
		guint at;

		if (!unclassified_warn(s, sig))
			continue;
		key = proc_key(sig->prov.input, sig->rank);
		at = GPOINTER_TO_UINT(g_hash_table_lookup(procs, &key));
		d = &done[at - 1];
		if (d->all_done && d->groups_done && d->last_at > sig->prov.at)
			g_hash_table_add(out, GUINT_TO_POINTER(i + 1));
	}
	return out;
}

/* What a benign WARN of warn_notes() is, and why it is no failure. */
static const char *warn_what(const struct hd_signal *sig, bool advice)
{
	return advice && hd_signal_advice(sig) == HD_ADVICE_EXIT
		       ? "a CUDA error"
		       : "an NCCL WARN";
}

static const char *warn_why(const struct hd_signal *sig, bool advice)
{
	if (!advice)
		return "no known kind that its process outlived (every op of its groups completed after it)";
	switch (hd_signal_advice(sig)) {
	case HD_ADVICE_PORT_EVENT:
		return "an event of an IB port that works";
	case HD_ADVICE_EXIT:
		return "the CUDA runtime unloading as its process exits";
	default:
		return "advice on its environment";
	}
}

/* Whether signal i is trouble: an error, a timeout, a crash ... */
static bool summary_trouble(const struct hd_store *s, GHashTable *outlived,
			    guint i)
{
	return hd_signal_is_trouble(hd_sig_at(s, i)) &&
	       !g_hash_table_contains(outlived, GUINT_TO_POINTER(i + 1));
}

#define MAX_WARN_NOTES 5

/*
 * A healthy run's WARNs, each a note with where it was read: advice on
 * the environment, and WARNs their process outlived.
 */
static void note_benign_warns(const struct hd_store *s, struct hd_analysis *a,
			      GHashTable *outlived)
{
	guint listed = 0, more = 0;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);
		bool advice = sig->type == HD_SIGT_ADVISORY;
		g_autofree char *src = NULL;
		g_autofree char *who = NULL;
		g_autofree char *text = NULL;

		if (!advice &&
		    !g_hash_table_contains(outlived, GUINT_TO_POINTER(i + 1)))
			continue;
		if (listed == MAX_WARN_NOTES) {
			more++;
			continue;
		}
		listed++;
		src = hd_prov_format(s, &sig->prov);
		who = sig->rank >= 0 ? g_strdup_printf("rank %d", sig->rank)
				     : g_strdup("a process of unknown rank");
		if (sig->text && g_utf8_validate(sig->text, -1, NULL)) {
			/* g_utf8_substring() reads past a shorter text's end */
			glong n = g_utf8_strlen(sig->text, -1);
			g_autofree char *cut =
				g_utf8_substring(sig->text, 0, MIN(n, 160));

			text = g_strdup_printf(
				": %s%s", cut,
				strlen(cut) < strlen(sig->text) ? "..." : "");
		}
		g_ptr_array_add(
			a->notes,
			g_strdup_printf("%s: %s of %s, %s, so not a failure%s",
					src, warn_what(sig, advice), who,
					warn_why(sig, advice),
					text ? text : ""));
	}
	if (more)
		g_ptr_array_add(
			a->notes,
			g_strdup_printf(
				"and %u more NCCL WARN%s of the same kinds, not trouble",
				more, more == 1 ? "" : "s"));
}

/*
 * Trouble was seen but no check could name its cause: say what was seen
 * and what is missing, never no_fault.
 */
static void add_undecided_verdict(const struct hd_index *ix,
				  struct hd_analysis *a, GHashTable *outlived)
{
	const struct hd_store *s = ix->store;
	guint ncat[HD_SIG_CAT_COUNT] = { 0 };
	g_autoptr(GString) seen = g_string_new(NULL);
	struct hd_verdict *v;
	guint cited = 0;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);

		if (summary_trouble(s, outlived, i) &&
		    sig->cat < HD_SIG_CAT_COUNT)
			ncat[sig->cat]++;
	}
	for (int k = 0; k < HD_SIG_CAT_COUNT; k++)
		if (ncat[k])
			g_string_append_printf(seen, "%s%u %s",
					       seen->len ? ", " : "", ncat[k],
					       hd_signal_cat_name(k));
	v = hd_verdict_new(
		HD_V_INSUFFICIENT_DATA, HD_CONF_MEDIUM,
		"an error or hang was seen (%s signals) but its cause could not be decided from %u ops and %u signals",
		seen->str, s->ops->len, s->signals->len);
	v->score = HD_SCORE_INSUFFICIENT;
	for (guint i = 0; i < s->signals->len && cited < 6; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);
		g_autofree char *src = NULL;

		if (!summary_trouble(s, outlived, i))
			continue;
		src = hd_prov_format(s, &sig->prov);
		hd_verdict_add_evidence(
			v, sig->rank,
			sig->prov.kind != HD_PROV_NONE ? src : NULL, "%s",
			sig->text ? sig->text : hd_signal_cat_name(sig->cat));
		cited++;
	}
	hd_verdict_add_ruled_out(
		v,
		"nothing: the errors above are not ones hangdoc can attribute; the first error of the failing process (its NCCL WARN with NCCL_DEBUG=INFO, or every rank's log) is missing");
	if (a->ranks_missing->len)
		hd_verdict_add_ruled_out(
			v, "nothing about %u rank%s that left no data",
			a->ranks_missing->len,
			a->ranks_missing->len == 1 ? "" : "s");
	g_ptr_array_add(a->verdicts, v);
}

/*
 * Why input in was not read whole: its error, else its first warning
 * that names a budget or a cut, else "cut short".  (transfer none)
 */
static const char *unread_why(const struct hd_input *in)
{
	if (in->error)
		return in->error;
	for (guint i = 0; in->warnings && i < in->warnings->len; i++) {
		const char *w = g_ptr_array_index(in->warnings, i);

		if (strstr(w, "budget"))
			return w;
	}
	return "cut short: what followed the cut is unknown";
}

/*
 * Healthy needs every input read whole.  An input refused (an error: a
 * budget spent, unreadable) or cut (truncated: a budget, a torn file)
 * may hold the end of a rank's record, and so the hang: what was not
 * read cannot show healthy progress.  Returns true when it added the
 * insufficient_data verdict that stands instead of no_fault.
 */
static bool add_unread_verdict(const struct hd_store *s, struct hd_analysis *a)
{
	guint refused = 0, cut = 0, cited = 0;
	bool budget = false;
	struct hd_verdict *v;

	for (guint i = 0; i < s->inputs->len; i++) {
		const struct hd_input *in = g_ptr_array_index(s->inputs, i);

		/* another incident's: its rank left no data of this one */
		if (in->other_incident)
			continue;
		if (in->error)
			refused++;
		else if (in->truncated)
			cut++;
		else
			continue;
		budget |= strstr(unread_why(in), "budget") != NULL;
	}
	if (!refused && !cut)
		return false;
	v = hd_verdict_new(
		HD_V_INSUFFICIENT_DATA, HD_CONF_MEDIUM,
		"no fault found in what was read, but %u of %u input%s %s not read whole (%u refused, %u cut short%s): data not read cannot show healthy progress",
		refused + cut, s->inputs->len, s->inputs->len == 1 ? "" : "s",
		refused + cut == 1 ? "was" : "were", refused, cut,
		budget ? ", past a budget" : "");
	v->score = HD_SCORE_INSUFFICIENT;
	/* those past a budget first: the budget is what to change */
	for (int pass = budget ? 0 : 1; pass < 2; pass++) {
		for (guint i = 0; i < s->inputs->len && cited < 8; i++) {
			const struct hd_input *in =
				g_ptr_array_index(s->inputs, i);
			bool over;

			if ((!in->error && !in->truncated) ||
			    in->other_incident)
				continue;
			over = strstr(unread_why(in), "budget") != NULL;
			if (over != (pass == 0))
				continue;
			hd_verdict_add_evidence(
				v, in->rank >= 0 ? in->rank : -1, in->path,
				"%s%s", in->error ? "not read: " : "",
				unread_why(in));
			cited++;
		}
	}
	if (refused + cut > cited)
		hd_verdict_add_more(v, refused + cut - cited,
				    "and %u more input%s not read whole",
				    refused + cut - cited,
				    refused + cut - cited == 1 ? "" : "s");
	hd_verdict_add_ruled_out(
		v,
		"nothing about what the inputs above held past where they were cut or refused: it may be where a rank stopped");
	if (budget)
		g_ptr_array_add(
			a->notes,
			g_strdup(
				"a decode budget was spent (docs/safety.md, \"Budgets\"): give the inputs not read on their own, or fewer at a time, to read them whole"));
	a->inputs_unread = true;
	g_ptr_array_add(a->verdicts, v);
	return true;
}

void hd_summary_run(const struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	uint64_t records = 0;
	g_autoptr(GArray) other = NULL;
	g_autoptr(GHashTable) outlived = warns_outlived(s);
	struct hd_verdict *v;

	for (guint i = 0; i < s->signals->len; i++)
		if (summary_trouble(s, outlived, i))
			a->trouble_signals++;
	if (hd_analysis_has_fault(a))
		return;
	/* hangs that no fault explains are undecided, never no_fault */
	if (a->held->len) {
		while (a->held->len)
			g_ptr_array_add(a->verdicts,
					g_ptr_array_steal_index(a->held, 0));
		return;
	}
	for (guint i = 0; i < s->inputs->len; i++)
		records += ((const struct hd_input *)g_ptr_array_index(
				    s->inputs, i))
				   ->records;
	for (guint i = 0; i < a->verdicts->len; i++)
		if (((const struct hd_verdict *)g_ptr_array_index(a->verdicts,
								  i))
			    ->kind == HD_V_INSUFFICIENT_DATA)
			return;
	if (a->trouble_signals) {
		add_undecided_verdict(ix, a, outlived);
		return;
	}
	if (records == 0) {
		v = hd_verdict_new(HD_V_INSUFFICIENT_DATA, HD_CONF_HIGH,
				   "no records could be read from %u input%s",
				   s->inputs->len,
				   s->inputs->len == 1 ? "" : "s");
		v->score = HD_SCORE_INSUFFICIENT;
		g_ptr_array_add(a->verdicts, v);
		return;
	}
	/* healthy means progress was seen: with no op, nothing was */
	if (s->ops->len == 0) {
		v = hd_verdict_new(
			HD_V_INSUFFICIENT_DATA, HD_CONF_MEDIUM,
			"no ops were read (%" G_GUINT64_FORMAT
			" record%s, %u signal%s from %u input%s, %u rank%s seen): no progress is shown, so no fault can be ruled out",
			records, records == 1 ? "" : "s", s->signals->len,
			s->signals->len == 1 ? "" : "s", s->inputs->len,
			s->inputs->len == 1 ? "" : "s", a->ranks_seen->len,
			a->ranks_seen->len == 1 ? "" : "s");
		v->score = HD_SCORE_INSUFFICIENT;
		g_ptr_array_add(a->verdicts, v);
		return;
	}
	if (add_unread_verdict(s, a))
		return;
	/*
	 * Ops of no known rank (dumps named without a rank and with no
	 * member list that tells it) are never aligned: nothing shows each
	 * rank's progress, so none is shown healthy.
	 */
	if (!a->ranks_seen->len) {
		v = hd_verdict_new(
			HD_V_INSUFFICIENT_DATA, HD_CONF_MEDIUM,
			"%u op%s read, but not one of a known rank (the inputs' warnings say why): no rank's progress can be compared, so no fault can be ruled out",
			s->ops->len, s->ops->len == 1 ? "" : "s");
		v->score = HD_SCORE_INSUFFICIENT;
		g_ptr_array_add(a->verdicts, v);
		return;
	}
	other = ranks_of_other_attempts(s);
	v = hd_verdict_new(
		HD_V_NO_FAULT,
		a->ranks_missing->len || !a->ranks_seen->len ||
				a->incomplete_records || other->len
			? HD_CONF_LOW
			: HD_CONF_MEDIUM,
		"no fault found in %u op%s and %u signal%s from %u rank%s (%u input%s)",
		s->ops->len, s->ops->len == 1 ? "" : "s", s->signals->len,
		s->signals->len == 1 ? "" : "s", a->ranks_seen->len,
		a->ranks_seen->len == 1 ? "" : "s", s->inputs->len,
		s->inputs->len == 1 ? "" : "s");
	v->score = HD_SCORE_NO_FAULT;
	hd_verdict_add_ruled_out(
		v,
		"type, size, dtype, root and reduction mismatches: every aligned position agrees");
	if (a->incomplete_records)
		hd_verdict_add_ruled_out(
			v,
			"missing or lagging ranks: every member entered every position its group completed, though the record%s of %u rank%s end%s early (see the notes)",
			a->incomplete_records == 1 ? "" : "s",
			a->incomplete_records,
			a->incomplete_records == 1 ? "" : "s",
			a->incomplete_records == 1 ? "s" : "");
	else
		hd_verdict_add_ruled_out(
			v,
			"missing or lagging ranks: every rank %sreached the same position in every group",
			other->len ? "with a record of this attempt " : "");
	if (a->ranks_missing->len)
		hd_verdict_add_ruled_out(
			v, "nothing about %u rank%s that left no data",
			a->ranks_missing->len,
			a->ranks_missing->len == 1 ? "" : "s");
	if (other->len) {
		g_autofree char *rt = hd_ranks_text(other, 8);

		hd_verdict_add_ruled_out(
			v,
			"nothing about rank%s %s in the attempt analyzed: %s logs hold another attempt only (see the notes)",
			other->len == 1 ? "" : "s", rt,
			other->len == 1 ? "its" : "their");
	}
	note_benign_warns(s, a, outlived);
	g_ptr_array_add(a->verdicts, v);
}

/*
 * Whether the data shows a hang or a failure, apart from logs that end
 * at different points: ranks seen blocked in an op (completion known), a
 * trouble signal (a timeout, an error, a crash, an abort), the watchdog's
 * status or dump lines, a heartbeat or desync report, or an input that
 * is only written when something went wrong or someone looked (a
 * flight-recorder dump, a py-spy dump or gdb backtrace of a live rank, a
 * torchelastic error file).
 */
static bool shows_hang(const struct hd_analysis *a)
{
	const struct hd_store *s = a->store;

	if (a->hang_seen)
		return true;
	for (guint i = 0; i < s->inputs->len; i++) {
		const struct hd_input *in = g_ptr_array_index(s->inputs, i);

		if (in->error || in->other_incident)
			continue;
		if (in->kind == HD_INPUT_FLIGHT_REC ||
		    in->kind == HD_INPUT_PYSPY || in->kind == HD_INPUT_GDB ||
		    in->kind == HD_INPUT_TORCHELASTIC)
			return true;
	}
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);

		if (hd_signal_is_trouble(sig))
			return true;
		switch (sig->type) {
		case HD_SIGT_WATCHDOG_TIMEOUT:
		case HD_SIGT_PG_STATUS:
		case HD_SIGT_DUMP:
		case HD_SIGT_HEARTBEAT:
		case HD_SIGT_DESYNC_REPORT:
			return true;
		default:
			break;
		}
	}
	return false;
}

void hd_summary_hold_unproven(struct hd_analysis *a)
{
	a->hang_evidence = shows_hang(a);
	if (a->hang_evidence)
		return;
	for (guint i = 0; i < a->verdicts->len; i++) {
		struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);
		g_autofree char *ct = NULL;
		char *text;
		bool one;

		if (!v->needs_hang)
			continue;
		one = v->culprits->len == 1;
		ct = hd_ranks_text(v->culprits, 8);
		v->confidence = HD_CONF_LOW;
		text = g_strdup_printf(
			"%s; nothing in the data says the job hung (no timeout, error, abort or dump): the logs may just have been taken mid-run, and if the job was hung when they were, rank%s %s %s the one%s behind",
			v->summary, one ? "" : "s", ct, one ? "is" : "are",
			one ? "" : "s");
		g_free(v->summary);
		v->summary = text;
		hd_verdict_add_ruled_out(
			v,
			"nothing: no watchdog timeout, error, abort or dump is in the data, so whether the job hung at all is not known; logs copied while it ran end at different points too");
	}
}

/* Blames nobody: the inputs are several incidents, not one. */
void hd_summary_refuse(struct hd_analysis *a)
{
	struct hd_verdict *v = hd_verdict_new(
		HD_V_INSUFFICIENT_DATA, HD_CONF_HIGH,
		"the inputs cannot all belong to one incident (%u %s): nothing is blamed; analyze each incident apart, or give --merge",
		a->conflicts->len,
		a->conflicts->len == 1 ? "conflict" : "conflicts");

	/* The conflicts themselves are a->conflicts, which reports show. */
	v->score = HD_SCORE_INSUFFICIENT;
	g_ptr_array_add(a->verdicts, v);
}

#define MAX_ATTEMPTS_LISTED 5

/* What one attempt held, summed over the logs that share a layout. */
struct attempt_sum {
	uint32_t ops, trouble;
	const char *first_trouble; /* borrowed from the first log */
};

/*
 * "attempt 1 (lines 1-44 of the first) ended at line 44 with a torchrun
 * restart, after 3 errors or timeouts, the first: ..."
 */
static void describe_attempt(GString *t, const struct hd_attempt *at,
			     const struct attempt_sum *sum, int64_t k,
			     guint logs)
{
	g_string_append_printf(t, "; attempt %" G_GINT64_FORMAT " (", k + 1);
	if (at->last_line == G_MAXUINT64)
		g_string_append(t, "the whole file");
	else
		g_string_append_printf(
			t, "lines %" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT,
			at->first_line, at->last_line);
	g_string_append_printf(t, "%s, %u ops)",
			       logs > 1 ? " of the first" : "", sum->ops);
	if (at->end)
		g_string_append_printf(t, " ended with %s", at->end);
	if (!sum->trouble) {
		g_string_append(t, ", with no error or timeout");
		return;
	}
	g_string_append_printf(t, ", after %u %s", sum->trouble,
			       sum->trouble == 1 ? "error or timeout"
						 : "errors or timeouts");
	if (sum->first_trouble &&
	    g_utf8_validate(sum->first_trouble, -1, NULL)) {
		/* g_utf8_substring() reads past the end of a shorter text */
		glong n = g_utf8_strlen(sum->first_trouble, -1);
		g_autofree char *cut =
			g_utf8_substring(sum->first_trouble, 0, MIN(n, 160));

		g_string_append_printf(
			t, ", the first: %s%s", cut,
			strlen(cut) < strlen(sum->first_trouble) ? "..." : "");
	}
}

/* Adds what each attempt of o held to sum (one entry per attempt). */
static void sum_attempts(struct attempt_sum *sum, const struct hd_input *o)
{
	for (guint k = 0; k < o->attempts->len; k++) {
		const struct hd_attempt *at =
			&g_array_index(o->attempts, struct hd_attempt, k);

		sum[k].ops += at->ops;
		sum[k].trouble += at->trouble;
		if (!sum[k].first_trouble)
			sum[k].first_trouble = at->first_trouble;
	}
}

/*
 * A log that holds none of the attempt analyzed (cut before the restart,
 * or the older file of a rotated log): what it held, so that a hang
 * there is never silently dropped.  Logs of the same shape (the same
 * attempts, numbered alike) share the note.
 */
static void note_attempt_none(const struct hd_store *s, struct hd_analysis *a,
			      guint i, bool *done)
{
	const struct hd_input *in = g_ptr_array_index(s->inputs, i);
	guint n = in->attempts->len, logs = 0;
	g_autofree struct attempt_sum *sum = g_new0(struct attempt_sum, n);
	GString *t = g_string_new(NULL);

	for (guint j = i; j < s->inputs->len; j++) {
		const struct hd_input *o = g_ptr_array_index(s->inputs, j);

		if (!o->attempt_none || !o->attempts || o->attempts->len != n ||
		    o->attempt_shift != in->attempt_shift)
			continue;
		done[j] = true;
		logs++;
		sum_attempts(sum, o);
	}
	if (logs > 1)
		g_string_append_printf(t, "%u logs ('%s' and %u more) hold",
				       logs, in->path, logs - 1);
	else
		g_string_append_printf(t, "'%s' holds", in->path);
	/* placed by commId, by the job's size or by time (hd-store-filter.c) */
	g_string_append_printf(
		t,
		" none of the job attempt analyzed: %s comms or times are those of another attempt in the other logs, so none of %s records were read with it",
		logs > 1 ? "their" : "its", logs > 1 ? "their" : "its");
	for (guint k = 0; k < n && k < MAX_ATTEMPTS_LISTED; k++)
		describe_attempt(
			t, &g_array_index(in->attempts, struct hd_attempt, k),
			&sum[k], (int64_t)k + in->attempt_shift, logs);
	g_string_append(t, " (--attempt N analyzes another)");
	g_ptr_array_add(a->notes, g_string_free(t, FALSE));
}

/*
 * Logs that hold several job attempts (a hang, then a restart): which
 * one was analyzed and what the others held, so a hang before a healthy
 * restart is never silently dropped.  Logs with the same number of
 * attempts and the same one analyzed (every rank's log of one job) share
 * a note: the first names the lines, the counts are summed.
 */
void hd_summary_note_attempts(const struct hd_store *s, struct hd_analysis *a)
{
	g_autofree bool *done = g_new0(bool, s->inputs->len + 1);

	for (guint i = 0; i < s->inputs->len; i++) {
		const struct hd_input *in = g_ptr_array_index(s->inputs, i);
		guint n, logs = 0;
		g_autofree struct attempt_sum *sum = NULL;
		const struct hd_attempt *kept;
		GString *t;

		if (in->attempt_none && in->attempts && !done[i]) {
			note_attempt_none(s, a, i, done);
			continue;
		}
		if (done[i] || !in->attempts || in->attempts->len < 2 ||
		    !in->attempt)
			continue;
		n = in->attempts->len;
		sum = g_new0(struct attempt_sum, n);
		for (guint j = i; j < s->inputs->len; j++) {
			const struct hd_input *o =
				g_ptr_array_index(s->inputs, j);

			if (!o->attempts || o->attempts->len != n ||
			    o->attempt != in->attempt ||
			    o->attempt_shift != in->attempt_shift ||
			    o->attempt_none)
				continue;
			done[j] = true;
			logs++;
			sum_attempts(sum, o);
		}
		kept = &g_array_index(in->attempts, struct hd_attempt,
				      in->attempt - 1);
		t = g_string_new(NULL);
		if (logs > 1)
			g_string_append_printf(
				t,
				"%u logs hold %u job attempts each ('%s' and %u more)",
				logs, n, in->path, logs - 1);
		else
			g_string_append_printf(t, "'%s' holds %u job attempts",
					       in->path, n);
		g_string_append_printf(t,
				       "; analyzed attempt %" G_GINT64_FORMAT
				       " (lines %" G_GUINT64_FORMAT
				       "-%" G_GUINT64_FORMAT "%s)",
				       (int64_t)in->attempt + in->attempt_shift,
				       kept->first_line, kept->last_line,
				       logs > 1 ? " of the first" : "");
		for (guint k = 0, listed = 0; k < n; k++) {
			if (k + 1 == in->attempt)
				continue;
			if (listed++ == MAX_ATTEMPTS_LISTED) {
				g_string_append_printf(
					t, "; and %u more",
					n - 1 - MAX_ATTEMPTS_LISTED);
				break;
			}
			describe_attempt(t,
					 &g_array_index(in->attempts,
							struct hd_attempt, k),
					 &sum[k],
					 (int64_t)k + in->attempt_shift, logs);
		}
		g_string_append(t, " (--attempt N analyzes another)");
		g_ptr_array_add(a->notes, g_string_free(t, FALSE));
	}
}
