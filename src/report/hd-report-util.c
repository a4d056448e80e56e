/*
 * What the report renderers share (hd-report-util.h): counts,
 * durations, safe strings, group names, code spans in next steps, the
 * rank-table cells and the engine's per-group figures.  Nothing here looks at verdicts beyond
 * printing them, and nothing here knows which renderer runs.
 */
#include "config.h"

#include "hd-report-util.h"

#include <string.h>

#include "hd-const.h"
#include "hd-json.h"
#include "hd-text.h"
#include "hd-sort.h"
#include "hd-banned.h"

char *hd_report_clean(const char *s)
{
	return hd_text_safe(s);
}

char *hd_report_count(uint64_t n)
{
	return hd_text_count(n);
}

int64_t hd_report_add_sat(int64_t a, int64_t b)
{
	int64_t r;

	if (!__builtin_add_overflow(a, b, &r))
		return r;
	return b > 0 ? INT64_MAX : INT64_MIN;
}

int64_t hd_report_sub_sat(int64_t a, int64_t b)
{
	int64_t r;

	if (!__builtin_sub_overflow(a, b, &r))
		return r;
	return b < 0 ? INT64_MAX : INT64_MIN;
}

char *hd_report_duration(int64_t ns)
{
	double v = (double)ns;
	double av = v < 0 ? -v : v;

	if (av < 1e3)
		return g_strdup_printf("%" G_GINT64_FORMAT " ns", ns);
	if (av < 1e6)
		return g_strdup_printf("%.1f us", v / 1e3);
	if (av < 1e9)
		return g_strdup_printf("%.2f ms", v / 1e6);
	if (av < 120e9)
		return g_strdup_printf("%.2f s", v / 1e9);
	return g_strdup_printf("%.1f min", v / 60e9);
}

void hd_report_progress_cells(const struct hd_rank_progress *p,
			      const char *empty, char enq[24], char done[24],
			      char state[48])
{
	const char *st = p->state ? p->state : empty;

	g_snprintf(enq, 24, "%s", empty);
	g_snprintf(done, 24, "%s", empty);
	if (p->last_enqueued >= 0)
		g_snprintf(enq, 24, "%" G_GINT64_FORMAT, p->last_enqueued);
	if (p->last_completed >= 0)
		g_snprintf(done, 24, "%" G_GINT64_FORMAT, p->last_completed);
	if (p->blocked_seq >= 0)
		g_snprintf(state, 48, "%s at %" G_GINT64_FORMAT, st,
			   p->blocked_seq);
	else
		g_snprintf(state, 48, "%s", st);
}

const struct hd_group_stats *hd_report_group_stats(const struct hd_analysis *a,
						   uint32_t group)
{
	if (!a->group_stats)
		return NULL;
	if (group < a->group_stats->len) {
		const struct hd_group_stats *st = &g_array_index(
			a->group_stats, struct hd_group_stats, group);

		if (st->group == group)
			return st;
	}
	for (guint i = 0; i < a->group_stats->len; i++) {
		const struct hd_group_stats *st = &g_array_index(
			a->group_stats, struct hd_group_stats, i);

		if (st->group == group)
			return st;
	}
	return NULL;
}

/* Whether c is one of the colour marks (HD_MARK_*). */
static bool is_mark(gunichar c)
{
	return c == 0x01 || c == 0x02 || c == 0x03 || c == 0x05 || c == 0x06;
}

static size_t char_columns(gunichar c)
{
	if (is_mark(c))
		return 0;
	return g_unichar_iswide(c) ? 2 : 1;
}

char *hd_report_paint(const char *marked, bool color)
{
	static const char *const sgr[] = {
		[0x01] = "\033[1;31m", [0x02] = "\033[33m", [0x03] = "\033[32m",
		[0x05] = "\033[1m",    [0x06] = "\033[0m",
	};
	GString *s = g_string_sized_new(strlen(marked) + 32);

	for (const char *p = marked; *p; p++) {
		if (!is_mark((guchar)*p))
			g_string_append_c(s, *p);
		else if (color)
			g_string_append(s, sgr[(guchar)*p]);
	}
	return g_string_free(s, FALSE);
}

size_t hd_report_columns(const char *s)
{
	size_t cols = 0;

	for (const char *p = s; *p; p = hd_utf8_next(p))
		cols += char_columns(g_utf8_get_char(p));
	return cols;
}

/*
 * Where to split a word too long for a line of room columns: after the
 * last '/', ',' or ':' that fits (past a third of the line, so the break
 * is worth it), else at the last character that fits; at least one
 * character, so every call makes progress.
 */
