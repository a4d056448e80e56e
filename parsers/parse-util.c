/*
 * What the parsers of small text and JSON formats share (parse-util.h):
 * span scanning, a capped whole-input read, and the end of a cut input.
 */
#include "config.h"

#include "parse-util.h"

#include <string.h>

#include <cjson/cJSON.h>

#include "hd-error.h"
#include "hd-banned.h"

bool pu_starts(const char *s, const char *e, const char *prefix)
{
	size_t k = strlen(prefix);

	return s <= e && (size_t)(e - s) >= k && memcmp(s, prefix, k) == 0;
}

/* glibc's strsignal() texts, with their Linux numbers. */
static const struct {
	const char *text;
	int signo;
} signal_texts[] = {
	{ "Hangup", 1 },
	{ "Interrupt", 2 },
	{ "Quit", 3 },
	{ "Illegal instruction", 4 },
	{ "Trace/breakpoint trap", 5 },
	{ "Aborted", 6 },
	{ "Bus error", 7 },
	{ "Floating point exception", 8 },
	{ "Killed", 9 },
	{ "User defined signal 1", 10 },
	{ "Segmentation fault", 11 },
	{ "User defined signal 2", 12 },
	{ "Broken pipe", 13 },
	{ "Alarm clock", 14 },
	{ "Terminated", 15 },
	{ "Stack fault", 16 },
	{ "CPU time limit exceeded", 24 },
	{ "File size limit exceeded", 25 },
	{ "Bad system call", 31 },
};

int pu_signal_of_text(const char *s, const char *e)
{
	for (size_t i = 0; i < G_N_ELEMENTS(signal_texts); i++)
		if (s <= e && (size_t)(e - s) == strlen(signal_texts[i].text) &&
		    memcmp(s, signal_texts[i].text, (size_t)(e - s)) == 0)
			return signal_texts[i].signo;
	return 0;
}

const char *pu_find(const char *s, const char *e, const char *needle)
{
	if (s >= e)
		return NULL;
	return memmem(s, (size_t)(e - s), needle, strlen(needle));
}

bool pu_dec(const char **s, const char *e, int64_t *out)
{
	int64_t v = 0;
	int digits = 0;

	while (*s < e && g_ascii_isdigit(**s)) {
		if (digits++ < 18)
			v = v * 10 + (**s - '0');
		(*s)++;
	}
	*out = v;
	return digits > 0;
}

GBytes *pu_slurp(struct hd_reader *rd, size_t max, const char *what,
		 GError **error)
{
	g_autoptr(GError) err = NULL;
	GBytes *b = hd_reader_slurp(rd, max, &err);

	if (b)
		return b;
	if (g_error_matches(err, HD_ERROR, HD_ERROR_TOO_BIG))
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT, "%s over %zu MiB",
			    what, max >> 20);
	else
		g_propagate_error(error, g_steal_pointer(&err));
	return NULL;
}

void pu_signal_stack(struct hd_store *s, int64_t sig, const GArray *frames)
{
	if (sig < 0 || (guint64)sig >= s->signals->len || !frames ||
	    !frames->len)
		return;
	g_array_index(s->signals, struct hd_signal, sig).stack =
		hd_store_add_stack(s, (const struct hd_frame *)frames->data,
				   frames->len);
}

struct cJSON *pu_slurp_json(struct hd_reader *rd, size_t max, const char *what,
			    GError **error)
{
	g_autoptr(GBytes) buf = pu_slurp(rd, max, what, error);
	const char *data;
	gsize len;
	cJSON *j;

	if (!buf)
		return NULL;
	data = g_bytes_get_data(buf, &len);
	j = cJSON_ParseWithLength(data, len);
	if (!j)
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "%s that does not parse (cut?)", what);
	return j;
}

bool pu_end_lines(struct hd_input *in, uint64_t lineno, GError *err,
		  GError **error)
{
	if (err) {
		/* what was read before the error stays valid */
		in->truncated = true;
		if (in->records == 0) {
			g_propagate_error(error, err);
			return false;
		}
		hd_input_warn(in, lineno, "input ends early: %s", err->message);
		g_error_free(err);
	}
	if (in->records == 0)
		in->empty = true;
	return true;
}
