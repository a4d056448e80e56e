/*
 * Libraries loaded on first use (src/core/hd-dl.c): a library that is not
 * there and a function a library lacks are errors that name them; a
 * library that is there fills the slots with callable functions, found
 * in the folder given first; and threads that ask at once all see the one
 * result.  libc stands for a library that is always there.  Each struct
 * hd_dl is a static, as hd-dl.h asks: what it keeps (a failure's message)
 * lives as long as the process.
 */
#include "config.h"

#include <dlfcn.h>
#include <string.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <gnu/lib-names.h> /* LIBC_SO */
#endif
#ifndef LIBC_SO
#define LIBC_SO "libc.so"
#endif

#include "hd-dl.h"
#include "hd-error.h"
#include "hd-test.h"
#include "hd-banned.h"

/* getpid(): in every libc, neither an IFUNC nor a sanitizer interceptor. */
static __typeof__(getpid) *my_getpid;
static void *no_such;

static const struct hd_dl_sym getpid_syms[] = {
	{ "getpid", &my_getpid },
	{ NULL, NULL },
};

static const struct hd_dl_sym missing_syms[] = {
	{ "getpid", &my_getpid },
	{ "hd_no_such_function", &no_such },
	{ NULL, NULL },
};

START_TEST(test_missing_library)
{
	static struct hd_dl dl = { .soname = "libhd-no-such-library.so.7",
				   .syms = getpid_syms };
	g_autoptr(GError) err = NULL;
	g_autoptr(GError) again = NULL;

	ck_assert(!hd_dl_load(&dl, &err));
	ck_assert_int_eq(err->code, HD_ERROR_UNSUPPORTED);
	ck_assert_msg(strstr(err->message,
			     "cannot load libhd-no-such-library.so.7: ") ==
			      err->message,
		      "%s", err->message);
	/* the loader's reason follows */
	ck_assert_msg(strstr(err->message, "No such file") != NULL, "%s",
		      err->message);
	ck_assert(!hd_dl_loaded(&dl));
	/* tried once: a later caller gets the same error */
	ck_assert(!hd_dl_load(&dl, &again));
	ck_assert_str_eq(again->message, err->message);
	/* no error asked for */
	ck_assert(!hd_dl_load(&dl, NULL));
}
END_TEST

START_TEST(test_libc_symbol)
{
	static struct hd_dl dl = { .soname = LIBC_SO, .syms = getpid_syms };
	g_autoptr(GError) err = NULL;

	my_getpid = NULL;
	ck_assert(!hd_dl_loaded(&dl));
	ck_assert_msg(hd_dl_load(&dl, &err), "%s", err ? err->message : "");
	ck_assert(hd_dl_loaded(&dl));
	ck_assert_ptr_nonnull(my_getpid);
	ck_assert_int_eq(my_getpid(), getpid());
	/* loaded once: a second call needs nothing more */
	ck_assert(hd_dl_load(&dl, NULL));
}
END_TEST

START_TEST(test_missing_symbol)
{
	static struct hd_dl dl = { .soname = LIBC_SO, .syms = missing_syms };
	g_autoptr(GError) err = NULL;

	ck_assert(!hd_dl_load(&dl, &err));
	ck_assert_int_eq(err->code, HD_ERROR_UNSUPPORTED);
	ck_assert_msg(strstr(err->message, "cannot load " LIBC_SO ": ") ==
			      err->message,
		      "%s", err->message);
	ck_assert_msg(strstr(err->message, "no function hd_no_such_function") !=
			      NULL,
		      "%s", err->message);
	ck_assert(!hd_dl_loaded(&dl));
	/* the functions found before it are not left callable */
	ck_assert_ptr_null(my_getpid);
	ck_assert_ptr_null(no_such);
}
END_TEST

/* The path of the libc this process runs with.  (transfer full) */
static char *libc_path(void)
{
	void *h = dlopen(LIBC_SO, RTLD_NOW | RTLD_LOCAL);
	Dl_info info = { 0 };

	ck_assert_ptr_nonnull(h);
	ck_assert(dladdr(dlsym(h, "getpid"), &info));
	ck_assert_ptr_nonnull(info.dli_fname);
	dlclose(h);
	return g_strdup(info.dli_fname);
}

START_TEST(test_dir_first)
{
	g_autofree char *dir = g_dir_make_tmp("hd-dl-XXXXXX", NULL);
	g_autofree char *real = libc_path();
	g_autofree char *alias = NULL;
	static struct hd_dl in_dir = { .soname = "libhd-dl-alias.so.1",
				       .syms = getpid_syms };
	static struct hd_dl no_dir = { .soname = "libhd-dl-alias.so.1",
				       .syms = getpid_syms };
	static struct hd_dl fallback = { .soname = LIBC_SO,
					 .dir = "/nonexistent/hd-dl",
					 .syms = getpid_syms };
	g_autoptr(GError) err = NULL;

	ck_assert_ptr_nonnull(dir);
	in_dir.dir = dir;
	alias = g_build_filename(dir, "libhd-dl-alias.so.1", NULL);
	ck_assert_int_eq(symlink(real, alias), 0);
	/* a name only the folder has: found there */
	ck_assert_msg(hd_dl_load(&in_dir, &err), "%s", err ? err->message : "");
	ck_assert_int_eq(my_getpid(), getpid());
	/* not on the loader's path: the folder is what found it */
	ck_assert(!hd_dl_load(&no_dir, NULL));
	/* a folder without it: the soname is tried next */
	ck_assert(hd_dl_load(&fallback, NULL));
	unlink(alias);
	rmdir(dir);
}
END_TEST

struct race {
	struct hd_dl *dl;
	bool ok;
};

static gpointer racer(gpointer data)
{
	struct race *r = data;

	r->ok = hd_dl_load(r->dl, NULL);
	return NULL;
}

START_TEST(test_threads)
{
	static struct hd_dl good = { .soname = LIBC_SO, .syms = getpid_syms };
	static struct hd_dl bad = { .soname = "libhd-no-such-library.so.7",
				    .syms = getpid_syms };
	struct race races[16];
	GThread *threads[16];

	for (int i = 0; i < 16; i++) {
		races[i].dl = i % 2 ? &bad : &good;
		races[i].ok = false;
		threads[i] = g_thread_new("racer", racer, &races[i]);
	}
	for (int i = 0; i < 16; i++) {
		g_thread_join(threads[i]);
		ck_assert(races[i].ok == (i % 2 == 0));
	}
	ck_assert(hd_dl_loaded(&good));
	ck_assert_int_eq(my_getpid(), getpid());
}
END_TEST

static Suite *dl_suite(void)
{
	Suite *s = suite_create("dl");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_missing_library);
	tcase_add_test(tc, test_libc_symbol);
	tcase_add_test(tc, test_missing_symbol);
	tcase_add_test(tc, test_dir_first);
	tcase_add_test(tc, test_threads);
	suite_add_tcase(s, tc);
	return s;
}

HD_TEST_MAIN(dl_suite)
