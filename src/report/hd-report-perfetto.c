/*
 * The Perfetto / Chrome trace export (hd-report-perfetto.h).  Events are
 * written one per line as they are made, so a 16k-rank store never holds
 * its whole trace as a JSON tree; the process and thread names come last,
 * for the tracks that got an event only, so a rank with nothing to show
 * has no track.  Times are microseconds from the earliest time on the
 * trace's one clock (kept whole in otherData.time_base_ns), so a double
 * keeps nanosecond precision.  Without any time, an op sits at its
 * sequence position, one millisecond per position, and otherData says so.
 *
 * Beside the ops: the error, timeout and crash signals and the host-state
 * records (py-spy, Xid, IB port, GPU state, crash stacks) as instant
 * events on the rank they belong to or were joined to (a verdict's
 * evidence citing them for a rank, a py-spy dump the engine joined), else
 * on a track of their host; the verdicts as instants on the whole trace
 * and on each culprit's track; and a flow arrow from each blocked rank's
 * wait to its culprit.  An event whose time is on another clock than the
 * trace's (a kernel log's seconds since boot beside UTC dumps), or has no
 * time, sits on a track of its own, in order after the end of the trace,
 * its time in its args: times of two clocks never share an axis.
 */
#include "config.h"

#include "hd-report-perfetto.h"

#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "hd-autocleanups.h"
#include "hd-const.h"
#include "hd-hash.h"
#include "hd-json.h"
#include "hd-report-render.h"
#include "hd-report-util.h"
#include "hd-sort.h"
#include "hd-banned.h"

/* Sequence layout: one position is this many microseconds. */
#define SEQ_US	     1000.0
#define SEQ_DUR_US   900.0
#define MAX_EVIDENCE 20
/* At most this many verdicts, culprits per verdict, frames per stack and
   flow arrows are drawn; otherData counts what was left out. */
#define MAX_VERDICTS 16
#define MAX_CULPRITS 64
#define MAX_FRAMES   8
#define MAX_FLOWS    1024

/*
 * Track ids.  A rank is the process of its number; hosts, signals of no
 * rank or host, and folded events (struct fold) are processes past every
 * rank.  Within a process a
 * group's ops are the thread of the group's index plus one; signals are
 * on EVENTS_TID, and those whose time is not on the trace's clock on
 * OFF_CLOCK_TID; a culprit's slice that the blocked ranks' arrows end in
 * is on WAITED_TID, apart from its ops, so that it never overlaps one.
 */
#define NOWHERE_PID   ((int64_t)HD_MAX_RANKS)
#define FOLD_PID      ((int64_t)HD_MAX_RANKS + 1)
#define HOST_PID_BASE ((int64_t)HD_MAX_RANKS + 2)
#define EVENTS_TID    ((int64_t)1 << 30)
#define OFF_CLOCK_TID (EVENTS_TID + 1)
#define WAITED_TID    (EVENTS_TID + 2)

struct pf {
	FILE *out;
	bool first;
	const struct hd_analysis *a;
	const struct hd_store *s;
	const struct hd_report_filter *filter;
	struct hd_perfetto_info *info;
	/* the trace's clock: its input when the clock is one input's own
	   (trace-relative, boot, time of day), else UINT32_MAX */
	uint32_t clock_input;
	int64_t base, last; /* ns on info->clock */
	double end_ts; /* where the off-clock events start, us */
	uint64_t off_clock; /* off-clock events placed so far */
	GHashTable *tracks; /* (pid << 32 | tid) of every event */
	GHashTable *hosts; /* interned host -> index + 1 */
	/* host-state inputs whose lines name no host: input + 1 -> the
	   host their path names (hd_host_event_host()), or NO_HOST */
	GHashTable *path_hosts;
	GPtrArray *host_names; /* const char *, by index */
	GHashTable *cited; /* evidence source -> rank + 1 (a verdict's) */
	GHashTable *op_ranks; /* ranks with an op drawn */
	/* alike events of ranks with no other track: key -> struct fold */
	GHashTable *folds;
	GPtrArray *fold_order; /* struct fold *, in order of first seen */
	uint64_t next_flow;
};

/*
 * Alike events (one type, group, position, op and code, placed alike)
 * of many ranks that have no track of their own otherwise: the first
 * FOLD_KEEP are drawn on their ranks, the others counted in one event on
 * the job's track, so a logs-only incident of 1,024 timed-out ranks has
 * a dozen tracks, not a thousand.
 */
#define FOLD_KEEP 8

struct fold {
	char *title;
	guint first; /* the first folded signal */
	bool placed;
	double ts; /* the earliest folded event's */
	struct hd_time t_first, t_last;
	guint drawn; /* events drawn on their ranks' tracks */
	GArray *ranks; /* int: the ranks of the folded events, as met */
};

static void fold_free(gpointer p)
{
	struct fold *f = p;

	g_free(f->title);
	g_array_unref(f->ranks);
	g_free(f);
}

static void set_add(GHashTable *set, uint64_t v)
{
	uint64_t *key;

	if (g_hash_table_contains(set, &v))
		return;
	key = g_new(uint64_t, 1);
	*key = v;
	g_hash_table_add(set, key);
}

static uint64_t track_key(int64_t pid, int64_t tid)
{
	return (uint64_t)pid << 32 | (uint32_t)tid;
}

/* Writes ev (stolen) as the next element of traceEvents. */
static void emit(struct pf *w, json_t *ev)
{
	g_autofree char *text =
		hd_json_dumps(ev, JSON_COMPACT | JSON_PRESERVE_ORDER);

	if (text) {
		fputs(w->first ? "\n" : ",\n", w->out);
		fputs(text, w->out);
		w->first = false;
	}
	json_decref(ev);
}

static json_t *event(const char *ph, const char *name, int64_t pid, int64_t tid)
{
	json_t *ev = json_object();

	json_object_set_new(ev, "ph", json_string(ph));
	json_object_set_new(ev, "name", hd_json_string(name));
	json_object_set_new(ev, "pid", json_integer(pid));
	json_object_set_new(ev, "tid", json_integer(tid));
	return ev;
}

/* An event on a track of its own: the track gets a name at the end. */
static json_t *track_event(struct pf *w, const char *ph, const char *name,
			   int64_t pid, int64_t tid)
{
	set_add(w->tracks, track_key(pid, tid));
	return event(ph, name, pid, tid);
}

