/*
 * GPU state (issue 21): the output of `nvidia-smi -q`, whole or with -d.
 * Each "GPU 00000000:3B:00.0" section is one record, a gpu_state signal
 * for that bus id whose code is a set of the problems it shows
 * (enum hd_gpu_problem in hd-store.h): volatile uncorrectable ECC errors,
 * rows pending remapping or a remapping failure, pages pending
 * retirement, and a hardware or thermal slowdown that is active.  A GPU
 * without any is a record too (code 0, info).
 *
 * nvidia-smi does not print the host: the engine takes it from the file's
 * path (hd-kernel.c).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "formats.h"
#include "parse-util.h"
#include "state-text.h"
#include "hd-banned.h"

bool gpu_state_sniff(const uint8_t *head, size_t len)
{
	return head && len &&
	       memmem(head, len, "==============NVSMI LOG==============", 37) !=
		       NULL;
}

struct gs {
	struct hd_store *s;
	struct hd_input *in;
	uint32_t input;
	const char *device; /* interned bus id of the section, or NULL */
	uint64_t line;
	bool open;
	int section; /* 0 none, 1 ECC volatile, 2 remapped rows, 3 retired
			pages, 4 clock reasons, 5 ECC before Volatile, 6 ECC
			aggregate */
	bool dbl; /* older drivers: under "Double Bit" */
	uint32_t problems;
	GString *why;
};

static void problem(struct gs *g, uint32_t bit, const char *what)
{
	if (g->problems & bit)
		return;
	g->problems |= bit;
	g_string_append_printf(g->why, "%s%s", g->why->len ? "; " : "", what);
}

static void end_gpu(struct gs *g)
{
	struct hd_signal sig;
	g_autofree char *text = NULL;

	if (!g->open)
		return;
	hd_signal_init(&sig);
	/* a slowdown alone is a performance matter, not trouble */
	sig.cat = (g->problems & ~(uint32_t)HD_GPU_SLOWDOWN) ? HD_SIG_CUDA
							     : HD_SIG_INFO;
	sig.type = HD_SIGT_GPU_STATE;
	sig.code = (int32_t)g->problems;
	sig.device = g->device;
	text = g_strdup_printf("nvidia-smi -q: GPU %s: %s",
			       g->device ? g->device : "?",
			       g->problems ? g->why->str : "no problem shown");
	sig.text = text;
	sig.prov.input = g->input;
	sig.prov.kind = HD_PROV_LINE;
	sig.prov.at = g->line;
	hd_store_add_signal(g->s, &sig);
	g->in->records++;
	g->open = false;
	g->problems = 0;
	g->section = 0;
	g->dbl = false;
	g_string_truncate(g->why, 0);
}

/* "GPU 00000000:3B:00.0" -> "0000:3b:00", or NULL. */
static const char *bus(const char *p, size_t n)
{
	unsigned dom, b, d;
	char buf[32];

	if (n >= sizeof(buf))
		return NULL;
	memcpy(buf, p, n);
	buf[n] = '\0';
	if (sscanf(buf, "%x:%x:%x", &dom, &b, &d) != 3 || dom > 0xffff ||
	    b > 0xff || d > 0x1f)
		return NULL;
	g_snprintf(buf, sizeof(buf), "%04x:%02x:%02x", dom, b, d);
	return hd_intern(buf);
}

static bool nonzero(const char *v, size_t n)
{
	return n > 0 && g_ascii_isdigit(v[0]) && !(n == 1 && v[0] == '0');
}

static void line(void *ctx, const char *raw, size_t n, uint64_t lineno)
{
	struct gs *g = ctx;
	size_t indent = 0, vn = 0;
	const char *p, *v;

	while (indent < n && raw[indent] == ' ')
		indent++;
	p = raw + indent;
	n -= indent;
	while (n && p[n - 1] == ' ')
		n--;
	if (!n)
		return;
	if (indent == 0 && st_starts(p, n, "GPU ")) {
		end_gpu(g);
		g->device = bus(p + 4, n - 4);
		if (!g->device) {
			g->in->skipped++;
			hd_input_warn(g->in, lineno,
				      "GPU section without a PCI bus id");
		}
		g->open = g->device != NULL;
		g->line = lineno;
		return;
	}
	if (!g->open)
		return; /* the log's header: timestamp, driver */
	if (indent == 4) {
		g->section =
			st_starts(p, n, "Remapped Rows")   ? 2
			: st_starts(p, n, "Retired Pages") ? 3
			: st_starts(p, n, "Clocks Event Reasons") ||
					st_starts(p, n,
						  "Clocks Throttle Reasons")
				? 4
				: 0;
		if (st_starts(p, n, "ECC Errors"))
			g->section = 5; /* until "Volatile" */
		else if (st_starts(p, n, "GPU Reset Status"))
			g->section = 7; /* drivers 535 and newer */
		return;
	}
	if (g->section == 5 && indent == 8)
		g->section = st_starts(p, n, "Volatile") ? 1 : 6;
	if (g->section == 1 && indent == 8 && !st_starts(p, n, "Volatile"))
		g->section = 6;
	v = st_value(p, n, &vn);
	if (g->section == 1 && indent == 12 && !v)
		g->dbl = st_starts(p, n, "Double Bit");
	if (!v)
		return;
	switch (g->section) {
	case 1:
		if ((g_strstr_len(p, (gssize)n, "Uncorrectable") ||
		     (g->dbl && indent == 16)) &&
		    nonzero(v, vn))
			problem(g, HD_GPU_ECC_UNCORRECTABLE,
				"volatile uncorrectable ECC errors");
		break;
	case 2:
		if (st_starts(p, n, "Pending") && st_starts(v, vn, "Yes"))
			problem(g, HD_GPU_REMAP_PENDING,
				"rows pending remapping (reset the GPU)");
		else if (st_starts(p, n, "Remapping Failure") &&
			 st_starts(v, vn, "Yes"))
			problem(g, HD_GPU_REMAP_FAILED, "row remapping failed");
		break;
	case 3:
		if (st_starts(p, n, "Pending") && st_starts(v, vn, "Yes"))
			problem(g, HD_GPU_RETIRE_PENDING,
				"pages pending retirement");
		break;
	case 4:
		if ((st_starts(p, n, "HW Slowdown") ||
		     st_starts(p, n, "HW Thermal Slowdown") ||
		     st_starts(p, n, "HW Power Brake Slowdown") ||
		     st_starts(p, n, "SW Thermal Slowdown")) &&
		    st_starts(v, vn, "Active"))
			problem(g, HD_GPU_SLOWDOWN,
				"hardware or thermal slowdown active");
		break;
	case 7:
		if ((st_starts(p, n, "Reset Required") ||
		     st_starts(p, n, "Drain and Reset Recommended")) &&
		    st_starts(v, vn, "Yes"))
			problem(g, HD_GPU_RESET_REQUIRED,
				"the driver asks for a GPU reset");
		break;
	default:
		break;
	}
}

bool gpu_state_parse(struct hd_reader *rd, struct hd_store *store,
		     uint32_t input, GError **error)
{
	struct gs g = { 0 };
	g_autoptr(GError) err = NULL;
	uint64_t lineno;

	g.s = store;
	g.in = hd_store_input(store, input);
	g.input = input;
	g.why = g_string_new(NULL);
	g.in->kind = HD_INPUT_GPU_STATE;
	lineno = st_each_line(rd, line, &g, &err);
	end_gpu(&g);
	g_string_free(g.why, TRUE);
	return pu_end_lines(g.in, lineno, g_steal_pointer(&err), error);
}
