/*
 * Kernel logs (issue 21): dmesg (boot-relative "[  12.345678]" stamps),
 * dmesg -T ("[Tue Nov 14 22:03:12 2023]"), journalctl -k and syslog
 * ("Nov 14 22:03:12 node-b kernel: ..."), with or without both, and
 * dmesg -H, and bare driver lines ("NVRM: ...", as dmesg -t prints
 * them).  These lines are records: NVRM Xid reports (and the driver's
 * "fallen off the bus" without an Xid), a GPU the driver cannot
 * initialise ("RmInitAdapter failed") and uncorrected PCIe AER errors
 * (gpu_state signals), the OOM killer's kills, and HCA port link changes
 * (mlx5).  Other kernel lines are context, not records; lines that are
 * not kernel lines at all are counted as skipped.
 *
 * The parser never decides what an Xid means or whose GPU it was: it keeps
 * the number, the PCI bus id, the pid and the host the content names; the
 * engine (hd-kernel.c) joins them to ranks.  Boot-relative stamps are
 * times on HD_CLOCK_BOOT, a clock of their own; full wall dates (dmesg -T,
 * ISO stamps) are local or UTC times.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "formats.h"
#include "hd-lines.h"
#include "hd-time.h"
#include "parse-util.h"
#include "hd-banned.h"

struct kline {
	const char *msg; /* the kernel's message, after every prefix */
	size_t len;
	const char *host; /* interned, or NULL */
	int64_t boot_ns; /* INT64_MIN unknown */
	struct hd_time wall; /* a date the line has, UTC or local */
	/* another program's line of a syslog or journal
	   ("May 15 08:57:29 red llama-swap[80783]: ..."), not the kernel's */
	bool other;
};

static const char *const months[] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun",
	"Jul", "Aug", "Sep", "Oct", "Nov", "Dec"
};

static int month_of(const char *p, size_t n)
{
	if (n < 3)
		return 0;
	for (int i = 0; i < 12; i++)
		if (memcmp(p, months[i], 3) == 0)
			return i + 1;
	return 0;
}

/* Reads up to max decimal digits at *p; -1 when there are none. */
static int64_t digits(const char **p, const char *end, int max)
{
	int64_t v = 0;
	int n = 0;

	while (*p < end && g_ascii_isdigit(**p) && n < max) {
		v = v * 10 + (**p - '0');
		(*p)++;
		n++;
	}
	return n ? v : -1;
}

static bool lit(const char **p, const char *end, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(end - *p) < n || memcmp(*p, s, n) != 0)
		return false;
	*p += n;
	return true;
}

/* "[  12.345678] " at *p: boot seconds as ns. */
static bool boot_stamp(const char **p, const char *end, int64_t *ns)
{
	const char *q = *p;
	int64_t sec, frac;
	int nfrac;
	const char *f;

	if (!lit(&q, end, "["))
		return false;
	while (q < end && *q == ' ')
		q++;
	sec = digits(&q, end, 10);
	if (sec < 0 || !lit(&q, end, "."))
		return false;
	f = q;
	frac = digits(&q, end, 9);
	nfrac = (int)(q - f);
	if (frac < 0 || !lit(&q, end, "]"))
		return false;
	for (int i = nfrac; i < 9; i++)
		frac *= 10;
	/* ten digits of seconds would not fit in nanoseconds */
	if (sec >= HD_TIME_NS_MAX / HD_NS_PER_SEC)
		return false;
	*ns = sec * HD_NS_PER_SEC + frac;
	if (q < end && *q == ' ')
		q++;
	*p = q;
	return true;
}

/*
 * dmesg -H (--human): "[  +0.000844] " since the line before, or
 * "[Jan21 10:02] " at a new minute.  A prefix without a time: a delta
 * is no time, and the minute's stamp has no year.
 */
static bool human_stamp(const char **p, const char *end)
{
	const char *q = *p;

	if (!lit(&q, end, "["))
		return false;
	while (q < end && *q == ' ')
		q++;
	if (lit(&q, end, "+")) {
		if (digits(&q, end, 10) < 0 || !lit(&q, end, ".") ||
		    digits(&q, end, 9) < 0)
			return false;
	} else {
		if (!month_of(q, (size_t)(end - q)))
			return false;
		q += 3;
		if (digits(&q, end, 2) < 0 || !lit(&q, end, " ") ||
		    digits(&q, end, 2) < 0 || !lit(&q, end, ":") ||
		    digits(&q, end, 2) < 0)
			return false;
	}
	if (!lit(&q, end, "]"))
		return false;
	if (q < end && *q == ' ')
		q++;
	*p = q;
	return true;
}

