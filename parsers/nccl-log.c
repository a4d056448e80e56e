/*
 * The NCCL_DEBUG and PyTorch c10d log parser (docs/format-nccl-log.md).
 *
 * One pass over bounded lines.  A line is first tested with one or two
 * scans for an anchor (" NCCL INFO ", " NCCL WARN ", the c10d texts; see
 * find()); lines without one are training chatter and cost nothing more.
 * NCCL records are taken apart from the anchor backwards (record prefix
 * "host:pid:tid [dev]", parsed once per distinct prefix, then whatever
 * wrapper a launcher or collector put in front) and forwards (the
 * message).  The COLL line, which is almost all
 * of a COLL log, is parsed by hand; the rarer grammars (Init, teardown,
 * WARN signatures, c10d status lines) use PCRE2, JIT-compiled once per
 * process.
 *
 * Attribution: every NCCL record belongs to a process (host:pid).  A
 * process's global rank is decided at end of input, from the strongest
 * evidence seen: a c10d "[rankG]:" prefix in the same output stream, an
 * mpirun/srun rank label, or its rank in its world communicator (the Init
 * COMPLETE with the largest nranks, first created).  Ops are stored as they
 * are read, with the process that made them on the side, and get their rank
 * at end of input; ops of processes whose rank stays unknown are dropped and
 * counted as skipped.
 *
 * Ownership: everything here is per call; the store owns what is added.
 */
#include "config.h"

#include "parsers.h"

#include <string.h>

#include "hd-autocleanups.h"
#include "hd-error.h"
#include "hd-banned.h"

/* Bounds that keep hostile input from growing the parser's own state. */
#define NL_MAX_PROCS (1 << 20)
#define NL_MAX_STREAMS (1 << 16)
#define NL_WRAP_MAX 4096 /* a hard-wrapped record, joined */
#define NL_WRAP_LINES 4  /* continuation lines joined at most */
#define NL_BLOCK_LINES 8 /* lines an "NCCL error in:" block may span */
#define NL_CFE_LINES 400 /* lines a ChildFailedError block may span */
#define NL_PROC_CACHE 64
#define NL_PREFIX_CACHE 64 /* record prefixes remembered */
#define NL_PREFIX_MAX 64   /* longest prefix remembered */

/* ------------------------------------------------------------------ */
/* Regular expressions, compiled once per process.                     */

enum nl_rx {
	RX_INIT,
	RX_TEARDOWN,
	RX_VERSION,
	RX_UNWIND,
	RX_IB_COMPL,
	RX_PEER,
	RX_REMOTE_PEER,
	RX_SOCK_PEER,
	RX_CONNECT_PEER,
	RX_CUDA_CODE,
	RX_STATUS,
	RX_NCCL_ERR,
	RX_ABORTED,
	RX_EXIT,
	RX_CFE_RANK,
	RX_CFE_EXIT,
	RX_EXCEPTION,
	RX_PG_GUID,
	RX_PG_NUM,
	RX_RANK_ONLY,
	RX_COUNT
};

static const char *const rx_src[RX_COUNT] = {
	[RX_INIT] = "comm (0x[0-9a-fA-F]+|\\(nil\\)) rank (\\d+) nranks (\\d+)"
		    " cudaDev (-?\\d+)(?: nvmlDev (-?\\d+))?"
		    "(?: busId ([0-9a-fA-F]+))?"
		    "(?: parent (0x[0-9a-fA-F]+|\\(nil\\)))?"
		    "(?: (?:splitCount|childCount) (\\d+))?"
		    "(?: color (-?\\d+))?(?: key (-?\\d+))?"
		    "(?: commId 0x([0-9a-fA-F]+))? ?- Init (START|COMPLETE)",
	[RX_TEARDOWN] = "comm (0x[0-9a-fA-F]+) .*- (Destroy|Abort) "
			"(COMPLETE|START)",
	[RX_VERSION] = "NCCL version (\\d+\\.\\d+(?:\\.\\d+)?)([^+\\s]*)"
		       "(?:\\+cuda(\\d+\\.\\d+))?",
	[RX_UNWIND] = "^(\\S+:\\d+) -> (-?\\d+)",
	[RX_IB_COMPL] = "Got completion (?:from peer (\\S+) )?with "
			"(?:error |status=(?:[A-Za-z_]+\\()?)(\\d+)",
	[RX_PEER] = "peer (\\S+)",
	[RX_REMOTE_PEER] = "remote peer (\\S+)",
	[RX_SOCK_PEER] = "(?:from|to) (\\S+) failed",
	[RX_CONNECT_PEER] = "[Cc]onnect(?:ion)? to (\\S+)",
	[RX_CUDA_CODE] = "Cuda failure (\\d+)",
	[RX_STATUS] = "(?:at (?:NCCL )?work(?: sequence id)?: (-?\\d+)[,. ]+"
		      "(?:PG status: )?)?[Ll]ast enqueued (?:NCCL )?work: "
		      "(-?\\d+), last completed (?:NCCL )?work: (-?\\d+)",
	[RX_NCCL_ERR] = "NCCL error in: ([^,]*), (.*?)(?:, NCCL version "
			"(\\S+))?$",
	[RX_ABORTED] = "NCCL communicator was aborted on rank (-?\\d+)",
	[RX_EXIT] = "failed \\(exitcode: (-?\\d+)\\) local_rank: (\\d+) "
		    "\\(pid: (\\d+)\\)",
	[RX_CFE_RANK] = "^\\s*rank\\s*:\\s*(\\d+)\\s*\\(local_rank:\\s*(\\d+)",
	[RX_CFE_EXIT] = "^\\s*exitcode\\s*:\\s*(-?\\d+)\\s*\\(pid:\\s*(\\d+)",
	[RX_EXCEPTION] = "^([A-Za-z_][A-Za-z0-9_.]*(?:Error|Exception|"
			 "Interrupt|Exit))(?::|$)",
	[RX_PG_GUID] = "^\\[PG ID (\\d+) PG GUID ([^\\s(\\]]+)"
		       "(?:\\(([^)]*)\\))? Rank (-?\\d+)\\] ?",
	[RX_PG_NUM] = "^\\[PG (\\d+)(?: \\(([^)]*)\\))? Rank (-?\\d+)\\] ?",
	[RX_RANK_ONLY] = "^\\[Rank (-?\\d+)\\] ?",
};

static pcre2_code *rx_code[RX_COUNT];

static gpointer rx_compile(gpointer unused)
{
	for (int i = 0; i < RX_COUNT; i++) {
		int err;
		PCRE2_SIZE off;

		rx_code[i] = pcre2_compile((PCRE2_SPTR)rx_src[i],
					   PCRE2_ZERO_TERMINATED, 0, &err,
					   &off, NULL);
		g_assert(rx_code[i]);
		/* Without a JIT, pcre2_match() interprets: slower, same. */
		(void)pcre2_jit_compile(rx_code[i], PCRE2_JIT_COMPLETE);
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Parser state.                                                       */

/* One communicator instance in one process. */
struct nl_comm {
	uint64_t ptr;
	int rank, nranks, cuda_dev;
	int64_t group; /* store group index, -1 none */
	int64_t ncoll; /* COLL lines so far: the next op's seq */
	const char *bus_id;
	bool complete;
};

struct nl_proc {
	uint32_t index;
	const char *host; /* interned; "" when empty */
	size_t host_len;
	int pid;
	int c10d_rank, hint_rank, tag_rank; /* -1 none, -2 conflicting */
	int world_nranks, world_rank, world_dev;
	const char *world_bus;
	const char *addr; /* interned bootstrap IP, or NULL */
	int rank; /* decided at end of input */
	const char *version; /* claimed */
	int fmt_min;         /* major*1000+minor the format implies, 0 */
	bool no_token;       /* 2.2 format seen */
	bool saw_teardown;
	GHashTable *live;  /* ptr (uint64 *) -> struct nl_comm * */
	GPtrArray *comms;  /* struct nl_comm *, all instances, owned */
	GHashTable *nth;   /* key string -> count, creation order */
	struct nl_comm *last;
	uint64_t ndropped;
};

/* An output stream: the lines one wrapper label (or none) marks. */
struct nl_stream {
	uint32_t index;
	struct nl_proc *proc; /* the one process seen in it */
	bool multi;           /* more than one process seen */
	int c10d_rank;        /* [rankG] seen; -2 conflicting */
	int hint_rank;        /* mpirun/srun label */
	/* "NCCL error in:" block being collected */
	int64_t err_sig; /* signal index, -1 none */
	int err_left;
	bool err_want_last;
	/* Python traceback: waiting for the exception line */
	bool in_tb;
	/* torchrun ChildFailedError block */
	int cfe_left;
	int cfe_rank;
	/* the last watchdog timeout without a PG prefix, for its status */
	int64_t timeout_sig;
};

/* What a wrapper prefix said. */
struct nl_wrap {
	int mpi_rank, srun_task, local_rank, ray_pid, tag_rank;
	const char *host; /* pdsh, not NUL-terminated */
	size_t host_len;
	int64_t time_ns; /* INT64_MIN none */
};

struct nl_ctx {
	struct hd_store *store;
	struct hd_input *in;
	uint32_t input;
	uint64_t lineno;
	pcre2_match_data *md;
	PCRE2_SIZE *ov;

	GHashTable *procs_by_key; /* "host:pid" -> struct nl_proc * */
	GPtrArray *procs;
	GHashTable *streams_by_key;
	GPtrArray *streams;
	struct nl_stream *dflt;
	struct nl_proc *proc_cache[NL_PROC_CACHE];
	struct nl_prefix *prefix_cache; /* NL_PREFIX_CACHE of them */
	const char *coll_stop; /* where the last COLL parse stopped */

	/* wrapper cache: the last wrapper bytes and their stream */
	char wrap_cache[128];
	size_t wrap_cache_len;
	struct nl_stream *wrap_stream;
	struct nl_wrap wrap_info;

	guint op_base, sig_base;
	GArray *op_proc;  /* uint32_t proc index per op */
	GArray *sig_proc; /* int32_t proc index per signal, -1 none */
	GArray *sig_stream; /* uint32_t stream index per signal */
	GHashTable *dedup;  /* signal key -> index + 1 */

	const char *bare_version;
	bool bare_version_conflict;
	bool warned_cut;
	bool waiting; /* some stream wants its next line */
	struct nl_proc *torn_proc; /* a prefix with no body, last line */

	char *clean; /* ANSI-stripped copy of the line */
	GString *wrap; /* a held hard-wrapped record */
	uint64_t wrap_line;
	int wrap_count;

	const char *coll_names[16];
};

/* ------------------------------------------------------------------ */
/* Small scanners.                                                     */

/*
 * The scanners below run several times on every line.  They are forced
 * inline so that strlen() of their literal arguments folds to a constant
 * and the compares become a few loads.
 */
#define NL_INLINE static inline __attribute__((always_inline))

/*
 * memcmp(a, b, k) == 0 for a constant k: at most two overlapping word
 * compares once inlined, where GCC would call memcmp().
 */
NL_INLINE bool same(const char *a, const char *b, size_t k)
{
	uint64_t x, y;
	uint32_t u, v;

	if (k > 16)
		return memcmp(a, b, k) == 0;
	if (k >= 8) {
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		if (x != y)
			return false;
		memcpy(&x, a + k - 8, 8);
		memcpy(&y, b + k - 8, 8);
		return x == y;
	}
	if (k >= 4) {
		memcpy(&u, a, 4);
		memcpy(&v, b, 4);
		if (u != v)
			return false;
		memcpy(&u, a + k - 4, 4);
		memcpy(&v, b + k - 4, 4);
		return u == v;
	}
	for (; k > 0; k--)
		if (*a++ != *b++)
			return false;
	return true;
}

/*
 * memmem() for this file's short needles: memchr() (vectorized) for the
 * needle's first byte that is not a space, which is rare in log text,
 * then one compare.  glibc's memmem() walks every byte.
 */
NL_INLINE const char *find(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle), i = 0;
	const char *e = s + n, *q;

	if (k == 0 || k > n)
		return k == 0 ? s : NULL;
	while (i < k - 1 && needle[i] == ' ')
		i++;
	for (q = s + i; q < e && (q = memchr(q, needle[i], e - q)); q++) {
		const char *at = q - i;

		if ((size_t)(e - at) < k)
			return NULL;
		if (same(at, needle, k))
			return at;
	}
	return NULL;
}

NL_INLINE bool has(const char *s, size_t n, const char *needle)
{
	return find(s, n, needle) != NULL;
}

NL_INLINE bool starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && same(s, prefix, k);
}

/* Parses decimal digits at *p (optional '-'); false if none. */
NL_INLINE bool scan_int(const char **p, const char *end, int64_t *out)
{
	const char *s = *p;
	bool neg = false;
	int64_t v = 0;
	int digits = 0;

	if (s < end && *s == '-') {
		neg = true;
		s++;
	}
	while (s < end && (unsigned)(*s - '0') < 10) {
		if (digits < 18)
			v = v * 10 + (*s - '0');
		digits++;
		s++;
	}
	if (!digits)
		return false;
	*out = neg ? -v : v;
	*p = s;
	return true;
}

