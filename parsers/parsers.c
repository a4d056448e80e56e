/*
 * The parser registry: for each input kind, how its head is recognised,
 * the parser that reads it, the budget it is read under and its per-thread
 * buffers.  The kind of an input is decided from its first decompressed
 * bytes, never from its name.  A new input kind is one line in
 * HD_INPUT_KINDS (hd-store.h) and one entry in registry[] below.
 */
#include "config.h"

#include "parsers.h"

#include <string.h>

#include "hd-budget.h"
#include "hd-error.h"
#include "hd-banned.h"

/* Returns the first non-blank byte of head, or -1. */
static int first_byte(const uint8_t *head, size_t len, size_t *at)
{
	for (size_t i = 0; i < len; i++) {
		/* A UTF-8 byte-order mark is not content. */
		if (i + 2 < len && head[i] == 0xef && head[i + 1] == 0xbb &&
		    head[i + 2] == 0xbf) {
			i += 2;
			continue;
		}
		if (!g_ascii_isspace(head[i])) {
			*at = i;
			return head[i];
		}
	}
	return -1;
}

static bool head_has(const uint8_t *head, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	if (n > len)
		return false;
	for (size_t i = 0; i + n <= len; i++)
		if (head[i] == (uint8_t)needle[0] &&
		    memcmp(head + i, needle, n) == 0)
			return true;
	return false;
}

/*
 * Text if few bytes are control characters outside tab/CR/LF/ESC.  NUL
 * bytes do not count either way: a log may hold a hole of them where a
 * crashed or truncated writer left one (hd-lines.h skips them).
 */
static bool looks_like_text(const uint8_t *head, size_t len)
{
	size_t bad = 0, nul = 0;

	for (size_t i = 0; i < len; i++) {
		uint8_t c = head[i];

		if (c == 0)
			nul++;
		else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' &&
			 c != 0x1b)
			bad++;
	}
	return len > nul && bad * 20 <= len - nul;
}

/* Whether head starts with prefix, after leading blanks. */
static bool head_starts(const uint8_t *head, size_t len, const char *prefix)
{
	size_t at = 0, n = strlen(prefix);

	while (at < len && g_ascii_isspace(head[at]))
		at++;
	return len - at >= n && memcmp(head + at, prefix, n) == 0;
}

/* "missing_rank [high] ...": the first line of a text report. */
static bool text_report_head(const uint8_t *head, size_t len)
{
	static const char *const conf[] = { "[high]", "[medium]", "[low]" };
	size_t at = 0;

	while (at < len && (g_ascii_islower(head[at]) || head[at] == '_'))
		at++;
	if (at < 6 || at >= len || head[at] != ' ')
		return false;
	at++;
	for (size_t i = 0; i < G_N_ELEMENTS(conf); i++) {
		size_t n = strlen(conf[i]);

		if (len - at >= n && memcmp(head + at, conf[i], n) == 0 &&
		    (len - at == n || head[at + n] == ' ' ||
		     head[at + n] == ':' || head[at + n] == '\n'))
			return true;
	}
	return false;
}

const char *parsers_own_output(const uint8_t *head, size_t len)
{
	if (text_report_head(head, len) ||
	    head_starts(
		    head, len,
		    "WARNING: these inputs cannot all belong to one incident"))
		return "a hangdoc text report";
	if (head_starts(head, len, "# hangdoc: "))
		return "a hangdoc Markdown report";
	if (head_starts(head, len, "<!DOCTYPE html>") &&
	    head_has(head, len, "<title>hangdoc"))
		return "a hangdoc HTML report";
	if (head_starts(head, len, "{") &&
	    head_has(head, len, "\"name\": \"hangdoc\""))
		return "a hangdoc JSON report";
	if (head_starts(head, len, "{\"path\":") &&
	    head_has(head, len, "\"verdict\":") &&
	    head_has(head, len, "\"fingerprint\":"))
		return "a hangdoc jsonl line";
	if (head_starts(head, len, "{\"generator\": \"hangdoc "))
		return "a hangdoc Perfetto export";
	if (head_starts(head, len, "ops: ") &&
	    head_has(head, len, "\ngroup ") && head_has(head, len, " source"))
		return "a hangdoc show listing";
	if (head_starts(head, len, "{") &&
	    head_has(head, len, "\"format\": \"hangdoc-replay-plan\""))
		return "a hangdoc replay plan";
	if (head_starts(head, len, "{") && head_has(head, len, "\"ops\": [") &&
	    head_has(head, len, "\"seq_kind\""))
		return "a hangdoc show listing (JSON)";
	return NULL;
}

