/*
 * Times and their clocks.  Every time hangdoc reads is a value together
 * with the clock it was written on: a UTC instant (a dump's time_created_ns,
 * a trace's baseTimeNanoseconds, a date with "Z" or "+08:00"), a local
 * date and time of unknown zone (NCCL's "[2026-06-14 09:05:10]", torchrun's
 * "time : 2026-06-14_09:05:10"), glog's month, day and time without a year
 * ("E0614 09:15:13"), a time of day only, seconds since boot, or a time
 * relative to a trace's own start.  Times of different clocks are never
 * compared as one: hd_time_order() says when two times cannot be ordered.
 * The one date parser of the project is here too (hd_time_scan_date()).
 * docs/verdicts.md ("Time") describes the model for users.
 */
#ifndef HD_TIME_H
#define HD_TIME_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum hd_clock {
	HD_CLOCK_NONE = 0, /* no time */
	HD_CLOCK_UTC, /* ns since 1970-01-01 00:00 UTC */
	/* a local wall clock of unknown zone: ns since 1970-01-01 00:00 of
	   that wall clock (as if it were UTC) */
	HD_CLOCK_LOCAL,
	/* glog's "MMDD hh:mm:ss": local, year unknown; ns since January 1
	   00:00 of a leap year (so February 29 fits) */
	HD_CLOCK_MONTH_DAY,
	HD_CLOCK_TIME_OF_DAY, /* local, date unknown: ns since midnight */
	HD_CLOCK_BOOT, /* ns since the host booted (kernel logs) */
	HD_CLOCK_TRACE, /* ns since a trace's own origin */
	HD_CLOCK_COUNT
};

struct hd_time {
	int64_t ns; /* INT64_MIN with HD_CLOCK_NONE */
	uint8_t clock; /* enum hd_clock */
};

/* Years a date may name: int64 ns since 1970 hold 1970 to 2262. */
#define HD_TIME_YEAR_MIN 1970
#define HD_TIME_YEAR_MAX 2200
/* ns of 2200-01-01 00:00: no absolute time is at or past it */
#define HD_TIME_NS_MAX (INT64_C(7258118400) * INT64_C(1000000000))
#define HD_NS_PER_SEC  INT64_C(1000000000)
#define HD_NS_PER_DAY  (INT64_C(86400) * HD_NS_PER_SEC)

/*
 * How far apart two hosts' clocks may be while the job is healthy (NTP
 * keeps them closer; logs print whole seconds): two events on different
 * hosts closer than this cannot be ordered.  The one place this is set.
 */
#define HD_TIME_SKEW_NS (2 * HD_NS_PER_SEC)

/*
 * How far a local wall clock jumps at a daylight-saving change (an hour
 * nearly everywhere): two local times of one host that far apart may be
 * seconds apart.  The one place this is set.
 */
#define HD_DST_SHIFT_NS (3600 * HD_NS_PER_SEC)

/* A time on no clock. */
static inline struct hd_time hd_time_none(void)
{
	struct hd_time t = { INT64_MIN, HD_CLOCK_NONE };

	return t;
}

static inline struct hd_time hd_time_make(int64_t ns, enum hd_clock clock)
{
	struct hd_time t = { ns, (uint8_t)clock };

	if (ns == INT64_MIN || clock == HD_CLOCK_NONE)
		return hd_time_none();
	return t;
}

static inline bool hd_time_known(struct hd_time t)
{
	return t.clock != HD_CLOCK_NONE && t.ns != INT64_MIN;
}

/* "UTC", "local", ...: the clock's name in JSON and messages. */
const char *hd_clock_name(enum hd_clock clock);

/* Days since 1970-01-01 of a proleptic Gregorian date. */
int64_t hd_days_from_civil(int64_t y, int64_t m, int64_t d);

/*
 * The time of a date (year, month, day) and ns since midnight, on clock
 * (HD_CLOCK_UTC or HD_CLOCK_LOCAL), in *out.  False, *out untouched, when
 * the year lies outside HD_TIME_YEAR_MIN..HD_TIME_YEAR_MAX or the day
 * does not exist in its month.
 */
bool hd_time_from_civil(int64_t y, int64_t m, int64_t d, int64_t tod,
			enum hd_clock clock, struct hd_time *out);