/* Hex digit values plus one, 0 for other bytes: the COLL line is mostly hex. */
static const uint8_t hexval1[256] = {
	['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,
	['6'] = 7,  ['7'] = 8,  ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12,
	['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12,
	['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* At most 16 hex digits (a pointer or an opCount); false if none. */
NL_INLINE bool scan_hex(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	unsigned d;

	while (s < end && (d = hexval1[(uint8_t)*s]) != 0) {
		v = (v << 4) | (d - 1);
		s++;
	}
	if (s == *p || s - *p > 16)
		return false;
	*out = v;
	*p = s;
	return true;
}

/* A %p value: 0x..., (nil), or bare hex (NCCL CALL). */
NL_INLINE bool scan_ptr(const char **p, const char *end, uint64_t *out)
{
	if (end - *p >= 2 && (*p)[0] == '0' && ((*p)[1] == 'x')) {
		*p += 2;
	} else if (end - *p >= 5 && same(*p, "(nil)", 5)) {
		*p += 5;
		*out = 0;
		return true;
	}
	return scan_hex(p, end, out);
}

/*
 * Expects the literal lit at *p.  Returns 1 on a match, 0 on a mismatch
 * and -1 when the text ends inside the literal (a cut record).
 */
NL_INLINE int expect(const char **p, const char *end, const char *lit)
{
	size_t k = strlen(lit);
	size_t avail = end - *p;

	if (avail < k)
		return memcmp(*p, lit, avail) == 0 ? -1 : 0;
	if (!same(*p, lit, k))
		return 0;
	*p += k;
	return 1;
}

static int64_t clamp_int(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Hinnant). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static bool two_digits(const char *s, int *out)
{
	if (!g_ascii_isdigit(s[0]) || !g_ascii_isdigit(s[1]))
		return false;
	*out = (s[0] - '0') * 10 + (s[1] - '0');
	return true;
}

/*
 * Parses "hh:mm[:ss[.frac]]" at s; the fraction is used only when
 * with_frac.  Returns the bytes used (0: none) and ns since midnight.
 */
static size_t scan_hms(const char *s, size_t n, bool with_frac, int64_t *ns)
{
	int hh, mm, ss = 0;
	size_t used = 5;
	int64_t frac = 0, scale = 100000000;

	if (n < 5 || !two_digits(s, &hh) || s[2] != ':' ||
	    !two_digits(s + 3, &mm) || hh > 23 || mm > 59)
		return 0;
	if (n >= 8 && s[5] == ':' && two_digits(s + 6, &ss) && ss <= 60) {
		used = 8;
		if (n > 9 && (s[8] == '.' || s[8] == ',') &&
		    g_ascii_isdigit(s[9])) {
			used = 9;
			while (used < n && g_ascii_isdigit(s[used])) {
				frac += (s[used] - '0') * scale;
				scale /= 10;
				used++;
			}
		}
	}
	*ns = ((int64_t)hh * 3600 + mm * 60 + ss) * G_GINT64_CONSTANT(1000000000) +
	      (with_frac ? frac : 0);
	return used;
}

/*
 * Parses "YYYY-MM-DD[ T]hh:mm[:ss[.frac]]" at s into local-time ns since
 * the epoch (the zone is unknown, so the wall clock is counted as if it
 * were UTC).  Returns the bytes used, 0 when s holds no date.
 */
static size_t scan_datetime(const char *s, size_t n, int64_t *ns)
{
	int y1, y2, mo, d;
	int64_t tod;
	size_t used;

	if (n < 16 || !two_digits(s, &y1) || !two_digits(s + 2, &y2) ||
	    s[4] != '-' || !two_digits(s + 5, &mo) || s[7] != '-' ||
	    !two_digits(s + 8, &d) || (s[10] != ' ' && s[10] != 'T') ||
	    mo < 1 || mo > 12 || d < 1 || d > 31)
		return 0;
	/* int64 ns since the epoch spans 1677-2262; logs are newer */
	if (y1 * 100 + y2 < 1970 || y1 * 100 + y2 > 2200)
		return 0;
	used = scan_hms(s + 11, n - 11, true, &tod);
	if (!used)
		return 0;
	*ns = days_from_civil(y1 * 100 + y2, mo, d) * 86400 *
		      G_GINT64_CONSTANT(1000000000) +
	      tod;
	return 11 + used;
}

/* ------------------------------------------------------------------ */
/* Regex helpers.                                                      */

static bool rx(struct nl_ctx *c, enum nl_rx id, const char *s, size_t n)
{
	int rc = pcre2_match(rx_code[id], (PCRE2_SPTR)s, n, 0, 0, c->md, NULL);

	return rc > 0;
}

/* Capture i of the last match; false when it did not take part. */
static bool cap(struct nl_ctx *c, const char *s, int i, const char **p,
		size_t *len)
{
	PCRE2_SIZE a = c->ov[2 * i], b = c->ov[2 * i + 1];

	if (a == PCRE2_UNSET || b < a)
		return false;
	*p = s + a;
	*len = b - a;
	return true;
}

static bool cap_int(struct nl_ctx *c, const char *s, int i, int64_t *v)
{
	const char *p;
	size_t len;

	if (!cap(c, s, i, &p, &len))
		return false;
	return scan_int(&p, p + len, v);
}

static bool cap_hex(struct nl_ctx *c, const char *s, int i, uint64_t *v)
{
	const char *p;
	size_t len;

	if (!cap(c, s, i, &p, &len))
		return false;
	return scan_ptr(&p, p + len, v);
}

static const char *cap_intern(struct nl_ctx *c, const char *s, int i)
{
	const char *p;
	size_t len;

	if (!cap(c, s, i, &p, &len))
		return NULL;
	return hd_intern_len(p, len);
}

/* ------------------------------------------------------------------ */
/* Processes, streams, comms.                                          */

static void proc_free(gpointer data)
{
	struct nl_proc *p = data;

	g_hash_table_destroy(p->live);
	g_ptr_array_free(p->comms, TRUE);
	g_hash_table_destroy(p->nth);
	g_free(p);
}

static struct nl_proc *proc_get(struct nl_ctx *c, const char *host,
				size_t host_len, int pid)
{
	char key[160];
	struct nl_proc **slot = &c->proc_cache[(unsigned)pid % NL_PROC_CACHE];
	struct nl_proc *p = *slot;

	/* interleaved processes: a direct-mapped cache by pid */
	if (p && p->pid == pid && p->host_len == host_len &&
	    memcmp(p->host, host, host_len) == 0)
		return p;
	g_snprintf(key, sizeof(key), "%.*s:%d", (int)MIN(host_len, 128), host,
		   pid);
	p = g_hash_table_lookup(c->procs_by_key, key);
	if (!p) {
		if (c->procs->len >= NL_MAX_PROCS)
			return NULL;
		p = g_new0(struct nl_proc, 1);
		p->index = c->procs->len;
		p->host = hd_intern_len(host, MIN(host_len, 128));
		p->host_len = MIN(host_len, 128);
		p->pid = pid;
		p->c10d_rank = p->hint_rank = p->tag_rank = -1;
		p->world_rank = p->world_dev = p->rank = -1;
		p->live = g_hash_table_new_full(g_int64_hash, g_int64_equal,
						g_free, NULL);
		p->comms = g_ptr_array_new_with_free_func(g_free);
		p->nth = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					       NULL);
		g_ptr_array_add(c->procs, p);
		g_hash_table_insert(c->procs_by_key, g_strdup(key), p);
	}
	if (p->host_len == host_len)
		*slot = p;
	return p;
}

/* Merges a rank hint: the first value stays, a different one is -2. */
static void hint_merge(int *slot, int v)
{
	if (v < 0 || *slot == -2)
		return;
	if (*slot == -1)
		*slot = v;
	else if (*slot != v)
		*slot = -2;
}

static void stream_free(gpointer data)
{
	g_free(data);
}

static struct nl_stream *stream_get(struct nl_ctx *c, const char *key)
{
	struct nl_stream *st = g_hash_table_lookup(c->streams_by_key, key);

	if (st)
		return st;
	if (c->streams->len >= NL_MAX_STREAMS)
		return c->dflt;
	st = g_new0(struct nl_stream, 1);
	st->index = c->streams->len;
	st->c10d_rank = st->hint_rank = -1;
	st->err_sig = st->timeout_sig = -1;
	st->cfe_rank = -1;
	g_ptr_array_add(c->streams, st);
	g_hash_table_insert(c->streams_by_key, g_strdup(key), st);
	return st;
}

static void stream_add_proc(struct nl_stream *st, struct nl_proc *p)
{
	if (!st->proc)
		st->proc = p;
	else if (st->proc != p)
		st->multi = true;
	if (st->hint_rank >= 0)
		hint_merge(&p->hint_rank, st->hint_rank);
}

/* Counts the creation order of comms with the same key in a process. */
static int proc_nth(struct nl_proc *p, const char *key)
{
	gpointer v = NULL;
	int n;

	if (g_hash_table_lookup_extended(p->nth, key, NULL, &v)) {
		n = GPOINTER_TO_INT(v);
		g_hash_table_replace(p->nth, g_strdup(key),
				     GINT_TO_POINTER(n + 1));
		return n;
	}
	g_hash_table_insert(p->nth, g_strdup(key), GINT_TO_POINTER(1));
	return 0;
}

static void comm_bind(struct nl_ctx *c, struct nl_comm *cm, const char *id,
		      bool has_id, uint64_t comm_id, bool low)
{
	struct hd_group *g;

	cm->group = hd_store_group(c->store, id);
	g = hd_store_group_at(c->store, (uint32_t)cm->group);
	if (cm->nranks > 0 && g->nranks < cm->nranks)
		g->nranks = cm->nranks;
	if (has_id) {
		g->has_comm_id = true;
		g->comm_id = comm_id;
	}
	if (low)
		g->low_confidence_identity = true;
}

/* Binds a comm to the low-confidence "nccl-nranks:N#k" identity. */
static void comm_bind_nranks(struct nl_ctx *c, struct nl_proc *p,
			     struct nl_comm *cm)
{
	char key[64], id[96];
	int k;

	g_snprintf(key, sizeof(key), "n%d", cm->nranks);
	k = proc_nth(p, key);
	g_snprintf(id, sizeof(id), "nccl-nranks:%d#%d", cm->nranks, k);
	comm_bind(c, cm, id, false, 0, true);
}

static struct nl_comm *comm_new(struct nl_proc *p, uint64_t ptr)
{
	struct nl_comm *cm = g_new0(struct nl_comm, 1);
	uint64_t *key = g_new(uint64_t, 1);

	cm->ptr = ptr;
	cm->rank = cm->nranks = cm->cuda_dev = -1;
	cm->group = -1;
	g_ptr_array_add(p->comms, cm);
	/* The table owns the key; replace frees the old instance's key. */
	*key = ptr;
	g_hash_table_replace(p->live, key, cm);
	p->last = cm;
	return cm;
}

static void proc_comm_forget(struct nl_proc *p, uint64_t ptr)
{
	struct nl_comm *cm = g_hash_table_lookup(p->live, &ptr);

	if (cm) {
		g_hash_table_remove(p->live, &ptr);
		if (p->last == cm)
			p->last = NULL;
	}
}

static struct nl_comm *proc_comm(struct nl_proc *p, uint64_t ptr)
{
	struct nl_comm *cm;

	if (p->last && p->last->ptr == ptr)
		return p->last;
	cm = g_hash_table_lookup(p->live, &ptr);
	if (cm)
		p->last = cm;
	return cm;
}

/* ------------------------------------------------------------------ */
/* Store helpers.                                                      */

static void add_signal(struct nl_ctx *c, struct hd_signal *sig,
		       struct nl_proc *p, struct nl_stream *st,
		       const char *text, size_t text_len)
{
	int32_t pi = p ? (int32_t)p->index : -1;
	uint32_t si = st ? st->index : 0;
	g_autofree char *t = NULL;

	if (p) {
		sig->host = p->host;
		sig->pid = p->pid;
	}
	if (text) {
		t = g_utf8_make_valid(text, (gssize)MIN(text_len, 1024));
		sig->text = t;
	}
	sig->prov.input = c->input;
	sig->prov.kind = HD_PROV_LINE;
	sig->prov.at = c->lineno;
	hd_store_add_signal(c->store, sig);
	sig->text = NULL;
	g_array_append_val(c->sig_proc, pi);
	g_array_append_val(c->sig_stream, si);
	c->in->records++;
}

static struct hd_signal *signal_at(struct nl_ctx *c, int64_t index)
{
	return &g_array_index(c->store->signals, struct hd_signal,
			      c->sig_base + index);
}

/* Index (from sig_base) of the last signal added. */
static int64_t last_signal(struct nl_ctx *c)
{
	return (int64_t)c->store->signals->len - c->sig_base - 1;
}

/*
 * True when a signal with this key was already added (the c10d timeout
 * is repeated in what(): and the exception line); else remembers it.
 */
static bool dedup_seen(struct nl_ctx *c, const char *key)
{
	if (g_hash_table_contains(c->dedup, key))
		return true;
	g_hash_table_insert(c->dedup, g_strdup(key),
			    GINT_TO_POINTER((int)(last_signal(c) + 2)));
	return false;
}

static void skip(struct nl_ctx *c, const char *why)
{
	c->in->skipped++;
	hd_input_warn(c->in, c->lineno, "%s", why);
}

/* ------------------------------------------------------------------ */
/* Wrappers.                                                           */

static bool is_host_char(char ch)
{
	return g_ascii_isalnum(ch) || ch == '-' || ch == '_';
}

/*
 * Strips launcher and collector wrappers from the front of s and notes
 * what they said.  Returns the offset of the content.
 */
static size_t strip_front(const char *s, size_t n, struct nl_wrap *w)
{
	size_t at = 0;

	for (int round = 0; round < 12 && at < n; round++) {
		const char *p = s + at;
		size_t rem = n - at;
		size_t used = 0;
		int64_t v, ns;
		const char *q, *e = p + rem;

		if (p[0] == '[') {
			/* mpirun [job,rank]<stdout>: */
			q = p + 1;
			if (scan_int(&q, e, &v) && q < e && *q == ',') {
				int64_t r;

				q++;
				if (scan_int(&q, e, &r) && q < e && *q == ']') {
					q++;
					if (e - q >= 9 && q[0] == '<' &&
					    (starts(q, e - q, "<stdout>:") ||
					     starts(q, e - q, "<stderr>:"))) {
						w->mpi_rank =
							(int)clamp_int(r, 0, INT_MAX);
						used = q + 9 - p;
					}
				}
			}
			/* torchrun [defaultN]: */
			if (!used && starts(p, rem, "[default")) {
				q = p + 8;
				if (scan_int(&q, e, &v) && q + 1 < e &&
				    q[0] == ']' && q[1] == ':') {
					w->local_rank =
						(int)clamp_int(v, 0, INT_MAX);
					used = q + 2 - p;
				}
			}
			/* [YYYY-MM-DD hh:mm:ss] collector or NCCL time */
			if (!used && (used = scan_datetime(p + 1, rem - 1,
							   &ns))) {
				w->time_ns = ns;
				used += 1;
				if (used < rem && p[used] == ']')
					used++;
				else
					used = 0;
			}
			/* [N] rank or viewer tag */
			if (!used) {
				q = p + 1;
				if (scan_int(&q, e, &v) && v >= 0 &&
				    q + 1 < e && q[0] == ']' && q[1] == ' ') {
					w->tag_rank =
						(int)clamp_int(v, 0, INT_MAX);
					used = q + 2 - p;
				}
			}
			/* a bare ANSI colour "[36m" */
			if (!used) {
				q = p + 1;
				while (q < e && (g_ascii_isdigit(*q) || *q == ';'))
					q++;
				if (q > p + 1 && q < e && *q == 'm')
					used = q + 1 - p;
			}
			/* [stdout] / [stderr] viewer tags */
			if (!used && (starts(p, rem, "[stdout] ") ||
				      starts(p, rem, "[stderr] ")))
				used = 9;
		} else if (p[0] == '(' && (q = find(p, MIN(rem, 256), ") "))) {
			/* Ray (WorkerDict pid=4242, ip=10.1.0.5) */
			const char *pid = find(p, q - p, "pid=");

			if (pid) {
				pid += 4;
				if (scan_int(&pid, q, &v))
					w->ray_pid =
						(int)clamp_int(v, 0, INT_MAX);
				used = q + 2 - p;
			}
		} else if (p[0] == ' ' && rem > 1 && g_ascii_isdigit(p[1])) {
			used = scan_datetime(p + 1, rem - 1, &ns) ? 1 : 0;
		} else if (starts(p, rem, "^[[")) {
			q = p + 3;
			while (q < e && (g_ascii_isdigit(*q) || *q == ';'))
				q++;
			if (q < e && g_ascii_isalpha(*q))
				used = q + 1 - p;
		} else if (g_ascii_isdigit(p[0])) {
			/* date (collector) or srun task "12: " */
			if ((used = scan_datetime(p, rem, &ns))) {
				w->time_ns = ns;
				if (used < rem && p[used] == 'Z')
					used++;
				if (used + 1 < rem && p[used] == ':' &&
				    p[used + 1] == ' ')
					used += 2;
				else if (used < rem && p[used] == ' ') {
					/* "host >> " of a collector */
					q = find(p + used,
						 MIN(rem - used, 80), " >> ");
					used++;
					if (q)
						used = q + 4 - p;
				}
			} else {
				q = p;
				if (scan_int(&q, e, &v) && q + 1 < e &&
				    q[0] == ':' && q[1] == ' ') {
					w->srun_task =
						(int)clamp_int(v, 0, INT_MAX);
					used = q + 2 - p;
				}
			}
		}
		if (!used && is_host_char(p[0])) {
			/* pdsh "host: ", or "bench.node-a [stderr] " */
			size_t k = 0;
			bool hosty = false;

			while (k < rem && k < 64 &&
			       (is_host_char(p[k]) || p[k] == '.')) {
				if (g_ascii_isdigit(p[k]) || p[k] == '-')
					hosty = true;
				k++;
			}
			if (hosty && k + 1 < rem && p[k] == ':' &&
			    p[k + 1] == ' ') {
				w->host = p;
				w->host_len = k;
				used = k + 2;
			} else if (k + 9 <= rem && p[k] == ' ' &&
				   (starts(p + k + 1, rem - k - 1, "[stderr] ") ||
				    starts(p + k + 1, rem - k - 1,
					   "[stdout] "))) {
				used = k + 10;
			}
		}
		if (!used)
			break;
		at += used;
	}
	return at;
}

static void wrap_init(struct nl_wrap *w)
{
	w->mpi_rank = w->srun_task = w->local_rank = w->ray_pid = -1;
	w->tag_rank = -1;
	w->host = NULL;
	w->host_len = 0;
	w->time_ns = INT64_MIN;
}

/* The stream the hints of a wrapper name. */
static struct nl_stream *stream_for(struct nl_ctx *c, const struct nl_wrap *w)
{
	char key[128];
	struct nl_stream *st;

	if (w->mpi_rank < 0 && w->srun_task < 0 && w->local_rank < 0 &&
	    w->ray_pid < 0 && !w->host)
		return c->dflt;
	g_snprintf(key, sizeof(key), "m%d s%d t%d r%d h%.*s", w->mpi_rank,
		   w->srun_task, w->local_rank, w->ray_pid,
		   (int)MIN(w->host_len, 64), w->host ? w->host : "");
	st = stream_get(c, key);
	if (st->hint_rank == -1)
		st->hint_rank = w->mpi_rank >= 0 ? w->mpi_rank : w->srun_task;
	return st;
}

/* The stream a wrapper names (cached for runs of the same wrapper). */
static struct nl_stream *wrap_stream(struct nl_ctx *c, const char *s,
				     size_t n, struct nl_wrap *w)
{
	struct nl_stream *st;

	wrap_init(w);
	if (n == 0)
		return c->dflt;
	if (n == c->wrap_cache_len && memcmp(s, c->wrap_cache, n) == 0) {
		*w = c->wrap_info;
		return c->wrap_stream;
	}
	(void)strip_front(s, n, w);
	st = stream_for(c, w);
	if (n <= sizeof(c->wrap_cache)) {
		memcpy(c->wrap_cache, s, n);
		c->wrap_cache_len = n;
		c->wrap_info = *w;
		c->wrap_stream = st;
	}
	return st;
}

/* ------------------------------------------------------------------ */
/* NCCL records.                                                       */

/* A parsed NCCL record prefix. */
struct nl_rec {
	const char *host;
	size_t host_len;
	int pid, tid, dev;
	bool has_hpt;
	const char *start; /* first byte of the record (after wrappers) */
};

/*
 * A record prefix seen before ("node-a:4000:4000 [0] "): an interleaved
 * log repeats a few of them on every line, so rec_prefix()'s walk back
 * is done once per distinct prefix.  Offsets are from the line start.
 */
struct nl_prefix {
	char text[NL_PREFIX_MAX];
	uint8_t len; /* 0: empty slot */
	bool ok;
	struct nl_rec rec;       /* host and start: see the offsets */
	int host_off, start_off; /* from the line start; host -1: NULL */
};

/* "[12]": a device index in brackets. */
static bool dev_token(const char *tok, const char *end, int *dev)
{
	const char *q = tok + 1;
	int64_t v;

	if (end - tok < 3 || tok[0] != '[' || end[-1] != ']')
		return false;
	if (!scan_int(&q, end - 1, &v) || q != end - 1)
		return false;
	*dev = (int)clamp_int(v, -1, INT_MAX);
	return true;
}

/* Whether [tok, end) ends in ":pid:tid". */
static bool hpt_tail(const char *tok, const char *end)
{
	const char *q = end;

	for (int part = 0; part < 2; part++) {
		const char *e = q;

		while (q > tok && g_ascii_isdigit(q[-1]))
			q--;
		if (q == e || q == tok || q[-1] != ':')
			return false;
		q--;
	}
	return true;
}

/*
 * Parses "host:pid:tid" ending at e (host may be empty, and may be glued
 * to a wrapper before it: "[1,5]<stdout>:node-a:4242:4242").
 */
static bool hpt_back(const char *line, const char *e, struct nl_rec *r)
{
	const char *q = e;
	int64_t v[2];

	for (int part = 0; part < 2; part++) {
		const char *end = q, *d;

		while (q > line && g_ascii_isdigit(q[-1]))
			q--;
		d = q;
		if (q == end || q == line || q[-1] != ':' ||
		    !scan_int(&d, end, &v[part]))
			return false;
		q--;
	}
	e = q;
	while (q > line && is_host_char(q[-1]))
		q--;
	/* a bare colour code glued to the host: "[36mnode-a" */
	if (q > line && (q[-1] == '[' || q[-1] == ';')) {
		const char *t = q;

		while (t < e && g_ascii_isdigit(*t))
			t++;
		if (t > q && t < e && *t == 'm')
			q = t + 1;
	}
	r->host = q;
	r->host_len = e - q;
	r->tid = (int)clamp_int(v[0], 0, INT_MAX);
	r->pid = (int)clamp_int(v[1], 0, INT_MAX);
	r->has_hpt = true;
	r->start = q;
	return true;
}

/*
 * Walks back from the anchor at a (the 'N' of "NCCL", or the level word
 * of a 2.2 record) over an optional "F:L", "(func)" or TRACE time, and
 * "[dev]", to "host:pid:tid".  False when neither "[dev]" nor "H:P:T" is
 * there.  A record with "[dev]" only is the trimmed form.
 */
static bool rec_prefix_walk(const char *line, const char *a, struct nl_rec *r)
{
	const char *p = a, *tok, *tok_end;
	bool found = false;

	memset(r, 0, sizeof(*r));
	r->dev = -1;
	r->start = a;
	for (int t = 0; t < 5 && p > line; t++) {
		while (p > line && p[-1] == ' ')
			p--;
		tok_end = p;
		while (p > line && p[-1] != ' ')
			p--;
		tok = p;
		if (dev_token(tok, tok_end, &r->dev)) {
			r->start = tok;
			found = true;
			break;
		}
		/* NCCL CALL records have no [dev]: H:P:T right before. */
		if (t == 0 && hpt_tail(tok, tok_end)) {
			p = tok_end;
			found = true;
			break;
		}
	}
	if (!found)
		return false;
	while (p > line && p[-1] == ' ')
		p--;
	return hpt_back(line, p, r) || r->dev >= 0;
}

static unsigned prefix_slot(const char *s, size_t n)
{
	uint64_t h = n, w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	}
	for (; n > 0; n--)
		h = (h ^ (uint8_t)*s++) * 0x9e3779b97f4a7c15ull;
	return (unsigned)(h >> 58) % NL_PREFIX_CACHE;
}

/* rec_prefix_walk(), remembered per distinct prefix text. */
static bool rec_prefix(struct nl_ctx *c, const char *line, const char *a,
		       struct nl_rec *r)
{
	size_t n = a - line;
	struct nl_prefix *e;
	unsigned h;
	bool ok;

	if (n == 0 || n >= NL_PREFIX_MAX)
		return rec_prefix_walk(line, a, r);
	/* two-way: a prefix lives in slot h or its neighbour */
	h = prefix_slot(line, n);
	for (unsigned way = 0; way < 2; way++) {
		e = &c->prefix_cache[h ^ way];
		if (e->len == n && memcmp(e->text, line, n) == 0) {
			*r = e->rec;
			r->host = e->host_off < 0 ? NULL : line + e->host_off;
			r->start = line + e->start_off;
			return e->ok;
		}
	}
	e = &c->prefix_cache[h];
	if (e->len != 0 && c->prefix_cache[h ^ 1].len == 0)
		e = &c->prefix_cache[h ^ 1];
	ok = rec_prefix_walk(line, a, r);
	memcpy(e->text, line, n);
	e->len = (uint8_t)n;
	e->ok = ok;
	e->rec = *r;
	e->host_off = r->host ? (int)(r->host - line) : -1;
	e->start_off = (int)(r->start - line);
	return ok;
}

static const struct {
	const char *name;
	size_t len;
	enum hd_op_kind kind;
} coll_ops[] = {
#define COLL_OP(name, kind) { name, sizeof(name) - 1, kind }
	COLL_OP("AllReduce", HD_OP_ALL_REDUCE),
	COLL_OP("AllGather", HD_OP_ALL_GATHER),
	COLL_OP("ReduceScatter", HD_OP_REDUCE_SCATTER),
	COLL_OP("Broadcast", HD_OP_BROADCAST),
	COLL_OP("Reduce", HD_OP_REDUCE),
	COLL_OP("Send", HD_OP_SEND),
	COLL_OP("Recv", HD_OP_RECV),
	COLL_OP("AlltoAll", HD_OP_ALL_TO_ALL),
	COLL_OP("Gather", HD_OP_GATHER),
	COLL_OP("Scatter", HD_OP_SCATTER),
#undef COLL_OP
};

/* The COLL op name at the start of body ("AllReduce: opCount"), or -1. */
static int coll_op(const char *body, size_t n, size_t *name_len)
{
	const char *colon = memchr(body, ':', MIN(n, 16));
	size_t k;

	if (!colon || !starts(colon, n - (colon - body), ": opCount "))
		return -1;
	k = colon - body;
	for (size_t i = 0; i < G_N_ELEMENTS(coll_ops); i++) {
		if (k == coll_ops[i].len && body[0] == coll_ops[i].name[0] &&
		    memcmp(body, coll_ops[i].name, k) == 0) {
			*name_len = k;
			return (int)i;
		}
	}
	return -1;
}

static const enum hd_dtype nccl_dtypes[] = {
	HD_DTYPE_INT8,    HD_DTYPE_UINT8,    HD_DTYPE_INT32,
	HD_DTYPE_UINT32,  HD_DTYPE_INT64,    HD_DTYPE_UINT64,
	HD_DTYPE_FLOAT16, HD_DTYPE_FLOAT32,  HD_DTYPE_FLOAT64,
	HD_DTYPE_BFLOAT16, HD_DTYPE_FP8_E4M3, HD_DTYPE_FP8_E5M2,
};

static bool is_reduction(enum hd_op_kind k)
{
	return k == HD_OP_ALL_REDUCE || k == HD_OP_REDUCE ||
	       k == HD_OP_REDUCE_SCATTER;
}

static int64_t mul_or_unknown(int64_t a, int64_t b)
{
	int64_t r;

	if (a < 0 || b <= 0 || __builtin_mul_overflow(a, b, &r))
		return -1;
	return r;
}

/*
 * Parses a COLL body.  A record whose text ends early (the 1024-byte cut,
 * or a killed process) is kept, flagged truncated, once its comm is known.
 */
static void parse_coll(struct nl_ctx *c, struct nl_proc *p, int which,
		       const char *body, size_t n, size_t name_len,
		       bool full_buffer)
{
	const char *s = body + name_len, *end = body + n;
	uint64_t opcount = 0, sendbuf, recvbuf, comm = 0, stream;
	int64_t count = -1, dtype = -1, redop = -1, root = -1, nranks = -1;
	int r = 1;
	bool cut = false, have_comm = false, nranks_ok = false;
	struct hd_op *op;
	struct hd_opdesc d;
	struct nl_comm *cm;
	enum hd_op_kind kind = coll_ops[which].kind;

	/*
	 * Each step: a literal, then a value; stop at the first failure.
	 * r == -1 or s == end at the failure means the text ran out.
	 */
	if ((r = expect(&s, end, ": opCount ")) == 1 &&
	    scan_hex(&s, end, &opcount) &&
	    (r = expect(&s, end, " sendbuff ")) == 1 &&
	    scan_ptr(&s, end, &sendbuf) &&
	    (r = expect(&s, end, " recvbuff ")) == 1 &&
	    scan_ptr(&s, end, &recvbuf) &&
	    (r = expect(&s, end, " count ")) == 1 &&
	    scan_int(&s, end, &count) &&
	    (r = expect(&s, end, " datatype ")) == 1 &&
	    scan_int(&s, end, &dtype) && (r = expect(&s, end, " op ")) == 1 &&
	    scan_int(&s, end, &redop) &&
	    (r = expect(&s, end, " root ")) == 1 &&
	    scan_int(&s, end, &root) &&
	    (r = expect(&s, end, " comm ")) == 1 &&
	    scan_ptr(&s, end, &comm) &&
	    /* a pointer at the very end may itself be cut */
	    (have_comm = s < end) &&
	    (r = expect(&s, end, " [nranks=")) == 1 &&
	    scan_int(&s, end, &nranks) && (r = expect(&s, end, "]")) == 1 &&
	    (nranks_ok = true) && (r = expect(&s, end, " stream ")) == 1 &&
	    scan_ptr(&s, end, &stream)) {
		/* complete; what follows may be a fused record */
		c->coll_stop = s;
	} else {
		cut = r == -1 || s == end;
		if (!cut || !have_comm) {
			skip(c, cut ? "COLL record cut before its comm pointer"
				    : "malformed COLL record");
			return;
		}
		/* nranks is trusted only with its closing bracket */
		if (!nranks_ok)
			nranks = -1;
	}
	if (count < 0 || nranks == 0 || nranks > (1 << 22)) {
		skip(c, "COLL record with an impossible count or nranks");
		return;
	}
	cm = proc_comm(p, comm);
	if (!cm) {
		/* No Init line for it (INIT not logged): guess by nranks. */
		cm = comm_new(p, comm);
		cm->nranks = (int)nranks;
		if (nranks > 0)
			comm_bind_nranks(c, p, cm);
	}
	if (cm->group < 0 && nranks > 0) {
		cm->nranks = (int)nranks;
		comm_bind_nranks(c, p, cm);
	}
	if (cm->group < 0) {
		skip(c, "COLL record of an unknown comm without nranks");
		return;
	}
	if (nranks < 0)
		nranks = cm->nranks;

	op = hd_store_new_op(c->store);
	op->group = (uint32_t)cm->group;
	op->seq = cm->ncoll++;
	op->seq_kind = HD_SEQ_ORDINAL;
	op->kind = (uint8_t)kind;
	op->op_count = (int64_t)opcount;
	op->state = HD_STATE_ENQUEUED;
	d = hd_opdesc_blank;
	d.name = c->coll_names[which];
	if (dtype >= 0 && dtype < (int64_t)G_N_ELEMENTS(nccl_dtypes)) {
		d.dtype = (uint8_t)nccl_dtypes[dtype];
	} else if (dtype >= 0) {
		char name[32];

		g_snprintf(name, sizeof(name), "ncclDataType %d",
			   (int)clamp_int(dtype, 0, INT_MAX));
		d.dtype = HD_DTYPE_OTHER;
		d.dtype_name = hd_intern(name);
	}
	if (is_reduction(kind) && redop >= 0)
		d.redop = redop >= 5 ? HD_REDOP_PREMULSUM
				     : (uint8_t)(HD_REDOP_SUM + redop);
	switch (kind) {
	case HD_OP_ALL_GATHER:
		d.count_in = count;
		d.count_out = mul_or_unknown(count, nranks);
		break;
	case HD_OP_REDUCE_SCATTER:
		d.count_out = count;
		d.count_in = mul_or_unknown(count, nranks);
		break;
	case HD_OP_SEND:
		d.count_in = count;
		break;
	case HD_OP_RECV:
		d.count_out = count;
		break;
	default:
		d.count_in = d.count_out = count;
		break;
	}
	if ((kind == HD_OP_BROADCAST || kind == HD_OP_REDUCE ||
	     kind == HD_OP_GATHER || kind == HD_OP_SCATTER ||
	     kind == HD_OP_SEND || kind == HD_OP_RECV) &&
	    root >= 0)
		d.peer = (int32_t)clamp_int(root, 0, INT32_MAX);
	op->d = hd_opdesc_intern(&d);
	/* A record that filled NCCL's buffer was cut, even if it parsed. */
	if (full_buffer && !cut) {
		cut = true;
		hd_input_warn(c->in, c->lineno,
			      "COLL record fills the 1024-byte buffer, kept "
			      "as truncated");
	} else if (cut) {
		hd_input_warn(c->in, c->lineno,
			      "COLL record cut mid-token, kept as truncated");
	}
	if (cut)
		op->flags |= HD_OPF_TRUNCATED;
	op->prov.input = c->input;
	op->prov.kind = HD_PROV_LINE;
	op->prov.at = c->lineno;
	g_array_append_val(c->op_proc, p->index);
	c->in->records++;
}

/* "2.18.3" -> 2018; 0 when unreadable. */
static int version_code(const char *v)
{
	const char *p = v, *e = v + strlen(v);
	int64_t major, minor;

	if (!scan_int(&p, e, &major) || p >= e || *p != '.')
		return 0;
	p++;
	if (!scan_int(&p, e, &minor))
		return 0;
	return (int)clamp_int(major, 0, 99) * 1000 + (int)clamp_int(minor, 0, 999);
}

static void fmt_min(struct nl_proc *p, int code)
{
	if (p && code > p->fmt_min)
		p->fmt_min = code;
}

/* Parses "NCCL version X..." in s; false when s holds none. */
static bool parse_version(struct nl_ctx *c, struct nl_proc *p, const char *s,
			  size_t n)
{
	const char *v;
	size_t vl, sl;
	g_autofree char *full = NULL;
	const char *sfx;

	if (!rx(c, RX_VERSION, s, n) || !cap(c, s, 1, &v, &vl))
		return false;
	if (!cap(c, s, 2, &sfx, &sl))
		sl = 0;
	full = g_strdup_printf("%.*s%.*s", (int)vl, v, (int)MIN(sl, 32),
			       sl ? sfx : "");
	if (p) {
		p->version = hd_intern(full);
	} else if (!c->bare_version) {
		c->bare_version = hd_intern(full);
	} else if (strcmp(c->bare_version, full) != 0) {
		c->bare_version_conflict = true;
	}
	c->in->records++;
	return true;
}

static void parse_init(struct nl_ctx *c, struct nl_proc *p, const char *s,
		       size_t n)
{
	uint64_t ptr = 0, parent = 0, comm_id = 0;
	int64_t rank = -1, nranks = -1, dev = -1, count = -1, color = 0;
	bool complete, has_parent, has_id, has_count;
	const char *st;
	size_t stl;
	struct nl_comm *cm;

	if (!rx(c, RX_INIT, s, n) || !cap_hex(c, s, 1, &ptr) ||
	    !cap_int(c, s, 2, &rank) || !cap_int(c, s, 3, &nranks) ||
	    !cap(c, s, 12, &st, &stl) || nranks <= 0 ||
	    nranks > (1 << 22) || rank < 0 || rank >= nranks) {
		skip(c, "unreadable Init line");
		return;
	}
	complete = stl == 8; /* COMPLETE */
	cap_int(c, s, 4, &dev);
	has_parent = cap_hex(c, s, 7, &parent);
	has_count = cap_int(c, s, 8, &count);
	cap_int(c, s, 9, &color);
	has_id = cap_hex(c, s, 11, &comm_id);

	cm = proc_comm(p, ptr);
	/* Only START -> COMPLETE continues a comm; else the pointer is new. */
	if (!cm || cm->complete || !complete || cm->group < 0 ||
	    cm->nranks != nranks || cm->rank != rank)
		cm = comm_new(p, ptr);
	cm->rank = (int)rank;
	cm->nranks = (int)nranks;
	cm->cuda_dev = (int)clamp_int(dev, -1, INT_MAX);
	cm->bus_id = cap_intern(c, s, 6);
	if (complete)
		cm->complete = true;

	if (has_id)
		fmt_min(p, 2016);
	else if (has_parent)
		fmt_min(p, 2023);
	if (has_count)
		fmt_min(p, find(s, n, "childCount") ? 2030 : 2024);

	if (cm->group < 0) {
		struct nl_comm *pc = has_parent && !has_id
					     ? g_hash_table_lookup(p->live,
								   &parent)
					     : NULL;

		if (has_id) {
			g_autofree char *id = hd_group_id_comm(comm_id);

			comm_bind(c, cm, id, true, comm_id, false);
		} else if (pc && pc->group >= 0 &&
			   !hd_store_group_at(c->store, (uint32_t)pc->group)
				    ->low_confidence_identity) {
			struct hd_group *pg =
				hd_store_group_at(c->store, (uint32_t)pc->group);
			char parent_id[96], count_s[32], id[256];

			if (pg->has_comm_id)
				g_snprintf(parent_id, sizeof(parent_id),
					   "0x%016" G_GINT64_MODIFIER "x",
					   pg->comm_id);
			else
				g_snprintf(parent_id, sizeof(parent_id), "%s",
					   pg->id);
			if (has_count) {
				g_snprintf(count_s, sizeof(count_s), "%d",
					   (int)clamp_int(count, 0, INT_MAX));
			} else {
				/* 2.23: no splitCount; count splits alike */
				g_snprintf(id, sizeof(id), "s%s:%d:%d",
					   parent_id, (int)color, (int)nranks);
				g_snprintf(count_s, sizeof(count_s), "n%d",
					   proc_nth(p, id));
			}
			g_snprintf(id, sizeof(id), "split:%s:%d:%s:%d",
				   parent_id,
				   (int)clamp_int(color, INT_MIN, INT_MAX),
				   count_s, (int)nranks);
			comm_bind(c, cm, id, false, 0, false);
		} else {
			if (has_parent)
				hd_input_warn(c->in, c->lineno,
					      "split parent %#" G_GINT64_MODIFIER
					      "x not found in %s:%d, grouped "
					      "by nranks",
					      parent, p->host, p->pid);
			comm_bind_nranks(c, p, cm);
		}
	}
	/* The world comm: largest nranks, first created. */
	if (nranks > p->world_nranks) {
		p->world_nranks = (int)nranks;
		p->world_rank = (int)rank;
		p->world_dev = cm->cuda_dev;
		p->world_bus = cm->bus_id;
	}
	c->in->records++;
}

static void parse_teardown(struct nl_ctx *c, struct nl_proc *p,
			   const char *s, size_t n)
{
	uint64_t ptr;
	const char *w;
	size_t wl;

	if (!rx(c, RX_TEARDOWN, s, n) || !cap_hex(c, s, 1, &ptr) ||
	    !cap(c, s, 3, &w, &wl))
		return;
	p->saw_teardown = true;
	if (wl == 8) /* COMPLETE: the pointer may be reused */
		proc_comm_forget(p, ptr);
}

/* Sets the category, type, peer and code of a WARN (or Last error) text. */
static void classify_warn(struct nl_ctx *c, const char *m, size_t n,
			  struct hd_signal *sig, struct nl_proc *p)
{
	int64_t v;

	sig->cat = HD_SIG_NCCL_INTERNAL;
	sig->type = HD_SIGT_OTHER;
	if (has(m, n, "Got completion")) {
		sig->cat = HD_SIG_NETWORK;
		sig->type = HD_SIGT_IB_COMPLETION;
		if (rx(c, RX_IB_COMPL, m, n)) {
			sig->peer = cap_intern(c, m, 1);
			if (cap_int(c, m, 2, &v))
				sig->code = (int32_t)clamp_int(v, 0, INT32_MAX);
		}
		if (has(m, n, "status=IBV_WC_"))
			fmt_min(p, 2028);
		if (has(m, n, "hca mlx5"))
			fmt_min(p, 2022);
	} else if (has(m, n, "async fatal event") ||
		   has(m, n, "Got async event") ||
		   has(m, n, "async error event") ||
		   has(m, n, "non-fatal async event") ||
		   has(m, n, "GID table changed") ||
		   has(m, n, "encountered a fatal error")) {
		sig->cat = HD_SIG_NETWORK;
		sig->type = HD_SIGT_IB_ASYNC;
	} else if (has(m, n, "posted incorrect receive info") ||
		   has(m, n, "message truncated")) {
		sig->cat = HD_SIG_MISMATCH;
		sig->type = HD_SIGT_SIZE_MISMATCH;
		if (rx(c, RX_PEER, m, n))
			sig->peer = cap_intern(c, m, 1);
	} else if (has(m, n, "Message truncated")) {
		sig->cat = HD_SIG_INIT;
		sig->type = HD_SIGT_BOOTSTRAP;
	} else if (has(m, n, "Connection closed by remote peer")) {
		sig->cat = HD_SIG_CRASH;
		sig->type = HD_SIGT_PEER_CLOSED;
		if (rx(c, RX_REMOTE_PEER, m, n))
			sig->peer = cap_intern(c, m, 1);
	} else if (has(m, n, "Call to ibv_")) {
		sig->cat = HD_SIG_NETWORK;
	} else if (has(m, n, "Socket recv failed while polling")) {
		sig->cat = HD_SIG_CRASH;
	} else if (has(m, n, "Call to recv") || has(m, n, "Call to send") ||
		   has(m, n, "socketProgressOpt")) {
		sig->cat = HD_SIG_NETWORK;
		sig->type = HD_SIGT_SOCKET;
		if (rx(c, RX_SOCK_PEER, m, n))
			sig->peer = cap_intern(c, m, 1);
	} else if (has(m, n, "socketFinalizeAccept")) {
		sig->cat = HD_SIG_CONFIG;
		sig->type = HD_SIGT_SOCKET;
	} else if ((has(m, n, "Connect to ") && has(m, n, "failed")) ||
		   has(m, n, "socketStartConnect") ||
		   has(m, n, "exceeded error retry count")) {
		sig->cat = HD_SIG_INIT;
		sig->type = HD_SIGT_SOCKET;
		if (rx(c, RX_CONNECT_PEER, m, n))
			sig->peer = cap_intern(c, m, 1);
	} else if (has(m, n, "Failed to execute operation") ||
		   has(m, n, "Error encountered progressing operation")) {
		sig->cat = HD_SIG_NCCL_INTERNAL;
	} else if (has(m, n, "no socket interface found") ||
		   has(m, n, "no interface found") ||
		   has(m, n, "no device found matching") ||
		   has(m, n, "Error : ring")) {
		sig->cat = HD_SIG_CONFIG;
	} else if (has(m, n, "mismatch in rank count") ||
		   has(m, n, "has already checked in")) {
		sig->cat = HD_SIG_INIT;
		sig->type = HD_SIGT_BOOTSTRAP;
	} else if (has(m, n, "Mismatched NCCL version") ||
		   has(m, n, "NCCL version mismatch")) {
		sig->cat = HD_SIG_CONFIG;
	} else if (has(m, n, "Cuda failure") || has(m, n, "Failed to CUDA") ||
		   has(m, n, "CUDA error")) {
		sig->cat = HD_SIG_CUDA;
		sig->type = has(m, n, "out of memory") ||
					    has(m, n, "Failed to CUDA")
				    ? HD_SIGT_OOM
				    : HD_SIGT_CUDA_ERROR;
		if (rx(c, RX_CUDA_CODE, m, n) && cap_int(c, m, 1, &v))
			sig->code = (int32_t)clamp_int(v, 0, INT32_MAX);
	} else if (has(m, n, "Duplicate GPU detected")) {
		sig->cat = HD_SIG_INIT;
		sig->type = HD_SIGT_DUPLICATE_GPU;
	} else if (has(m, n, "shared memory segment") ||
		   has(m, n, "failed to extend") ||
		   has(m, n, "posix_fallocate")) {
		sig->cat = HD_SIG_CONFIG;
		sig->type = HD_SIGT_SHM;
	} else if (has(m, n, "commReclaim") || has(m, n, "in abort state") ||
		   has(m, n, "was revoked")) {
		sig->cat = HD_SIG_NCCL_INTERNAL;
		sig->type = HD_SIGT_COMM_ABORTED;
	}
}

/* The process a record belongs to, from its prefix or its stream. */
static struct nl_proc *rec_proc(struct nl_ctx *c, const struct nl_rec *r,
				struct nl_stream *st, const struct nl_wrap *w)
{
	struct nl_proc *p = NULL;

	if (r->has_hpt)
		p = proc_get(c, r->host, r->host_len, r->pid);
	else if (st->proc && !st->multi)
		p = st->proc; /* trimmed "[0] NCCL INFO" */
	if (p) {
		stream_add_proc(st, p);
		if (w->tag_rank >= 0)
			hint_merge(&p->tag_rank, w->tag_rank);
	}
	return p;
}

/*
 * "Bootstrap : Using eth0:10.1.0.5<0>": the address other processes
 * name this host by in their network errors ("peer 10.1.0.5<41873>").
 * The first one a process prints is kept; anything that is not an IPv4
 * or IPv6 address is ignored.
 */
static void parse_bootstrap_addr(struct nl_proc *p, const char *b, size_t n)
{
	const char *s = memchr(b, ':', n), *e = b + n, *a, *q;

	/* past "Bootstrap :" to "IFNAME:ADDR<port>" */
	s = s ? find(s + 1, e - s - 1, "Using ") : NULL;
	if (!s || p->addr)
		return;
	s += 6;
	q = memchr(s, ':', e - s);
	if (!q)
		return;
	a = q + 1;
	for (q = a; q < e && *q != '<' && *q != ' '; q++)
		if (!g_ascii_isxdigit(*q) && *q != '.' && *q != ':' &&
		    *q != '%' && !g_ascii_isalnum(*q))
			return;
	if (q == a || q - a > 64 || (!memchr(a, '.', q - a) &&
				     !memchr(a, ':', q - a)))
		return;
	/* an IPv4 address after an alias ("eth0:1:10.1.0.5") */
	if (memchr(a, '.', q - a))
		for (const char *t = q; t > a; t--)
			if (t[-1] == ':') {
				a = t;
				break;
			}
	p->addr = hd_intern_len(a, q - a);
}

static void handle_info(struct nl_ctx *c, struct nl_proc *p,
			struct nl_stream *st, const char *rec, size_t rec_len,
			const char *b, size_t n)
{
	size_t name_len;
	int which;
	struct hd_signal sig;
	int64_t v;

	if (n == 0) {
		c->torn_proc = p; /* a prefix whose body may come next */
		return;
	}
	which = coll_op(b, n, &name_len);
	if (which >= 0) {
		if (!p) {
			skip(c, "COLL record with no host:pid:tid");
			return;
		}
		/* NCCL's record buffer holds 1023 bytes and a NUL */
		parse_coll(c, p, which, b, n, name_len, rec_len >= 1023);
		return;
	}
	if (!p) {
		if (has(b, n, "- Init ") || has(b, n, " -> "))
			skip(c, "NCCL record with no host:pid:tid");
		return;
	}
	if (has(b, n, "- Init ") || has(b, n, "- Init")) {
		if (has(b, n, "Init START") || has(b, n, "Init COMPLETE"))
			parse_init(c, p, b, n);
		return;
	}
	if (has(b, n, " COMPLETE") || has(b, n, " START")) {
		if (has(b, n, "- Destroy ") || has(b, n, "- Abort "))
			parse_teardown(c, p, b, n);
		return;
	}
	if (starts(b, n, "NCCL version ")) {
		parse_version(c, p, b, n);
		return;
	}
	if (starts(b, n, "Bootstrap : Using ") ||
	    starts(b, n, "Bootstrap: Using ")) {
		parse_bootstrap_addr(p, b, n);
		return;
	}
	hd_signal_init(&sig);
	if (has(b, n, " -> ") && rx(c, RX_UNWIND, b, n)) {
		sig.cat = HD_SIG_NCCL_INTERNAL;
		sig.type = HD_SIGT_UNWIND;
		if (cap_int(c, b, 2, &v))
			sig.code = (int32_t)clamp_int(v, INT32_MIN, INT32_MAX);
	} else if (has(b, n, "Cuda failure")) {
		classify_warn(c, b, n, &sig, p);
	} else if (has(b, n, "Connection closed by localRank")) {
		/* normal at teardown; mid-run a local rank died */
		sig.cat = p->saw_teardown ? HD_SIG_INFO : HD_SIG_CRASH;
		sig.type = HD_SIGT_PEER_CLOSED;
	} else if (starts(b, n, "RAS ") &&
		   (has(b, n, " as DEAD") || has(b, n, "timeout error"))) {
		sig.cat = has(b, n, " as DEAD") ? HD_SIG_CRASH
						 : HD_SIG_NETWORK;
		sig.type = HD_SIGT_RAS;
		if (rx(c, RX_PEER, b, n))
			sig.peer = cap_intern(c, b, 1);
	} else {
		return; /* informational: topology, channels, env */
	}
	add_signal(c, &sig, p, st, rec, rec_len);
}

/*
 * Handles an NCCL record whose level word starts at lvl (anchor a is the
 * start of "NCCL " or, for 2.2, of the level word).  end bounds it.
 */
static void handle_nccl(struct nl_ctx *c, const char *line, const char *a,
			const char *lvl, const char *end, bool no_token)
{
	struct nl_rec r;
	struct nl_wrap w;
	struct nl_stream *st;
	struct nl_proc *p = NULL;
	const char *b;
	bool is_warn = lvl[0] == 'W', is_info = lvl[0] == 'I';
	bool ok = rec_prefix(c, line, a, &r);

	if (ok) {
		st = wrap_stream(c, line, r.start - line, &w);
		p = rec_proc(c, &r, st, &w);
		if (p && no_token)
			p->no_token = true;
	} else {
		wrap_init(&w);
		st = c->dflt;
		r.start = a;
		if (st->proc && !st->multi)
			p = st->proc;
	}
	b = lvl + (is_warn ? 5 : is_info ? 5 : 0);
	if (b > end)
		b = end;
	if (is_info) {
		handle_info(c, p, st, r.start, end - r.start, b, end - b);
	} else if (is_warn) {
		struct hd_signal sig;

		hd_signal_init(&sig);
		classify_warn(c, b, end - b, &sig, p);
		if (w.time_ns != INT64_MIN) {
			sig.time_ns = w.time_ns;
			sig.time_is_local = true;
			fmt_min(p, 2026);
		}
		if (a > line && a[-1] == ' ' && a - 1 > line && a[-2] == ')')
			fmt_min(p, 2030);
		if (!ok)
			hd_input_warn(c->in, c->lineno,
				      "NCCL WARN with no host:pid:tid, kept "
				      "without a process");
		add_signal(c, &sig, p, st, r.start, end - r.start);
	} else if (lvl[0] == 'A' && p) {
		struct hd_signal sig;

		hd_signal_init(&sig);
		sig.cat = HD_SIG_CRASH;
		add_signal(c, &sig, p, st, r.start, end - r.start);
	}
}

/* ------------------------------------------------------------------ */
/* PyTorch c10d, torchrun and Python.                                  */

struct nl_c10d {
	struct nl_stream *st;
	int grank;
	int64_t time_ns;
	const char *group; /* interned PG name, or NULL */
	bool has_pg;
	const char *text; /* the line without its wrapper */
	size_t text_len;
	const char *msg; /* after the c10d and PG prefixes */
	size_t msg_len;
};

static bool is_sev(char ch)
{
	return ch == 'F' || ch == 'E' || ch == 'W' || ch == 'I' || ch == 'V';
}

static void c10d_prefix(struct nl_ctx *c, const char *s, size_t n,
			struct nl_c10d *d)
{
	const char *p = s, *e = s + n, *q;
	int64_t v, ns;

	d->grank = -1;
	d->time_ns = INT64_MIN;
	d->group = NULL;
	d->has_pg = false;
	if (starts(p, e - p, "[rank")) {
		q = p + 5;
		if (scan_int(&q, e, &v) && q + 1 < e && q[0] == ']' &&
		    q[1] == ':') {
			d->grank = (int)clamp_int(v, -1, INT_MAX);
			p = q + 2;
			if (p < e && *p == ' ')
				p++;
		}
	}
	if (e - p > 3 && p[0] == '[' && is_sev(p[1]) &&
	    (p[2] == ' ' || g_ascii_isdigit(p[2])) &&
	    (q = find(p, MIN((size_t)(e - p), 160), "] "))) {
		/* [E305 14:02:11.123456789 file:N]: the fraction is
		 * CLOCK_MONOTONIC, so only hh:mm:ss is a time of day */
		const char *t = p + 2;

		while (t < q && g_ascii_isdigit(*t))
			t++;
		if (t < q && *t == ' ' && scan_hms(t + 1, q - t - 1, false, &ns))
			d->time_ns = ns;
		p = q + 2;
	} else if (e - p > 6 && is_sev(p[0]) && g_ascii_isdigit(p[1]) &&
		   g_ascii_isdigit(p[4]) && p[5] == ' ' &&
		   (q = find(p, MIN((size_t)(e - p), 200), "] "))) {
		/* glog: E0305 14:02:11.123456 tid file:N] (wall clock) */
		if (scan_hms(p + 6, q - p - 6, true, &ns))
			d->time_ns = ns;
		p = q + 2;
	} else if (starts(p, e - p, "WARNING:") || starts(p, e - p, "ERROR:") ||
		   starts(p, e - p, "INFO:") || starts(p, e - p, "CRITICAL:")) {
		/* Python logging: LEVEL:logger:msg */
		q = memchr(p, ':', e - p);
		q = q ? memchr(q + 1, ':', e - q - 1) : NULL;
		if (q)
			p = q + 1;
	}
	/* what():  [PG ..] / SomeError: [PG ..] repeat the message */
	if (e - p > 6 && p[0] != '[') {
		q = find(p, MIN((size_t)(e - p), 128), "[PG ");
		if (!q)
			q = find(p, MIN((size_t)(e - p), 128), "[Rank ");
		if (q && (find(p, q - p, "what():") || find(p, q - p, ": ")))
			p = q;
	}
	for (int k = 0; k < 2 && e - p > 6 && p[0] == '['; k++) {
		if (rx(c, RX_PG_GUID, p, e - p)) {
			d->group = cap_intern(c, p, 2);
			d->has_pg = true;
		} else if (rx(c, RX_PG_NUM, p, e - p)) {
			d->group = cap_intern(c, p, 1);
			d->has_pg = true;
		} else if (!rx(c, RX_RANK_ONLY, p, e - p)) {
			break;
		}
		p += c->ov[1];
	}
	d->msg = p;
	d->msg_len = e - p;
}

static void c10d_add(struct nl_ctx *c, struct nl_c10d *d,
		     struct hd_signal *sig)
{
	sig->rank = d->grank;
	if (d->time_ns != INT64_MIN) {
		/*
		 * c10d and glog print no date: time_ns is then ns since
		 * local midnight (still local time, time_is_local).
		 */
		sig->time_ns = d->time_ns;
		sig->time_is_local = true;
	}
	add_signal(c, sig, NULL, d->st, d->text, d->text_len);
}

/* Replaces a signal's text with text + "\n" + more (bounded). */
static void signal_append(struct hd_signal *sig, const char *more, size_t n)
{
	g_autofree char *raw = g_strdup_printf("%s\n%.*s",
					       sig->text ? sig->text : "",
					       (int)MIN(n, 1024), more);
	char *t = g_utf8_make_valid(raw, MIN(strlen(raw), 1024));

	g_free(sig->text);
	sig->text = t;
}

static void err_block_end(struct nl_ctx *c, struct nl_stream *st)
{
	if (st->err_sig >= 0)
		c->waiting = false;
	st->err_sig = -1;
	st->err_want_last = false;
	for (guint i = 0; i < c->streams->len; i++) {
		struct nl_stream *o = g_ptr_array_index(c->streams, i);

		if (o->err_sig >= 0)
			c->waiting = true;
	}
}

/* The text NCCL gave as "Last error:": it decides the category. */
static void err_block_last(struct nl_ctx *c, struct nl_stream *st,
			   const char *m, size_t n)
{
	struct hd_signal *sig = signal_at(c, st->err_sig);
	struct hd_signal tmp;

	signal_append(sig, m, n);
	while (n > 0 && (*m == ' ' || *m == '\t')) {
		m++;
		n--;
	}
	if (n > 0) {
		hd_signal_init(&tmp);
		classify_warn(c, m, n, &tmp, NULL);
		sig->cat = tmp.cat;
		if (tmp.peer)
			sig->peer = tmp.peer;
		if (tmp.code)
			sig->code = tmp.code;
	}
	err_block_end(c, st);
}

/* Lines that follow "NCCL error in:" in the same stream. */
static bool c10d_err_block(struct nl_ctx *c, struct nl_c10d *d)
{
	struct nl_stream *st = d->st;
	const char *m = d->msg, *q;
	size_t n = d->msg_len;

	if (st->err_sig < 0)
		return false;
	if (has(m, n, "NCCL error in:")) {
		err_block_end(c, st);
		return false;
	}
	if (st->err_want_last) {
		err_block_last(c, st, m, n);
		return true;
	}
	q = find(m, n, "Last error:");
	if (q) {
		const char *rest = q + 11;
		size_t rl = m + n - rest;

		while (rl > 0 && *rest == ' ') {
			rest++;
			rl--;
		}
		if (rl > 0) {
			signal_append(signal_at(c, st->err_sig), "Last error:",
				      11);
			err_block_last(c, st, rest, rl);
		} else {
			signal_append(signal_at(c, st->err_sig), m, n);
			st->err_want_last = true;
		}
		return true;
	}
	signal_append(signal_at(c, st->err_sig), m, n);
	if (--st->err_left <= 0)
		err_block_end(c, st);
	return true;
}

static bool c10d_nccl_error(struct nl_ctx *c, struct nl_c10d *d)
{
	struct hd_signal sig;
	const char *m = d->msg;
	size_t n = d->msg_len;

	if (!has(m, n, "NCCL error in:"))
		return false;
	hd_signal_init(&sig);
	sig.cat = has(m, n, "unhandled cuda error") ? HD_SIG_CUDA
						   : HD_SIG_NCCL_INTERNAL;
	sig.type = HD_SIGT_NCCL_ERROR;
	sig.group_name = d->group;
	c10d_add(c, d, &sig);
	d->st->err_sig = last_signal(c);
	d->st->err_left = NL_BLOCK_LINES;
	d->st->err_want_last = false;
	d->st->in_tb = false;
	c->waiting = true;
	return true;
}

/* Finds "name=" in [s, e) and returns what follows, or NULL. */
static const char *field(const char *s, const char *e, const char *name)
{
	const char *q = find(s, e - s, name);

	return q ? q + strlen(name) : NULL;
}

/* The number of elements of "[4, 4]": the product, -1 when unreadable. */
static int64_t shape_numel(const char *s, const char *e)
{
	int64_t numel = 1, v;
	int dims = 0;

	if (s >= e || *s != '[')
		return -1;
	s++;
	while (s < e && *s != ']') {
		if (*s == ',' || *s == ' ') {
			s++;
			continue;
		}
		if (!scan_int(&s, e, &v) || v < 0)
			return -1;
		numel = mul_or_unknown(numel, v);
		if (numel < 0)
			return -1;
		dims++;
	}
	return s < e ? numel : -1;
}

static bool c10d_timeout(struct nl_ctx *c, struct nl_c10d *d)
{
	const char *m = d->msg, *e = d->msg + d->msg_len, *w, *f, *we;
	struct hd_signal sig;
	int64_t v;
	char key[256];

	w = find(m, d->msg_len, "WorkNCCL(");
	if (!w || !(has(m, d->msg_len, "collective operation timeout") ||
		    has(m, d->msg_len, "timed out in blocking wait")))
		return false;
	w += 9;
	we = memchr(w, ')', e - w);
	if (!we)
		we = e;
	hd_signal_init(&sig);
	sig.cat = HD_SIG_TIMEOUT;
	sig.type = HD_SIGT_WATCHDOG_TIMEOUT;
	if ((f = field(w, we, "SeqNum=")) && scan_int(&f, we, &v))
		sig.seq = v;
	if ((f = field(w, we, "OpType="))) {
		const char *t = f;

		while (t < we && (g_ascii_isalnum(*t) || *t == '_'))
			t++;
		if (t > f)
			sig.op_name = hd_intern_len(f, t - f);
	}
	if ((f = field(w, we, "NumelIn=")) && scan_int(&f, we, &v))
		sig.numel_in = v;
	if ((f = field(w, we, "NumelOut=")) && scan_int(&f, we, &v))
		sig.numel_out = v;
	if ((f = field(w, e, "TensorShape=")))
		sig.numel_in = sig.numel_out = shape_numel(f, e);
	if (!sig.op_name) {
		skip(c, "watchdog timeout without OpType");
		return true;
	}
	sig.group_name = d->group ? d->group : hd_intern("0");
	/*
	 * The same timeout comes back in what(): and the exception line,
	 * often without [rankG]: such a line matches any rank's.
	 */
	g_snprintf(key, sizeof(key), "T|*|%u|%s|%" G_GINT64_FORMAT "|%s",
		   d->st->index, sig.group_name, sig.seq, sig.op_name);
	if (d->grank < 0 && g_hash_table_contains(c->dedup, key))
		return true;
	if (!g_hash_table_contains(c->dedup, key))
		g_hash_table_insert(c->dedup, g_strdup(key),
				    GINT_TO_POINTER(0));
	g_snprintf(key, sizeof(key), "T|%d|%u|%s|%" G_GINT64_FORMAT "|%s",
		   d->grank, d->st->index, sig.group_name, sig.seq,
		   sig.op_name);
	if (dedup_seen(c, key))
		return true;
	c10d_add(c, d, &sig);
	d->st->timeout_sig = d->has_pg ? -1 : last_signal(c);
	return true;
}

static bool c10d_status(struct nl_ctx *c, struct nl_c10d *d)
{
	const char *m = d->msg;
	size_t n = d->msg_len;
	struct hd_signal sig;
	int64_t v;
	char key[256];

	if (!has(m, n, "ast enqueued"))
		return false;
	if (!rx(c, RX_STATUS, m, n)) {
		skip(c, "unreadable c10d status line");
		return true;
	}
	hd_signal_init(&sig);
	sig.cat = HD_SIG_PROGRESS;
	sig.type = HD_SIGT_PG_STATUS;
	sig.seq = cap_int(c, m, 1, &v) ? v : -1;
	if (cap_int(c, m, 2, &v))
		sig.last_enqueued = v;
	if (cap_int(c, m, 3, &v))
		sig.last_completed = v;
	sig.group_name = d->group ? d->group : hd_intern("0");
	g_snprintf(key, sizeof(key),
		   "S|%d|%u|%s|%" G_GINT64_FORMAT "|%" G_GINT64_FORMAT
		   "|%" G_GINT64_FORMAT,
		   d->grank, d->st->index, sig.group_name, sig.seq,
		   sig.last_enqueued, sig.last_completed);
	if (dedup_seen(c, key))
		return true;
	/* A timeout line without a PG prefix belongs to this PG. */
	if (d->st->timeout_sig >= 0 && d->has_pg && sig.seq >= 0) {
		struct hd_signal *t = signal_at(c, d->st->timeout_sig);

		if (t->seq == sig.seq && t->rank == d->grank)
			t->group_name = sig.group_name;
		d->st->timeout_sig = -1;
	}
	c10d_add(c, d, &sig);
	return true;
}

static bool any_of(const char *m, size_t n, const char *const *needles,
		   size_t k)
{
	for (size_t i = 0; i < k; i++)
		if (has(m, n, needles[i]))
			return true;
	return false;
}

static const char *const heartbeat_texts[] = {
	"Heartbeat monitor timed out",
	"watchdog got stuck",
	"Could not acquire GIL",
};

static const char *const dump_texts[] = {
	"dump signal",
	"global timeout from another rank",
	"signal dumping",
	"Broadcasting signal",
	"preparing to dump",
	"dumping nccl trace to",
	"Flight Recorder trace successfully dumped",
	"Finished flight recorder",
	"attempting to dump debug info",
	"would have terminated the process",
	"Future for ",
	"should dump",
	"exception dump flag",
};

static const char *const desync_texts[] = {
	"didn't join",
	"didn't finish",
	"are the lagging ranks",
	"Failed to retrieve TORCH_NCCL_DESYNC",
	"Failed to rerieve",
	"DESYNC_DEBUG report",
};

static const char *const bootstrap_texts[] = {
	"DistStoreError",
	"DistNetworkError",
	"while trying to connect to",
	"waiting for clients",
	"Timed out initializing process group in store based barrier",
};

static bool is_bootstrap(const char *m, size_t n)
{
	return any_of(m, n, bootstrap_texts, G_N_ELEMENTS(bootstrap_texts)) ||
	       (has(m, n, "TCP client failed to connect") &&
		has(m, n, "timed out")) ||
	       (has(m, n, "is setting up NCCL communicator") &&
		has(m, n, "got error"));
}

static void c10d_simple(struct nl_ctx *c, struct nl_c10d *d, uint8_t cat,
			uint8_t type, const char *dedup)
{
	struct hd_signal sig;
	char key[160];

	if (dedup) {
		g_snprintf(key, sizeof(key), "%s|%d|%u", dedup, d->grank,
			   d->st->index);
		if (dedup_seen(c, key))
			return;
	}
	hd_signal_init(&sig);
	sig.cat = cat;
	sig.type = type;
	sig.group_name = d->group;
	c10d_add(c, d, &sig);
}

/* torchrun: one process's exit; the same exit may be printed twice. */
static void process_exit(struct nl_ctx *c, struct nl_c10d *d, int rank,
			 int64_t code, int64_t pid)
{
	char key[96];
	gpointer v;
	struct hd_signal sig;

	g_snprintf(key, sizeof(key), "X|%" G_GINT64_FORMAT "|%" G_GINT64_FORMAT,
		   pid, code);
	v = g_hash_table_lookup(c->dedup, key);
	if (v) {
		struct hd_signal *old = signal_at(c, GPOINTER_TO_INT(v) - 1);

		if (old->rank < 0)
			old->rank = rank;
		return;
	}
	dedup_seen(c, key);
	hd_signal_init(&sig);
	sig.cat = HD_SIG_CRASH;
	sig.type = HD_SIGT_PROCESS_EXIT;
	sig.code = (int32_t)clamp_int(code, INT32_MIN, INT32_MAX);
	sig.pid = (int32_t)clamp_int(pid, 0, INT32_MAX);
	sig.rank = rank;
	if (d->time_ns != INT64_MIN) {
		sig.time_ns = d->time_ns;
		sig.time_is_local = true;
	}
	add_signal(c, &sig, NULL, d->st, d->text, d->text_len);
	/* a launcher's line: not the process of the stream */
	signal_at(c, last_signal(c))->rank = rank;
}

static bool c10d_torchrun(struct nl_ctx *c, struct nl_c10d *d)
{
	const char *m = d->msg;
	size_t n = d->msg_len;
	struct nl_stream *st = d->st;
	int64_t code, pid, v;

	if (has(m, n, "failed (exitcode:") && rx(c, RX_EXIT, m, n) &&
	    cap_int(c, m, 1, &code) && cap_int(c, m, 3, &pid)) {
		process_exit(c, d, -1, code, pid);
		return true;
	}
	if (has(m, n, "ChildFailedError") || has(m, n, "Failures:") ||
	    has(m, n, "Root Cause (first observed failure)")) {
		st->cfe_left = NL_CFE_LINES;
		st->cfe_rank = -1;
		st->in_tb = false;
		return true;
	}
	if (st->cfe_left <= 0)
		return false;
	if (has(m, n, "local_rank") && rx(c, RX_CFE_RANK, m, n) &&
	    cap_int(c, m, 1, &v)) {
		st->cfe_rank = (int)clamp_int(v, -1, INT_MAX);
		return true;
	}
	if (has(m, n, "exitcode") && rx(c, RX_CFE_EXIT, m, n) &&
	    cap_int(c, m, 1, &code) && cap_int(c, m, 2, &pid)) {
		process_exit(c, d, st->cfe_rank, code, pid);
		st->cfe_rank = -1;
		return true;
	}
	return false;
}

static bool c10d_traceback(struct nl_ctx *c, struct nl_c10d *d)
{
	const char *m = d->msg, *name;
	size_t n = d->msg_len, nl;
	struct nl_stream *st = d->st;

	if (has(m, n, "Traceback (most recent call last)")) {
		st->in_tb = true;
		return true;
	}
	if (!st->in_tb || n == 0 || m[0] == ' ' || m[0] == '\t' ||
	    !rx(c, RX_EXCEPTION, m, n) || !cap(c, m, 1, &name, &nl))
		return false;
	st->in_tb = false;
	if (has(name, nl, "OutOfMemoryError") || has(m, n, "out of memory"))
		c10d_simple(c, d, HD_SIG_CUDA, HD_SIGT_OOM, "O");
	else if (is_bootstrap(m, n))
		c10d_simple(c, d, HD_SIG_INIT, HD_SIGT_BOOTSTRAP, NULL);
	else
		c10d_simple(c, d, HD_SIG_CRASH, HD_SIGT_TRACEBACK, NULL);
	return true;
}

/* Returns false when the line said nothing this parser knows. */
static bool c10d_dispatch(struct nl_ctx *c, struct nl_c10d *d)
{
	const char *m = d->msg;
	size_t n = d->msg_len;
	int64_t v;

	if (d->grank >= 0)
		hint_merge(&d->st->c10d_rank, d->grank);
	if (c10d_err_block(c, d) || c10d_nccl_error(c, d) ||
	    c10d_timeout(c, d) || c10d_status(c, d))
		return true;
	if (has(m, n, "was aborted on rank") && rx(c, RX_ABORTED, m, n)) {
		c10d_simple(c, d, HD_SIG_NCCL_INTERNAL, HD_SIGT_COMM_ABORTED,
			    NULL);
		if (cap_int(c, m, 1, &v) && d->grank < 0)
			signal_at(c, last_signal(c))->rank =
				(int32_t)clamp_int(v, -1, INT32_MAX);
		return true;
	}
	if (has(m, n, "raised the following async exception") ||
	    has(m, n, "found async exception") ||
	    has(m, n, "encountered error set by ProcessGroupNCCL") ||
	    has(m, n, "remote error detected from rank")) {
		c10d_simple(c, d, HD_SIG_NCCL_INTERNAL, HD_SIGT_NCCL_ERROR,
			    NULL);
		return true;
	}
	if (any_of(m, n, heartbeat_texts, G_N_ELEMENTS(heartbeat_texts))) {
		c10d_simple(c, d, HD_SIG_INFO, HD_SIGT_HEARTBEAT, NULL);
		return true;
	}
	if (any_of(m, n, dump_texts, G_N_ELEMENTS(dump_texts))) {
		c10d_simple(c, d, HD_SIG_INFO, HD_SIGT_DUMP, NULL);
		return true;
	}
	if (any_of(m, n, desync_texts, G_N_ELEMENTS(desync_texts))) {
		c10d_simple(c, d, HD_SIG_INFO, HD_SIGT_DESYNC_REPORT, NULL);
		return true;
	}
	if (c10d_torchrun(c, d) || c10d_traceback(c, d))
		return true;
	if (is_bootstrap(m, n)) {
		c10d_simple(c, d, HD_SIG_INIT, HD_SIGT_BOOTSTRAP, NULL);
		return true;
	}
	if (has(m, n, "CUDA out of memory") ||
	    has(m, n, "OutOfMemoryError")) {
		c10d_simple(c, d, HD_SIG_CUDA, HD_SIGT_OOM, "O");
		return true;
	}
	return false;
}

/* Cheap tests that a line may be one of the c10d/Python texts. */
static const char *const c10d_needles[] = {
	"[rank", "ProcessGroupNCCL", "WorkNCCL(", "NCCL", "Traceback",
	"Error", "Exception", "Interrupt", "Exit", "exitcode", "local_rank",
	"Failures:", "Root Cause", "enqueued", "dump", "Dump", "DESYNC",
	"didn't", "lagging", "Heartbeat", "watchdog", "store", "TCP",
	"imed out", "out of memory", "[PG ", "[Rank ", "light", "GIL",
	"clients",
};

static void c10d_line(struct nl_ctx *c, const char *line, size_t n)
{
	struct nl_wrap w;
	struct nl_c10d d;
	size_t off;

	if (!c->waiting &&
	    !any_of(line, n, c10d_needles, G_N_ELEMENTS(c10d_needles)))
		return;
	wrap_init(&w);
	off = strip_front(line, n, &w);
	d.st = stream_for(c, &w);
	d.text = line + off;
	d.text_len = n - off;
	c10d_prefix(c, d.text, d.text_len, &d);
	if (d.st->cfe_left > 0)
		d.st->cfe_left--;
	c10d_dispatch(c, &d);
}

/* ------------------------------------------------------------------ */
/* Lines.                                                              */

/* Removes ESC sequences; out holds at least n bytes. */
static size_t strip_ansi(const char *s, size_t n, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] != 0x1b) {
			out[o++] = s[i];
			continue;
		}
		if (i + 1 < n && s[i + 1] == '[') {
			size_t j = i + 2;

			while (j < n && (g_ascii_isdigit(s[j]) || s[j] == ';' ||
					 s[j] == '?'))
				j++;
			i = j < n ? j : n - 1;
		} else if (i + 1 < n) {
			i++;
		}
	}
	return o;
}

