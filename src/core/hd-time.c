/*
 * Times and their clocks (hd-time.h): the project's one date parser, the
 * rule for which clocks may be compared, year inference for glog's
 * month-day times, and how a time is printed with its date and zone.
 */
#include "config.h"

#include "hd-time.h"

#include <string.h>

#include "hd-banned.h"

/* A leap year: month-day times count from its January 1. */
#define MD_YEAR 2000

const char *hd_clock_name(enum hd_clock clock)
{
	static const char *const names[HD_CLOCK_COUNT] = {
		[HD_CLOCK_NONE] = "none",
		[HD_CLOCK_UTC] = "utc",
		[HD_CLOCK_LOCAL] = "local",
		[HD_CLOCK_MONTH_DAY] = "month_day",
		[HD_CLOCK_TIME_OF_DAY] = "time_of_day",
		[HD_CLOCK_BOOT] = "boot",
		[HD_CLOCK_TRACE] = "trace",
	};

	return (unsigned)clock < HD_CLOCK_COUNT ? names[clock] : "none";
}

/* Hinnant's days_from_civil. */
int64_t hd_days_from_civil(int64_t y, int64_t m, int64_t d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* The inverse: the date of a day count. */
static void civil_from_days(int64_t z, int *y, int *m, int *d)
{
	int64_t era, doe, yoe, doy, mp, yy;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	yy = yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yy + (*m <= 2));
}

static bool is_leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int days_in_month(int64_t y, int m)
{
	static const int dm[] = {
		31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
	};

	return m == 2 && is_leap(y) ? 29 : dm[m - 1];
}