static const char *split_word(const char *word, const char *end, size_t room)
{
	const char *p = word, *soft = NULL, *hard = NULL;
	size_t cols = 0;

	while (p < end) {
		size_t w = char_columns(g_utf8_get_char(p));

		if (cols + w > room)
			break;
		cols += w;
		p = hd_utf8_next(p);
		hard = p;
		if (strchr("/,:", p[-1]) && cols * 3 >= room)
			soft = p;
	}
	if (!hard)
		hard = hd_utf8_next(word);
	return soft && soft < end ? soft : hard;
}

char *hd_report_wrap(const char *text, const char *first, const char *rest,
		     int width)
{
	GString *out = g_string_new(first);
	size_t col = hd_report_columns(first);
	size_t indent = hd_report_columns(rest);
	size_t line_start_col = col;
	size_t w = width > 0 ? (size_t)width : 80;
	const char *p = text ? text : "";

	if (w < indent + 10)
		w = indent + 10;
	if (w < line_start_col + 10)
		w = line_start_col + 10;
	while (*p) {
		const char *word = p, *end;
		size_t wc;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		word = p;
		while (*p && *p != ' ')
			p++;
		end = p;
		{
			g_autofree char *tmp = g_strndup(word, end - word);

			wc = hd_report_columns(tmp);
		}
		/* The separating space, unless this is a line's first word. */
		if (col > line_start_col) {
			if (col + 1 + wc <= w) {
				g_string_append_c(out, ' ');
				col++;
			} else {
				g_string_append_c(out, '\n');
				g_string_append(out, rest);
				col = line_start_col = indent;
			}
		}
		/* A word longer than the room left is split across lines. */
		while (col + wc > w) {
			const char *cut = split_word(word, end, w - col);
			g_autofree char *head = g_strndup(word, cut - word);

			g_string_append(out, head);
			g_string_append_c(out, '\n');
			g_string_append(out, rest);
			col = line_start_col = indent;
			wc -= hd_report_columns(head);
			word = cut;
		}
		g_string_append_len(out, word, end - word);
		col += wc;
	}
	/* A first indent with nothing after it keeps no trailing spaces. */
	while (out->len && out->str[out->len - 1] == ' ')
		g_string_truncate(out, out->len - 1);
	return g_string_free(out, FALSE);
}

const char *hd_report_strip_log_prefix(const char *line)
{
	return hd_text_strip_log_prefix(line);
}

const char *hd_report_strip_rank(const char *text, int rank)
{
	char tag[32];
	size_t n;

	if (!text || rank < 0)
		return text;
	n = (size_t)g_snprintf(tag, sizeof(tag), "rank %d: ", rank);
	return strncmp(text, tag, n) == 0 && text[n] ? text + n : text;
}

bool hd_report_source_split(const struct hd_store *s, const char *source,
			    size_t *path_len, enum hd_report_pos *pos,
			    uint64_t *at)
{
	size_t best = 0;
	bool found = false;

	if (!source)
		return false;
	for (guint i = 0; i < s->inputs->len; i++) {
		const struct hd_input *in = g_ptr_array_index(s->inputs, i);
		size_t n = strlen(in->path);
		const char *rest = source + n;
		const char *num = NULL;
		enum hd_report_pos kind;

		if (strncmp(source, in->path, n) != 0 || (found && n <= best))
			continue;
		if (!*rest) {
			kind = HD_REPORT_POS_NONE;
		} else if (rest[0] == ':') {
			kind = HD_REPORT_POS_LINE;
			num = rest + 1;
		} else if (g_str_has_prefix(rest, "#record ")) {
			kind = HD_REPORT_POS_RECORD;
			num = rest + 8;
		} else if (rest[0] == '@') {
			kind = HD_REPORT_POS_OFFSET;
			num = rest + 1;
		} else {
			continue;
		}
		if (num && !g_ascii_string_to_unsigned(num, 10, 0, G_MAXUINT64,
						       at, NULL))
			continue;
		if (!num)
			*at = 0;
		*pos = kind;
		*path_len = best = n;
		found = true;
	}
	return found;
}

bool hd_report_rank_set_hits(const GArray *set, int first, int last)
{
	guint at = hd_ints_lower_bound(set, first);

	return at < set->len && g_array_index(set, int, at) <= last;
}

char *hd_report_frame_text(const struct hd_frame *f)
{
	return g_strdup_printf("%s:%d in %s", f->file ? f->file : "?", f->line,
			       f->name ? f->name : "?");
}