/* A JSON head: '{', or '[' followed by '{' (a log line may start "[rank3]"). */
static bool head_is_json(const struct parsers_head *h)
{
	return h->first == '{' || h->first == '[';
}

static bool sniff_kineto(const struct parsers_head *h)
{
	return head_is_json(h) &&
	       (head_has(h->p, h->len, "\"traceEvents\"") ||
		head_has(h->p, h->len, "\"schemaVersion\"") ||
		head_has(h->p, h->len, "\"deviceProperties\"") ||
		head_has(h->p, h->len, "\"distributedInfo\"") ||
		head_has(h->p, h->len, "\"ph\""));
}

static bool sniff_flight_rec(const struct parsers_head *h)
{
	/* pickle protocol 2 to 5 */
	if (h->len >= 2 && h->p[0] == 0x80 && h->p[1] >= 2 && h->p[1] <= 5)
		return true;
	/* the whole input is PROTO's opcode alone: a dump cut after it */
	if (h->len == 1 && h->p[0] == 0x80)
		return true;
	return head_is_json(h) &&
	       (head_has(h->p, h->len, "\"pg_config\"") ||
		head_has(h->p, h->len, "\"entries\"") ||
		head_has(h->p, h->len, "\"pg_status\"") ||
		head_has(h->p, h->len, "\"comm_lib_version\"") ||
		head_has(h->p, h->len, "\"nccl_comm_state\"") ||
		head_has(h->p, h->len, "\"profiling_name\""));
}

static bool sniff_nccl_log(const struct parsers_head *h)
{
	/*
	 * Unknown JSON: JSON lines of an NCCL log collector are text; a
	 * whole-file JSON object or array we cannot place is not ours.
	 */
	if (head_is_json(h) &&
	    (h->first == '[' || !head_has(h->p, h->len, "NCCL")))
		return false;
	return h->len > 0 && looks_like_text(h->p, h->len);
}

/*
 * "Thread 4247 (idle): \"MainThread\"" (or "Thread 0x7F.. (active)",
 * "Thread (idle)") at p, then a frame line "    name (file:line)": a
 * py-spy dump pasted without its process header.
 */
