/*
 * Time tests: the one date parser (every form the inputs write, and
 * malformed dates), glog month-day times and year inference, which clocks
 * may be compared, the skew tolerance, and printing with date and zone.
 */
#include "config.h"

#include <string.h>

#include "hd-time.h"
#include "hd-test.h"

static struct hd_time date(const char *s, size_t *used)
{
	struct hd_time t = hd_time_none();

	*used = hd_time_scan_date(s, strlen(s), &t);
	return t;
}

static int64_t utc(int y, int m, int d, int hh, int mm, int ss)
{
	return hd_days_from_civil(y, m, d) * HD_NS_PER_DAY +
	       ((int64_t)hh * 3600 + mm * 60 + ss) * HD_NS_PER_SEC;
}

START_TEST(test_date_forms)
{
	size_t used;
	struct hd_time t;

	/* NCCL >= 2.26 WARN stamp: local, zone unknown */
	t = date("2026-06-14 09:05:10] NCCL WARN", &used);
	ck_assert_uint_eq(used, 19);
	ck_assert_int_eq(t.clock, HD_CLOCK_LOCAL);
	ck_assert_int_eq(t.ns, utc(2026, 6, 14, 9, 5, 10));
	/* a collector's ISO date with Z: UTC */
	t = date("2024-03-05T14:02:11Z: x", &used);
	ck_assert_uint_eq(used, 20);
	ck_assert_int_eq(t.clock, HD_CLOCK_UTC);
	ck_assert_int_eq(t.ns, utc(2024, 3, 5, 14, 2, 11));
	/* an offset is applied */
	t = date("2024-03-05T14:02:11.5+08:00 x", &used);
	ck_assert_uint_eq(used, 27);
	ck_assert_int_eq(t.clock, HD_CLOCK_UTC);
	ck_assert_int_eq(t.ns, utc(2024, 3, 5, 6, 2, 11) + HD_NS_PER_SEC / 2);
	t = date("2024-03-05 14:02:11-0130", &used);
	ck_assert_int_eq(t.ns, utc(2024, 3, 5, 15, 32, 11));
	/* torchrun's ChildFailedError "time : 2024-03-05_14:02:11" */
	t = date("2024-03-05_14:02:11", &used);
	ck_assert_uint_eq(used, 19);
	ck_assert_int_eq(t.clock, HD_CLOCK_LOCAL);
	/* " UTC" after the time */
	t = date("2023-11-14 22:13:20 UTC", &used);
	ck_assert_int_eq(t.clock, HD_CLOCK_UTC);
	ck_assert_int_eq(t.ns, utc(2023, 11, 14, 22, 13, 20));
	/* minutes only */
	t = date("2024-02-29 23:59", &used);
	ck_assert_uint_eq(used, 16);
	ck_assert_int_eq(t.ns, utc(2024, 2, 29, 23, 59, 0));
}
END_TEST

START_TEST(test_date_malformed)
{
	static const char *const bad[] = {
		"2024-13-05 10:00:00", /* month 13 */
		"2024-02-30 10:00:00", /* no such day */
		"2023-02-29 10:00:00", /* not a leap year */
		"2024-00-10 10:00:00",
		"2024-04-31 10:00:00",
		"2024-03-05 24:00:00",
		"2024-03-05 10:60:00",
		"2024-03-05 10:00:61",
		"2262-04-12 00:00:00", /* past int64 ns */
		"2201-01-01 00:00:00", /* past HD_TIME_YEAR_MAX */
		"1969-12-31 23:59:59",
		"0000-01-01 00:00:00",
		"2024-3-5 10:00:00",
		"2024-03-05x10:00:00",
		"2024-03-05 1:00:00",
		"2024-03-05",
		"24-03-05 10:00:00",
		"",
		"abcd-ef-gh ij:kl:mn",
	};
	size_t used;

	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		struct hd_time t = date(bad[i], &used);

		ck_assert_msg(used == 0, "'%s' parsed", bad[i]);
		ck_assert(!hd_time_known(t));
	}
	/* a date cut short of its length is no date */
	ck_assert_uint_eq(hd_time_scan_date("2024-03-05 10:00:00", 12,
					    &(struct hd_time){ 0 }),
			  0);
	/* a bad zone is not part of the time; the time stays local */
	{
		struct hd_time t = date("2024-03-05 10:00:00+99:00", &used);

		ck_assert_uint_eq(used, 19);
		ck_assert_int_eq(t.clock, HD_CLOCK_LOCAL);
	}
}
END_TEST