char *hd_report_hang_start(const struct hd_analysis *a)
{
	const struct hd_moment *done = &a->last_completed;
	const struct hd_moment *first = &a->first_timeout;
	GString *s;

	if (!done->known && !first->known)
		return NULL;
	s = g_string_new("hang began: ");
	if (done->known) {
		g_autofree char *when = hd_time_format(done->time, 3);
		g_autofree char *src = hd_prov_format(a->store, &done->prov);

		g_string_append_printf(s,
				       "after %s, when the last op to complete "
				       "ended (rank %d, %s)",
				       when, done->rank, src);
	}
	if (first->known) {
		g_autofree char *when = hd_time_format(first->time, 3);
		g_autofree char *src = hd_prov_format(a->store, &first->prov);
		char rank[32] = "";

		if (first->rank >= 0)
			g_snprintf(rank, sizeof(rank), "rank %d, ",
				   first->rank);
		g_string_append_printf(
			s, "%sfirst watchdog timeout at %s (%s%s)",
			done->known ? "; " : "", when, rank, src);
	}
	if (done->known && first->known && a->hang_order == HD_ORDER_UNKNOWN)
		g_string_append(s, "; these two times are on different clocks "
				   "and cannot be ordered");
	return g_string_free(s, FALSE);
}

bool hd_report_group_named(const struct hd_group *g, const char *const *want)
{
	for (; *want; want++)
		if (strcmp(g->id, *want) == 0 ||
		    (g->name && strcmp(g->name, *want) == 0))
			return true;
	return false;
}

char *hd_report_c10d_group_text(const struct hd_c10d_group *g)
{
	g_autofree char *n = hd_text_count(g->ranks->len);
	g_autofree char *t = hd_text_count(g->timeouts);

	return g_strdup_printf(
		"%s rank%s name%s it in c10d lines%s%s%s; no ops recorded", n,
		g->ranks->len == 1 ? "" : "s", g->ranks->len == 1 ? "s" : "",
		g->timeouts ? ", " : "", g->timeouts ? t : "",
		g->timeouts ? " timed out in it" : "");
}

char *hd_report_culprit_text(const struct hd_store *s,
			     const struct hd_culprit *c)
{
	const struct hd_frame *f = hd_culprit_frame(s, c);
	g_autofree char *site = f ? hd_report_frame_text(f) : NULL;
	GString *out = g_string_new(NULL);

	if (c->host)
		g_string_append_printf(out, "on %s", c->host);
	if (c->pid)
		g_string_append_printf(out, "%spid %d", out->len ? ", " : "",
				       c->pid);
	if (site)
		g_string_append_printf(out, "%sat %s", out->len ? ", " : "",
				       site);
	if (!out->len) {
		g_string_free(out, TRUE);
		return NULL;
	}
	return g_string_free(out, FALSE);
}

void hd_report_code_spans(const char *text,
			  void (*fn)(const char *part, bool code, void *data),
			  void *data)
{
	g_auto(GStrv) parts = g_strsplit(text ? text : "", "`", -1);
	guint n = g_strv_length(parts);

	for (guint i = 0; i < n; i++) {
		/* an odd part is inside backticks, unless it has no end */
		if (i % 2 && i + 1 == n) {
			g_autofree char *lone =
				g_strconcat("`", parts[i], NULL);

			fn(lone, false, data);
		} else {
			fn(parts[i], i % 2, data);
		}
	}
}

/* Does text start "rank N" (a word of its own)? */
static bool starts_with_rank(const char *text, int rank)
{
	char tag[32];
	size_t n = (size_t)g_snprintf(tag, sizeof(tag), "rank %d", rank);

	return text && strncmp(text, tag, n) == 0 &&
	       (text[n] == ' ' || text[n] == ':' || text[n] == '\'');
}

const char *hd_report_evidence_text(const struct hd_store *s,
				    const struct hd_evidence *e, bool *quoted,
				    bool *label)
{
	enum hd_report_pos pos = HD_REPORT_POS_NONE;
	size_t len;
	uint64_t at;
	const char *text = e->text ? e->text : "";

	*quoted = hd_report_source_split(s, e->source, &len, &pos, &at) &&
		  pos == HD_REPORT_POS_LINE;
	text = *quoted ? hd_report_strip_log_prefix(text)
		       : hd_report_strip_rank(text, e->rank);
	*label = e->rank >= 0 && !starts_with_rank(text, e->rank);
	return text;
}
