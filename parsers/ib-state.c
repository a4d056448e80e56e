/*
 * InfiniBand port state (issue 21): the output of ibstat, ibstatus,
 * ibv_devinfo and perfquery, alone or several in one file.  Each port is a
 * record: its state as a link signal (down, active, or neither), named
 * "mlx5_0:1"; each perfquery block is a record of the error counters that
 * are not zero.  perfquery names a port by its LID; an ibstat section in
 * the same file that gave that LID names the HCA.
 *
 * None of these tools prints the host: the engine takes it from the
 * file's path when that names a host of the job (hd-kernel.c).
 */
#include "config.h"

#include <string.h>

#include "formats.h"
#include "hd-const.h"
#include "parse-util.h"
#include "state-text.h"
#include "hd-banned.h"

/* The error counters of perfquery that say a link is unhealthy. */
static const char *const error_counters[] = {
	"SymbolErrorCounter",
	"LinkErrorRecoveryCounter",
	"LinkDownedCounter",
	"PortRcvErrors",
	"PortRcvRemotePhysicalErrors",
	"PortRcvSwitchRelayErrors",
	"PortXmitDiscards",
	"PortXmitConstraintErrors",
	"PortRcvConstraintErrors",
	"LocalLinkIntegrityErrors",
	"ExcessiveBufferOverrunErrors",
	"VL15Dropped",
};

/* The line without leading blanks. */
static const char *skip_blank(const char *p, size_t *n)
{
	while (*n && (*p == ' ' || *p == '\t')) {
		p++;
		(*n)--;
	}
	return p;
}

static bool ib_head(const char *p, size_t n)
{
	return st_starts(p, n, "CA '") ||
	       st_starts(p, n, "Infiniband device '") ||
	       st_starts(p, n, "hca_id:") ||
	       st_starts(p, n, "# Port counters:") ||
	       st_starts(p, n, "# Port extended counters:");
}

/*
 * The output starts the input, or follows at most three short lines of
 * what was pasted above it ("$ ibstat", a heading and its underline).
 */
bool ib_state_sniff(const uint8_t *head, size_t len)
{
	const char *p = (const char *)head;
	size_t n = len;

	if (!head || !len)
		return false;
	for (int above = 0; above <= 3; above++) {
		const char *nl;

		while (n && g_ascii_isspace(*p)) {
			p++;
			n--;
		}
		if (ib_head(p, n))
			return true;
		nl = memchr(p, '\n', n);
		if (!nl || nl - p > 120)
			return false;
		n -= (size_t)(nl + 1 - p);
		p = nl + 1;
	}
	return false;
}

/* The name between the first pair of quotes in p, interned, or NULL. */
static const char *quoted(const char *p, size_t n)
{
	const char *a = memchr(p, '\'', n), *b;

	if (!a)
		return NULL;
	b = memchr(a + 1, '\'', n - (size_t)(a + 1 - p));
	if (!b || b - a - 1 < 1 || b - a - 1 > 64)
		return NULL;
	return hd_intern_len(a + 1, (size_t)(b - a - 1));
}

/* The first decimal number at or after p, or -1. */
static int64_t number(const char *p, size_t n)
{
	size_t i = 0;
	int64_t v = 0;

	while (i < n && !g_ascii_isdigit(p[i]))
		i++;
	if (i == n)
		return -1;
	for (size_t k = 0; i < n && g_ascii_isdigit(p[i]) && k < 18; i++, k++)
		v = v * 10 + (p[i] - '0');
	return v;
}

struct ib {
	struct hd_store *s;
	struct hd_input *in;
	uint32_t input;
	const char *ca; /* interned HCA of the section */
	int64_t port; /* -1 none */
	uint64_t port_line;
	const char *state; /* interned state word, or NULL */
	const char *phys;
	int64_t lid;
	GHashTable *lid_dev; /* lid -> interned "mlx5_0:1" */
	/* perfquery */
	bool counters;
	uint64_t counters_line;
	int64_t pq_lid, pq_port;
	GString *bad; /* "LinkDownedCounter=3 ..." */
	uint32_t nbad;
};

static void add_signal(struct ib *b, struct hd_signal *sig, uint64_t line)
{
	sig->prov.input = b->input;
	sig->prov.kind = HD_PROV_LINE;
	sig->prov.at = line;
	hd_store_add_signal(b->s, sig);
	b->in->records++;
}