START_TEST(test_glog_and_year)
{
	struct hd_time t, anchor;
	size_t used;

	used = hd_time_scan_glog("0614 09:15:13.203113 ProcessGroupNCCL", 36,
				 true, &t);
	ck_assert_uint_eq(used, 20);
	ck_assert_int_eq(t.clock, HD_CLOCK_MONTH_DAY);
	ck_assert_uint_eq(hd_time_scan_glog("1332 09:15:13", 13, true, &t), 0);
	ck_assert_uint_eq(hd_time_scan_glog("0230 09:15:13", 13, true, &t), 0);
	ck_assert_uint_eq(hd_time_scan_glog("0614 25:15:13", 13, true, &t), 0);
	/* February 29 exists in some year */
	ck_assert_uint_ne(hd_time_scan_glog("0229 09:15:13", 13, true, &t), 0);

	/* the year of a dated record of the same stream */
	hd_time_scan_glog("0614 09:15:13", 13, false, &t);
	date("2026-06-14 09:05:10", &used);
	anchor = date("2026-06-14 09:05:10", &used);
	ck_assert(hd_time_infer_year(&t, anchor));
	ck_assert_int_eq(t.clock, HD_CLOCK_LOCAL);
	ck_assert_int_eq(t.ns, utc(2026, 6, 14, 9, 15, 13));
	/* across New Year: December 31 beside January 1 is the year before */
	hd_time_scan_glog("1231 23:59:58", 13, false, &t);
	anchor = date("2027-01-01 00:00:03", &used);
	ck_assert(hd_time_infer_year(&t, anchor));
	ck_assert_int_eq(t.ns, utc(2026, 12, 31, 23, 59, 58));
	/* February 29 takes the leap year near the anchor */
	hd_time_scan_glog("0229 10:00:00", 13, false, &t);
	anchor = date("2024-03-01 10:00:00", &used);
	ck_assert(hd_time_infer_year(&t, anchor));
	ck_assert_int_eq(t.ns, utc(2024, 2, 29, 10, 0, 0));
	/* and none when no year near the anchor has one */
	hd_time_scan_glog("0229 10:00:00", 13, false, &t);
	anchor = date("2026-03-01 10:00:00", &used);
	ck_assert(!hd_time_infer_year(&t, anchor));
	ck_assert_int_eq(t.clock, HD_CLOCK_MONTH_DAY);
	/* no anchor, no year: never the machine's clock */
	ck_assert(!hd_time_infer_year(&t, hd_time_none()));
	ck_assert(!hd_time_infer_year(
		&t, hd_time_make(3600 * HD_NS_PER_SEC, HD_CLOCK_TIME_OF_DAY)));
}
END_TEST

START_TEST(test_comparable)
{
	size_t used;
	struct hd_time local = date("2026-06-14 09:05:10", &used);
	struct hd_time zulu = date("2026-06-14T09:05:10Z", &used);
	struct hd_time md, md2, tod, tr;

	hd_time_scan_glog("0614 09:15:13", 13, false, &md);
	hd_time_scan_glog("1201 09:15:13", 13, false, &md2);
	tod = hd_time_make(9 * 3600 * HD_NS_PER_SEC, HD_CLOCK_TIME_OF_DAY);
	tr = hd_time_make(5, HD_CLOCK_TRACE);
	/* mixed clocks never compare, even with equal numbers */
	ck_assert(!hd_time_comparable(local, zulu, HD_SCOPE_INPUT));
	ck_assert(!hd_time_comparable(local, md, HD_SCOPE_INPUT));
	ck_assert(!hd_time_comparable(md, tod, HD_SCOPE_INPUT));
	ck_assert_int_eq(hd_time_order(local, md, HD_SCOPE_INPUT, 0),
			 HD_ORDER_UNKNOWN);
	ck_assert(hd_time_comparable(local, local, HD_SCOPE_APART));
	ck_assert(hd_time_comparable(zulu, zulu, HD_SCOPE_APART));
	/* month-day times compare only when no New Year can lie between */
	ck_assert(hd_time_comparable(md, md, HD_SCOPE_APART));
	ck_assert(!hd_time_comparable(md, md2, HD_SCOPE_APART) ||
		  md2.ns - md.ns <= 183 * HD_NS_PER_DAY);
	ck_assert(!hd_time_comparable(
		md,
		hd_time_make(md.ns + 200 * HD_NS_PER_DAY, HD_CLOCK_MONTH_DAY),
		HD_SCOPE_INPUT));
	/* times of day and trace times only within one input */
	ck_assert(!hd_time_comparable(tod, tod, HD_SCOPE_HOST));
	ck_assert(hd_time_comparable(tod, tod, HD_SCOPE_INPUT));
	ck_assert(!hd_time_comparable(tr, tr, HD_SCOPE_HOST));
	/* seconds since boot: on one host only, never against a date */
	ck_assert(hd_time_comparable(hd_time_make(5, HD_CLOCK_BOOT),
				     hd_time_make(9, HD_CLOCK_BOOT),
				     HD_SCOPE_HOST));
	ck_assert(!hd_time_comparable(hd_time_make(5, HD_CLOCK_BOOT),
				      hd_time_make(9, HD_CLOCK_BOOT),
				      HD_SCOPE_APART));
	ck_assert(!hd_time_comparable(hd_time_make(5, HD_CLOCK_BOOT), zulu,
				      HD_SCOPE_INPUT));
	ck_assert(!hd_time_comparable(hd_time_none(), hd_time_none(),
				      HD_SCOPE_INPUT));
}
END_TEST