static bool digits(const char *s, size_t k, int *out)
{
	int v = 0;

	for (size_t i = 0; i < k; i++) {
		if (!g_ascii_isdigit(s[i]))
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return true;
}

size_t hd_time_scan_hms(const char *s, size_t n, bool with_frac, int64_t *ns)
{
	int hh, mm, ss = 0;
	size_t used = 5;
	int64_t frac = 0, scale = 100000000;

	if (n < 5 || !digits(s, 2, &hh) || s[2] != ':' ||
	    !digits(s + 3, 2, &mm) || hh > 23 || mm > 59)
		return 0;
	if (n >= 8 && s[5] == ':' && digits(s + 6, 2, &ss)) {
		if (ss > 60)
			return 0;
		used = 8;
		if (n > 9 && (s[8] == '.' || s[8] == ',') &&
		    g_ascii_isdigit(s[9])) {
			used = 9;
			while (used < n && g_ascii_isdigit(s[used])) {
				frac += (s[used] - '0') * scale;
				scale /= 10;
				used++;
			}
		}
	}
	*ns = ((int64_t)hh * 3600 + mm * 60 + ss) * HD_NS_PER_SEC +
	      (with_frac ? frac : 0);
	return used;
}

/* A zone after a time: "Z", " UTC", "+hh:mm", "+hhmm", "+hh"; *min east. */
static size_t scan_zone(const char *s, size_t n, int *min)
{
	int hh, mm = 0;
	size_t used;

	if (n >= 1 && s[0] == 'Z') {
		*min = 0;
		return 1;
	}
	if (n >= 4 && memcmp(s, " UTC", 4) == 0 &&
	    (n == 4 || !g_ascii_isalnum(s[4]))) {
		*min = 0;
		return 4;
	}
	if (n < 3 || (s[0] != '+' && s[0] != '-') || !digits(s + 1, 2, &hh))
		return 0;
	used = 3;
	if (n >= 6 && s[3] == ':' && digits(s + 4, 2, &mm))
		used = 6;
	else if (n >= 5 && digits(s + 3, 2, &mm))
		used = 5;
	if (hh > 14 || mm > 59)
		return 0;
	*min = (hh * 60 + mm) * (s[0] == '-' ? -1 : 1);
	return used;
}

bool hd_time_from_civil(int64_t y, int64_t m, int64_t d, int64_t tod,
			enum hd_clock clock, struct hd_time *out)
{
	if (y < HD_TIME_YEAR_MIN || y > HD_TIME_YEAR_MAX || m < 1 || m > 12 ||
	    d < 1 || d > days_in_month(y, (int)m))
		return false;
	out->ns = hd_days_from_civil(y, m, d) * HD_NS_PER_DAY + tod;
	out->clock = clock;
	return true;
}

size_t hd_time_scan_date(const char *s, size_t n, struct hd_time *out)
{
	int y, mo, d, zone;
	int64_t tod;
	size_t used, z;

	if (n < 16 || !digits(s, 4, &y) || s[4] != '-' ||
	    !digits(s + 5, 2, &mo) || s[7] != '-' || !digits(s + 8, 2, &d) ||
	    (s[10] != ' ' && s[10] != 'T' && s[10] != '_'))
		return 0;
	used = hd_time_scan_hms(s + 11, n - 11, true, &tod);
	if (!used || !hd_time_from_civil(y, mo, d, tod, HD_CLOCK_LOCAL, out))
		return 0;
	used += 11;
	z = scan_zone(s + used, n - used, &zone);
	if (z) {
		out->ns -= (int64_t)zone * 60 * HD_NS_PER_SEC;
		out->clock = HD_CLOCK_UTC;
		used += z;
	}
	return used;
}

size_t hd_time_scan_glog(const char *s, size_t n, bool with_frac,
			 struct hd_time *out)
{
	int mo, d;
	int64_t tod;
	size_t k = 0, used;

	while (k < n && k < 5 && g_ascii_isdigit(s[k]))
		k++;
	/* "MMDD" (glog) or "MDD" (c10d's own logger pads no month) */
	if ((k != 3 && k != 4) || k >= n || s[k] != ' ' ||
	    !digits(s, k - 2, &mo) || !digits(s + k - 2, 2, &d) || mo < 1 ||
	    mo > 12 || d < 1 || d > days_in_month(MD_YEAR, mo))
		return 0;
	used = hd_time_scan_hms(s + k + 1, n - k - 1, with_frac, &tod);
	if (!used)
		return 0;
	out->ns = (hd_days_from_civil(MD_YEAR, mo, d) -
		   hd_days_from_civil(MD_YEAR, 1, 1)) *
			  HD_NS_PER_DAY +
		  tod;
	out->clock = HD_CLOCK_MONTH_DAY;
	return k + 1 + used;
}

/* A month-day time's month, day and ns since midnight. */
static void month_day_split(int64_t ns, int *m, int *d, int64_t *tod)
{
	int y;
	int64_t day = ns / HD_NS_PER_DAY;

	civil_from_days(hd_days_from_civil(MD_YEAR, 1, 1) + day, &y, m, d);
	*tod = ns % HD_NS_PER_DAY;
}

bool hd_time_is_dated(struct hd_time t)
{
	return hd_time_known(t) &&
	       (t.clock == HD_CLOCK_UTC || t.clock == HD_CLOCK_LOCAL);
}

bool hd_time_infer_year(struct hd_time *t, struct hd_time anchor)
{
	int ay, am, ad, m, d;
	int64_t tod, best = INT64_MIN;

	if (!t || !hd_time_known(*t) || t->clock != HD_CLOCK_MONTH_DAY ||
	    !hd_time_is_dated(anchor) || anchor.ns < 0 ||
	    anchor.ns >= HD_TIME_NS_MAX)
		return false;
	civil_from_days(anchor.ns / HD_NS_PER_DAY, &ay, &am, &ad);
	month_day_split(t->ns, &m, &d, &tod);
	for (int y = ay - 1; y <= ay + 1; y++) {
		int64_t ns, dist;

		if (y < HD_TIME_YEAR_MIN || y > HD_TIME_YEAR_MAX ||
		    d > days_in_month(y, m))
			continue;
		ns = hd_days_from_civil(y, m, d) * HD_NS_PER_DAY + tod;
		dist = ns > anchor.ns ? ns - anchor.ns : anchor.ns - ns;
		if (dist <= 183 * HD_NS_PER_DAY &&
		    (best == INT64_MIN ||
		     dist < (best > anchor.ns ? best - anchor.ns
					      : anchor.ns - best)))
			best = ns;
	}
	if (best == INT64_MIN)
		return false;
	t->ns = best;
	t->clock = HD_CLOCK_LOCAL;
	return true;
}

bool hd_time_align_offset(struct hd_time local, struct hd_time utc,
			  int64_t *offset)
{
	const int64_t quarter = 15 * 60 * HD_NS_PER_SEC;
	int64_t off, q;

	if (!hd_time_known(local) || !hd_time_known(utc) ||
	    local.clock != HD_CLOCK_LOCAL || utc.clock != HD_CLOCK_UTC ||
	    local.ns < 0 || local.ns >= HD_TIME_NS_MAX || utc.ns < 0 ||
	    utc.ns >= HD_TIME_NS_MAX)
		return false;
	off = local.ns - utc.ns;
	q = (off >= 0 ? off + quarter / 2 : off - quarter / 2) / quarter *
	    quarter;
	if (q > 14 * 3600 * HD_NS_PER_SEC || q < -14 * 3600 * HD_NS_PER_SEC ||
	    (off > q ? off - q : q - off) > 2 * 60 * HD_NS_PER_SEC)
		return false;
	*offset = q;
	return true;
}

bool hd_time_comparable(struct hd_time a, struct hd_time b,
			enum hd_time_scope scope)
{
	if (!hd_time_known(a) || !hd_time_known(b) || a.clock != b.clock)
		return false;
	switch (a.clock) {
	case HD_CLOCK_UTC:
	case HD_CLOCK_LOCAL:
		return true;
	case HD_CLOCK_MONTH_DAY:
		/* one year assumed: only when that cannot cross New Year */
		return (a.ns > b.ns ? a.ns - b.ns : b.ns - a.ns) <=
		       183 * HD_NS_PER_DAY;
	case HD_CLOCK_BOOT:
		return scope >= HD_SCOPE_HOST;
	case HD_CLOCK_TIME_OF_DAY:
	case HD_CLOCK_TRACE:
		return scope >= HD_SCOPE_INPUT;
	default:
		return false;
	}
}

enum hd_order hd_time_order(struct hd_time a, struct hd_time b,
			    enum hd_time_scope scope, int64_t tolerance_ns)
{
	int64_t lo, hi;

	if (!hd_time_comparable(a, b, scope))
		return HD_ORDER_UNKNOWN;
	lo = MIN(a.ns, b.ns);
	hi = MAX(a.ns, b.ns);
	if (lo < 0 && hi > INT64_MAX + lo)
		return a.ns < b.ns ? HD_ORDER_BEFORE : HD_ORDER_AFTER;
	if (hi - lo <= tolerance_ns)
		return HD_ORDER_SAME;
	return a.ns < b.ns ? HD_ORDER_BEFORE : HD_ORDER_AFTER;
}

/* "hh:mm:ss[.fff]" of ns since midnight into s. */
static void append_tod(GString *s, int64_t tod, int digits)
{
	int64_t sec = tod / HD_NS_PER_SEC, frac = tod % HD_NS_PER_SEC;

	g_string_append_printf(s, "%02d:%02d:%02d", (int)(sec / 3600),
			       (int)(sec / 60 % 60), (int)(sec % 60));
	if (digits > 0) {
		int64_t div = 1;

		for (int i = digits; i < 9; i++)
			div *= 10;
		g_string_append_printf(s, ".%0*" G_GINT64_FORMAT, digits,
				       frac / div);
	}
}

char *hd_time_format(struct hd_time t, int digits)
{
	GString *s;
	int y, m, d;
	int64_t tod;

	digits = CLAMP(digits, 0, 9);
	if (!hd_time_known(t))
		return g_strdup("?");
	s = g_string_new(NULL);
	switch (t.clock) {
	case HD_CLOCK_UTC:
	case HD_CLOCK_LOCAL:
		if (t.ns < 0 || t.ns >= HD_TIME_NS_MAX) {
			g_string_printf(s, "%" G_GINT64_FORMAT " ns (%s)", t.ns,
					hd_clock_name(t.clock));
			break;
		}
		civil_from_days(t.ns / HD_NS_PER_DAY, &y, &m, &d);
		g_string_append_printf(s, "%04d-%02d-%02d ", y, m, d);
		append_tod(s, t.ns % HD_NS_PER_DAY, digits);
		g_string_append(s, t.clock == HD_CLOCK_UTC
					   ? " UTC"
					   : " (local, zone unknown)");
		break;
	case HD_CLOCK_MONTH_DAY:
		if (t.ns < 0 || t.ns >= 366 * HD_NS_PER_DAY) {
			g_string_append(s, "?");
			break;
		}
		month_day_split(t.ns, &m, &d, &tod);
		g_string_append_printf(s, "%02d-%02d ", m, d);
		append_tod(s, tod, digits);
		g_string_append(s, " (local, year and zone unknown)");
		break;
	case HD_CLOCK_TIME_OF_DAY:
		if (t.ns < 0 || t.ns >= HD_NS_PER_DAY) {
			g_string_append(s, "?");
			break;
		}
		append_tod(s, t.ns, digits);
		g_string_append(s, " (local, date and zone unknown)");
		break;
	case HD_CLOCK_BOOT:
	case HD_CLOCK_TRACE:
		g_string_append_printf(s, "%s %s %" G_GINT64_FORMAT ".%03d s",
				       t.clock == HD_CLOCK_BOOT ? "boot"
								: "trace",
				       t.ns < 0 ? "-" : "+",
				       (t.ns < 0 ? -(t.ns / HD_NS_PER_SEC)
						 : t.ns / HD_NS_PER_SEC),
				       (int)((t.ns < 0 ? -(t.ns % HD_NS_PER_SEC)
						       : t.ns % HD_NS_PER_SEC) /
					     1000000));
		break;
	default:
		g_string_append(s, "?");
		break;
	}
	return g_string_free(s, FALSE);
}