static void meta(struct pf *w, const char *what, int64_t pid, int64_t tid,
		 const char *key, json_t *value)
{
	json_t *ev = event("M", what, pid, tid);
	json_t *args = json_object();

	json_object_set_new(args, key, value);
	json_object_set_new(ev, "args", args);
	emit(w, ev);
}

static bool shown(const struct pf *w, int rank)
{
	return hd_report_filter_has(w->filter, rank);
}

static int64_t op_begin(const struct hd_store *s, const struct hd_op *op)
{
	if (hd_op_t_start(s, op) != INT64_MIN)
		return hd_op_t_start(s, op);
	if (hd_op_t_enqueue(s, op) != INT64_MIN)
		return hd_op_t_enqueue(s, op);
	return hd_op_t_end(s, op);
}

/* Thread id of a group: its index plus one (0 is the process's own). */
static int64_t group_tid(uint32_t group)
{
	return (int64_t)group + 1;
}

/* The keys of a set of uint64 (held as pointers to them), sorted. */
static GArray *sorted_keys(GHashTable *set)
{
	GArray *keys = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	GHashTableIter it;
	gpointer k;

	g_hash_table_iter_init(&it, set);
	while (g_hash_table_iter_next(&it, &k, NULL))
		g_array_append_val(keys, *(uint64_t *)k);
	g_array_sort(keys, hd_compare_u64);
	return keys;
}

static char *clean(const char *s)
{
	return hd_report_clean(s ? s : "?");
}

static char *process_label(const struct pf *w, int64_t pid)
{
	if (pid == NOWHERE_PID)
		return g_strdup("no rank or host");
	if (pid == FOLD_PID)
		return g_strdup("job: alike events of many ranks");
	if (pid >= HOST_PID_BASE) {
		g_autofree char *host = clean(g_ptr_array_index(
			w->host_names, (guint)(pid - HOST_PID_BASE)));

		return g_strdup_printf("host %s", host);
	}
	{
		const struct hd_rank *r = hd_store_find_rank(w->s, (int)pid);
		g_autofree char *host = r && r->host ? clean(r->host) : NULL;

		return host ? g_strdup_printf("rank %d (%s)", (int)pid, host)
			    : g_strdup_printf("rank %d", (int)pid);
	}
}

static char *thread_label(const struct pf *w, int64_t tid)
{
	if (tid == EVENTS_TID)
		return g_strdup("errors, timeouts, host state");
	if (tid == OFF_CLOCK_TID)
		return g_strdup(
			"events off the trace's clock (in order, not to scale)");
	if (tid == WAITED_TID)
		return g_strdup("waited on by the blocked ranks");
	return hd_group_label(w->s, tid - 1, HD_GROUP_LABEL_LONG);
}

/* Process and thread names, for the tracks that got an event only. */
static void names(struct pf *w)
{
	g_autoptr(GArray) keys = sorted_keys(w->tracks);
	int64_t pid = -1;

	for (guint i = 0; i < keys->len; i++) {
		uint64_t k = g_array_index(keys, uint64_t, i);
		int64_t tid = (int64_t)(uint32_t)k;
		g_autofree char *label = NULL;

		if ((int64_t)(k >> 32) != pid) {
			pid = (int64_t)(k >> 32);
			label = process_label(w, pid);
			meta(w, "process_name", pid, 0, "name",
			     hd_json_string(label));
			meta(w, "process_sort_index", pid, 0, "sort_index",
			     json_integer(pid));
			g_clear_pointer(&label, g_free);
			w->info->tracks++;
		}
		label = thread_label(w, tid);
		meta(w, "thread_name", pid, tid, "name", hd_json_string(label));
		meta(w, "thread_sort_index", pid, tid, "sort_index",
		     json_integer(tid));
	}
}

static const char *seq_kind_name(uint8_t k)
{
	return k == HD_SEQ_COLLECTIVE ? "collective"
	       : k == HD_SEQ_P2P      ? "p2p"
				      : "ordinal";
}

static json_t *op_args(const struct hd_store *s, const struct hd_op *op)
{
	g_autofree char *src = hd_op_source(s, op);
	const struct hd_group *g = hd_store_group_at(s, op->group);
	json_t *args = json_object();

	json_object_set_new(args, "seq", hd_json_int_or_null(op->seq, -1));
	json_object_set_new(args, "seq_kind",
			    json_string(seq_kind_name(op->seq_kind)));
	json_object_set_new(args, "state",
			    json_string(hd_op_state_name(op->state)));
	json_object_set_new(args, "group", hd_json_string(g->id));
	json_object_set_new(args, "count_in",
			    hd_json_int_or_null(hd_op_desc(op)->count_in, -1));
	json_object_set_new(args, "count_out",
			    hd_json_int_or_null(hd_op_desc(op)->count_out, -1));
	json_object_set_new(args, "dtype",
			    json_string(hd_dtype_name(hd_op_desc(op)->dtype)));
	json_object_set_new(args, "source", hd_json_string(src));
	return args;
}

/* The clock of an op's times (its input's). */
static enum hd_clock op_clock(const struct hd_store *s, const struct hd_op *op)
{
	return op->input < s->inputs->len
		       ? hd_store_input(s, op->input)->op_clock
		       : HD_CLOCK_NONE;
}

/*
 * Clocks whose times mean the same on every input (hd_time_comparable()):
 * local ones only while the hosts keep one zone.
 */
static bool clock_is_shared(const struct hd_store *s, enum hd_clock k)
{
	return k == HD_CLOCK_UTC ||
	       ((k == HD_CLOCK_LOCAL || k == HD_CLOCK_MONTH_DAY) &&
		!s->local_zones_apart);
}

/*
 * Picks the trace's clock among times seen (one call per time): UTC
 * over local over month-day; another clock only while every time seen is
 * of one input (a trace's own clock means nothing beside another's).
 */
struct clock_pick {
	const struct hd_store *s;
	enum hd_clock best;
	uint32_t input;
	bool one_input;
};

static void pick_clock(struct clock_pick *p, enum hd_clock k, uint32_t input)
{
	static const int rank[HD_CLOCK_COUNT] = {
		[HD_CLOCK_UTC] = 4,
		[HD_CLOCK_LOCAL] = 3,
		[HD_CLOCK_MONTH_DAY] = 2,
	};

	if (k == HD_CLOCK_NONE || k >= HD_CLOCK_COUNT)
		return;
	if (!clock_is_shared(p->s, k)) {
		if (p->input != UINT32_MAX && p->input != input)
			p->one_input = false;
		p->input = input;
	}
	if (p->best == HD_CLOCK_NONE || rank[k] > rank[p->best])
		p->best = k;
}

