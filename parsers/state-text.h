/*
 * What the host-state text parsers share (gpu-state.c: nvidia-smi -q;
 * ib-state.c: ibstat, ibstatus, ibv_devinfo, perfquery): reading their
 * input line by line, and the "Field : value" lines those tools print.
 */
#ifndef HD_STATE_TEXT_H
#define HD_STATE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hd-input.h"

/* Whether the n bytes at p start with s. */
bool st_starts(const char *p, size_t n, const char *s);
/*
 * The value of a "Field : value" line: what follows its first ':',
 * blanks (space, tab) skipped, with *vn its length; NULL without a ':'.
 */
const char *st_value(const char *p, size_t n, size_t *vn);
/*
 * Calls fn(ctx, line, len, lineno) for each line of rd, a trailing '\r'
 * cut, and returns the number of the last line read.  A read error stops
 * it, in *error (pu_end_lines() ends the input).
 */
uint64_t st_each_line(struct hd_reader *rd,
		      void (*fn)(void *ctx, const char *line, size_t len,
				 uint64_t lineno),
		      void *ctx, GError **error);

#endif
