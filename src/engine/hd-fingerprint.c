/*
 * Verdict fingerprints (hd-fingerprint.h).  The canonical text of a verdict
 * is built from what names its cause and nothing that names its instance,
 * and only from facts that every kind of evidence carries, so that one
 * hang seen through flight-recorder dumps, logs, traces or any mix of them
 * gets one fingerprint:
 *
 *   fp2; kind=<verdict kind>; op=<op kind>; sig=<signal class>;
 *   code=<code>; text=<normalised error text>
 *
 * with absent parts left out.  The error signature is the signal the
 * verdict cites first (network, crash and init verdicts): its class, its
 * code (ncclResult, IB status, exit code) and its text normalised by
 * hd_fingerprint_normalize().  Ranks, hosts, times and paths never enter
 * the text, so incidents of one cause share it; the fingerprint is a
 * 64-bit FNV-1a hash of it, in hex.
 *
 * The call site and the process group's description are left out: only a
 * dump with stacks records the one, and an NCCL log never names the other,
 * so either would split one hang by the evidence it was seen through.  The
 * call site is kept apart as a refinement (v->call_site): the culprit's
 * innermost frame outside torch at the verdict's position (else its last
 * recorded op with a stack), without the line number and the directories,
 * which move with every unrelated edit and checkout.
 */
#include "config.h"

#include "hd-fingerprint.h"
#include "hd-const.h"

#include <string.h>

#include "hd-banned.h"

#define NORMALIZED_MAX 240
/* Ops read back from a lane's end to find one with a stack. */
#define SITE_SCAN_MAX 4096

char *hd_fingerprint_hash(const char *text)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		h ^= *p;
		h *= 0x100000001b3ULL;
	}
	return g_strdup_printf("%016" G_GINT64_MODIFIER "x", (guint64)h);
}

static bool is_word_char(char c)
{
	return g_ascii_isalnum(c) || c == '_' || c == '-';
}

/* The length of the longest known host or address at p, or 0. */
static size_t host_at(const char *text, const char *p, GPtrArray *hosts)
{
	size_t best = 0;

	if (p > text && is_word_char(p[-1]))
		return 0;
	for (guint i = 0; hosts && i < hosts->len; i++) {
		const char *h = g_ptr_array_index(hosts, i);
		size_t n = strlen(h);

		if (n > best && strncmp(p, h, n) == 0 && !is_word_char(p[n]) &&
		    p[n] != '.')
			best = n;
	}
	return best;
}

/* The length of a dotted IPv4 address at p, or 0. */
static size_t ipv4_at(const char *p)
{
	const char *q = p;

	for (int part = 0; part < 4; part++) {
		int digits = 0;

		while (g_ascii_isdigit(*q) && digits < 4) {
			q++;
			digits++;
		}
		if (!digits || digits > 3)
			return 0;
		if (part < 3) {
			if (*q != '.')
				return 0;
			q++;
		}
	}
	return g_ascii_isdigit(*q) ? 0 : (size_t)(q - p);
}

static bool is_path_delim(char c)
{
	return c == '\0' || g_ascii_isspace(c) || c == '"' || c == '\'' ||
	       c == '(' || c == ')' || c == '[' || c == ']' || c == '<' ||
	       c == '>' || c == ',' || c == ';' || c == '=';
}

/*
 * The length of a file path at p ("/a/b", "./x", "dir/file.py:12"), or 0.
 * A word with a slash counts only when it starts at the root or its last
 * part has a dot: "NET/IB" is a name, not a path.
 */
static size_t path_at(const char *text, const char *p)
{
	const char *q = p, *slash = NULL;

	if (p > text && !is_path_delim(p[-1]))
		return 0;
	while (!is_path_delim(*q)) {
		if (*q == '/')
			slash = q;
		q++;
	}
	if (!slash)
		return 0;
	if (*p == '/' || *p == '~' || (p[0] == '.' && p[1] == '/'))
		return q - p;
	for (const char *r = slash; r < q; r++)
		if (*r == '.')
			return q - p;
	return 0;
}