static enum hd_clock picked(const struct clock_pick *p)
{
	if (!clock_is_shared(p->s, p->best) && !p->one_input)
		return HD_CLOCK_NONE;
	return p->best;
}

/* Whether a signal goes on the trace at all (a display choice only). */
static bool signal_drawn(const struct pf *w, const struct hd_signal *sig,
			 const char *source)
{
	switch (sig->type) {
	case HD_SIGT_XID:
	case HD_SIGT_HOST_OOM:
	case HD_SIGT_LINK_EVENT:
	case HD_SIGT_IB_COUNTERS:
	case HD_SIGT_GPU_STATE:
	case HD_SIGT_FATAL_SIGNAL:
	case HD_SIGT_PYSPY_THREAD:
	case HD_SIGT_TRACEBACK:
		return true;
	case HD_SIGT_DUMP:
		break;
	case HD_SIGT_PROCESS_EXIT:
		if (hd_signal_exit_code(sig) != 0)
			return true;
		break;
	default:
		if (sig->cat != HD_SIG_PROGRESS && sig->cat != HD_SIG_INFO)
			return true;
		break;
	}
	/* context a verdict cites (a dump signal's counters) */
	return source && g_hash_table_contains(w->cited, source);
}

/* Whether a signal's time may sit on the trace's time axis. */
static bool on_axis(const struct pf *w, const struct hd_signal *sig)
{
	if (w->info->by_sequence || !hd_time_known(sig->time) ||
	    sig->time.clock != w->info->clock)
		return false;
	return w->clock_input == UINT32_MAX ||
	       sig->prov.input == w->clock_input;
}

/*
 * The one clock the trace uses, its base and end.  Ops decide it when
 * they have times; a store without ops (logs of watchdog timeouts) takes
 * its drawn signals' clock.  Without either: by sequence.
 */
static void choose_clock(struct pf *w)
{
	const struct hd_store *s = w->s;
	struct clock_pick p = { s, HD_CLOCK_NONE, UINT32_MAX, true };
	bool any_op = false;

	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);

		if (hd_op_rank(op) < 0 || !shown(w, hd_op_rank(op)))
			continue;
		any_op = true;
		if (op_begin(s, op) != INT64_MIN)
			pick_clock(&p, op_clock(s, op), op->input);
	}
	w->info->clock = (uint8_t)picked(&p);
	w->clock_input = clock_is_shared(s, picked(&p)) ? UINT32_MAX : p.input;
	for (guint i = 0; i < s->ops->len && w->info->clock; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);
		int64_t b = op_begin(s, op);

		if (hd_op_rank(op) < 0 || !shown(w, hd_op_rank(op)) ||
		    b == INT64_MIN || op_clock(s, op) != w->info->clock ||
		    (w->clock_input != UINT32_MAX &&
		     op->input != w->clock_input))
			continue;
		w->base = MIN(w->base, b);
		w->last = MAX(w->last, MAX(b, hd_op_t_end(s, op)));
	}
	if (!any_op) {
		for (guint i = 0; i < s->signals->len; i++) {
			const struct hd_signal *sig =
				&g_array_index(s->signals, struct hd_signal, i);

			if (hd_time_known(sig->time) &&
			    (sig->rank < 0 || shown(w, sig->rank)) &&
			    signal_drawn(w, sig, NULL))
				pick_clock(&p, sig->time.clock,
					   sig->prov.input);
		}
		w->info->clock = (uint8_t)picked(&p);
		w->clock_input =
			clock_is_shared(s, picked(&p)) ? UINT32_MAX : p.input;
		w->info->by_signals = w->info->clock != HD_CLOCK_NONE;
	}
	w->info->by_sequence = w->base == INT64_MAX && !w->info->by_signals;
	for (guint i = 0; i < s->signals->len && !w->info->by_sequence; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);

		if ((sig->rank < 0 || shown(w, sig->rank)) &&
		    signal_drawn(w, sig, NULL) && on_axis(w, sig)) {
			w->base = MIN(w->base, sig->time.ns);
			w->last = MAX(w->last, sig->time.ns);
		}
	}
	if (w->info->by_sequence) {
		int64_t most = 0;

		for (guint i = 0; i < s->ops->len; i++)
			most = MAX(most,
				   g_array_index(s->ops, struct hd_op, i).seq);
		w->end_ts = (double)(most + 2) * SEQ_US;
		return;
	}
	if (w->base == INT64_MAX)
		w->base = w->last = 0;
	/* room after the last time, for ops that never ended */
	w->last = hd_report_add_sat(
		w->last, MAX(hd_report_sub_sat(w->last, w->base) / 10, 1000));
	w->end_ts = (double)hd_report_sub_sat(w->last, w->base) / 1e3;
}

static double axis_ts(const struct pf *w, int64_t ns)
{
	return (double)hd_report_sub_sat(ns, w->base) / 1e3;
}

/* The X event of an op on its rank's group track, or NULL when left out. */
static json_t *op_event(struct pf *w, const struct hd_op *op, double *ts_out,
			double *dur_out)
{
	const struct hd_store *s = w->s;
	json_t *ev;
	double ts, dur;

	if (w->info->by_sequence) {
		ts = (double)MAX(op->seq, 0) * SEQ_US;
		dur = SEQ_DUR_US;
	} else {
		int64_t b = op_begin(s, op), e = hd_op_t_end(s, op);

		if (b == INT64_MIN) {
			w->info->untimed++;
			return NULL;
		}
		if (op_clock(s, op) != w->info->clock ||
		    (w->clock_input != UINT32_MAX &&
		     op->input != w->clock_input)) {
			w->info->other_clock++;
			return NULL;
		}
		/* Never completed: it runs to the end of the data. */
		if (e == INT64_MIN || e < b)
			e = op->state == HD_STATE_COMPLETED ? b : w->last;
		ts = axis_ts(w, b);
		dur = MAX((double)hd_report_sub_sat(e, b) / 1e3, 0.001);
	}
	ev = track_event(w, "X", hd_op_kind_name(op->kind), hd_op_rank(op),
			 group_tid(op->group));
	json_object_set_new(ev, "cat",
			    json_string(hd_op_kind_is_p2p(op->kind)
						? "p2p"
						: "collective"));
	json_object_set_new(ev, "ts", json_real(ts));
	json_object_set_new(ev, "dur", json_real(dur));
	json_object_set_new(ev, "args", op_args(s, op));
	*ts_out = ts;
	*dur_out = dur;
	return ev;
}