/* "[Tue Nov 14 22:03:12 2023] " (dmesg -T): local wall time. */
static bool ctime_stamp(const char **p, const char *end, struct hd_time *t)
{
	const char *q = *p;
	int64_t d, y, tod;
	size_t used;
	int mo;

	if (!lit(&q, end, "[") || end - q < 24 || q[3] != ' ')
		return false;
	q += 4;
	mo = month_of(q, (size_t)(end - q));
	if (!mo)
		return false;
	q += 3;
	while (q < end && *q == ' ')
		q++;
	d = digits(&q, end, 2);
	if (d < 0 || !lit(&q, end, " "))
		return false;
	used = hd_time_scan_hms(q, (size_t)(end - q), false, &tod);
	if (!used)
		return false;
	q += used;
	if (!lit(&q, end, " "))
		return false;
	y = digits(&q, end, 4);
	if (y < 0 || !lit(&q, end, "]"))
		return false;
	/* a date hd-time refuses (a year past 2200): kept, time unknown */
	if (!hd_time_from_civil(y, mo, d, tod, HD_CLOCK_LOCAL, t))
		*t = hd_time_none();
	if (q < end && *q == ' ')
		q++;
	*p = q;
	return true;
}

/*
 * "HOST kernel: " (or, in a syslog or journal of every program, "HOST
 * prog[pid]: ", which sets *other): the host.
 */
static bool host_kernel(const char **p, const char *end, const char **host,
			bool *other)
{
	const char *q = *p, *h, *prog;
	size_t hn;

	h = q;
	while (q < end && *q != ' ')
		q++;
	if (q == h || q - h > 253)
		return false;
	hn = (size_t)(q - h);
	if (lit(&q, end, " kernel: ")) {
		if (other)
			*other = false;
		*host = hd_intern_len(h, hn);
		*p = q;
		return true;
	}
	/* "llama-swap[80783]: ", "systemd[1]: ", "sshd: " */
	if (!other || !lit(&q, end, " "))
		return false;
	prog = q;
	while (q < end && (g_ascii_isalnum(*q) || *q == '-' || *q == '_' ||
			   *q == '.' || *q == '/' || *q == '@'))
		q++;
	if (q == prog || q - prog > 64)
		return false;
	if (lit(&q, end, "[")) {
		if (digits(&q, end, 10) < 0 || !lit(&q, end, "]"))
			return false;
	}
	if (!lit(&q, end, ":") || (q < end && *q != ' '))
		return false;
	if (q < end)
		q++;
	*other = true;
	*host = hd_intern_len(h, hn);
	*p = q;
	return true;
}

/*
 * The drivers' own tags, which begin a kernel message: a line that starts
 * with one is the kernel's even with no prefix at all, as `dmesg -t`,
 * `journalctl -k -o cat` and pastes with the stamps cut print it.
 */
static const char *const driver_tags[] = { "NVRM: ",	      "nvidia-nvlink: ",
					   "mlx5_core ",      "pcieport ",
					   "Out of memory: ", "oom-kill:" };

static bool driver_tagged(const char *p, const char *end)
{
	for (size_t i = 0; i < G_N_ELEMENTS(driver_tags); i++) {
		size_t n = strlen(driver_tags[i]);

		if ((size_t)(end - p) > n && memcmp(p, driver_tags[i], n) == 0)
			return true;
	}
	return false;
}

/*
 * What follows a syslog or ISO stamp: " HOST kernel: " (or another
 * program's " HOST prog[pid]: "), or, where the host was cut out of a
 * paste ("Aug 19 11:36:35  NVRM: Xid ..."), a driver's tag after the
 * spaces, with no host.
 */
static bool stamp_then_host(const char **p, const char *end, struct kline *k)
{
	const char *q = *p;

	if (!lit(&q, end, " "))
		return false;
	if (host_kernel(&q, end, &k->host, &k->other)) {
		*p = q;
		return true;
	}
	while (q < end && *q == ' ' && q - *p < 8)
		q++;
	if (!driver_tagged(q, end))
		return false;
	k->host = NULL;
	k->other = false;
	*p = q;
	return true;
}

/* "Nov 14 22:03:12 node-b kernel: " (journalctl -k, syslog). */
static bool syslog_prefix(const char **p, const char *end, struct kline *k)
{
	const char *q = *p;
	int64_t tod;
	size_t used;

	if (!month_of(q, (size_t)(end - q)) || end - q < 16 || q[3] != ' ')
		return false;
	q += 4;
	while (q < end && *q == ' ')
		q++;
	if (digits(&q, end, 2) < 0 || !lit(&q, end, " "))
		return false;
	/* with syslog's fraction ("22:03:12.561319"); no year, so no time */
	used = hd_time_scan_hms(q, (size_t)(end - q), false, &tod);
	if (used < 8)
		return false;
	q += used;
	if (!stamp_then_host(&q, end, k))
		return false;
	*p = q;
	return true;
}