/* Ends the port being read: one link signal with its state. */
static void end_port(struct ib *b)
{
	struct hd_signal sig;
	g_autofree char *dev = NULL;
	g_autofree char *text = NULL;
	bool down, active, disabled;

	if (b->port < 0)
		return;
	if (!b->ca || !b->state) {
		b->in->skipped++;
		hd_input_warn(b->in, b->port_line, "port without %s: not read",
			      b->ca ? "a state" : "an HCA name");
		goto done;
	}
	dev = g_strdup_printf("%s:%d", b->ca, (int)b->port);
	if (b->lid > 0)
		g_hash_table_insert(b->lid_dev, GINT_TO_POINTER((int)b->lid),
				    hd_unconst(hd_intern(dev)));
	active = g_ascii_strcasecmp(b->state, "Active") == 0 ||
		 g_ascii_strcasecmp(b->state, "ACTIVE") == 0 ||
		 g_ascii_strcasecmp(b->state, "PORT_ACTIVE") == 0;
	/* "Physical state: Disabled": switched off on purpose (an unused
	   port of a card), not a link that failed */
	disabled = !active && b->phys &&
		   g_ascii_strcasecmp(b->phys, "Disabled") == 0;
	down = !disabled &&
	       (g_ascii_strcasecmp(b->state, "Down") == 0 ||
		g_ascii_strcasecmp(b->state, "PORT_DOWN") == 0 ||
		(b->phys && g_ascii_strcasecmp(b->phys, "Polling") == 0));
	hd_signal_init(&sig);
	sig.cat = down ? HD_SIG_NETWORK : HD_SIG_INFO;
	sig.type = HD_SIGT_LINK_EVENT;
	sig.code = down ? 0 : active ? 1 : disabled ? 3 : 2;
	sig.device = hd_intern(dev);
	text = g_strdup_printf("%s port %d: state %s%s%s", b->ca, (int)b->port,
			       b->state, b->phys ? ", physical state " : "",
			       b->phys ? b->phys : "");
	sig.text = text;
	add_signal(b, &sig, b->port_line);
done:
	b->port = -1;
	b->state = NULL;
	b->phys = NULL;
	b->lid = -1;
}

static void end_counters(struct ib *b)
{
	struct hd_signal sig;
	g_autofree char *text = NULL;
	const char *dev;

	if (!b->counters)
		return;
	dev = g_hash_table_lookup(b->lid_dev, GINT_TO_POINTER((int)b->pq_lid));
	hd_signal_init(&sig);
	sig.cat = b->nbad ? HD_SIG_NETWORK : HD_SIG_INFO;
	sig.type = HD_SIGT_IB_COUNTERS;
	sig.code = (int32_t)b->nbad;
	sig.device = dev;
	text = g_strdup_printf("perfquery lid %d port %d%s%s%s: %s",
			       (int)b->pq_lid, (int)b->pq_port, dev ? " (" : "",
			       dev ? dev : "", dev ? ")" : "",
			       b->nbad ? b->bad->str : "no error counted");
	sig.text = text;
	add_signal(b, &sig, b->counters_line);
	b->counters = false;
	g_string_truncate(b->bad, 0);
	b->nbad = 0;
}

/* "Word: value" or "word:\t n: VALUE" -> the value's last word. */
static const char *value_word(const char *p, size_t n)
{
	const char *c = memchr(p, ':', n);
	const char *e = p + n, *w;

	if (!c)
		return NULL;
	p = c + 1;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	/* ibstatus: "4: ACTIVE"; ibv_devinfo: "PORT_ACTIVE (4)" */
	if (p < e && g_ascii_isdigit(*p)) {
		const char *c2 = memchr(p, ':', (size_t)(e - p));

		if (c2) {
			p = c2 + 1;
			while (p < e && (*p == ' ' || *p == '\t'))
				p++;
		}
	}
	w = p;
	while (p < e && !g_ascii_isspace(*p))
		p++;
	if (p == w || p - w > 32)
		return NULL;
	return hd_intern_len(w, (size_t)(p - w));
}