/*
 * Where a blocked rank waits: its op at (group, seq), as the slice drawn
 * for it.  Filled while the ops are written, read by the flows.
 */
/*
 * Where a blocked rank waits, for its flow arrow: its op slice at the
 * blocked position (the per-rank table's), else, with logs only, the
 * slice of its watchdog timeout in the top verdict's position; a fold of
 * such timeouts stands for its ranks (rank is then FOLD_PID).
 */
struct wait {
	int rank;
	int64_t group, seq;
	int64_t tid; /* the track the arrow starts on */
	uint32_t ranks; /* the ranks it stands for */
	double ts, dur;
	bool found;
};

/* The top verdict, when it is a fault with culprits, else NULL. */
static const struct hd_verdict *top_fault(const struct pf *w)
{
	const struct hd_verdict *v =
		w->a->verdicts->len ? g_ptr_array_index(w->a->verdicts, 0)
				    : NULL;

	if (!v || !hd_verdict_kind_info(v->kind)->fault || !v->culprits->len)
		return NULL;
	return v;
}

/* How long the slices an arrow starts or ends in last, in us. */
static double mark_dur(const struct pf *w)
{
	return w->info->by_sequence ? SEQ_DUR_US / 2
				    : MAX(w->end_ts / 1000.0, 0.002);
}

/*
 * Whether sig is a timeout of a rank waiting on the top verdict's
 * culprits (logs only: no op of that rank shows the wait) that the
 * trace draws on its axis as a slice an arrow starts in.
 */
static bool timeout_waits(const struct pf *w, const struct hd_signal *sig,
			  int64_t pid, bool placed)
{
	const struct hd_verdict *v = top_fault(w);

	return v && placed && sig->type == HD_SIGT_WATCHDOG_TIMEOUT &&
	       pid < HD_MAX_RANKS && !hd_verdict_has_culprit(v, (int)pid) &&
	       !g_hash_table_contains(w->op_ranks, GINT_TO_POINTER((int)pid)) &&
	       (v->seq < 0 || hd_signal_seq(sig) == v->seq);
}

/* Adds the wait of a timeout drawn as a slice on (pid, tid). */
static void add_timeout_wait(GArray *waits, int64_t pid, int64_t tid,
			     uint32_t ranks, double ts, double dur)
{
	struct wait x = { (int)pid, -1, -1, tid, ranks, ts, dur, true };

	g_array_append_val(waits, x);
}

static void ops(struct pf *w, GArray *waits)
{
	const struct hd_store *s = w->s;
	g_autoptr(GHashTable) by_rank = g_hash_table_new(NULL, NULL);

	for (guint k = 0; k < waits->len; k++)
		g_hash_table_insert(
			by_rank,
			GINT_TO_POINTER(
				g_array_index(waits, struct wait, k).rank),
			GUINT_TO_POINTER(k + 1));
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);
		double ts = 0, dur = 0;
		struct wait *x = NULL;
		guint k;
		json_t *ev;

		if (hd_op_rank(op) < 0 || !shown(w, hd_op_rank(op)))
			continue;
		ev = op_event(w, op, &ts, &dur);
		if (!ev)
			continue;
		emit(w, ev);
		w->info->events++;
		g_hash_table_add(w->op_ranks, GINT_TO_POINTER(hd_op_rank(op)));
		k = GPOINTER_TO_UINT(g_hash_table_lookup(
			by_rank, GINT_TO_POINTER(hd_op_rank(op))));
		if (k)
			x = &g_array_index(waits, struct wait, k - 1);
		if (x && !x->found && x->group == (int64_t)op->group &&
		    x->seq == op->seq && op->seq_kind != HD_SEQ_P2P) {
			x->found = true;
			x->tid = group_tid(op->group);
			x->ranks = 1;
			x->ts = ts;
			x->dur = dur;
		}
	}
}

/* What path_hosts holds for an input whose path names no host. */
static const char no_host[] = "";

/*
 * The host of a signal, and how it is known (*from: "content" or
 * "path"; NULL with none): its own, else, for a host-state record (a
 * kernel log's, a port's or a GPU's state), the host its file's path
 * names, as the engine attributes it.  (transfer none)
 */
static const char *signal_host(const struct pf *w, const struct hd_signal *sig,
			       const char **from)
{
	enum hd_input_kind k;
	gpointer key = GUINT_TO_POINTER(sig->prov.input + 1);
	const char *h;

	*from = sig->host ? "content" : NULL;
	if (sig->host || sig->prov.input >= w->s->inputs->len)
		return sig->host;
	k = hd_store_input(w->s, sig->prov.input)->kind;
	if (!(hd_input_kind_flags(k) & HD_KIND_HOST_STATE))
		return NULL;
	h = g_hash_table_lookup(w->path_hosts, key);
	if (!h) {
		h = hd_host_event_host(w->s, sig);
		g_hash_table_insert(w->path_hosts, key,
				    (gpointer)hd_unconst(h ? h : no_host));
	}
	if (h == no_host)
		return NULL;
	*from = "path";
	return h;
}

/* The process a signal is drawn on: its rank, the rank it was joined to,
   its host, or the track of neither. */
static int64_t signal_pid(struct pf *w, guint index,
			  const struct hd_signal *sig, const char *source)
{
	gpointer cited;
	gpointer host;
	const char *from;
	const char *name;

	if (sig->rank >= 0)
		return sig->rank;
	for (guint i = 0; sig->type == HD_SIGT_PYSPY_THREAD && w->a->pyspy &&
			  i < w->a->pyspy->len;
	     i++) {
		const struct hd_pyspy_rank *p =
			&g_array_index(w->a->pyspy, struct hd_pyspy_rank, i);

		if (p->signal == index)
			return p->rank;
	}
	if (source &&
	    g_hash_table_lookup_extended(w->cited, source, NULL, &cited) &&
	    GPOINTER_TO_INT(cited) > 0)
		return GPOINTER_TO_INT(cited) - 1;
	name = signal_host(w, sig, &from);
	if (!name)
		return NOWHERE_PID;
	host = g_hash_table_lookup(w->hosts, name);
	if (!host) {
		g_ptr_array_add(w->host_names, (gpointer)hd_unconst(name));
		host = GUINT_TO_POINTER(w->host_names->len);
		g_hash_table_insert(w->hosts, (gpointer)hd_unconst(name), host);
	}
	return HOST_PID_BASE + GPOINTER_TO_UINT(host) - 1;
}