/*
 * Finds the next NCCL record anchor in [s, e): the 'N' of "NCCL " with
 * a level word after it, or a bare version line.  *lvl receives the
 * level word.
 */
static const char *nccl_anchor(const char *line, const char *s, const char *e,
			       const char **lvl)
{
	const char *q;

	while ((q = find(s, e - s, "NCCL ")) != NULL) {
		const char *l = q + 5;
		size_t rem = e - l;

		s = l;
		if (q > line && q[-1] == ' ' &&
		    (starts(l, rem, "INFO ") || starts(l, rem, "WARN ") ||
		     starts(l, rem, "CALL ") || starts(l, rem, "TRACE ") ||
		     starts(l, rem, "ABORT") ||
		     (rem == 4 && (starts(l, rem, "INFO") ||
				   starts(l, rem, "WARN"))))) {
			*lvl = l;
			return q;
		}
		if (starts(l, rem, "version ")) {
			struct nl_wrap w;

			wrap_init(&w);
			if (strip_front(line, q - line, &w) ==
			    (size_t)(q - line)) {
				*lvl = l;
				return q;
			}
		}
	}
	return NULL;
}

/* A second record fused onto this one: where it starts, or NULL. */
static const char *fused_next(const char *body, const char *e)
{
	const char *s = body, *q;

	while ((q = find(s, e - s, " NCCL ")) != NULL) {
		struct nl_rec r;

		s = q + 6;
		if (!starts(s, e - s, "INFO ") && !starts(s, e - s, "WARN "))
			continue;
		if (rec_prefix_walk(body, q + 1, &r) && r.has_hpt)
			return r.start;
	}
	return NULL;
}

