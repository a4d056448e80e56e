/*
 * py-spy dumps as corroboration (docs/verdicts.md, "py-spy"): each dump's
 * threads are joined to a rank by pid (the pid must be one rank's alone,
 * and the host the same where both are known), and the main thread says
 * where that rank's Python is now: inside a collective (its stack runs
 * through torch.distributed or NCCL) or elsewhere, and whether it waits
 * in a data loader.  A verdict that blames a rank for never entering an
 * op is then corroborated (the culprit is elsewhere, its peers inside)
 * or refuted (the culprit is inside a collective after all: confidence
 * drops to low).  Reads the store's signals and the verdicts already
 * made; never the files.
 */
#include "config.h"

#include <string.h>

#include "hd-checks.h"
#include "hd-sig-util.h"
#include "hd-banned.h"

static bool frame_in_collective(const struct hd_frame *f)
{
	static const char *const files[] = { "torch/distributed/",
					     "distributed_c10d", "libnccl",
					     "ProcessGroupNCCL" };
	static const char *const names[] = {
		"nccl",		  "c10d::",    "all_reduce", "all_gather",
		"reduce_scatter", "broadcast", "barrier",    "all_to_all"
	};

	for (size_t i = 0; f->file && i < G_N_ELEMENTS(files); i++)
		if (strstr(f->file, files[i]))
			return true;
	for (size_t i = 0; f->name && i < G_N_ELEMENTS(names); i++)
		if (strstr(f->name, names[i]))
			return true;
	return false;
}

static bool frame_in_loader(const struct hd_frame *f)
{
	static const char *const words[] = { "loader", "Loader", "_next_data",
					     "fetch" };

	for (size_t i = 0; i < G_N_ELEMENTS(words); i++)
		if ((f->name && strstr(f->name, words[i])) ||
		    (f->file && strstr(f->file, words[i])))
			return true;
	return false;
}

/* Not where the user is: the standard library, native code, torch. */
static bool frame_is_plumbing(const struct hd_frame *f)
{
	static const char *const files[] = {
		"threading.py", "queue.py",	 "selectors.py",
		"/lib/python",	"<frozen",	 "multiprocessing/",
		"socket.py",	"subprocess.py", "site-packages/torch/",
		"torch/",	".so",
	};

	if (!f->file || f->line <= 0)
		return true;
	for (size_t i = 0; i < G_N_ELEMENTS(files); i++)
		if (strstr(f->file, files[i]))
			return true;
	return false;
}

static int compare_rank(gconstpointer a, gconstpointer b)
{
	const struct hd_pyspy_rank *x = a, *y = b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The thread that says where a process is: MainThread, else the first. */
static bool better_thread(const struct hd_signal *cand,
			  const struct hd_signal *cur)
{
	bool cm = cand->text && strstr(cand->text, "\"MainThread\"");
	bool um = cur->text && strstr(cur->text, "\"MainThread\"");

	return cm && !um;
}

static void join_dumps(const struct hd_store *s, struct hd_analysis *a)
{
	g_autoptr(GHashTable) at = g_hash_table_new(NULL, NULL);
	g_autoptr(GHashTable) by_pid = hd_store_ranks_by_pid(s);
	g_autoptr(GHashTable) unjoined = g_hash_table_new(NULL, NULL);

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);
		struct hd_pyspy_rank pr = { 0 }, *old;
		const struct hd_frame *f;
		size_t n = 0;
		gpointer slot;
		int rank = sig->rank;
		enum hd_pid_join join = HD_PID_ONE_RANK;

		if (sig->type != HD_SIGT_PYSPY_THREAD)
			continue;
		if (rank < 0)
			join = hd_store_rank_of_pid(by_pid, sig->pid, sig->host,
						    &rank);
		/* a pid several ranks had: say whose, once per dump */
		if (join == HD_PID_SEVERAL_RANKS &&
		    g_hash_table_size(unjoined) < 8 &&
		    g_hash_table_add(unjoined,
				     GUINT_TO_POINTER(sig->prov.input + 1)))
			g_ptr_array_add(
				a->notes,
				hd_sig_unjoined_note(s, "py-spy dump", sig));
		if (rank < 0)
			continue;
		f = hd_store_stack(s, sig->stack, &n);
		pr.rank = rank;
		pr.signal = i;
		pr.frame = -1;
		for (size_t k = 0; k < n; k++) {
			pr.in_collective |= frame_in_collective(&f[k]);
			pr.in_loader |= frame_in_loader(&f[k]);
			if (pr.frame < 0 && !frame_is_plumbing(&f[k]))
				pr.frame = (int32_t)k;
		}
		if (g_hash_table_lookup_extended(at, GINT_TO_POINTER(rank),
						 NULL, &slot)) {
			old = &g_array_index(a->pyspy, struct hd_pyspy_rank,
					     GPOINTER_TO_UINT(slot));
			if (better_thread(sig, &g_array_index(s->signals,
							      struct hd_signal,
							      old->signal)))
				*old = pr;
			continue;
		}
		g_hash_table_insert(at, GINT_TO_POINTER(rank),
				    GUINT_TO_POINTER(a->pyspy->len));
		g_array_append_val(a->pyspy, pr);
	}
	g_array_sort(a->pyspy, compare_rank);
}