static char *signal_title(const struct hd_signal *sig)
{
	const char *what = sig->type == HD_SIGT_OTHER
				   ? hd_signal_cat_name(sig->cat)
				   : hd_signal_type_name(sig->type);
	g_autofree char *op =
		sig->op_name ? clean(hd_op_display_name(sig->op_name)) : NULL;
	g_autofree char *dev = sig->device ? clean(sig->device) : NULL;

	switch (sig->type) {
	case HD_SIGT_WATCHDOG_TIMEOUT:
		if (hd_signal_seq(sig) >= 0)
			return g_strdup_printf("%s: %s seq %" G_GINT64_FORMAT,
					       what, op ? op : "op",
					       hd_signal_seq(sig));
		break;
	case HD_SIGT_XID:
		return dev ? g_strdup_printf("Xid %d (GPU %s)",
					     hd_signal_xid(sig), dev)
			   : g_strdup_printf("Xid %d", hd_signal_xid(sig));
	case HD_SIGT_FATAL_SIGNAL:
		return g_strdup_printf("fatal signal %d", hd_signal_signo(sig));
	case HD_SIGT_PROCESS_EXIT:
		return g_strdup_printf("process exit %d",
				       hd_signal_exit_code(sig));
	case HD_SIGT_LINK_EVENT: {
		int32_t st = hd_signal_link_state(sig);

		return g_strdup_printf("IB link %s%s%s",
				       st == 0	 ? "down"
				       : st == 1 ? "up"
				       : st == 3 ? "disabled"
						 : "state",
				       dev ? " " : "", dev ? dev : "");
	}
	case HD_SIGT_GPU_STATE:
	case HD_SIGT_IB_COUNTERS:
		if (dev)
			return g_strdup_printf("%s %s", what, dev);
		break;
	case HD_SIGT_PYSPY_THREAD:
		return g_strdup_printf("py-spy: thread %d",
				       hd_signal_thread_id(sig));
	default:
		break;
	}
	return g_strdup(what);
}

static json_t *stack_json(const struct hd_store *s, int32_t stack)
{
	size_t n = 0;
	const struct hd_frame *f = hd_store_stack(s, stack, &n);
	json_t *frames = json_array();

	for (size_t i = 0; f && i < n && i < MAX_FRAMES; i++) {
		g_autofree char *text = hd_report_frame_text(&f[i]);

		json_array_append_new(frames, hd_json_string(text));
	}
	return frames;
}

static json_t *signal_args(const struct pf *w, const struct hd_signal *sig,
			   const char *source, bool placed)
{
	g_autofree char *time = hd_time_format(sig->time, 3);
	json_t *args = json_object();
	const char *from;
	const char *host = signal_host(w, sig, &from);

	json_object_set_new(args, "source", hd_json_string(source));
	json_object_set_new(args, "category",
			    json_string(hd_signal_cat_name(sig->cat)));
	json_object_set_new(args, "type",
			    json_string(hd_signal_type_name(sig->type)));
	json_object_set_new(args, "rank", hd_json_int_or_null(sig->rank, -1));
	json_object_set_new(args, "host", hd_json_str_or_null(host));
	if (from)
		json_object_set_new(args, "host_from", json_string(from));
	json_object_set_new(args, "time", hd_json_string(time));
	json_object_set_new(
		args, "clock",
		json_string(hd_clock_name((enum hd_clock)sig->time.clock)));
	if (!placed)
		json_object_set_new(
			args, "placement",
			json_string(
				hd_time_known(sig->time)
					? "after the end of the trace, in order: its clock is not the trace's, so its time cannot be drawn beside the others"
					: "after the end of the trace, in order: it has no time"));
	/* every field as stored, whatever the type means by it */
	if (hd_signal_stored_seq(sig) >= 0)
		json_object_set_new(args, "seq",
				    json_integer(hd_signal_stored_seq(sig)));
	if (sig->op_name)
		json_object_set_new(args, "op", hd_json_string(sig->op_name));
	if (sig->group_name)
		json_object_set_new(args, "group",
				    hd_json_string(sig->group_name));
	if (hd_signal_stored_code(sig))
		json_object_set_new(args, "code",
				    json_integer(hd_signal_stored_code(sig)));
	if (sig->device)
		json_object_set_new(args, "device",
				    hd_json_string(sig->device));
	if (sig->pid > 0)
		json_object_set_new(args, "pid", json_integer(sig->pid));
	if (sig->stack >= 0)
		json_object_set_new(args, "stack",
				    stack_json(w->s, sig->stack));
	json_object_set_new(args, "text", hd_json_str_or_null(sig->text));
	return args;
}

/*
 * Whether the signal of rank pid is folded with alike ones (struct fold):
 * never a rank with ops drawn, a culprit's, or one a verdict cites.
 */
static bool folded(struct pf *w, const struct hd_signal *sig, guint index,
		   int64_t pid, const char *source, bool placed, double ts)
{
	g_autofree char *key = NULL;
	struct fold *f;

	if (pid >= HD_MAX_RANKS ||
	    g_hash_table_contains(w->op_ranks, GINT_TO_POINTER((int)pid)) ||
	    g_hash_table_contains(w->cited, source))
		return false;
	for (guint k = 0; k < w->a->verdicts->len; k++)
		if (hd_verdict_has_culprit(g_ptr_array_index(w->a->verdicts, k),
					   (int)pid))
			return false;
	key = g_strdup_printf(
		"%d/%d/%s/%" G_GINT64_FORMAT "/%s/%d/%d/%d", sig->type,
		sig->cat, sig->group_name ? sig->group_name : "",
		hd_signal_stored_seq(sig), sig->op_name ? sig->op_name : "",
		hd_signal_stored_code(sig), placed, sig->time.clock);
	f = g_hash_table_lookup(w->folds, key);
	if (!f) {
		f = g_new0(struct fold, 1);
		f->ranks = g_array_new(FALSE, FALSE, sizeof(int));
		f->placed = placed;
		f->ts = ts;
		g_hash_table_insert(w->folds, g_steal_pointer(&key), f);
		g_ptr_array_add(w->fold_order, f);
	}
	if (f->drawn < FOLD_KEEP) {
		f->drawn++;
		return false;
	}
	if (!f->title) {
		f->title = signal_title(sig);
		f->first = index;
		f->t_first = f->t_last = sig->time;
		f->ts = ts;
	}
	{
		int r = (int)pid;

		g_array_append_val(f->ranks, r);
	}
	if (hd_time_known(sig->time) && sig->time.clock == f->t_first.clock) {
		if (sig->time.ns < f->t_first.ns)
			f->t_first = sig->time;
		if (sig->time.ns > f->t_last.ns)
			f->t_last = sig->time;
	}
	f->ts = MIN(f->ts, ts);
	return true;
}

