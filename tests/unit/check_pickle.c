/* Placeholder suite for pickle until its tests land. */
#include "config.h"
#include "hd-test.h"

START_TEST(test_placeholder)
{
	ck_assert_int_eq(parsers_rank_from_filename("rank_3.pkl"), 3);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("pickle");
	TCase *tc = tcase_create("placeholder");

	tcase_add_test(tc, test_placeholder);
	suite_add_tcase(s, tc);
	return s;
}

HD_TEST_MAIN(suite)
