/*
 * NCCL topology dumps (docs/format-nccl-topo.md): the XML NCCL writes to
 * NCCL_TOPO_DUMP_FILE, the PCI tree of one node as NCCL saw it:
 *
 *   <system version="1">
 *     <cpu numaid="0" affinity="..." arch="x86_64" vendor="GenuineIntel">
 *       <pci busid="0000:17:00.0" class="0x060400" ...>
 *         <pci busid="0000:18:00.0" class="0x030200" ...>
 *           <gpu dev="0" sm="90" rank="0" gdr="1"/>
 *         </pci>
 *         <pci busid="0000:19:00.0" class="0x020700" ...>
 *           <nic><net name="mlx5_0" dev="0" port="1" speed="400000" .../></nic>
 *         </pci>
 *
 * Read with a small bounded scanner (tags and attributes only; no
 * entities, no external XML library).  Each GPU that names its rank
 * becomes one info signal of type net_devices, as NCCL's own "NET/IB :
 * Using" line would: rank = the GPU's rank, device = the GPU's PCI bus
 * id, text = the HCA ports nearest to it ("[0]mlx5_0:1/IB"): those under
 * the deepest PCI switch the GPU shares with a NIC, else under its CPU,
 * else all of them.  The engine then names, for a port that is down, the
 * ranks that use it (src/engine/hd-kernel.c).  The dump names no host:
 * a rank's host comes from the other inputs.
 *
 * Ownership: the buffer and tables are per call; the store owns what is
 * added.
 */
#include "config.h"

#include <string.h>

#include "formats.h"
#include "parse-util.h"
#include "hd-error.h"
#include "hd-banned.h"

/* Bounds that keep hostile input from growing the parser's state. */
#define TOPO_BYTES ((size_t)8 << 20) /* a dump is read whole */
#define TOPO_DEPTH 64 /* elements open at once */
#define TOPO_NODES 4096 /* pci, gpu and net elements kept */
#define TOPO_ATTR  256 /* bytes kept of an attribute's value */

struct pci {
	char busid[32];
	int parent; /* index in pcis, -1 under a cpu */
	int cpu; /* index of its cpu element, -1 none */
	int depth; /* pci ancestors, itself included */
};

struct gpu {
	int pci; /* the enclosing pci, -1 none */
	int64_t rank; /* -1 none */
	uint64_t at; /* byte offset of its tag */
};

struct net {
	int pci;
	char name[64];
	int64_t dev, port;
};

struct topo {
	struct hd_store *store;
	struct hd_input *in;
	uint32_t input;
	GArray *pcis, *gpus, *nets;
	int stack_pci[TOPO_DEPTH]; /* the pci open at each depth, -1 */
	int stack_cpu[TOPO_DEPTH];
	char stack_tag[TOPO_DEPTH][8];
	int depth, cpus;
	bool dropped; /* elements past TOPO_NODES or TOPO_DEPTH */
};

/* The value of attribute name in the attribute text [s, e), or false. */
static bool attr(const char *s, const char *e, const char *name, char *out,
		 size_t size)
{
	size_t k = strlen(name);

	for (const char *p = s; p + k + 2 <= e; p++) {
		const char *q, *v;

		if (memcmp(p, name, k) != 0 || p[k] != '=' ||
		    (p > s && !g_ascii_isspace(p[-1])))
			continue;
		q = p + k + 1;
		if (q >= e || (*q != '"' && *q != '\''))
			continue;
		v = memchr(q + 1, *q, (size_t)(e - q - 1));
		if (!v)
			return false;
		g_snprintf(out, size, "%.*s", (int)MIN(v - q - 1, TOPO_ATTR),
			   q + 1);
		return true;
	}
	return false;
}

static int64_t attr_int(const char *s, const char *e, const char *name)
{
	char v[TOPO_ATTR + 1];
	char *end = NULL;
	gint64 n;

	if (!attr(s, e, name, v, sizeof(v)) || !v[0])
		return -1;
	n = g_ascii_strtoll(v, &end, 10);
	if (!end || *end || n < 0 || n >= HD_MAX_RANKS)
		return -1;
	return n;
}

static int cur_pci(const struct topo *t)
{
	/* past TOPO_DEPTH, elements count as inside the deepest kept */
	return t->depth > 0 ? t->stack_pci[MIN(t->depth, TOPO_DEPTH) - 1] : -1;
}

static int cur_cpu(const struct topo *t)
{
	return t->depth > 0 ? t->stack_cpu[MIN(t->depth, TOPO_DEPTH) - 1] : -1;
}

static bool room(struct topo *t)
{
	if (t->pcis->len + t->gpus->len + t->nets->len < TOPO_NODES)
		return true;
	t->dropped = true;
	return false;
}

