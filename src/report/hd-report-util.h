/*
 * Helpers every report renderer shares: the analysis renderers, `show`
 * and `replay` alike.  They format; they decide nothing.
 */
#ifndef HD_REPORT_UTIL_H
#define HD_REPORT_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "hd-engine.h"
#include "hd-store.h"

/*
 * Rank lists are written by hd_rank_list_text() (hd-ranks.h, through
 * hd-engine.h): HD_RANKS_SET for "0-3,5,7-9", HD_RANKS_ORDER for a
 * communicator's members in its order ("0,8,...,8184", "0-3,8,?").
 */

/*
 * Makes a raw string from an input safe to print: invalid UTF-8 bytes become
 * U+FFFD and control characters (escape sequences included) become '?'.
 * NULL gives "".  (transfer full)
 */
char *hd_report_clean(const char *s);

/*
 * Rank sets, for lookups that must not scan a list per row (an input can
 * name a hundred thousand ranks): a GArray of int, ascending, each once
 * (a verdict's culprits are one already; hd_analysis_culprit_set() in
 * hd-rows.h makes the set of every rank some verdict blames).
 */
/* Whether set holds a rank in [first, last]; O(log n). */
bool hd_report_rank_set_hits(const GArray *set, int first, int last);

/*
 * Calls fn(part, code, data) for each part of text in order: what stands
 * between a pair of backticks (a command a next step quotes) is code,
 * the rest plain; a backtick without its pair stays in the plain text.
 */
void hd_report_code_spans(const char *text,
			  void (*fn)(const char *part, bool code, void *data),
			  void *data);

/* Whether g's id or name is one of want (NULL-terminated). */
bool hd_report_group_named(const struct hd_group *g, const char *const *want);

/* The engine's figures for a group, or NULL.  (transfer none) */
const struct hd_group_stats *hd_report_group_stats(const struct hd_analysis *a,
						   uint32_t group);

/* "15,000".  (transfer full) */
char *hd_report_count(uint64_t n);

/*
 * a + b and a - b, held at INT64_MIN and INT64_MAX instead of overflowing:
 * for spans between times an input gave, which may be anything (a
 * flight-recorder time of 2^63 - 1 ns).
 */
int64_t hd_report_add_sat(int64_t a, int64_t b);
int64_t hd_report_sub_sat(int64_t a, int64_t b);

/* "850 ns", "12.3 us", "4.56 ms", "1.20 s", "3.0 min".  (transfer full) */
char *hd_report_duration(int64_t ns);

/*
 * The cells of one rank-table row shared by the text and Markdown tables:
 * last enqueued, last completed and the state ("blocked at 38"), with
 * empty standing for an unknown value.
 */
void hd_report_progress_cells(const struct hd_rank_progress *p,
			      const char *empty, char enq[24], char done[24],
			      char state[48]);

/*
 * Word-wraps clean text (no control characters) to width columns: the
 * first line starts with first, the others with rest (a hanging indent).
 * Lines break at spaces; a word longer than a line is split, after a '/',
 * ',' or ':' where one fits, else at the last column, and never cut
 * short: every character of text is in the result.  Columns count code
 * points, two for East Asian wide ones.  No line ends in a space; lines
 * are joined by '\n', without a final one.  A width smaller than the
 * indent plus ten columns is taken as that.  (transfer full)
 */
char *hd_report_wrap(const char *text, const char *first, const char *rest,
		     int width);

/* The columns s takes on a terminal (see hd_report_wrap()). */
size_t hd_report_columns(const char *s);

/*
 * Colour marks: control bytes that hd_report_clean() never lets through
 * from an input, so that only a renderer can place them around text it
 * built from cleaned parts.  They take no column (hd_report_wrap() wraps
 * marked text as if they were absent); hd_report_paint() turns them into
 * SGR sequences, or removes them when there is no colour.
 */
#define HD_MARK_BAD  "\x01" /* bold red: the verdict's kind */
#define HD_MARK_WARN "\x02" /* yellow: medium confidence */
#define HD_MARK_GOOD "\x03" /* green: high confidence */
#define HD_MARK_BOLD "\x05" /* bold: the culprit */
#define HD_MARK_END  "\x06" /* back to plain */

/*
 * Replaces the colour marks of marked with ANSI SGR sequences when color,
 * else removes them.  (transfer full)
 */
char *hd_report_paint(const char *marked, bool color);

/*
 * A quoted log line without the prefix its source already states: the
 * c10d "[rank3]:" and glog "[E1121 03:22:44.123456789 file.cc:12] " and
 * NCCL's "host:pid:tid [dev] ".  Returns a pointer into line (line itself
 * when there is no such prefix).  (transfer none)
 */
const char *hd_report_strip_log_prefix(const char *line);

/*
 * An evidence text without a leading "rank N: " that repeats the rank the
 * item is already about.  (transfer none)
 */
const char *hd_report_strip_rank(const char *text, int rank);

/*
 * What Markdown and HTML show of an evidence item after its "rank N: "
 * label: a quoted log line (its source names a line: *quoted) without
 * the prefix its source already states, else the text without a leading
 * "rank N: " the label says.  *label is false where the text itself
 * starts with "rank N" ("rank 5 last seen at ..."), so the label would
 * say it twice, or the item is about no rank.  (transfer none)
 */
const char *hd_report_evidence_text(const struct hd_store *s,
				    const struct hd_evidence *e, bool *quoted,
				    bool *label);

/* Where an evidence source points inside its input. */
enum hd_report_pos {
	HD_REPORT_POS_NONE = 0, /* a bare path */
	HD_REPORT_POS_LINE,
	HD_REPORT_POS_RECORD,
	HD_REPORT_POS_OFFSET,
};

/*
 * Splits a formatted provenance ("path:line", "path#record N",
 * "path@offset", a bare path) into the input path (*path_len bytes of
 * source) and the position, by matching it against the store's input
 * paths, so a path holding ':' or '#' is never split inside.  False when
 * no input matches.
 */
bool hd_report_source_split(const struct hd_store *s, const char *source,
			    size_t *path_len, enum hd_report_pos *pos,
			    uint64_t *at);

/*
 * What the reports say of a c10d process group known from log lines
 * only (struct hd_c10d_group; its id and label are hd_c10d_group_id()
 * and hd_c10d_group_label()): "1,024 ranks name it in c10d lines, 1,023
 * timed out in it; no ops recorded".  Raw.  (transfer full)
 */
char *hd_report_c10d_group_text(const struct hd_c10d_group *g);

/*
 * What the reports say of a culprit besides its rank: "on node-b, pid
 * 4247, at train.py:88 in train_step", the parts the data holds; NULL
 * when it holds none.  Raw.  (transfer full)
 */
char *hd_report_culprit_text(const struct hd_store *s,
			     const struct hd_culprit *c);

/* "train.py:88 in train_step".  (transfer full) */
char *hd_report_frame_text(const struct hd_frame *f);

/*
 * When the hang began, one sentence from the engine's moments ("hang
 * began: after ..., when the last op to complete ended (rank 3, path:line);
 * first watchdog timeout at ..."), or NULL when neither is known.
 * (transfer full)
 */
char *hd_report_hang_start(const struct hd_analysis *a);

#endif