static bool tier2_old_nccl(struct nl_ctx *c, const char *line, size_t n)
{
	const char *q, *lvl = NULL;
	struct nl_rec r;

	if ((q = find(line, n, "] INFO ")))
		lvl = q + 2;
	else if ((q = find(line, n, " WARN ")))
		lvl = q + 1;
	if (!lvl || !rec_prefix(c, line, lvl, &r) || !r.has_hpt || r.dev < 0)
		return false;
	handle_nccl(c, line, lvl, lvl, line + n, true);
	return true;
}

/* A COLL body that lost its prefix (torn line). */
static bool tier2_torn(struct nl_ctx *c, const char *line, size_t n,
		       struct nl_proc *torn)
{
	struct nl_wrap w;
	size_t off, name_len;
	int which;
	struct nl_stream *st;
	struct nl_proc *p;

	if (!find(line, n, ": opCount "))
		return false;
	wrap_init(&w);
	off = strip_front(line, n, &w);
	while (off < n && line[off] == ' ')
		off++;
	which = coll_op(line + off, n - off, &name_len);
	if (which < 0)
		return false;
	st = stream_for(c, &w);
	p = torn ? torn : (st->proc && !st->multi) ? st->proc : NULL;
	if (!p) {
		skip(c, "torn COLL record: body without a prefix, provenance "
			"unknown");
		return true;
	}
	hd_input_warn(c->in, c->lineno,
		      "torn COLL record: body without a prefix, attributed to "
		      "%s:%d",
		      p->host, p->pid);
	parse_coll(c, p, which, line + off, n - off, name_len, false);
	return true;
}

