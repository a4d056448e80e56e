/*
 * A streaming scanner for Chrome-trace JSON: it finds the extent of every
 * element of the top-level "traceEvents" array, and of every other top-level
 * value, without building a tree.  It tracks only string/escape state and
 * bracket depth, so it does not validate what it hands out; callers parse
 * the bytes they care about (cJSON for a few events, json_obj_next() for
 * cheap field access).
 *
 * Ownership: a scanner owns its buffer; the byte ranges handed to callbacks
 * are valid only during the callback.
 */
#ifndef HD_JSON_SCAN_H
#define HD_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Default largest item (one event or one top-level value) kept whole. */
#define JSON_SCAN_ITEM_CAP (16u * 1024 * 1024)

struct json_scan_cb {
	/*
	 * One element of traceEvents (usually an object), with its byte offset
	 * in the stream and its index in the array (from 0).
	 */
	void (*event)(void *ud, const char *p, size_t len, uint64_t offset,
		      uint64_t index);
	/* A top-level key other than traceEvents, with its raw value. */
	void (*top_value)(void *ud, const char *key, const char *p, size_t len,
			  uint64_t offset);
	/*
	 * An item longer than the cap was skipped without being kept: key is
	 * NULL for an event (index is then valid), else the top-level key.
	 */
	void (*oversize)(void *ud, const char *key, uint64_t offset,
			 uint64_t size, uint64_t index);
	/* The top level is not JSON we can follow; scanning stops. */
	void (*syntax)(void *ud, uint64_t offset, const char *what);
};

enum json_scan_end {
	JSON_SCAN_COMPLETE = 0, /* the top-level value closed */
	JSON_SCAN_TRUNCATED, /* the stream ended inside it */
	JSON_SCAN_FAILED, /* a syntax error stopped the scan */
	JSON_SCAN_EMPTY, /* no bytes but whitespace */
};

struct json_scan;

/* cap: largest item kept (0: JSON_SCAN_ITEM_CAP).  (transfer full) */
struct json_scan *json_scan_new(size_t cap, const struct json_scan_cb *cb,
				void *ud);
void json_scan_free(struct json_scan *s);

/*
 * Returns a writable area of at least want bytes at the end of the
 * scanner's buffer, to read input into; json_scan_commit() then scans the
 * n bytes written there.  (transfer none)
 */
char *json_scan_space(struct json_scan *s, size_t want);
/* Scans n new bytes; false once the scan has stopped (syntax error). */
bool json_scan_commit(struct json_scan *s, size_t n);
/* Copies and scans len bytes (for tests and fuzzers). */
bool json_scan_feed(struct json_scan *s, const void *data, size_t len);
/* Ends the stream: reports how it ended, and where (*offset). */
enum json_scan_end json_scan_finish(struct json_scan *s, uint64_t *offset);

/*
 * Iterates the members of one complete JSON object held in [p, end):
 * *pos starts at 0.  Returns true with the key (without quotes, escapes
 * left as written) and the raw value, or false at the end of the object or
 * on malformed input.
 */
bool json_obj_next(const char *p, const char *end, size_t *pos,
		   const char **key, size_t *klen, const char **val,
		   size_t *vlen);
/* Finds a member by key; false if absent. */
bool json_obj_get(const char *p, size_t len, const char *key, const char **val,
		  size_t *vlen);
/*
 * Parses a raw JSON integer (optionally a quoted one) into *out; false if
 * it is not one or does not fit.
 */
bool json_raw_int(const char *p, size_t len, int64_t *out);
/*
 * Parses a raw JSON number without exponent (optionally a quoted one),
 * "[-]int[.frac]", into *out as a whole number of 10^-digits units:
 * "4458677009840.015" with digits 3 gives 4458677009840015.  Fraction
 * digits past digits are truncated, *cut set.  False if it is no such
 * number or the result does not fit.
 */
bool json_raw_fixed(const char *p, size_t len, int digits, int64_t *out,
		    bool *cut);
/* Whether a raw value is the string s (compared unescaped-naively). */
bool json_raw_streq(const char *p, size_t len, const char *s);

#endif