START_TEST(test_order_tolerance)
{
	struct hd_time a =
		hd_time_make(utc(2024, 3, 5, 13, 0, 0), HD_CLOCK_LOCAL);
	struct hd_time b = hd_time_make(a.ns + HD_NS_PER_SEC, HD_CLOCK_LOCAL);
	struct hd_time c =
		hd_time_make(a.ns + 3 * HD_NS_PER_SEC, HD_CLOCK_LOCAL);

	/* one second apart across hosts: inside the skew, a tie */
	ck_assert_int_eq(hd_time_order(a, b, HD_SCOPE_APART, HD_TIME_SKEW_NS),
			 HD_ORDER_SAME);
	ck_assert_int_eq(hd_time_order(a, b, HD_SCOPE_HOST, 0),
			 HD_ORDER_BEFORE);
	ck_assert_int_eq(hd_time_order(c, a, HD_SCOPE_APART, HD_TIME_SKEW_NS),
			 HD_ORDER_AFTER);
	/* extreme values do not overflow */
	ck_assert_int_eq(
		hd_time_order(hd_time_make(INT64_MIN + 1, HD_CLOCK_TRACE),
			      hd_time_make(INT64_MAX, HD_CLOCK_TRACE),
			      HD_SCOPE_INPUT, HD_TIME_SKEW_NS),
		HD_ORDER_BEFORE);
}
END_TEST

START_TEST(test_format)
{
	size_t used;
	struct hd_time t;
	g_autofree char *a = NULL, *b = NULL, *c = NULL, *d = NULL, *e = NULL,
			*f = NULL, *g = NULL;

	a = hd_time_format(date("2026-11-21 03:22:44.123Z", &used), 3);
	ck_assert_str_eq(a, "2026-11-21 03:22:44.123 UTC");
	b = hd_time_format(date("2026-11-21 03:22:44.123", &used), 3);
	ck_assert_str_eq(b, "2026-11-21 03:22:44.123 (local, zone unknown)");
	hd_time_scan_glog("1121 03:22:44.5", 15, true, &t);
	c = hd_time_format(t, 3);
	ck_assert_str_eq(c,
			 "11-21 03:22:44.500 (local, year and zone unknown)");
	d = hd_time_format(
		hd_time_make(3723 * HD_NS_PER_SEC, HD_CLOCK_TIME_OF_DAY), 0);
	ck_assert_str_eq(d, "01:02:03 (local, date and zone unknown)");
	e = hd_time_format(hd_time_make(1500 * 1000000, HD_CLOCK_TRACE), 3);
	ck_assert_str_eq(e, "trace + 1.500 s");
	f = hd_time_format(hd_time_none(), 3);
	ck_assert_str_eq(f, "?");
	/* a value outside the calendar prints as a number, not a wrong date */
	g = hd_time_format(hd_time_make(INT64_MAX, HD_CLOCK_UTC), 3);
	ck_assert(strstr(g, "ns (utc)") != NULL);
}
END_TEST

/* One event on both clocks of a host aligns them, to a zone's offset. */
START_TEST(test_align)
{
	size_t used;
	struct hd_time utc = date("2026-06-14T01:15:13.204Z", &used);
	struct hd_time local = date("2026-06-14 09:15:13.203", &used);
	int64_t off = 0;

	ck_assert(hd_time_align_offset(local, utc, &off));
	ck_assert_int_eq(off, 8 * 3600 * HD_NS_PER_SEC);
	/* India, +05:30, a line received 40 s late */
	local = date("2026-06-14 06:45:13", &used);
	utc = date("2026-06-14T01:15:53Z", &used);
	ck_assert(hd_time_align_offset(local, utc, &off));
	ck_assert_int_eq(off, (5 * 3600 + 30 * 60) * HD_NS_PER_SEC);
	/* seven minutes off any zone: no evidence of one clock */
	utc = date("2026-06-14T01:22:13Z", &used);
	ck_assert(!hd_time_align_offset(local, utc, &off));
	/* a day apart: not one event */
	utc = date("2026-06-15T01:15:13Z", &used);
	ck_assert(!hd_time_align_offset(local, utc, &off));
	/* the clocks must be a local and a UTC one */
	ck_assert(!hd_time_align_offset(local, local, &off));
	ck_assert(!hd_time_align_offset(utc, utc, &off));
}
END_TEST

static Suite *time_suite(void)
{
	Suite *s = suite_create("time");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_date_forms);
	tcase_add_test(tc, test_date_malformed);
	tcase_add_test(tc, test_glog_and_year);
	tcase_add_test(tc, test_comparable);
	tcase_add_test(tc, test_order_tolerance);
	tcase_add_test(tc, test_format);
	tcase_add_test(tc, test_align);
	suite_add_tcase(s, tc);
	return s;
}

HD_TEST_MAIN(time_suite)