static void process_line(struct nl_ctx *c, const char *line, size_t n)
{
	const char *e, *a, *lvl, *q;
	struct nl_proc *torn = c->torn_proc;
	int rec;

	c->torn_proc = NULL;
	if (memchr(line, 0x1b, n)) {
		n = strip_ansi(line, n, c->clean);
		line = c->clean;
	}
	/* Ray's dedup suffix: the line stands for several ranks */
	if (n > 0 && line[n - 1] == ']' && (q = find(line, n, " [repeated ")) &&
	    has(q, line + n - q, "across cluster]"))
		n = q - line;
	e = line + n;
	for (rec = 0; rec < 16; rec++) {
		const char *next = NULL, *end = e;

		a = nccl_anchor(line, line, e, &lvl);
		if (!a)
			break;
		if (lvl[0] == 'v') {
			/* bare version line: comm-rank-0 processes only */
			parse_version(c, NULL, a, e - a);
			return;
		}
		if ((lvl[0] == 'I' || lvl[0] == 'W') && lvl + 5 < e) {
			size_t nl;

			/*
			 * A COLL record parses up to its stream pointer: only
			 * text left after it can be a fused record, so the
			 * common line pays no second scan.
			 */
			if (lvl[0] == 'I' && coll_op(lvl + 5, e - lvl - 5, &nl) >= 0) {
				c->coll_stop = NULL;
				handle_nccl(c, line, a, lvl, e, false);
				if (!c->coll_stop || e - c->coll_stop < 8)
					return;
				next = fused_next(c->coll_stop, e);
				if (!next)
					return;
				line = next;
				continue;
			}
			next = fused_next(lvl + 5, e);
			if (next) {
				end = next;
				while (end > lvl + 5 && end[-1] == ' ')
					end--;
			}
		}
		handle_nccl(c, line, a, lvl, end, false);
		if (!next)
			return;
		line = next;
	}
	if (rec > 0)
		return;
	if (tier2_old_nccl(c, line, n) || tier2_torn(c, line, n, torn))
		return;
	c10d_line(c, line, n);
}

