/*
 * hangdoc diff's renderers: a comparison of two incidents (hd-diff.h) as
 * text or as one JSON object.  Nothing is decided here: what is the same
 * and what changed comes from the diff.
 */
#ifndef HD_REPORT_DIFF_H
#define HD_REPORT_DIFF_H

#include <stdbool.h>
#include <stdio.h>

#include "hd-diff.h"

/* The comparison as text, one field per line; false if out failed. */
bool hd_diff_write_text(FILE *out, const struct hd_diff *d);

/* The comparison as a JSON object (with a newline); false if out failed. */
bool hd_diff_write_json(FILE *out, const struct hd_diff *d);

#endif
