/*
 * GPU state (issue 21): the output of `nvidia-smi -q`, whole or with -d.
 * Each "GPU 00000000:3B:00.0" section is one record, a gpu_state signal
 * for that bus id whose code is a set of the problems it shows
 * (enum hd_gpu_problem in hd-store.h): volatile uncorrectable ECC errors,
 * rows pending remapping or a remapping failure, pages pending
 * retirement, and a hardware or thermal slowdown that is active.  A GPU
 * without any is a record too (code 0, info).
 *
 * When nvidia-smi fails, its output is only an error line or two: a GPU
 * it cannot reach ("Unable to determine the device handle for GPU
 * 0000:3B:00.0: Unknown Error", "...: GPU is lost"), or none at all ("No
 * devices were found", no driver): a record each, lost (HD_GPU_LOST).
 * Such a file is recognised only when nothing else is in it but the
 * prompt line that ran nvidia-smi, which may name the host.
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

/* What a line of nvidia-smi's output is, when nvidia-smi fails. */
enum smi_line {
	SMI_OTHER = 0,
	SMI_PROMPT, /* "root@node-b:~# nvidia-smi", "$ sudo nvidia-smi -q" */
	SMI_HANDLE, /* "Unable to determine the device handle for GPU..." */
	SMI_NO_DEVICES, /* "No devices were found" */
	SMI_NO_DRIVER, /* "NVIDIA-SMI has failed because it couldn't
			  communicate with the NVIDIA driver. ..." */
};

/* Where the command of a shell prompt line starts ("$ ", "# "), or NULL. */
static const char *prompt_end(const char *p, size_t n)
{
	for (size_t i = 0; i + 1 < n && i < 120; i++)
		if ((p[i] == '$' || p[i] == '#' || p[i] == '>') &&
		    p[i + 1] == ' ')
			return p + i + 2;
	return NULL;
}

static enum smi_line smi_line(const char *p, size_t n)
{
	const char *c;
	size_t left;

	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	if (st_starts(p, n, "Unable to determine the device handle for "))
		return SMI_HANDLE;
	if (n == 21 && st_starts(p, n, "No devices were found"))
		return SMI_NO_DEVICES;
	if (st_starts(p, n,
		      "NVIDIA-SMI has failed because it couldn't communicate "
		      "with the NVIDIA driver"))
		return SMI_NO_DRIVER;
	c = prompt_end(p, n);
	c = c ? c : p;
	left = n - (size_t)(c - p);
	if (st_starts(c, left, "sudo ")) {
		c += 5;
		left -= 5;
	}
	if (st_starts(c, left, "nvidia-smi") && (left == 10 || c[10] == ' '))
		return SMI_PROMPT;
	return SMI_OTHER;
}

/*
 * nvidia-smi's output when it fails and nothing else: an optional shell
 * prompt line that runs it, then only its error lines.  An error line
 * inside another log never makes that log nvidia-smi's.
 */
static bool smi_failure_head(const uint8_t *head, size_t len)
{
	const char *p = (const char *)head, *end = p + len;
	unsigned lines = 0, fails = 0;

	while (p < end && lines < 32) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		enum smi_line k;

		if (n && p[n - 1] == '\r')
			n--;
		if (!nl && lines > 0 && len >= 4096)
			break; /* a line the head cut says nothing */
		if (n && !g_ascii_isspace(p[0])) {
			k = smi_line(p, n);
			if (k == SMI_OTHER || (k == SMI_PROMPT && lines > 0))
				return false;
			fails += k != SMI_PROMPT;
			lines++;
		} else if (n) {
			return false; /* nvidia-smi indents nothing here */
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return fails > 0;
}

bool gpu_state_sniff(const uint8_t *head, size_t len)
{
	return head && len &&
	       (memmem(head, len,
		       "==============NVSMI LOG==============", 37) != NULL ||
		smi_failure_head(head, len));
}

struct gs {
	struct hd_store *s;
	struct hd_input *in;
	uint32_t input;
	int mode; /* 0 not yet known, 1 nvidia-smi -q, 2 its failure */
	const char *host; /* from the prompt line (mode 2), or NULL */
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

/* "root@node-b:~# nvidia-smi", "[root@bh174 x]# ...": the host. */
static const char *prompt_host(const char *p, size_t n)
{
	const char *end = prompt_end(p, n), *at, *h;

	if (!end)
		return NULL;
	at = memchr(p, '@', (size_t)(end - p));
	if (!at)
		return NULL;
	for (h = at + 1; h < end && (g_ascii_isalnum(*h) || *h == '-' ||
				     *h == '_' || *h == '.');
	     h++)
		;
	if (h == at + 1 || h - at - 1 > 64)
		return NULL;
	return hd_intern_len(at + 1, (size_t)(h - at - 1));
}

/*
 * One error line of nvidia-smi: a GPU it cannot reach (its bus id; lost
 * when the reason is "Unknown Error" or "GPU is lost"), or none at all.
 */
static void smi_failure(struct gs *g, const char *p, size_t n, uint64_t lineno,
			enum smi_line k)
{
	struct hd_signal sig;
	g_autofree char *text = g_strndup(p, n);
	uint32_t problems = HD_GPU_LOST;

	hd_signal_init(&sig);
	if (k == SMI_HANDLE) {
		const char *q = p + strlen("Unable to determine the device "
					   "handle for ");
		size_t left = n - (size_t)(q - p), m = 0;

		if (left >= 3 && g_ascii_strncasecmp(q, "gpu", 3) == 0) {
			q += 3;
			left -= 3;
		}
		while (left && *q == ' ') {
			q++;
			left--;
		}
		while (m < left && (g_ascii_isxdigit(q[m]) || q[m] == ':'))
			m++;
		/* "0000:0B:00.0": the function after the '.' is dropped */
		sig.device = bus(q, m && q[m - 1] == ':' ? m - 1 : m);
		if (!g_strstr_len(q, (gssize)left, "Unknown Error") &&
		    !g_strstr_len(q, (gssize)left, "GPU is lost") &&
		    !g_strstr_len(q, (gssize)left, "requires reset"))
			problems = 0; /* permissions, an unsupported call */
		if (g_strstr_len(q, (gssize)left, "requires reset"))
			problems |= HD_GPU_RESET_REQUIRED;
	}
	sig.cat = problems ? HD_SIG_CUDA : HD_SIG_INFO;
	sig.type = HD_SIGT_GPU_STATE;
	sig.code = (int32_t)problems;
	sig.host = g->host;
	sig.text = text;
	sig.prov.input = g->input;
	sig.prov.kind = HD_PROV_LINE;
	sig.prov.at = lineno;
	hd_store_add_signal(g->s, &sig);
	g->in->records++;
}

/* A line of nvidia-smi's failing output (mode 2). */
static void failure_line(struct gs *g, const char *p, size_t n, uint64_t lineno)
{
	enum smi_line k = smi_line(p, n);

	switch (k) {
	case SMI_PROMPT:
		if (!g->host)
			g->host = prompt_host(p, n);
		return;
	case SMI_HANDLE:
	case SMI_NO_DEVICES:
	case SMI_NO_DRIVER:
		smi_failure(g, p, n, lineno, k);
		return;
	case SMI_OTHER:
	default:
		g->in->skipped++;
		hd_input_warn(g->in, lineno,
			      "not a line of nvidia-smi's error output");
		return;
	}
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
	if (!g->mode)
		g->mode = indent == 0 && smi_line(p, n) != SMI_OTHER ? 2 : 1;
	if (g->mode == 2) {
		failure_line(g, raw, indent + n, lineno);
		return;
	}
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