/* Hosts and bootstrap addresses the store knows, longest first. */
static gint longer_first(gconstpointer a, gconstpointer b)
{
	size_t x = strlen(*(const char *const *)a);
	size_t y = strlen(*(const char *const *)b);

	return (x < y) - (x > y);
}

static GPtrArray *store_hosts(const struct hd_store *s)
{
	GPtrArray *hosts = g_ptr_array_new();
	g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
	GHashTableIter it;
	gpointer value;

	if (!s)
		return hosts;
	g_hash_table_iter_init(&it, s->ranks);
	while (g_hash_table_iter_next(&it, NULL, &value)) {
		const struct hd_rank *r = value;
		const char *names[] = { r->host, r->addr };

		for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
			if (names[i] && *names[i] &&
			    g_hash_table_add(seen, hd_unconst(names[i])))
				g_ptr_array_add(hosts, hd_unconst(names[i]));
	}
	for (guint i = 0; i < s->signals->len; i++) {
		const char *h =
			g_array_index(s->signals, struct hd_signal, i).host;

		if (h && *h && g_hash_table_add(seen, hd_unconst(h)))
			g_ptr_array_add(hosts, hd_unconst(h));
	}
	g_ptr_array_sort(hosts, longer_first);
	return hosts;
}

static char *normalize(const char *text, GPtrArray *hosts)
{
	GString *o = g_string_new(NULL);
	const char *p = text ? text : "";

	while (*p && o->len < NORMALIZED_MAX) {
		size_t n;

		if ((n = host_at(text, p, hosts))) {
			g_string_append(o, "<host>");
		} else if ((n = ipv4_at(p))) {
			g_string_append(o, "<ip>");
		} else if ((n = path_at(text, p))) {
			g_string_append(o, "<path>");
		} else if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
			   g_ascii_isxdigit(p[2])) {
			n = 2;
			while (g_ascii_isxdigit(p[n]))
				n++;
			g_string_append(o, "<hex>");
		} else if (g_ascii_isdigit(*p)) {
			n = 0;
			while (g_ascii_isdigit(p[n]) ||
			       (p[n] == '.' && g_ascii_isdigit(p[n + 1])))
				n++;
			g_string_append_c(o, 'N');
		} else if (g_ascii_isspace(*p) || (unsigned char)*p < 0x20) {
			n = 1;
			while (g_ascii_isspace(p[n]))
				n++;
			if (o->len && o->str[o->len - 1] != ' ')
				g_string_append_c(o, ' ');
		} else {
			n = 1;
			g_string_append_c(o, *p);
		}
		p += n;
	}
	while (o->len && o->str[o->len - 1] == ' ')
		g_string_truncate(o, o->len - 1);
	if (o->len > NORMALIZED_MAX) {
		/* Never end inside a UTF-8 sequence. */
		const char *end = o->str + NORMALIZED_MAX;

		g_string_truncate(o, g_utf8_find_prev_char(o->str, end + 1) -
					     o->str);
	}
	return g_string_free(o, FALSE);
}

char *hd_fingerprint_normalize(const char *text, const struct hd_store *s)
{
	g_autoptr(GPtrArray) hosts = store_hosts(s);

	return normalize(text, hosts);
}

/* The op of rank that best shows where it called in: at seq, else its last. */
static const struct hd_op *site_op(const struct hd_index *ix,
				   const struct hd_verdict *v, int rank)
{
	const struct hd_op *best = NULL;
	struct hd_lane_iter it;
	const struct hd_lane *lane;

	hd_lane_iter_init(&it, ix);
	while ((lane = hd_lane_iter_next(&it))) {
		uint32_t scanned = 0;

		if ((v->group >= 0 && (int64_t)it.group != v->group) ||
		    lane->rank != rank)
			continue;
		for (uint32_t i = lane->n; i-- > 0 && scanned < SITE_SCAN_MAX;
		     scanned++) {
			const struct hd_op *op = hd_index_op(ix, lane->ops[i]);

			if (hd_op_stack(ix->store, op) < 0)
				continue;
			if (v->seq >= 0 && op->seq == v->seq && v->group >= 0)
				return op;
			if (!best || op->seq > best->seq)
				best = op;
			if (v->seq < 0 || op->seq < v->seq)
				break;
		}
	}
	return best;
}