/*
 * Parses "hh:mm[:ss[.frac]]" (frac with '.' or ',') at s, at most n bytes:
 * *ns since midnight, the fraction kept only with with_frac.  Returns the
 * bytes used, 0 when s holds no such time.
 */
size_t hd_time_scan_hms(const char *s, size_t n, bool with_frac, int64_t *ns);

/*
 * Parses a date and time at s, at most n bytes:
 * "YYYY-MM-DD[ T_]hh:mm[:ss[.frac]]" then optionally "Z", "UTC" after a
 * space, or a zone offset "+hh:mm" / "+hhmm" / "-hh:mm".  With a zone the
 * time is UTC (the offset applied); without, local of unknown zone.  The
 * year must lie in HD_TIME_YEAR_MIN..HD_TIME_YEAR_MAX and the day exist
 * in its month.  Returns the bytes used, 0 when s holds no valid date.
 */
size_t hd_time_scan_date(const char *s, size_t n, struct hd_time *out);

/*
 * glog's "MMDD hh:mm:ss[.frac]" at s (after the severity letter), or c10d's
 * own "MDD hh:mm:ss" (its month is not zero-padded: "E305" is March 5):
 * a time on HD_CLOCK_MONTH_DAY.  Returns the bytes used or 0.
 */
size_t hd_time_scan_glog(const char *s, size_t n, bool with_frac,
			 struct hd_time *out);

/*
 * Gives a month-day time the year of anchor, a dated time (UTC or local)
 * of the same process's stream: the year that puts it within half a year
 * of anchor (so a glog line of December 31 beside a record of January 1
 * takes the year before).  The result is local; a UTC anchor's year is
 * used as is, since the zone moves a date by a day at most.  Returns
 * false, leaving *t as it was, when t is no month-day time or anchor is
 * not dated.
 */
bool hd_time_infer_year(struct hd_time *t, struct hd_time anchor);

/*
 * Aligns a local clock to UTC by evidence: local and utc are one event
 * seen on both clocks of one host (a collector's UTC date in front of
 * glog's local time on one line).  *offset receives local - utc rounded
 * to the quarter hour (zones are whole quarter hours); false when the two
 * readings are not that close to a zone offset (within 2 minutes, up to
 * 14 hours), or are not a local and a UTC time.
 */
bool hd_time_align_offset(struct hd_time local, struct hd_time utc,
			  int64_t *offset);

/* Whether t has a calendar date (UTC or local). */
bool hd_time_is_dated(struct hd_time t);

/*
 * Where two times are (a before b, ...).  HD_ORDER_UNKNOWN when they are
 * on clocks that cannot be compared, or one is unknown.
 */
enum hd_order {
	HD_ORDER_BEFORE = -1,
	HD_ORDER_SAME = 0, /* equal, or closer than the tolerance */
	HD_ORDER_AFTER = 1,
	HD_ORDER_UNKNOWN = 2,
};

/* What two times share, for clocks that are only comparable locally. */
enum hd_time_scope {
	HD_SCOPE_APART = 0, /* different hosts (or unknown) */
	HD_SCOPE_HOST = 1, /* the same host */
	HD_SCOPE_INPUT = 2, /* the same input (and host) */
};

/*
 * Whether times on these clocks may be compared, given what the two
 * records share: UTC with UTC always; local with local always (the hosts
 * of one job are taken to share a zone); month-day with month-day when at
 * most half a year apart; time of day, boot and trace times only within
 * one input (boot: one host).  Mixed clocks never.
 */
bool hd_time_comparable(struct hd_time a, struct hd_time b,
			enum hd_time_scope scope);

/*
 * Orders a and b: HD_ORDER_SAME when they are within tolerance_ns of
 * each other, HD_ORDER_UNKNOWN when they cannot be compared.
 */
enum hd_order hd_time_order(struct hd_time a, struct hd_time b,
			    enum hd_time_scope scope, int64_t tolerance_ns);

/*
 * The time as a person reads it, with its date and zone or a word saying
 * which are unknown: "2026-11-21 03:22:44.123 UTC", "2026-11-21
 * 03:22:44.123 (local, zone unknown)", "11-21 03:22:44.123 (local, year
 * and zone unknown)", "03:22:44.123 (local, date and zone unknown)",
 * "boot + 12.000 s", "trace + 1.500 s", "?" when unknown.  digits: of the
 * fraction of a second, 0 to 9.  (transfer full)
 */
char *hd_time_format(struct hd_time t, int digits);

#endif