/*
 * "2023-11-14T22:03:12[.frac][Z|+hhmm|+hh:mm] node-b kernel: ": the date
 * read by hd_time_scan_date(), UTC with a zone, else local.
 */
static bool iso_prefix(const char **p, const char *end, struct kline *k)
{
	const char *q = *p;
	struct hd_time t;
	size_t used = hd_time_scan_date(q, (size_t)(end - q), &t);

	if (!used) {
		/*
		 * A stamp of the shape hd-time refuses as a date (a year
		 * past 2200): the line is kept, its time unknown.
		 */
		const char *sp = end - q > 19 ? memchr(q + 11, ' ',
						       (size_t)(end - q - 11))
					      : NULL;

		if (!sp || sp - q < 19 || q[4] != '-' || q[7] != '-' ||
		    (q[10] != 'T' && q[10] != ' ') || q[13] != ':' ||
		    !g_ascii_isdigit(q[0]))
			return false;
		t = hd_time_none();
		used = (size_t)(sp - q);
	}
	q += used;
	if (!stamp_then_host(&q, end, k))
		return false;
	k->wall = t;
	*p = q;
	return true;
}

/*
 * Talos's `talosctl dmesg`: "192.168.11.119: kern: warning:
 * [2026-04-22T21:26:20.599488292Z]: ": the node (one word), the
 * facility (the kernel's only), a level (right-aligned) and a date, UTC
 * with its Z.
 */
static bool talos_prefix(const char **p, const char *end, struct kline *k)
{
	const char *q = *p, *h = q, *hk;
	struct hd_time t;
	size_t used;

	hk = memmem(q, (size_t)MIN(end - q, 260), ": kern: ", 8);
	if (!hk || hk == h || memchr(h, ' ', (size_t)(hk - h)))
		return false;
	/* the level, right-aligned: "   info", "warning" */
	for (q = hk + 8; q < end && *q == ' ' && q - hk < 16; q++)
		;
	while (q < end && g_ascii_isalpha(*q))
		q++;
	if (!lit(&q, end, ": ["))
		return false;
	used = hd_time_scan_date(q, (size_t)(end - q), &t);
	if (!used)
		return false;
	q += used;
	if (!lit(&q, end, "]:"))
		return false;
	if (q < end && *q == ' ')
		q++;
	k->host = hd_intern_len(h, (size_t)(hk - h));
	k->wall = t;
	*p = q;
	return true;
}

/* Splits a kernel log line into its prefixes and message; false if none. */
/*
 * The quoting a paste put before each line: a mail or markdown quote
 * ("> ", "> > ") and a diff's added line ("+> [Fri Aug 30 ...]" in a
 * pull request that quotes dmesg), at most eight bytes of them.
 */
static const char *unquote(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && q - p < 8 && (*q == '>' || *q == '+')) {
		q++;
		if (q < end && *q == ' ')
			q++;
	}
	return q;
}

static bool kernel_line(const char *line, size_t len, struct kline *k)
{
	const char *end = line + len, *p;
	bool prefixed = false;

	line = unquote(line, end);
	p = line;

	k->host = NULL;
	k->boot_ns = INT64_MIN;
	k->wall = hd_time_none();
	k->other = false;
	if (syslog_prefix(&p, end, k) || iso_prefix(&p, end, k) ||
	    talos_prefix(&p, end, k) || lit(&p, end, "kernel: ") ||
	    /* "node-b kernel: ", a journal line without its date */
	    host_kernel(&p, end, &k->host, NULL))
		prefixed = true;
	if (k->other)
		goto out;
	if (boot_stamp(&p, end, &k->boot_ns)) {
		prefixed = true;
	} else if (ctime_stamp(&p, end, &k->wall)) {
		prefixed = true;
	} else if (human_stamp(&p, end)) {
		prefixed = true;
	} else if (p == line && driver_tagged(p, end)) {
		prefixed = true; /* no prefix: no time, no host */
	}
out:
	k->msg = p;
	k->len = (size_t)(end - p);
	return prefixed;
}

/*
 * Words of NCCL's and PyTorch's own lines: another program's line of a
 * syslog that holds one is not the kernel's to read, and a head that
 * holds one is that program's log.
 */
static const char *const job_words[] = { "NCCL INFO", "NCCL WARN",
					 "ProcessGroupNCCL",
					 "torch.distributed", "[rank" };

static bool has_job_words(const char *p, size_t n)
{
	for (size_t i = 0; i < G_N_ELEMENTS(job_words); i++)
		if (memmem(p, n, job_words[i], strlen(job_words[i])))
			return true;
	return false;
}