/* Whether a line opens a record that a terminal may have hard-wrapped. */
static bool opens_wrap(const char *line, size_t n)
{
	const char *q = find(line, n, "WorkNCCL(");

	return q && n >= 60 && !memchr(q, ')', line + n - q);
}

static bool line_has_anchor(const char *line, size_t n)
{
	return has(line, n, "NCCL ") || has(line, n, "[rank") ||
	       has(line, n, "[PG ") || has(line, n, "WorkNCCL(");
}

static void flush_wrap(struct nl_ctx *c)
{
	uint64_t saved = c->lineno;

	if (!c->wrap->len)
		return;
	c->lineno = c->wrap_line;
	process_line(c, c->wrap->str, c->wrap->len);
	c->lineno = saved;
	g_string_truncate(c->wrap, 0);
	c->wrap_count = 0;
}

static void feed_line(struct nl_ctx *c, const char *line, size_t n, bool cut)
{
	if (cut && !c->warned_cut) {
		c->warned_cut = true;
		hd_input_warn(c->in, c->lineno,
			      "line longer than %d bytes, cut (warned once)",
			      HD_LINE_MAX);
	}
	if (c->wrap->len) {
		if (!cut && !line_has_anchor(line, n) &&
		    c->wrap_count < NL_WRAP_LINES &&
		    c->wrap->len + n <= NL_WRAP_MAX) {
			g_string_append_len(c->wrap, line, n);
			c->wrap_count++;
			if (memchr(c->wrap->str, ')', c->wrap->len) &&
			    !opens_wrap(c->wrap->str, c->wrap->len))
				flush_wrap(c);
			return;
		}
		flush_wrap(c);
	}
	if (!cut && opens_wrap(line, n) && n < NL_WRAP_MAX) {
		g_string_append_len(c->wrap, line, n);
		c->wrap_line = c->lineno;
		c->wrap_count = 0;
		return;
	}
	process_line(c, line, n);
}