static void signals(struct pf *w, GArray *waits)
{
	const struct hd_store *s = w->s;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);
		g_autofree char *source = hd_prov_format(s, &sig->prov);
		g_autofree char *title = NULL;
		bool placed;
		double ts;
		int64_t pid;
		json_t *ev;

		if (!signal_drawn(w, sig, source))
			continue;
		pid = signal_pid(w, i, sig, source);
		if (pid < HD_MAX_RANKS && !shown(w, (int)pid))
			continue;
		placed = on_axis(w, sig);
		ts = placed ? axis_ts(w, sig->time.ns)
			    : w->end_ts + (double)w->off_clock * SEQ_US;
		if (folded(w, sig, i, pid, source, placed, ts)) {
			w->info->folded++;
			continue;
		}
		title = signal_title(sig);
		if (timeout_waits(w, sig, pid, placed)) {
			/* a slice, for the arrow to the culprit to start in */
			ev = track_event(w, "X", title, pid, EVENTS_TID);
			json_object_set_new(ev, "dur", json_real(mark_dur(w)));
			add_timeout_wait(waits, pid, EVENTS_TID, 1, ts,
					 mark_dur(w));
		} else {
			ev = track_event(w, "i", title, pid,
					 placed ? EVENTS_TID : OFF_CLOCK_TID);
			json_object_set_new(ev, "s", json_string("t"));
		}
		json_object_set_new(ev, "cat", json_string("signal"));
		json_object_set_new(ev, "ts", json_real(ts));
		json_object_set_new(ev, "args",
				    signal_args(w, sig, source, placed));
		emit(w, ev);
		w->info->signals++;
		if (!placed) {
			w->off_clock++;
			w->info->off_clock++;
		}
	}
}

/* One event on the job's track for each set of folded events. */
static void fold_events(struct pf *w, GArray *waits)
{
	for (guint i = 0; i < w->fold_order->len; i++) {
		const struct fold *f = g_ptr_array_index(w->fold_order, i);
		const struct hd_signal *sig;
		g_autofree char *name = NULL;
		g_autofree char *ranks = NULL;
		g_autofree char *source = NULL;
		g_autofree char *first = NULL;
		g_autofree char *last = NULL;
		g_autofree char *count = NULL;
		json_t *ev, *args;

		if (!f->title)
			continue;
		sig = &g_array_index(w->s->signals, struct hd_signal, f->first);
		source = hd_prov_format(w->s, &sig->prov);
		ranks = hd_rank_list_text(f->ranks, HD_RANKS_SET);
		first = hd_time_format(f->t_first, 3);
		last = hd_time_format(f->t_last, 3);
		count = hd_report_count(f->ranks->len);
		name = g_strdup_printf("%s, %s more rank%s", f->title, count,
				       f->ranks->len == 1 ? "" : "s");
		if (timeout_waits(w, sig, g_array_index(f->ranks, int, 0),
				  f->placed)) {
			/* one arrow to the culprit stands for these ranks */
			ev = track_event(w, "X", name, FOLD_PID, EVENTS_TID);
			json_object_set_new(ev, "dur", json_real(mark_dur(w)));
			add_timeout_wait(waits, FOLD_PID, EVENTS_TID,
					 f->ranks->len, f->ts, mark_dur(w));
		} else {
			ev = track_event(w, "i", name, FOLD_PID,
					 f->placed ? EVENTS_TID
						   : OFF_CLOCK_TID);
			json_object_set_new(ev, "s", json_string("t"));
		}
		json_object_set_new(ev, "cat", json_string("signal"));
		json_object_set_new(ev, "ts", json_real(f->ts));
		args = json_object();
		json_object_set_new(
			args, "note",
			json_string(
				"the same event on ranks with nothing else to show, folded into one; the first ranks that had it are drawn on their own tracks"));
		json_object_set_new(args, "ranks", hd_json_string(ranks));
		json_object_set_new(args, "count",
				    json_integer((json_int_t)f->ranks->len));
		json_object_set_new(args, "first_source",
				    hd_json_string(source));
		json_object_set_new(args, "earliest", hd_json_string(first));
		json_object_set_new(args, "latest", hd_json_string(last));
		json_object_set_new(args, "clock",
				    json_string(hd_clock_name(
					    (enum hd_clock)f->t_first.clock)));
		json_object_set_new(args, "text",
				    hd_json_str_or_null(sig->text));
		json_object_set_new(ev, "args", args);
		emit(w, ev);
		w->info->signals++;
	}
}

/*
 * A verdict's args: what the JSON report says of it, its culprits with
 * host, pid and call site, its next steps, and for the top one when the
 * hang began, so the trace alone says what to do.
 */
static json_t *verdict_args(const struct pf *w, const struct hd_verdict *v,
			    bool top)
{
	json_t *args = json_object();
	json_t *ev = json_array();
	g_autofree char *group = hd_verdict_group_id(w->a, v);

	json_object_set_new(args, "kind",
			    json_string(hd_verdict_kind_name(v->kind)));
	json_object_set_new(args, "culprits", hd_json_int_array(v->culprits));
	json_object_set_new(args, "confidence",
			    json_string(hd_confidence_name(v->confidence)));
	json_object_set_new(args, "summary", hd_json_string(v->summary));
	json_object_set_new(args, "group", hd_json_string(group));
	json_object_set_new(args, "seq", hd_json_int_or_null(v->seq, -1));
	json_object_set_new(args, "op", hd_json_string(v->op));
	for (guint i = 0; i < v->evidence->len && i < MAX_EVIDENCE; i++) {
		const struct hd_evidence *e = g_ptr_array_index(v->evidence, i);
		json_t *item = json_object();

		json_object_set_new(item, "rank",
				    hd_json_int_or_null(e->rank, -1));
		json_object_set_new(item, "source", hd_json_string(e->source));
		json_object_set_new(item, "text", hd_json_string(e->text));
		if (hd_evidence_is_more(e))
			json_object_set_new(item, "more",
					    json_integer(e->more));
		json_array_append_new(ev, item);
	}
	json_object_set_new(args, "evidence", ev);
	json_object_set_new(args, "culprit_details",
			    hd_report_json_culprits(w->a, v));
	json_object_set_new(args, "next_steps", hd_report_json_next_steps(v));
	if (top)
		json_object_set_new(args, "hang_start",
				    hd_report_json_hang_start(w->a));
	return args;
}