/* "train.py:train_step" for the culprit's call site, or NULL.  (transfer full) */
static char *call_site(const struct hd_index *ix, const struct hd_analysis *a,
		       const struct hd_verdict *v)
{
	const struct hd_frame *f;
	const struct hd_op *op;
	g_autofree char *base = NULL;

	if (!v->culprits->len)
		return NULL;
	/* a record of another instance is not where this run's rank was */
	if (g_hash_table_contains(
		    a->other_instance,
		    GINT_TO_POINTER(g_array_index(v->culprits, int, 0))))
		return NULL;
	op = site_op(ix, v, g_array_index(v->culprits, int, 0));
	if (!op)
		return NULL;
	f = hd_op_user_frame(ix->store, op);
	if (!f || !f->file)
		return NULL;
	base = g_path_get_basename(f->file);
	return g_strdup_printf("%s:%s", base, f->name ? f->name : "?");
}

/* Signals a verdict may cite, by their formatted provenance. */
static GHashTable *cited_signals(const struct hd_store *s)
{
	GHashTable *by_source =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);

		if (sig->cat == HD_SIG_PROGRESS || sig->cat == HD_SIG_INFO ||
		    sig->prov.kind == HD_PROV_NONE)
			continue;
		g_hash_table_insert(by_source, hd_prov_format(s, &sig->prov),
				    hd_unconst(sig));
	}
	return by_source;
}

static void append_signature(GString *t, const struct hd_verdict *v,
			     GHashTable *by_source, GPtrArray *hosts)
{
	for (guint i = 0; i < v->evidence->len; i++) {
		const struct hd_evidence *e = g_ptr_array_index(v->evidence, i);
		const struct hd_signal *sig =
			e->source ? g_hash_table_lookup(by_source, e->source)
				  : NULL;
		g_autofree char *text = NULL;

		if (!sig)
			continue;
		text = normalize(sig->text, hosts);
		g_string_append_printf(t, "; sig=%s.%u; code=%d; text=%s",
				       hd_signal_cat_name(sig->cat), sig->type,
				       hd_signal_stored_code(sig), text);
		return;
	}
	/* No signal cited: what the engine said, normalised. */
	if (v->evidence->len) {
		const struct hd_evidence *e = g_ptr_array_index(v->evidence, 0);
		g_autofree char *text = normalize(e->text, hosts);

		g_string_append_printf(t, "; text=%s", text);
	}
}

void hd_fingerprint_run(const struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	g_autoptr(GPtrArray) hosts = store_hosts(s);
	g_autoptr(GHashTable) by_source = NULL;

	for (guint i = 0; i < a->verdicts->len; i++) {
		struct hd_verdict *v = g_ptr_array_index(a->verdicts, i);
		GString *t = g_string_new(HD_FINGERPRINT_VERSION);
		enum hd_fp_field fields =
			hd_verdict_kind_info(v->kind)->fingerprint;

		g_string_append_printf(t, "; kind=%s",
				       hd_verdict_kind_name(v->kind));
		if (v->op)
			g_string_append_printf(t, "; op=%s", v->op);
		if (fields == HD_FP_SIGNATURE) {
			if (!by_source)
				by_source = cited_signals(s);
			append_signature(t, v, by_source, hosts);
		} else if (fields == HD_FP_SUMMARY) {
			g_autofree char *text = normalize(v->summary, hosts);

			g_string_append_printf(t, "; text=%s", text);
		}
		g_free(v->fingerprint_text);
		g_free(v->fingerprint);
		g_free(v->call_site);
		v->fingerprint_text = g_string_free(t, FALSE);
		v->fingerprint = hd_fingerprint_hash(v->fingerprint_text);
		v->call_site = call_site(ix, a, v);
	}
}