/* ------------------------------------------------------------------ */
/* End of input: ranks, groups, and the fix-ups they allow.            */

/* The version to record: the format wins over what a line claims. */
static const char *proc_version(struct nl_ctx *c, struct nl_proc *p)
{
	const char *claim = p->version;
	char buf[32];

	if (!claim && c->procs->len == 1 && !c->bare_version_conflict)
		claim = c->bare_version;
	if (p->no_token)
		return hd_intern("2.2");
	if (!p->fmt_min || (claim && version_code(claim) >= p->fmt_min))
		return claim;
	g_snprintf(buf, sizeof(buf), "%d.%d+", p->fmt_min / 1000,
		   p->fmt_min % 1000);
	if (claim)
		hd_input_warn(c->in, 0,
			      "%s:%d claims NCCL %s but its format is %s",
			      p->host, p->pid, claim, buf);
	return hd_intern(buf);
}

static int proc_rank(const struct nl_proc *p)
{
	if (p->c10d_rank >= 0)
		return p->c10d_rank;
	if (p->hint_rank >= 0)
		return p->hint_rank;
	if (p->world_rank >= 0)
		return p->world_rank;
	if (p->tag_rank >= 0)
		return p->tag_rank;
	return -1;
}

static void finish(struct nl_ctx *c)
{
	GArray *ops = c->store->ops;
	guint j = c->op_base;
	int input_rank = -1;
	bool one_rank = true;

	flush_wrap(c);
	for (guint i = 0; i < c->streams->len; i++) {
		struct nl_stream *st = g_ptr_array_index(c->streams, i);

		if (st->proc && !st->multi && st->c10d_rank >= 0)
			hint_merge(&st->proc->c10d_rank, st->c10d_rank);
	}
	for (guint i = 0; i < c->procs->len; i++) {
		struct nl_proc *p = g_ptr_array_index(c->procs, i);

		p->rank = proc_rank(p);
	}

	/* Ops: the rank of their process, or dropped. */
	for (guint i = c->op_base; i < ops->len; i++) {
		struct hd_op *op = &g_array_index(ops, struct hd_op, i);
		uint32_t pi = g_array_index(c->op_proc, uint32_t,
					    i - c->op_base);
		struct nl_proc *p = g_ptr_array_index(c->procs, pi);

		if (p->rank < 0) {
			p->ndropped++;
			continue;
		}
		op->rank = p->rank;
		if (j != i)
			g_array_index(ops, struct hd_op, j) = *op;
		j++;
	}
	g_array_set_size(ops, j);
	for (guint i = 0; i < c->procs->len; i++) {
		struct nl_proc *p = g_ptr_array_index(c->procs, i);

		if (!p->ndropped)
			continue;
		c->in->skipped += p->ndropped;
		c->in->records -= MIN(c->in->records, p->ndropped);
		hd_input_warn(c->in, 0,
			      "rank unknown for %s:%d, %" G_GUINT64_FORMAT
			      " ops skipped",
			      p->host, p->pid, p->ndropped);
	}

	/* Signals: the rank of their process or stream. */
	for (guint i = c->sig_base; i < c->store->signals->len; i++) {
		struct hd_signal *sig = &g_array_index(c->store->signals,
						       struct hd_signal, i);
		int32_t pi = g_array_index(c->sig_proc, int32_t,
					   i - c->sig_base);
		struct nl_stream *st = g_ptr_array_index(
			c->streams,
			g_array_index(c->sig_stream, uint32_t, i - c->sig_base));
		struct nl_proc *p = pi >= 0 ? g_ptr_array_index(c->procs, pi)
					    : NULL;

		if (!p && st->proc && !st->multi &&
		    sig->type != HD_SIGT_PROCESS_EXIT)
			p = st->proc;
		if (sig->rank < 0 && p)
			sig->rank = p->rank;
		if (sig->rank < 0 && st->c10d_rank >= 0 &&
		    sig->type != HD_SIGT_PROCESS_EXIT)
			sig->rank = st->c10d_rank;
		if (!sig->host && p) {
			sig->host = p->host;
			sig->pid = p->pid;
		}
		if (sig->rank >= 0) {
			hd_rank_add_input(hd_store_rank(c->store, sig->rank),
					  c->input);
			if (sig->type != HD_SIGT_PROCESS_EXIT) {
				if (input_rank >= 0 && input_rank != sig->rank)
					one_rank = false;
				input_rank = sig->rank;
			}
		}
	}

	/* Groups and ranks. */
	for (guint i = 0; i < c->procs->len; i++) {
		struct nl_proc *p = g_ptr_array_index(c->procs, i);
		struct hd_rank *r;

		if (p->rank < 0)
			continue;
		if (input_rank >= 0 && input_rank != p->rank)
			one_rank = false;
		input_rank = p->rank;
		for (guint k = 0; k < p->comms->len; k++) {
			struct nl_comm *cm = g_ptr_array_index(p->comms, k);

			if (cm->group >= 0 && cm->rank >= 0)
				hd_group_set_member(
					hd_store_group_at(c->store,
							  (uint32_t)cm->group),
					cm->rank, p->rank);
		}
		r = hd_store_rank(c->store, p->rank);
		if (!r->host && p->host[0])
			r->host = p->host;
		if (!r->addr)
			r->addr = p->addr;
		if (!r->pid)
			r->pid = p->pid;
		if (r->cuda_dev < 0)
			r->cuda_dev = p->world_dev;
		if (!r->bus_id)
			r->bus_id = p->world_bus;
		if (!r->nccl_version)
			r->nccl_version = proc_version(c, p);
		hd_rank_add_input(r, c->input);
	}
	if (one_rank && input_rank >= 0)
		c->in->rank = input_rank;
}