const struct hd_pyspy_rank *hd_analysis_pyspy(const struct hd_analysis *a,
					      int rank)
{
	for (guint i = 0; a->pyspy && i < a->pyspy->len; i++) {
		const struct hd_pyspy_rank *p =
			&g_array_index(a->pyspy, struct hd_pyspy_rank, i);

		if (p->rank == rank)
			return p;
	}
	return NULL;
}

char *hd_pyspy_where(const struct hd_store *s, const struct hd_pyspy_rank *p)
{
	const struct hd_signal *sig =
		&g_array_index(s->signals, struct hd_signal, p->signal);
	size_t n = 0;
	const struct hd_frame *f = hd_store_stack(s, sig->stack, &n);

	if (n == 0)
		return g_strdup("no frames");
	if (p->frame >= 0 && (size_t)p->frame < n)
		f = &f[p->frame];
	if (f->line > 0)
		return g_strdup_printf("%s (%s:%d)", f->name ? f->name : "?",
				       f->file ? f->file : "?", f->line);
	return g_strdup_printf("%s (%s)", f->name ? f->name : "?",
			       f->file ? f->file : "?");
}

/* Whether v blames a rank for not being in an op its peers are in. */
static bool blames_absence(const struct hd_verdict *v)
{
	return v->kind == HD_V_MISSING_RANK && v->culprits->len > 0;
}

/*
 * The headline of a verdict with one culprit carries where py-spy saw it
 * now, so that every format that shows a verdict's summary (the JSONL
 * row and a triage table too) states the chain: the summary is no part
 * of missing_rank's fingerprint.
 */
static void summary_add_where(const struct hd_store *s, struct hd_verdict *v,
			      const struct hd_pyspy_rank *p)
{
	g_autofree char *where = hd_pyspy_where(s, p);
	char *old = v->summary;

	if (p->in_collective)
		v->summary = g_strdup_printf(
			"%s; yet py-spy shows it inside a collective now, in %s",
			old, where);
	else
		v->summary = g_strdup_printf(
			"%s; py-spy shows it now %s %s", old,
			p->in_loader ? "waiting in" : "in", where);
	g_free(old);
}

static void annotate(const struct hd_store *s, struct hd_analysis *a,
		     struct hd_verdict *v, bool first)
{
	g_autoptr(GArray) inside = g_array_new(FALSE, FALSE, sizeof(int));
	g_autoptr(GArray) outside = g_array_new(FALSE, FALSE, sizeof(int));
	guint culprits_in = 0, culprits_out = 0;
	const struct hd_pyspy_rank *only = NULL;

	for (guint i = 0; i < a->pyspy->len; i++) {
		const struct hd_pyspy_rank *p =
			&g_array_index(a->pyspy, struct hd_pyspy_rank, i);
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, p->signal);
		g_autofree char *src = hd_prov_format(s, &sig->prov);
		g_autofree char *where = hd_pyspy_where(s, p);

		g_array_append_val(p->in_collective ? inside : outside,
				   p->rank);
		if (!hd_verdict_has_culprit(v, p->rank))
			continue;
		if (p->in_collective)
			culprits_in++;
		else
			culprits_out++;
		if (v->culprits->len == 1)
			only = p;
		if (!first)
			continue;
		hd_verdict_add_evidence(
			v, p->rank, src,
			"py-spy: rank %d (pid %d) is now %s %s%s", p->rank,
			sig->pid, p->in_loader ? "waiting in" : "in", where,
			p->in_collective ? ", inside a collective"
					 : ", not inside any collective");
	}
	if (inside->len && outside->len && first) {
		g_autofree char *in = hd_ranks_text(inside, 8);
		g_autofree char *out = hd_ranks_text(outside, 8);

		hd_verdict_add_evidence(
			v, -1, NULL,
			"py-spy: rank%s %s inside the collective, rank%s %s elsewhere",
			inside->len > 1 ? "s" : "", in,
			outside->len > 1 ? "s" : "", out);
	}
	if (only && v->summary)
		summary_add_where(s, v, only);
	hd_live_judge_absence(v, culprits_in, culprits_out, first, "py-spy",
			      "a collective", "it");
}

struct pyspy_ctx {
	const struct hd_store *s;
	struct hd_analysis *a;
};

static void annotate_one(struct hd_verdict *v, bool first, void *data)
{
	struct pyspy_ctx *c = data;

	/* a refutation lowers every copy; evidence once */
	annotate(c->s, c->a, v, first);
}

void hd_check_pyspy(struct hd_index *ix, struct hd_analysis *a)
{
	struct pyspy_ctx c = { ix->store, a };

	join_dumps(ix->store, a);
	if (a->pyspy->len)
		hd_live_each_blame(a, blames_absence, annotate_one, &c);
}