static void counter_line(struct ib *b, const char *p, size_t n)
{
	for (size_t i = 0; i < G_N_ELEMENTS(error_counters); i++) {
		size_t m = strlen(error_counters[i]);
		int64_t v;

		if (n <= m || memcmp(p, error_counters[i], m) != 0 ||
		    p[m] != ':')
			continue;
		v = number(p + m, n - m);
		if (v > 0) {
			g_string_append_printf(b->bad, "%s%s=%lld",
					       b->nbad ? " " : "",
					       error_counters[i], (long long)v);
			b->nbad++;
		}
		return;
	}
}

static void line(void *ctx, const char *raw, size_t n, uint64_t lineno)
{
	struct ib *b = ctx;
	size_t m = n;
	const char *p = skip_blank(raw, &m);

	if (!m)
		return;
	if (st_starts(p, m, "CA '") || st_starts(p, m, "hca_id:") ||
	    st_starts(p, m, "Infiniband device '")) {
		end_port(b);
		end_counters(b);
		if (st_starts(p, m, "hca_id:")) {
			size_t k = 7;

			while (k < m && g_ascii_isspace(p[k]))
				k++;
			b->ca = k < m ? hd_intern_len(p + k, m - k) : NULL;
		} else {
			b->ca = quoted(p, m);
		}
		if (st_starts(p, m, "Infiniband device '")) {
			/* the port number follows the quoted name */
			const char *q = memchr(p + 19, '\'', m - 19);

			b->port = q ? number(q, m - (size_t)(q - p)) : -1;
			b->port_line = lineno;
		}
		return;
	}
	if (st_starts(p, m, "# Port counters:") ||
	    st_starts(p, m, "# Port extended counters:")) {
		const char *lid = g_strstr_len(p, (gssize)m, "Lid ");
		const char *port = g_strstr_len(p, (gssize)m, "port ");

		end_port(b);
		end_counters(b);
		b->counters = true;
		b->counters_line = lineno;
		b->pq_lid = lid ? number(lid, m - (size_t)(lid - p)) : -1;
		b->pq_port = port ? number(port, m - (size_t)(port - p)) : -1;
		return;
	}
	if (b->counters) {
		counter_line(b, p, m);
		return;
	}
	if (p == raw) {
		/* every tool indents what belongs to a section */
		b->in->skipped++;
		hd_input_warn(b->in, lineno,
			      "not an ibstat, ibstatus or ibv_devinfo line");
		return;
	}
	if (st_starts(p, m, "Port ") && p[m - 1] == ':') {
		end_port(b);
		b->port = number(p, m);
		b->port_line = lineno;
		return;
	}
	if (st_starts(p, m, "port:")) {
		end_port(b);
		b->port = number(p, m);
		b->port_line = lineno;
		return;
	}
	if (b->port < 0)
		return; /* HCA attributes: firmware, GUIDs */
	if (st_starts(p, m, "State:") || st_starts(p, m, "state:"))
		b->state = value_word(p, m);
	else if (st_starts(p, m, "Physical state:") ||
		 st_starts(p, m, "phys state:"))
		b->phys = value_word(p, m);
	else if (st_starts(p, m, "Base lid:") || st_starts(p, m, "base lid:") ||
		 st_starts(p, m, "port_lid:")) {
		size_t vn = 0;
		const char *v = st_value(p, m, &vn);

		b->lid = st_starts(v, vn, "0x")
				 ? (int64_t)g_ascii_strtoll(v, NULL, 16)
				 : number(v, vn);
	}
}

bool ib_state_parse(struct hd_reader *rd, struct hd_store *store,
		    uint32_t input, GError **error)
{
	struct ib b = { 0 };
	g_autoptr(GError) err = NULL;
	uint64_t lineno;

	b.s = store;
	b.in = hd_store_input(store, input);
	b.input = input;
	b.port = -1;
	b.lid = -1;
	b.lid_dev = g_hash_table_new(NULL, NULL);
	b.bad = g_string_new(NULL);
	b.in->kind = HD_INPUT_IB_STATE;
	lineno = st_each_line(rd, line, &b, &err);
	end_port(&b);
	end_counters(&b);
	g_hash_table_unref(b.lid_dev);
	g_string_free(b.bad, TRUE);
	return pu_end_lines(b.in, lineno, g_steal_pointer(&err), error);
}