bool nccl_log_parse(struct hd_reader *rd, struct hd_store *store,
		    uint32_t input, GError **error)
{
	static GOnce once = G_ONCE_INIT;
	g_autoptr(hd_lines) lines = hd_lines_new(rd);
	g_autoptr(GError) err = NULL;
	struct nl_ctx c = { 0 };
	const char *line;
	size_t len;
	bool cut, ok = true;

	g_once(&once, rx_compile, NULL);
	memset(&c, 0, sizeof(c));
	c.store = store;
	c.input = input;
	c.in = hd_store_input(store, input);
	c.in->kind = HD_INPUT_NCCL_LOG;
	c.md = pcre2_match_data_create(32, NULL);
	c.ov = pcre2_get_ovector_pointer(c.md);
	c.procs_by_key = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					       NULL);
	c.procs = g_ptr_array_new_with_free_func(proc_free);
	c.streams_by_key = g_hash_table_new_full(g_str_hash, g_str_equal,
						 g_free, NULL);
	c.streams = g_ptr_array_new_with_free_func(stream_free);
	c.dflt = stream_get(&c, "");
	c.op_base = store->ops->len;
	c.sig_base = store->signals->len;
	c.op_proc = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	c.sig_proc = g_array_new(FALSE, FALSE, sizeof(int32_t));
	c.sig_stream = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	c.dedup = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	c.clean = g_malloc(MAX(HD_LINE_MAX, NL_WRAP_MAX) + 1);
	c.prefix_cache = g_new0(struct nl_prefix, NL_PREFIX_CACHE);
	c.wrap = g_string_sized_new(256);
	for (size_t i = 0; i < G_N_ELEMENTS(coll_ops); i++)
		c.coll_names[i] = hd_intern(coll_ops[i].name);

	while (hd_lines_next(lines, &line, &len, &cut, &err)) {
		c.lineno = hd_lines_lineno(lines);
		feed_line(&c, line, len, cut);
	}
	c.lineno = hd_lines_lineno(lines);
	finish(&c);
	if (err) {
		/* What was read before a read error stays valid. */
		c.in->truncated = true;
		if (c.in->records == 0 && c.lineno == 0) {
			g_propagate_error(error, g_steal_pointer(&err));
			ok = false;
		} else {
			hd_input_warn(c.in, c.lineno, "input ends early: %s",
				      err->message);
		}
	}
	c.in->bytes = hd_reader_consumed(rd);

	pcre2_match_data_free(c.md);
	g_hash_table_destroy(c.procs_by_key);
	g_ptr_array_free(c.procs, TRUE);
	g_hash_table_destroy(c.streams_by_key);
	g_ptr_array_free(c.streams, TRUE);
	g_array_free(c.op_proc, TRUE);
	g_array_free(c.sig_proc, TRUE);
	g_array_free(c.sig_stream, TRUE);
	g_hash_table_destroy(c.dedup);
	g_free(c.clean);
	g_free(c.prefix_cache);
	g_string_free(c.wrap, TRUE);
	return ok;
}