/* An opening tag name with attributes [s, e); closed: "<x/>". */
static void open_tag(struct topo *t, const char *name, size_t nn, const char *s,
		     const char *e, bool closed, uint64_t at)
{
	int pci = cur_pci(t), cpu = cur_cpu(t);

	if (nn == 3 && memcmp(name, "cpu", 3) == 0) {
		cpu = t->cpus++;
		pci = -1;
	} else if (nn == 3 && memcmp(name, "pci", 3) == 0 && room(t)) {
		struct pci p = { .parent = pci, .cpu = cpu, .depth = 1 };

		if (!attr(s, e, "busid", p.busid, sizeof(p.busid)))
			g_strlcpy(p.busid, "?", sizeof(p.busid));
		if (pci >= 0)
			p.depth =
				g_array_index(t->pcis, struct pci, pci).depth +
				1;
		g_array_append_val(t->pcis, p);
		pci = (int)t->pcis->len - 1;
	} else if (nn == 3 && memcmp(name, "gpu", 3) == 0 && room(t)) {
		struct gpu g = { .pci = pci,
				 .rank = attr_int(s, e, "rank"),
				 .at = at };

		g_array_append_val(t->gpus, g);
	} else if (nn == 3 && memcmp(name, "net", 3) == 0 && room(t)) {
		struct net n = { .pci = pci,
				 .dev = attr_int(s, e, "dev"),
				 .port = attr_int(s, e, "port") };

		if (attr(s, e, "name", n.name, sizeof(n.name)) && n.name[0])
			g_array_append_val(t->nets, n);
		else
			t->in->skipped++;
	}
	if (closed)
		return;
	if (t->depth >= TOPO_DEPTH) {
		t->dropped = true;
		t->depth++; /* counted, so its close matches */
		return;
	}
	t->stack_pci[t->depth] = pci;
	t->stack_cpu[t->depth] = cpu;
	g_snprintf(t->stack_tag[t->depth], sizeof(t->stack_tag[0]), "%.*s",
		   (int)MIN(nn, 7), name);
	t->depth++;
}

/* Reads the tags of buf; false when the XML is cut or not a dump. */
static bool scan(struct topo *t, const char *buf, size_t len, GError **error)
{
	/* an empty input has no buffer at all */
	const char *p = buf, *end = len ? buf + len : buf;
	bool system = false;

	while (p < end) {
		const char *lt = memchr(p, '<', (size_t)(end - p)), *gt, *name,
			   *ne, *stop;
		bool closed;

		if (!lt)
			break;
		if (end - lt >= 4 && memcmp(lt, "<!--", 4) == 0) {
			const char *c =
				g_strstr_len(lt + 4, end - lt - 4, "-->");

			if (!c)
				break;
			p = c + 3;
			continue;
		}
		gt = memchr(lt, '>', (size_t)(end - lt));
		if (!gt) {
			t->in->truncated = true;
			hd_input_warn(t->in, 0,
				      "byte %" G_GUINT64_FORMAT
				      ": a tag cut at the end of the input",
				      (guint64)(lt - buf));
			break;
		}
		p = gt + 1;
		if (lt[1] == '?' || lt[1] == '!')
			continue;
		if (lt[1] == '/') {
			if (t->depth > 0)
				t->depth--;
			continue;
		}
		name = lt + 1;
		for (ne = name; ne < gt && (g_ascii_isalnum(*ne) || *ne == '_');
		     ne++)
			;
		closed = gt > name && gt[-1] == '/';
		stop = closed ? gt - 1 : gt;
		if (ne == name) {
			t->in->skipped++;
			hd_input_warn(t->in, 0,
				      "byte %" G_GUINT64_FORMAT
				      ": not an XML tag",
				      (guint64)(lt - buf));
			continue;
		}
		if (!system) {
			if (ne - name != 6 || memcmp(name, "system", 6) != 0) {
				g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
					    "not an NCCL topology dump: the "
					    "first element is not <system>");
				return false;
			}
			system = true;
		}
		open_tag(t, name, (size_t)(ne - name), ne, stop, closed,
			 (uint64_t)(lt - buf));
	}
	if (t->depth > 0 && !t->in->truncated) {
		t->in->truncated = true;
		hd_input_warn(
			t->in, 0,
			"the dump ends with %d element%s open (<%s>): cut?",
			t->depth, t->depth == 1 ? "" : "s",
			t->stack_tag[MIN(t->depth, TOPO_DEPTH) - 1]);
	}
	return true;
}