static bool pyspy_thread_head(const uint8_t *p, size_t len)
{
	const uint8_t *end = p + len, *nl, *q, *e;

	if (len < 12 || memcmp(p, "Thread ", 7) != 0)
		return false;
	q = p + 7;
	if (end - q > 2 && q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
		q += 2;
	while (q < end && g_ascii_isxdigit(*q))
		q++;
	if (q < end && *q == ' ')
		q++;
	if (end - q < 7 ||
	    (memcmp(q, "(idle)", 6) != 0 && memcmp(q, "(active", 7) != 0 &&
	     memcmp(q, "(gil", 4) != 0))
		return false;
	nl = memchr(q, '\n', (size_t)(end - q));
	if (!nl)
		return false;
	/* the next line: four spaces and "name (...)" */
	q = nl + 1;
	e = memchr(q, '\n', (size_t)(end - q));
	while (e && e > q && e[-1] == '\r')
		e--;
	return e && e - q > 8 && memcmp(q, "    ", 4) == 0 && q[4] != ' ' &&
	       e[-1] == ')' && memchr(q, '(', (size_t)(e - q));
}

/*
 * "Process 4247: cmd" then "Python v3.10.12 (exe)", after the command
 * that printed it when that was pasted too ("$ py-spy dump --pid 4247");
 * or a dump without its header (pyspy_thread_head()).
 */
static bool pyspy_text_head(const uint8_t *p, size_t len)
{
	size_t at = 0, d = 0;

	while (at < len && g_ascii_isspace(p[at]))
		at++;
	for (int skip = 0; skip < 3 && at < len; skip++) {
		const uint8_t *nl = memchr(p + at, '\n', len - at);

		if (!nl ||
		    !memmem(p + at, (size_t)(nl - (p + at)), "py-spy dump", 11))
			break;
		at = (size_t)(nl - p) + 1;
		while (at < len && g_ascii_isspace(p[at]))
			at++;
	}
	if (at < len && pyspy_thread_head(p + at, len - at))
		return true;
	if (len - at < 8 || memcmp(p + at, "Process ", 8) != 0)
		return false;
	for (at += 8; at < len && g_ascii_isdigit(p[at]); at++)
		d++;
	if (!d || at >= len || p[at] != ':')
		return false;
	for (; at + 10 < len; at++)
		if (p[at] == '\n' && memcmp(p + at + 1, "Python v", 8) == 0)
			return g_ascii_isdigit(p[at + 9]);
	return false;
}

/*
 * py-spy dump: "Process N: cmd" then "Python v", or its --json array of
 * threads with "thread_name" and "frames".
 */
static bool sniff_pyspy(const struct parsers_head *h)
{
	if (h->first == '[')
		return head_has(h->p, h->len, "\"frames\"") &&
		       (head_has(h->p, h->len, "\"thread_id\"") ||
			head_has(h->p, h->len, "\"thread_name\"")) &&
		       head_has(h->p, h->len, "\"owns_gil\"");
	return pyspy_text_head(h->p, h->len) && looks_like_text(h->p, h->len);
}

static struct parsers_budget budget_pyspy(const struct parsers_head *h)
{
	(void)h;
	return (struct parsers_budget){ HD_BUDGET_TRACE_BYTES,
					HD_BUDGET_LOG_RATIO, "a py-spy dump" };
}

static struct parsers_budget budget_nccl_log(const struct parsers_head *h)
{
	(void)h;
	return (struct parsers_budget){ HD_BUDGET_LOG_BYTES,
					HD_BUDGET_LOG_RATIO,
					"an NCCL or c10d log" };
}

static struct parsers_budget budget_flight_rec(const struct parsers_head *h)
{
	if (h->len > 0 && h->p[0] == 0x80)
		return (struct parsers_budget){ HD_BUDGET_FR_PICKLE_BYTES,
						HD_BUDGET_FR_RATIO,
						"a flight-recorder pickle" };
	return (struct parsers_budget){ HD_BUDGET_FR_JSON_BYTES,
					HD_BUDGET_FR_RATIO,
					"a flight-recorder JSON dump" };
}

static struct parsers_budget budget_kineto(const struct parsers_head *h)
{
	(void)h;
	return (struct parsers_budget){ HD_BUDGET_TRACE_BYTES,
					HD_BUDGET_TRACE_RATIO,
					"a profiler trace" };
}

static bool sniff_kernel_log(const struct parsers_head *h)
{
	return !head_is_json(h) && kernel_log_sniff(h->p, h->len);
}

static struct parsers_budget budget_kernel_log(const struct parsers_head *h)
{
	(void)h;
	return (struct parsers_budget){ HD_BUDGET_LOG_BYTES,
					HD_BUDGET_LOG_RATIO, "a kernel log" };
}

static bool sniff_ib_state(const struct parsers_head *h)
{
	return ib_state_sniff(h->p, h->len);
}

static bool sniff_gpu_state(const struct parsers_head *h)
{
	return gpu_state_sniff(h->p, h->len);
}

static bool sniff_digest(const struct parsers_head *h)
{
	return digest_sniff(h->p, h->len);
}

static struct parsers_budget budget_digest(const struct parsers_head *h)
{
	(void)h;
	return (struct parsers_budget){ HD_BUDGET_DIGEST_BYTES,
					HD_BUDGET_LOG_RATIO, "a digest" };
}

static bool sniff_gdb(const struct parsers_head *h)
{
	return !head_is_json(h) && gdb_bt_sniff(h->p, h->len) &&
	       looks_like_text(h->p, h->len);
}

static struct parsers_budget budget_gdb(const struct parsers_head *h)
{
	(void)h;
	return (struct parsers_budget){ HD_BUDGET_LOG_BYTES,
					HD_BUDGET_LOG_RATIO,
					"a gdb backtrace" };
}

static bool sniff_nccl_topo(const struct parsers_head *h)
{
	return nccl_topo_sniff(h->p, h->len);
}

/* NCCL Inspector: objects with "header" and "coll_perf". */
static bool sniff_nccl_inspector(const struct parsers_head *h)
{
	return head_is_json(h) && head_has(h->p, h->len, "\"coll_perf\"") &&
	       head_has(h->p, h->len, "\"header\"");
}

static bool sniff_torchelastic(const struct parsers_head *h)
{
	return h->first == '{' && torchelastic_sniff(h->p, h->len);
}

static struct parsers_budget budget_torchelastic(const struct parsers_head *h)
{
	(void)h;
	return (struct parsers_budget){ HD_BUDGET_TRACE_BYTES,
					HD_BUDGET_LOG_RATIO,
					"a torchelastic error file" };
}

/*
 * The registry: one entry per input kind a parser reads.  Sniffing tries
 * the entries in this order and takes the first that claims the head, so
 * a narrower format comes before a wider one (traces before dumps, both
 * before text, which takes almost anything).
 */
static const struct parsers_entry registry[] = {
	/* hangdoc's own digests: a binary magic no other format starts with */
	{
		.kind = HD_INPUT_DIGEST,
		.sniff = sniff_digest,
		.parse = digest_parse,
		.budget = budget_digest,
	},
	/* torchelastic error files (issue 21): a JSON object whose first
	   key is "message", before the traces that take any JSON */
	{
		.kind = HD_INPUT_TORCHELASTIC,
		.sniff = sniff_torchelastic,
		.parse = torchelastic_parse,
		.budget = budget_torchelastic,
	},
	/* NCCL Inspector (issue 21): before the traces too */
	{
		.kind = HD_INPUT_NCCL_INSPECTOR,
		.sniff = sniff_nccl_inspector,
		.parse = nccl_inspector_parse,
		.budget = budget_nccl_log,
	},
	{
		.kind = HD_INPUT_KINETO,
		.sniff = sniff_kineto,
		.parse = kineto_parse,
		.budget = budget_kineto,
	},
	{
		.kind = HD_INPUT_FLIGHT_REC,
		.sniff = sniff_flight_rec,
		.parse = flight_rec_parse,
		.budget = budget_flight_rec,
		.release_buffers = flight_rec_release_buffers,
	},
	/* py-spy (ev-a): before text, which would take its text form */
	{
		.kind = HD_INPUT_PYSPY,
		.sniff = sniff_pyspy,
		.parse = pyspy_parse,
		.budget = budget_pyspy,
	},
	/* NCCL topology dumps (issue 21): XML, before the NCCL text */
	{
		.kind = HD_INPUT_NCCL_TOPO,
		.sniff = sniff_nccl_topo,
		.parse = nccl_topo_parse,
		.budget = budget_kernel_log,
	},
	/* gdb backtraces (issue 21): before the NCCL text too */
	{
		.kind = HD_INPUT_GDB,
		.sniff = sniff_gdb,
		.parse = gdb_bt_parse,
		.budget = budget_gdb,
	},
	/* kernel logs (issue 21): before the NCCL text that takes any text */
	{
		.kind = HD_INPUT_KERNEL_LOG,
		.sniff = sniff_kernel_log,
		.parse = kernel_log_parse,
		.budget = budget_kernel_log,
	},
	/* InfiniBand port state (issue 21): before the NCCL text too */
	{
		.kind = HD_INPUT_IB_STATE,
		.sniff = sniff_ib_state,
		.parse = ib_state_parse,
		.budget = budget_kernel_log,
	},
	/* nvidia-smi -q (issue 21): before the NCCL text too */
	{
		.kind = HD_INPUT_GPU_STATE,
		.sniff = sniff_gpu_state,
		.parse = gpu_state_parse,
		.budget = budget_kernel_log,
	},
	{
		.kind = HD_INPUT_NCCL_LOG,
		.sniff = sniff_nccl_log,
		.parse = nccl_log_parse,
		.budget = budget_nccl_log,
	},
};

const struct parsers_entry *parsers_entry(enum hd_input_kind kind)
{
	for (size_t i = 0; i < G_N_ELEMENTS(registry); i++)
		if (registry[i].kind == kind)
			return &registry[i];
	return NULL;
}

void parsers_head_init(struct parsers_head *h, const uint8_t *head, size_t len)
{
	size_t at = 0;

	h->p = head;
	h->len = len;
	h->first = first_byte(head, len, &at);
	/*
	 * A JSON array holds objects ('[{'); a log line may start with '['
	 * too ("[default0]:", "[1,5]<stdout>:", "[rank3]:").
	 */
	if (h->first == '[') {
		size_t next = at + 1;

		while (next < len && g_ascii_isspace(head[next]))
			next++;
		if (next < len && head[next] != '{')
			h->first = 't';
	}
}

enum hd_input_kind parsers_sniff(const uint8_t *head, size_t len)
{
	struct parsers_head h;

	parsers_head_init(&h, head, len);
	for (size_t i = 0; i < G_N_ELEMENTS(registry); i++)
		if (registry[i].sniff(&h))
			return registry[i].kind;
	return HD_INPUT_UNKNOWN;
}

struct parsers_budget parsers_budget(enum hd_input_kind kind,
				     const uint8_t *head, size_t len)
{
	const struct parsers_entry *e = parsers_entry(kind);
	struct parsers_head h;

	if (!e)
		return (struct parsers_budget){ HD_BUDGET_DEFAULT_BYTES,
						HD_BUDGET_LOG_RATIO,
						"an input" };
	parsers_head_init(&h, head, len);
	return e->budget(&h);
}

bool parsers_parse(enum hd_input_kind kind, struct hd_reader *rd,
		   struct hd_store *store, uint32_t input, GError **error)
{
	const struct parsers_entry *e = parsers_entry(kind);

	if (e)
		return e->parse(rd, store, input, error);
	g_set_error(error, HD_ERROR, HD_ERROR_FORMAT, "unrecognized format");
	return false;
}

/* Runs the sniffed (or given) parser on rd into input idx of s. */
static void parse_into(struct hd_reader *rd, enum hd_input_kind kind,
		       struct hd_store *s, uint32_t idx)
{
	g_autoptr(GError) err = NULL;
	struct hd_input *in = hd_store_input(s, idx);
	const uint8_t *head;
	const char *own;
	size_t head_len = 0;

	head = hd_reader_head(rd, &head_len, &err);
	if (err) {
		in->error = g_strdup(err->message);
		return;
	}
	/* its quotes of log lines must not count twice */
	own = parsers_own_output(head, head_len);
	if (own) {
		in->error = g_strdup_printf("%s, not read as evidence", own);
		in->bytes = head_len;
		return;
	}
	if (kind == HD_INPUT_UNKNOWN)
		kind = parsers_sniff(head, head_len);
	in->kind = kind;
	if (kind == HD_INPUT_UNKNOWN) {
		if (!head_len && hd_reader_nul_skipped(rd))
			in->error = g_strdup_printf(
				"holds only NUL bytes (%" G_GUINT64_FORMAT
				"): never written, or zeroed",
				hd_reader_nul_skipped(rd));
		else
			in->error = g_strdup(
				head_len ? "unrecognized format, skipped"
					 : "empty file");
		in->bytes = head_len + hd_reader_nul_skipped(rd);
		return;
	}
	if (!parsers_parse(kind, rd, s, idx, &err)) {
		in->error = g_strdup(err ? err->message : "cannot parse");
	} else if (err) {
		/* A parser that succeeded may still report a late problem. */
		hd_input_warn(in, 0, "%s", err->message);
	}
	/* a digest's inputs keep the sizes of the files they were */
	if (kind != HD_INPUT_DIGEST || in->kind == HD_INPUT_DIGEST)
		in->bytes = hd_reader_consumed(rd);
	hd_store_bound(s);
	if (in->rank >= 0)
		hd_rank_add_input(hd_store_rank(s, in->rank), idx);
}

struct hd_store *parsers_parse_input(struct hd_reader *rd, const char *name,
				     enum hd_input_kind kind)
{
	struct hd_store *s = hd_store_new();

	parse_into(rd, kind, s, hd_store_add_input(s, name));
	return s;
}

struct hd_store *parsers_parse_file(const char *path)
{
	g_autoptr(GError) err = NULL;
	g_autoptr(hd_reader) rd = NULL;
	struct hd_store *s = hd_store_new();
	uint32_t idx = hd_store_add_input(s, path);

	rd = hd_reader_open(path, &err);
	if (!rd)
		hd_store_input(s, idx)->error = g_strdup(err->message);
	else
		parse_into(rd, HD_INPUT_UNKNOWN, s, idx);
	return s;
}

void parsers_release_buffers(void)
{
	for (size_t i = 0; i < G_N_ELEMENTS(registry); i++)
		if (registry[i].release_buffers)
			registry[i].release_buffers();
}
