/* Text from the inputs, made safe to show (hd-text.h). */
#include "config.h"

#include "hd-text.h"

#include <string.h>
#include <glib.h>

#include "hd-const.h"
#include "hd-json.h"
#include "hd-banned.h"

char *hd_text_safe(const char *s)
{
	g_autofree char *valid = NULL;
	GString *out;

	if (!s)
		return g_strdup("");
	valid = hd_utf8_make_valid(s);
	out = g_string_sized_new(strlen(valid));
	for (const char *p = valid; *p; p = hd_utf8_next(p)) {
		gunichar c = g_utf8_get_char(p);

		if (hd_text_is_control(c))
			g_string_append_c(out, '?');
		else
			g_string_append_len(out, p, hd_utf8_next(p) - p);
	}
	return g_string_free(out, FALSE);
}

char *hd_text_count(uint64_t n)
{
	char digits[32];
	GString *s = g_string_new(NULL);
	size_t len;

	g_snprintf(digits, sizeof(digits), "%" G_GUINT64_FORMAT, n);
	len = strlen(digits);
	for (size_t i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			g_string_append_c(s, ',');
		g_string_append_c(s, digits[i]);
	}
	return g_string_free(s, FALSE);
}

/* Skips "[rank3]:" and returns what follows, or NULL. */
static const char *skip_rank_tag(const char *p)
{
	if (strncmp(p, "[rank", 5) != 0)
		return NULL;
	p += 5;
	if (!g_ascii_isdigit(*p))
		return NULL;
	while (g_ascii_isdigit(*p))
		p++;
	if (p[0] != ']' || p[1] != ':')
		return NULL;
	return p + 2;
}

/* Skips a glog prefix "[E1121 03:22:44.123456789 file.cc:12] ", or NULL. */
static const char *skip_glog(const char *p)
{
	const char *close;

	if (p[0] != '[' || !strchr("IWEF", p[1]))
		return NULL;
	for (int i = 2; i < 6; i++)
		if (!g_ascii_isdigit(p[i]))
			return NULL;
	if (p[6] != ' ' || !g_ascii_isdigit(p[7]) || !g_ascii_isdigit(p[8]) ||
	    p[9] != ':')
		return NULL;
	close = strchr(p, ']');
	if (!close || close - p > 120)
		return NULL;
	close++;
	while (*close == ' ')
		close++;
	return close;
}

/* Skips NCCL's "host:pid:tid [dev] ", or NULL. */
static const char *skip_nccl(const char *p)
{
	const char *q = p;
	int colons = 0;

	while (*q && *q != ' ' && *q != '[' && q - p < 256)
		q++;
	if (*q != ' ' || q == p)
		return NULL;
	/* The token ends ":<pid>:<tid>". */
	for (const char *c = q - 1; c > p && colons < 2; c--) {
		if (*c == ':') {
			if (!g_ascii_isdigit(c[1]))
				return NULL;
			colons++;
		} else if (!g_ascii_isdigit(*c)) {
			break;
		}
	}
	if (colons < 2 || q[1] != '[' || !g_ascii_isdigit(q[2]))
		return NULL;
	q += 2;
	while (g_ascii_isdigit(*q))
		q++;
	if (*q != ']')
		return NULL;
	q++;
	while (*q == ' ')
		q++;
	return q;
}

const char *hd_text_strip_log_prefix(const char *line)
{
	const char *p = line, *q;

	if (!line)
		return line;
	if ((q = skip_rank_tag(p)))
		p = q;
	while (*p == ' ')
		p++;
	if ((q = skip_glog(p)))
		p = q;
	else if ((q = skip_nccl(p)))
		p = q;
	return *p ? p : line;
}
