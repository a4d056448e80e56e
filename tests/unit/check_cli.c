/*
 * CLI helper tests: the one rank-list parser (well-formed lists, unions,
 * and every kind of malformed list refused without a change), and the
 * colour and pager decisions, given a terminal or not without one.
 */
#include "config.h"

#include <string.h>

#include "hd-ranklist.h"
#include "hd-term.h"
#include "hd-test.h"

/* The list after adding spec to an empty one, or NULL if refused. */
static char *parsed(const char *spec)
{
	g_autoptr(hd_ranklist) l = hd_ranklist_new();
	g_autoptr(GError) err = NULL;

	if (!hd_ranklist_add(l, spec, &err)) {
		ck_assert_ptr_nonnull(err);
		ck_assert_ptr_nonnull(strstr(err->message, "'"));
		return NULL;
	}
	ck_assert_ptr_null(err);
	return hd_ranklist_format(l);
}

START_TEST(test_ranklist_forms)
{
	static const char *const cases[][2] = {
		{ "5", "5" },
		{ "0-3", "0-3" },
		{ "0-3,5", "0-3,5" },
		{ "5,0-3", "0-3,5" },
		{ "0-3,4", "0-4" }, /* adjacent ranges merge */
		{ "2,2,2", "2" },
		{ "1-10,3-4", "1-10" },
		{ "7-7", "7" },
		{ "0,2147483647", "0,2147483647" },
		{ "0-2147483647", "0-2147483647" },
		{ "007", "7" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *got = parsed(cases[i][0]);

		ck_assert_msg(got && strcmp(got, cases[i][1]) == 0,
			      "'%s' gave '%s', not '%s'", cases[i][0],
			      got ? got : "(refused)", cases[i][1]);
	}
}
END_TEST

START_TEST(test_ranklist_malformed)
{
	static const char *const bad[] = {
		"",
		",",
		"1,",
		",1",
		"1,,2",
		"-1",
		"1-",
		"-",
		"3-1",
		"1-2-3",
		"a",
		"1a",
		"1 ,2",
		" 1",
		"1 ",
		"0x10",
		"+1",
		"1.5",
		"1--2",
		"2147483648",
		"0-2147483648",
		"99999999999999999999",
		"1;2",
	};

	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_autofree char *got = parsed(bad[i]);

		ck_assert_msg(!got, "'%s' was taken as '%s'", bad[i], got);
	}
}
END_TEST

START_TEST(test_ranklist_union_and_refusal_keeps)
{
	g_autoptr(hd_ranklist) l = hd_ranklist_new();
	g_autofree char *s = NULL;

	ck_assert(hd_ranklist_add(l, "1", NULL));
	ck_assert(hd_ranklist_add(l, "5", NULL));
	/* half good, half bad: nothing of it is taken */
	ck_assert(!hd_ranklist_add(l, "8,x", NULL));
	s = hd_ranklist_format(l);
	ck_assert_str_eq(s, "1,5");
	ck_assert(hd_ranklist_has(l, 1));
	ck_assert(hd_ranklist_has(l, 5));
	ck_assert(!hd_ranklist_has(l, 8));
	ck_assert(!hd_ranklist_has(l, 0));
	ck_assert(!hd_ranklist_has(l, 3));
}
END_TEST

START_TEST(test_ranklist_has_ranges)
{
	g_autoptr(hd_ranklist) l = hd_ranklist_new();

	ck_assert(hd_ranklist_add(l, "0-3,10-20,100,2147483647", NULL));
	for (int r = 0; r <= 120; r++)
		ck_assert_int_eq(hd_ranklist_has(l, r),
				 r <= 3 || (r >= 10 && r <= 20) || r == 100);
	ck_assert(hd_ranklist_has(l, G_MAXINT32));
	ck_assert(!hd_ranklist_has(l, -1));
}
END_TEST

START_TEST(test_color_decision)
{
	enum hd_color_mode m;

	ck_assert(hd_term_color_parse(NULL, &m) && m == HD_COLOR_AUTO);
	ck_assert(hd_term_color_parse("always", &m) && m == HD_COLOR_ALWAYS);
	ck_assert(hd_term_color_parse("never", &m) && m == HD_COLOR_NEVER);
	ck_assert(!hd_term_color_parse("yes", &m));
	ck_assert(!hd_term_color_parse("", &m));
	/* auto: a terminal only, and NO_COLOR or a dumb terminal stop it */
	ck_assert(hd_term_use_color(HD_COLOR_AUTO, true, NULL, "xterm"));
	ck_assert(!hd_term_use_color(HD_COLOR_AUTO, false, NULL, "xterm"));
	ck_assert(!hd_term_use_color(HD_COLOR_AUTO, true, "1", "xterm"));
	ck_assert(hd_term_use_color(HD_COLOR_AUTO, true, "", "xterm"));
	ck_assert(!hd_term_use_color(HD_COLOR_AUTO, true, NULL, "dumb"));
	ck_assert(hd_term_use_color(HD_COLOR_AUTO, true, NULL, NULL));
	/* the command line wins over the environment */
	ck_assert(hd_term_use_color(HD_COLOR_ALWAYS, false, "1", "dumb"));
	ck_assert(!hd_term_use_color(HD_COLOR_NEVER, true, NULL, "xterm"));
}
END_TEST

START_TEST(test_pager_decision)
{
	/* never without a terminal, whatever PAGER says */
	ck_assert_ptr_null(hd_term_pager(false, false, NULL));
	ck_assert_ptr_null(hd_term_pager(false, false, "less"));
	ck_assert_ptr_null(hd_term_pager(true, true, NULL));
	ck_assert_str_eq(hd_term_pager(true, false, NULL), "less -FRX");
	ck_assert_str_eq(hd_term_pager(true, false, "most"), "most");
	ck_assert_ptr_null(hd_term_pager(true, false, ""));
	ck_assert_ptr_null(hd_term_pager(true, false, "cat"));
}
END_TEST

static Suite *cli_suite(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_ranklist_forms);
	tcase_add_test(tc, test_ranklist_malformed);
	tcase_add_test(tc, test_ranklist_union_and_refusal_keeps);
	tcase_add_test(tc, test_ranklist_has_ranges);
	tcase_add_test(tc, test_color_decision);
	tcase_add_test(tc, test_pager_decision);
	suite_add_tcase(s, tc);
	return s;
}

HD_TEST_MAIN(cli_suite)