/* How near NIC net is to GPU g: shared PCI switches, then the CPU. */
static int nearness(const struct topo *t, const struct gpu *g,
		    const struct net *n)
{
	int score = 0, a = g->pci, b = n->pci;
	int ca = a >= 0 ? g_array_index(t->pcis, struct pci, a).cpu : -1;
	int cb = b >= 0 ? g_array_index(t->pcis, struct pci, b).cpu : -1;

	if (ca >= 0 && ca == cb)
		score = 1;
	/* the deepest common pci ancestor: walk the deeper up */
	while (a >= 0 && b >= 0 && a != b) {
		const struct pci *pa = &g_array_index(t->pcis, struct pci, a);
		const struct pci *pb = &g_array_index(t->pcis, struct pci, b);

		if (pa->depth >= pb->depth)
			a = pa->parent;
		else
			b = pb->parent;
	}
	if (a >= 0 && a == b)
		score += 2 * g_array_index(t->pcis, struct pci, a).depth;
	return score;
}

static void emit(struct topo *t)
{
	for (guint i = 0; i < t->gpus->len; i++) {
		const struct gpu *g = &g_array_index(t->gpus, struct gpu, i);
		const char *bus =
			g->pci >= 0 ? g_array_index(t->pcis, struct pci, g->pci)
					      .busid
				    : "?";
		g_autoptr(GString) text = NULL;
		struct hd_signal sig;
		int best = -1;

		if (g->rank < 0) {
			t->in->skipped++;
			hd_input_warn(t->in, 0,
				      "byte %" G_GUINT64_FORMAT
				      ": a GPU (%s) without a rank",
				      g->at, bus);
			continue;
		}
		for (guint k = 0; k < t->nets->len; k++)
			best = MAX(best,
				   nearness(t, g,
					    &g_array_index(t->nets, struct net,
							   k)));
		text = g_string_new(NULL);
		g_string_printf(text, "NCCL topology: GPU %s (rank %d) nearest",
				bus, (int)g->rank);
		for (guint k = 0; k < t->nets->len; k++) {
			const struct net *n =
				&g_array_index(t->nets, struct net, k);

			if (nearness(t, g, n) != best)
				continue;
			g_string_append_printf(
				text, " [%d]%s:%d/IB", (int)MAX(n->dev, 0),
				n->name, (int)(n->port > 0 ? n->port : 1));
		}
		if (!t->nets->len)
			g_string_append(text, " (no NIC in the dump)");
		hd_signal_init(&sig);
		sig.cat = HD_SIG_INFO;
		sig.type = HD_SIGT_NET_DEVICES;
		sig.rank = (int32_t)g->rank;
		sig.device = g->pci >= 0 ? hd_intern(bus) : NULL;
		sig.text = text->str;
		sig.prov.input = t->input;
		sig.prov.kind = HD_PROV_OFFSET;
		sig.prov.at = g->at;
		hd_store_add_signal(t->store, &sig);
		t->in->records++;
	}
}

bool nccl_topo_parse(struct hd_reader *rd, struct hd_store *store,
		     uint32_t input, GError **error)
{
	g_autoptr(GBytes) buf = NULL;
	struct topo t = { .store = store, .input = input };
	const char *data;
	gsize len;
	bool ok;

	t.in = hd_store_input(store, input);
	t.in->kind = HD_INPUT_NCCL_TOPO;
	buf = pu_slurp(rd, TOPO_BYTES, "an NCCL topology dump", error);
	if (!buf)
		return false;
	data = g_bytes_get_data(buf, &len);
	t.pcis = g_array_new(FALSE, TRUE, sizeof(struct pci));
	t.gpus = g_array_new(FALSE, TRUE, sizeof(struct gpu));
	t.nets = g_array_new(FALSE, TRUE, sizeof(struct net));
	ok = scan(&t, data, len, error);
	if (ok) {
		if (t.dropped)
			hd_input_warn(t.in, 0,
				      "more than %d elements or %d levels: "
				      "the rest skipped",
				      TOPO_NODES, TOPO_DEPTH);
		emit(&t);
		if (t.in->records == 0)
			t.in->empty = true;
	}
	g_array_free(t.pcis, TRUE);
	g_array_free(t.gpus, TRUE);
	g_array_free(t.nets, TRUE);
	return ok;
}

/* "<system version=" first, after an optional <?xml ...?> and blanks. */
bool nccl_topo_sniff(const uint8_t *head, size_t len)
{
	size_t at = 0;

	if (!head)
		return false;
	for (;;) {
		while (at < len && g_ascii_isspace(head[at]))
			at++;
		if (len - at >= 2 && head[at] == '<' && head[at + 1] == '?') {
			const uint8_t *q = memchr(head + at, '>', len - at);

			if (!q)
				return false;
			at = (size_t)(q - head) + 1;
			continue;
		}
		break;
	}
	return len - at >= 16 && memcmp(head + at, "<system version=", 16) == 0;
}