/*
 * Where a verdict sits on the trace's time axis, in microseconds: where
 * its position's op began, else the first watchdog timeout when that is
 * on the trace's clock, else the end of the data.
 */
static double verdict_ts(const struct pf *w, const struct hd_verdict *v)
{
	const struct hd_store *s = w->s;
	const struct hd_moment *m = &w->a->first_timeout;
	int64_t t = INT64_MAX;

	if (w->info->by_sequence)
		return (double)MAX(v->seq, 0) * SEQ_US;
	for (guint i = 0; v->seq >= 0 && i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);

		if ((int64_t)op->group == v->group && op->seq == v->seq &&
		    op->seq_kind != HD_SEQ_P2P &&
		    op_begin(s, op) != INT64_MIN &&
		    op_clock(s, op) == w->info->clock &&
		    (w->clock_input == UINT32_MAX ||
		     op->input == w->clock_input))
			t = MIN(t, op_begin(s, op));
	}
	if (t == INT64_MAX && m->known && hd_time_known(m->time) &&
	    m->time.clock == w->info->clock &&
	    (w->clock_input == UINT32_MAX || m->prov.input == w->clock_input))
		t = m->time.ns;
	return axis_ts(w, t == INT64_MAX ? w->last : t);
}

static char *verdict_title(const struct hd_verdict *v)
{
	g_autofree char *ranks = hd_rank_list_text(v->culprits, HD_RANKS_SET);

	return *ranks ? g_strdup_printf("verdict: %s, rank%s %s",
					hd_verdict_kind_name(v->kind),
					v->culprits->len == 1 ? "" : "s", ranks)
		      : g_strdup_printf("verdict: %s",
					hd_verdict_kind_name(v->kind));
}

/* The track of a verdict on a culprit: its group's, else its events'. */
static int64_t verdict_tid(const struct hd_verdict *v)
{
	return v->group >= 0 ? group_tid((uint32_t)v->group) : EVENTS_TID;
}

/*
 * Where the arrow from wait x starts and ends.  It starts where the rank
 * began to wait (half a mark into its slice, or its middle when the
 * slice is shorter, so the start lies inside), and ends then or, when
 * that is earlier than ts, where the culprit's slice begins, half a mark
 * after ts (so the end lies inside): never before it starts.  An arrow
 * back in time reads as the culprit having been waited on before anyone
 * waited.
 */
static void flow_ends(const struct wait *x, double ts, double mark,
		      double *from, double *to)
{
	*from = x->ts + MIN(x->dur, mark) / 2;
	*to = MAX(*from, ts + mark / 2);
}

/*
 * The flow arrows of one culprit: from each blocked rank's wait to a
 * slice on the culprit's own track that begins at ts, where it should
 * have been, and lasts until the last arrow has arrived.
 */
static void flows_to(struct pf *w, const struct hd_verdict *v, int culprit,
		     double ts, const GArray *waits)
{
	double mark = mark_dur(w), last = ts;
	g_autofree char *name = NULL;
	guint n = 0;
	json_t *ev;

	for (guint i = 0; i < waits->len; i++) {
		const struct wait *x = &g_array_index(waits, struct wait, i);
		double from, to;

		if (!x->found)
			continue;
		n += x->ranks;
		flow_ends(x, ts, mark, &from, &to);
		last = MAX(last, to);
	}
	if (!n)
		return;
	/* the slice the arrows end in: ts until after the last one */
	name = g_strdup_printf("waited on by %u rank%s", n, n == 1 ? "" : "s");
	ev = track_event(w, "X", name, culprit, WAITED_TID);
	json_object_set_new(ev, "cat", json_string("hang"));
	json_object_set_new(ev, "ts", json_real(ts));
	json_object_set_new(ev, "dur", json_real(last - ts + mark / 2));
	json_object_set_new(ev, "args",
			    json_pack("{s:s, s:i}", "verdict",
				      hd_verdict_kind_name(v->kind),
				      "blocked_ranks", (json_int_t)n));
	emit(w, ev);
	g_clear_pointer(&name, g_free);
	name = g_strdup_printf("waits on rank %d", culprit);
	for (guint i = 0; i < waits->len; i++) {
		const struct wait *x = &g_array_index(waits, struct wait, i);
		double from, to;
		uint64_t id;

		if (!x->found)
			continue;
		if (w->info->flows >= MAX_FLOWS) {
			w->info->flows_left_out++;
			continue;
		}
		flow_ends(x, ts, mark, &from, &to);
		id = ++w->next_flow;
		ev = track_event(w, "s", name, x->rank, x->tid);
		json_object_set_new(ev, "cat", json_string("hang"));
		json_object_set_new(ev, "id", json_integer((json_int_t)id));
		json_object_set_new(ev, "ts", json_real(from));
		emit(w, ev);
		ev = track_event(w, "f", name, culprit, WAITED_TID);
		json_object_set_new(ev, "cat", json_string("hang"));
		json_object_set_new(ev, "id", json_integer((json_int_t)id));
		json_object_set_new(ev, "bp", json_string("e"));
		json_object_set_new(ev, "ts", json_real(to));
		emit(w, ev);
		w->info->flows++;
	}
}

/* The blocked ranks of the analysis (not culprits of v): where they wait. */
static GArray *blocked_waits(const struct pf *w)
{
	GArray *waits = g_array_new(FALSE, TRUE, sizeof(struct wait));
	const struct hd_verdict *v = top_fault(w);

	if (!v)
		return waits;
	for (guint i = 0; i < w->a->progress->len; i++) {
		const struct hd_rank_progress *p = &g_array_index(
			w->a->progress, struct hd_rank_progress, i);
		struct wait x = { p->rank, p->group, p->blocked_seq, 0, 0,
				  0,	   0,	     false };

		if (p->blocked_seq < 0 || p->group < 0 ||
		    hd_verdict_has_culprit(v, p->rank) || !shown(w, p->rank))
			continue;
		g_array_append_val(waits, x);
	}
	return waits;
}