/*
 * A shell prompt and the command a paste was made with ("root@node4:~#
 * dmesg -T | grep NVRM", "[root@gpu01 ~]# journalctl -k", "$ dmesg"):
 * the prompt's user@host:dir or [...] in one word, then "# " or "$ ".
 */
static bool shell_prompt(const char *p, size_t n)
{
	size_t k = 0;

	if (n && p[0] == '[') {
		const char *q = memchr(p, ']', MIN(n, 96));

		if (!q)
			return false;
		k = (size_t)(q + 1 - p);
	} else {
		while (k < n && k < 96 && p[k] != ' ' && p[k] != '#' &&
		       p[k] != '$')
			k++;
	}
	return k + 2 < n && (p[k] == '#' || p[k] == '$') && p[k + 1] == ' ' &&
	       g_ascii_isalpha(p[k + 2]);
}

bool kernel_log_sniff(const uint8_t *head, size_t len)
{
	const char *p = (const char *)head, *end, *prompt = NULL;
	unsigned lines = 0, kernel = 0, other = 0;
	size_t prompt_len = 0;
	bool first = true;

	if (!head || !len)
		return false;
	end = p + len;
	if (memmem(head, len, "NCCL INFO", 9) ||
	    memmem(head, len, "NCCL WARN", 9))
		return false;
	while (p < end && lines < 64) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (!nl && lines > 0)
			break; /* a cut last line says nothing */
		if (n && p[n - 1] == '\r')
			n--;
		/* the command a paste begins with is not its first line
		   (nor its copy, where every line came twice) */
		if (first && ((!prompt && shell_prompt(p, n)) ||
			      (prompt && n == prompt_len &&
			       memcmp(p, prompt, n) == 0))) {
			prompt = p;
			prompt_len = n;
			p = nl ? nl + 1 : end;
			continue;
		}
		if (n && !g_ascii_isspace(p[0]) &&
		    !(n >= 3 && memcmp(p, "-- ", 3) == 0)) {
			struct kline kl;
			bool k = kernel_line(p, n, &kl);

			if (first && !k)
				return false;
			first = false;
			lines++;
			kernel += k && !kl.other;
			other += k && kl.other;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	/* a syslog of every program: the kernel's lines among them, and no
	   NCCL or PyTorch line, whose own log it would then be */
	if (other && has_job_words((const char *)head, len))
		return false;
	return lines > 0 && kernel > 0 && (kernel + other) * 2 > lines;
}

static const char *find(const char *p, size_t n, const char *needle)
{
	return memmem(p, n, needle, strlen(needle));
}

/* "0000:38:00[.0]" or "38:00.0" at p (n bytes): "0000:38:00", or NULL. */
static const char *bus_id(const char *p, size_t n)
{
	unsigned dom = 0, bus, dev;
	char buf[24];
	size_t m = 0;

	while (m < n && m < sizeof(buf) - 1 &&
	       (g_ascii_isxdigit(p[m]) || p[m] == ':' || p[m] == '.'))
		m++;
	memcpy(buf, p, m);
	buf[m] = '\0';
	if (sscanf(buf, "%x:%x:%x", &dom, &bus, &dev) != 3) {
		dom = 0;
		if (sscanf(buf, "%x:%x", &bus, &dev) != 2)
			return NULL;
	}
	if (dom > 0xffff || bus > 0xff || dev > 0x1f)
		return NULL;
	g_snprintf(buf, sizeof(buf), "%04x:%02x:%02x", dom, bus, dev);
	return hd_intern(buf);
}

/* "pid=1234" or "pid='<unknown>'" in the message: the pid, or 0. */
static int32_t pid_in(const char *p, size_t n)
{
	const char *q = find(p, n, "pid=");
	const char *end = p + n;
	int64_t v;

	if (!q)
		return 0;
	q += 4;
	v = digits(&q, end, 9);
	return v > 0 ? (int32_t)v : 0;
}

static void add(struct hd_store *s, struct hd_input *in, uint32_t input,
		uint64_t lineno, const struct kline *k, const char *line,
		size_t len, struct hd_signal *sig)
{
	g_autofree char *text = g_strndup(line, len);

	sig->host = k->host;
	/* a wall date when the line has one, else the host's boot clock:
	   never compared with wall clocks (hd_time_comparable()) */
	if (hd_time_known(k->wall))
		sig->time = k->wall;
	else
		sig->time = hd_time_make(k->boot_ns, HD_CLOCK_BOOT);
	sig->text = text;
	sig->prov.input = input;
	sig->prov.kind = HD_PROV_LINE;
	sig->prov.at = lineno;
	hd_store_add_signal(s, sig);
	in->records++;
}

/*
 * "name=python3," in the message: the process name, interned, or NULL
 * when absent or "<unknown>".
 */
static const char *name_in(const char *p, size_t n)
{
	const char *q = find(p, n, "name=");
	const char *end = p + n, *e;

	if (!q)
		return NULL;
	q += 5;
	for (e = q; e < end && *e != ',' && *e != ' ' && e - q < 64; e++)
		;
	if (e == q || *q == '<' || *q == '\'')
		return NULL;
	return hd_intern_len(q, (size_t)(e - q));
}

/* "NVRM: Xid (PCI:0000:38:00): 79, pid=..., name=..., text". */
static bool parse_xid(const struct kline *k, struct hd_signal *sig)
{
	const char *p = find(k->msg, k->len, "Xid (");
	const char *end = k->msg + k->len, *close, *q;
	int64_t xid, cause;

	if (!p)
		return false;
	p += 5;
	lit(&p, end, "PCI:");
	close = memchr(p, ')', (size_t)(end - p));
	if (!close)
		return false;
	sig->device = bus_id(p, (size_t)(close - p));
	p = close + 1;
	if (!lit(&p, end, ": "))
		return false;
	xid = digits(&p, end, 6);
	if (xid <= 0)
		return false;
	sig->code = (int32_t)xid;
	sig->pid = pid_in(p, (size_t)(end - p));
	if (sig->pid > 0)
		sig->op_name = name_in(p, (size_t)(end - p));
	/* an Xid 45's cleanup names what it cleans up after */
	if ((q = find(p, (size_t)(end - p), "caused by previous Xid "))) {
		q += 23;
		cause = digits(&q, end, 6);
		if (cause > 0 && cause != xid &&
		    !(q < end && g_ascii_isdigit(*q)))
			sig->numel_in = cause;
	}
	return true;
}

/*
 * The cgroup the kernel says its OOM kill's task was in: "oom-kill:...,
 * task_memcg=/kubepods/...,task=python,pid=123,..." (newer kernels) or
 * "Task in /docker/... killed as a result of limit of ..." (older), on
 * the lines before the kill.  Kept until the kill it belongs to.
 */
struct oom_cgroup {
	enum hd_oom_cgroup where;
	int32_t pid; /* the task's pid the line names, 0 none */
	const char *host;
};

/* Whether a cgroup path is a container runtime's. */
static bool cgroup_is_container(const char *p, size_t n)
{
	static const char *const runtimes[] = {
		"docker",      "kubepods", "containerd",
		"crio-",       "libpod",   "/lxc",
		"lxc.payload", "podman",   "/machine.slice",
	};

	for (size_t i = 0; i < G_N_ELEMENTS(runtimes); i++)
		if (find(p, n, runtimes[i]))
			return true;
	return false;
}

/* Reads an OOM kill's cgroup line into *cg; false if it is none. */
static bool parse_oom_cgroup(const struct kline *k, struct oom_cgroup *cg)
{
	const char *end = k->msg + k->len, *p, *e;

	if ((p = find(k->msg, k->len, "task_memcg=")) &&
	    find(k->msg, k->len, "oom-kill:")) {
		p += strlen("task_memcg=");
		e = memchr(p, ',', (size_t)(end - p));
		e = e ? e : end;
		cg->pid = pid_in(e, (size_t)(end - e));
	} else if ((p = find(k->msg, k->len, "Task in ")) &&
		   find(k->msg, k->len, " killed as a result of limit")) {
		p += strlen("Task in ");
		e = memchr(p, ' ', (size_t)(end - p));
		e = e ? e : end;
		cg->pid = 0;
	} else {
		return false;
	}
	cg->where = cgroup_is_container(p, (size_t)(e - p))
			    ? HD_OOM_CGROUP_CONTAINER
			    : HD_OOM_CGROUP_HOST;
	cg->host = k->host;
	return true;
}

/* "Out of memory: Killed process 123 (python)" and its variants. */
static bool parse_oom(const struct kline *k, struct hd_signal *sig)
{
	const char *p = find(k->msg, k->len, "Kill process ");
	const char *end = k->msg + k->len, *close;
	int64_t pid;

	if (!p)
		p = find(k->msg, k->len, "Killed process ");
	if (!p)
		return false;
	p = memchr(p, 's', (size_t)(end - p)); /* "process" */
	p = find(p, (size_t)(end - p), " ");
	if (!p)
		return false;
	p++;
	pid = digits(&p, end, 9);
	if (pid <= 0)
		return false;
	sig->pid = (int32_t)pid;
	if (lit(&p, end, " (") && (close = memchr(p, ')', (size_t)(end - p))) &&
	    close - p < 64)
		sig->op_name = hd_intern_len(p, (size_t)(close - p));
	return true;
}

/*
 * "mlx5_core 0000:ab:00.0 mlx5_5: Port: 1 Link DOWN": device "mlx5_5:1",
 * code 0 down, 1 active.  Whether the line is one is the caller's test.
 */
static bool parse_link(const struct kline *k, struct hd_signal *sig)
{
	const char *end = k->msg + k->len;
	const char *p = find(k->msg, k->len, "Port: ");
	const char *q = k->msg + strlen("mlx5_core "), *dev = NULL;
	int64_t port;

	if (!p)
		return false;
	/* the device name: the token before "Port:" that ends in ':' */
	while (q < p) {
		const char *sp = memchr(q, ' ', (size_t)(p - q));

		if (!sp)
			break;
		if (sp > q && sp[-1] == ':' && sp - q < 40 && q[0] != '0')
			dev = q;
		if (dev == q) {
			p += 6;
			port = digits(&p, end, 3);
			if (port < 0)
				return false;
			{
				g_autofree char *d = g_strdup_printf(
					"%.*s:%d", (int)(sp - q - 1), q,
					(int)port);

				sig->device = hd_intern(d);
			}
			break;
		}
		q = sp + 1;
	}
	if (!sig->device)
		return false;
	if (find(p, (size_t)(end - p), "Link DOWN"))
		sig->code = 0;
	else if (find(p, (size_t)(end - p), "Link ACTIVE"))
		sig->code = 1;
	else
		return false;
	return true;
}

/*
 * Whether a kernel message or journal header starts a boot: the kernel's
 * banner, or journalctl's marker between boots.
 */
static bool is_boot(const char *msg, size_t len)
{
	return (len >= 14 && memcmp(msg, "Linux version ", 14) == 0) ||
	       (len >= 8 && memcmp(msg, "-- Boot ", 8) == 0) ||
	       (len >= 12 && memcmp(msg, "-- Reboot --", 12) == 0);
}

/*
 * Records read before the last boot the input shows (a journal or
 * kern.log reaching back across reboots) are of an earlier boot: no
 * process of the hung job lived then.  They are kept as context
 * (HD_SIG_INFO), with one warning; the engine sets them apart as events
 * of another time (hd-kernel.c, of_earlier_boot(): a failure's record
 * kept as context here is one of these, as a link coming up is no
 * failure).
 */
static void mark_earlier_boot(struct hd_store *store, struct hd_input *in,
			      uint32_t input, guint first, uint64_t boot)
{
	guint n = 0;

	for (guint i = first; boot && i < store->signals->len; i++) {
		struct hd_signal *sig =
			&g_array_index(store->signals, struct hd_signal, i);

		if (sig->prov.input != input || sig->prov.at >= boot ||
		    sig->cat == HD_SIG_INFO)
			continue;
		sig->cat = HD_SIG_INFO;
		n++;
	}
	if (n)
		hd_input_warn(
			in, boot,
			"the host booted again here: %u record%s before this line %s of an earlier boot, kept as context, never joined to this job's ranks",
			n, n == 1 ? "" : "s", n == 1 ? "is" : "are");
}

/*
 * "NVRM: GPU at PCI:0000:3b:00: ..." or "NVRM: GPU 0000:3b:00.0: ...":
 * the GPU's bus id, or NULL.
 */
static const char *nvrm_gpu(const struct kline *k)
{
	const char *end = k->msg + k->len;
	const char *p = find(k->msg, k->len, "NVRM: GPU ");

	if (!p)
		return NULL;
	p += strlen("NVRM: GPU ");
	if (lit(&p, end, "at "))
		lit(&p, end, "PCI:");
	return bus_id(p, (size_t)(end - p));
}

/* What a PCIe AER line says (the kernel's pcieport and drivers). */
struct aer {
	const char *device; /* interned bus id of the device in error */
	const char *subject; /* the device that printed the line */
	bool nvidia; /* the nvidia driver printed it, of its own device */
	bool record; /* an uncorrected error (a record); else context */
};

/*
 * "pcieport 0000:00:03.1: AER: Uncorrected (Fatal) error received:
 * 0000:3b:00.0" (also "Multiple ...", "error message received from",
 * "received: id=0010"), "nvidia 0000:3b:00.0: PCIe Bus Error:
 * severity=Uncorrected (Fatal), ...", "nvidia 0000:3b:00.0: AER: can't
 * recover (no error_detected callback)".  False when the line is none.
 */
static bool parse_aer(const struct kline *k, struct aer *a)
{
	const char *p = k->msg, *end = k->msg + k->len, *sp, *rest, *q;
	size_t dn;
	bool uncorrected;

	sp = memchr(p, ' ', (size_t)(end - p));
	if (!sp || sp == p || sp - p > 32)
		return false;
	dn = (size_t)(sp - p);
	a->subject = bus_id(sp + 1, (size_t)(end - sp - 1));
	rest = memchr(sp + 1, ' ', (size_t)(end - sp - 1));
	if (!a->subject || !rest || rest[-1] != ':')
		return false;
	rest++;
	a->nvidia = dn == 6 && memcmp(p, "nvidia", 6) == 0;
	a->device = a->subject;
	a->record = false;
	if (a->nvidia &&
	    (find(rest, (size_t)(end - rest), "can't recover") ||
	     find(rest, (size_t)(end - rest), "has no AER-aware driver"))) {
		a->record = true; /* its GPU is in an uncorrected error */
		return true;
	}
	if (!find(rest, (size_t)(end - rest), "AER") &&
	    !find(rest, (size_t)(end - rest), "PCIe Bus Error"))
		return false;
	uncorrected = find(rest, (size_t)(end - rest), "Uncorrect") != NULL;
	if (!uncorrected)
		return find(rest, (size_t)(end - rest), "orrect") != NULL;
	if ((q = find(rest, (size_t)(end - rest), "received from "))) {
		q += strlen("received from ");
		a->device = bus_id(q, (size_t)(end - q));
	} else if ((q = find(rest, (size_t)(end - rest), "received: id="))) {
		unsigned id = 0, dom = 0;
		char buf[24];

		q += strlen("received: id=");
		if (sscanf(a->subject, "%x", &dom) != 1 ||
		    sscanf(q, "%4x", &id) != 1)
			return true; /* context: the id is not read */
		g_snprintf(buf, sizeof(buf), "%04x:%02x:%02x", dom,
			   (id >> 8) & 0xff, (id >> 3) & 0x1f);
		a->device = hd_intern(buf);
	} else if ((q = find(rest, (size_t)(end - rest), "received: "))) {
		q += strlen("received: ");
		a->device = bus_id(q, (size_t)(end - q));
	}
	if (!a->device)
		return true; /* context: whose error it is is not read */
	/* the nvidia driver's line is of its own GPU; a port's may be of
	   the port itself or of a device below it */
	a->nvidia = a->nvidia && a->device == a->subject;
	a->record = true;
	return true;
}

bool kernel_log_parse(struct hd_reader *rd, struct hd_store *store,
		      uint32_t input, GError **error)
{
	struct hd_input *in = hd_store_input(store, input);
	g_autoptr(hd_lines) lines = hd_lines_new(rd);
	g_autoptr(GError) err = NULL;
	const char *line, *last_gpu = NULL;
	guint first_signal = store->signals->len;
	uint64_t boot = 0; /* the line of the last boot seen, 0 none */
	struct kline gpu_k = { 0 }; /* the line that named last_gpu */
	struct oom_cgroup cg = { 0 }; /* the last OOM kill's cgroup line */
	/* the last record, to read a message printed twice as one */
	const char *rec_device = NULL;
	int rec_type = -1;
	uint64_t rec_line = 0;
	size_t len;
	bool cut;

	in->kind = HD_INPUT_KERNEL_LOG;
	while (hd_lines_next(lines, &line, &len, &cut, &err)) {
		uint64_t lineno = hd_lines_lineno(lines);
		struct hd_signal sig;
		struct kline k;
		struct aer aer;

		if (len && line[len - 1] == '\r')
			len--;
		if (!len || g_ascii_isspace(line[0]) ||
		    (len >= 3 && memcmp(line, "-- ", 3) == 0)) {
			/* continuation of a multi-line message, or a
			   journalctl header */
			if (is_boot(line, len))
				boot = lineno;
			if (len && find(line, len, "fallen off the bus") &&
			    last_gpu) {
				hd_signal_init(&sig);
				sig.cat = HD_SIG_CUDA;
				sig.type = HD_SIGT_XID;
				sig.code = 79;
				sig.device = last_gpu;
				/* the host and time of the line it continues */
				add(store, in, input, lineno, &gpu_k, line, len,
				    &sig);
				last_gpu = NULL;
			}
			continue;
		}
		if (!kernel_line(line, len, &k)) {
			in->skipped++;
			hd_input_warn(in, lineno, "not a kernel log line");
			continue;
		}
		if (k.other) {
			/* another program's line: context, unless it is
			   NCCL's or PyTorch's, which this parser cannot read */
			if (has_job_words(k.msg, k.len)) {
				in->skipped++;
				hd_input_warn(
					in, lineno,
					"an NCCL or PyTorch line in a syslog is not read here: give the job's own log");
			}
			continue;
		}
		hd_signal_init(&sig);
		if (is_boot(k.msg, k.len))
			boot = lineno;
		if (find(k.msg, k.len, "NVRM: Xid")) {
			sig.cat = HD_SIG_CUDA;
			sig.type = HD_SIGT_XID;
			if (!parse_xid(&k, &sig)) {
				in->skipped++;
				hd_input_warn(
					in, lineno,
					"NVRM Xid line without its number");
				continue;
			}
		} else if (find(k.msg, k.len, "NVRM: ") &&
			   find(k.msg, k.len, "NVIDIA GPU ")) {
			/* "The NVIDIA GPU 0000:b3:00.0 ... fallen off the
			   bus" may span lines */
			const char *g = find(k.msg, k.len, "NVIDIA GPU ") + 11;

			last_gpu = bus_id(g, (size_t)(k.msg + k.len - g));
			gpu_k = k;
			if (!last_gpu || !find(k.msg, k.len, "fallen off"))
				continue;
			sig.cat = HD_SIG_CUDA;
			sig.type = HD_SIGT_XID;
			sig.code = 79;
			sig.device = last_gpu;
			last_gpu = NULL;
		} else if (last_gpu && find(k.msg, k.len, "NVRM: ") &&
			   find(k.msg, k.len, "fallen off the bus")) {
			/* the same message continued on a prefixed line of
			   its own (journalctl -k) */
			sig.cat = HD_SIG_CUDA;
			sig.type = HD_SIGT_XID;
			sig.code = 79;
			sig.device = last_gpu;
			last_gpu = NULL;
		} else if (find(k.msg, k.len, "NVRM: ") &&
			   find(k.msg, k.len, "fallen off the bus") &&
			   nvrm_gpu(&k)) {
			/* "NVRM: GPU 0000:3b:00.0: GPU has fallen off the
			   bus.": the Xid 79 just before, again, or alone */
			sig.device = nvrm_gpu(&k);
			if (rec_type == HD_SIGT_XID &&
			    rec_device == sig.device && lineno - rec_line <= 3)
				continue;
			sig.cat = HD_SIG_CUDA;
			sig.type = HD_SIGT_XID;
			sig.code = 79;
		} else if (find(k.msg, k.len, "NVRM: ") &&
			   find(k.msg, k.len, "RmInitAdapter failed")) {
			/* the driver cannot bring the GPU up; older drivers
			   name no GPU (then: the host's) */
			sig.cat = HD_SIG_CUDA;
			sig.type = HD_SIGT_GPU_STATE;
			sig.code = HD_GPU_INIT_FAILED;
			sig.device = nvrm_gpu(&k);
		} else if (parse_aer(&k, &aer)) {
			if (!aer.record)
				continue; /* corrected, or not read: context */
			/* "PCIe Bus Error: severity=..." details the line
			   before it */
			if (rec_type == HD_SIGT_GPU_STATE &&
			    rec_device == aer.device && lineno - rec_line <= 2)
				continue;
			sig.cat = HD_SIG_CUDA;
			sig.type = HD_SIGT_GPU_STATE;
			sig.code = HD_GPU_PCIE_ERROR |
				   (aer.nvidia ? 0 : HD_GPU_NOT_GPU);
			sig.device = aer.device;
		} else if (parse_oom_cgroup(&k, &cg)) {
			continue; /* context for the kill that follows */
		} else if ((find(k.msg, k.len, "Out of memory") ||
			    find(k.msg, k.len, "out of memory: Kill")) &&
			   find(k.msg, k.len, "ill")) {
			sig.cat = HD_SIG_CRASH;
			sig.type = HD_SIGT_HOST_OOM;
			if (!parse_oom(&k, &sig)) {
				in->skipped++;
				hd_input_warn(
					in, lineno,
					"OOM killer line without a process id");
				continue;
			}
			/* the cgroup line of this kill: same host, its pid */
			if (cg.where != HD_OOM_CGROUP_UNKNOWN &&
			    cg.host == k.host &&
			    (cg.pid == 0 || cg.pid == sig.pid))
				sig.code = (int32_t)cg.where;
			cg.where = HD_OOM_CGROUP_UNKNOWN;
		} else if (k.len > 10 && memcmp(k.msg, "mlx5_core ", 10) == 0 &&
			   find(k.msg, k.len, " Link ")) {
			sig.cat = HD_SIG_NETWORK;
			sig.type = HD_SIGT_LINK_EVENT;
			if (!parse_link(&k, &sig))
				continue; /* INIT, ARMED: no change to report */
			if (sig.code != 0)
				sig.cat = HD_SIG_INFO; /* a link up is news,
							  not trouble */
		} else {
			continue;
		}
		add(store, in, input, lineno, &k, line, len, &sig);
		rec_type = sig.type;
		rec_device = sig.device;
		rec_line = lineno;
	}
	mark_earlier_boot(store, in, input, first_signal, boot);
	return pu_end_lines(in, hd_lines_lineno(lines), g_steal_pointer(&err),
			    error);
}