static void annotations(struct pf *w, const GArray *waits)
{
	const GPtrArray *verdicts = w->a->verdicts;

	for (guint k = 0; k < verdicts->len && k < MAX_VERDICTS; k++) {
		const struct hd_verdict *v = g_ptr_array_index(verdicts, k);
		g_autofree char *title = verdict_title(v);
		double ts = verdict_ts(w, v);
		json_t *ev;

		/* On the whole trace: the verdict at the divergence. */
		ev = event("i", title, 0, 0);
		json_object_set_new(ev, "cat", json_string("verdict"));
		json_object_set_new(ev, "s", json_string("g"));
		json_object_set_new(ev, "ts", json_real(ts));
		json_object_set_new(ev, "args", verdict_args(w, v, k == 0));
		emit(w, ev);
		w->info->verdicts++;
		/* On each culprit's own track, where it should have been. */
		for (guint i = 0; i < v->culprits->len && i < MAX_CULPRITS;
		     i++) {
			int rank = g_array_index(v->culprits, int, i);
			g_autofree char *name = NULL;

			if (!shown(w, rank))
				continue;
			if ((v->group >= 0 || v->c10d_group >= 0) &&
			    v->seq >= 0)
				name = g_strdup_printf(
					"divergence: %s seq %" G_GINT64_FORMAT,
					hd_verdict_kind_name(v->kind), v->seq);
			else
				name = g_strdup_printf(
					"culprit: %s",
					hd_verdict_kind_name(v->kind));
			ev = track_event(w, "i", name, rank, verdict_tid(v));
			json_object_set_new(ev, "cat", json_string("verdict"));
			json_object_set_new(ev, "s", json_string("t"));
			json_object_set_new(ev, "ts", json_real(ts));
			json_object_set_new(ev, "args",
					    json_pack("{s:s, s:s}", "verdict",
						      title, "summary",
						      v->summary));
			emit(w, ev);
			if (k == 0)
				flows_to(w, v, rank, ts, waits);
		}
	}
}

/* Every evidence source the verdicts cite, with the rank it is about. */
static void collect_cited(struct pf *w)
{
	for (guint k = 0; k < w->a->verdicts->len; k++) {
		const struct hd_verdict *v =
			g_ptr_array_index(w->a->verdicts, k);

		for (guint i = 0; i < v->evidence->len; i++) {
			const struct hd_evidence *e =
				g_ptr_array_index(v->evidence, i);

			if (e->source &&
			    !g_hash_table_contains(w->cited, e->source))
				g_hash_table_insert(
					w->cited, g_strdup(e->source),
					GINT_TO_POINTER(MAX(e->rank, -1) + 1));
		}
	}
}

static void other_data(struct pf *w)
{
	const struct hd_perfetto_info *info = w->info;
	g_autoptr(json_t) other = json_object();
	char *text;

	json_object_set_new(other, "tool",
			    json_string("hangdoc " PACKAGE_VERSION));
	json_object_set_new(
		other, "layout",
		json_string(info->by_sequence ? "sequence" : "time"));
	json_object_set_new(
		other, "note",
		json_string(
			info->by_sequence && !info->events
				? "no op was read and no event has a time: the events are laid out in order, 1 ms apart"
			: info->by_sequence
				? "no op has a timestamp: ops are laid out by sequence position, 1 ms per position"
			: info->by_signals
				? "no op was read: the errors and timeouts are laid out by their own times, as each source recorded them; microseconds from time_base_ns"
				: "wall-clock times as each source recorded them, not corrected across hosts; microseconds from time_base_ns"));
	json_object_set_new(other, "time_base_ns",
			    info->by_sequence ? json_null()
					      : json_integer(w->base));
	json_object_set_new(
		other, "time_clock",
		json_string(hd_clock_name((enum hd_clock)info->clock)));
	json_object_set_new(other, "ops_on_other_clocks",
			    json_integer((json_int_t)info->other_clock));
	json_object_set_new(other, "ops_without_time",
			    json_integer((json_int_t)info->untimed));
	json_object_set_new(other, "events_off_clock",
			    json_integer((json_int_t)info->off_clock));
	json_object_set_new(other, "events_folded",
			    json_integer((json_int_t)info->folded));
	json_object_set_new(other, "flows_left_out",
			    json_integer((json_int_t)info->flows_left_out));
	if (w->filter)
		json_object_set_new(other, "filter",
				    hd_report_filter_json(w->filter));
	text = hd_json_dumps(other, JSON_COMPACT | JSON_PRESERVE_ORDER);
	fputs(text ? text : "{}", w->out);
	g_free(text);
}

bool hd_report_perfetto_filtered(FILE *out, const struct hd_analysis *a,
				 const struct hd_report_filter *filter,
				 struct hd_perfetto_info *info)
{
	struct pf w = {
		.out = out,
		.first = true,
		.a = a,
		.s = a->store,
		.filter = filter,
		.info = info,
		.clock_input = UINT32_MAX,
		.base = INT64_MAX,
		.last = INT64_MIN,
	};
	g_autoptr(GArray) waits = NULL;

	*info = (struct hd_perfetto_info){ 0 };
	w.tracks = g_hash_table_new_full(hd_int64_hash, hd_int64_equal, g_free,
					 NULL);
	w.hosts = g_hash_table_new(g_direct_hash, g_direct_equal);
	w.path_hosts = g_hash_table_new(g_direct_hash, g_direct_equal);
	w.host_names = g_ptr_array_new();
	w.cited = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	w.op_ranks = g_hash_table_new(NULL, NULL);
	w.folds = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					fold_free);
	w.fold_order = g_ptr_array_new();
	collect_cited(&w);
	choose_clock(&w);
	waits = blocked_waits(&w);
	/* first, so that hangdoc knows its own export (parsers.c) */
	fprintf(out, "{\"generator\": \"hangdoc %s\",\n", PACKAGE_VERSION);
	fputs("\"traceEvents\": [", out);
	ops(&w, waits);
	signals(&w, waits);
	fold_events(&w, waits);
	annotations(&w, waits);
	names(&w);
	fputs("\n],\n\"displayTimeUnit\": \"ms\",\n\"otherData\": ", out);
	other_data(&w);
	fputs("\n}\n", out);
	g_hash_table_unref(w.tracks);
	g_hash_table_unref(w.hosts);
	g_hash_table_unref(w.path_hosts);
	g_ptr_array_unref(w.host_names);
	g_hash_table_unref(w.cited);
	g_hash_table_unref(w.op_ranks);
	g_ptr_array_unref(w.fold_order);
	g_hash_table_unref(w.folds);
	return !ferror(out);
}

bool hd_report_perfetto(FILE *out, const struct hd_analysis *a,
			struct hd_perfetto_info *info)
{
	return hd_report_perfetto_filtered(out, a, NULL, info);
}
