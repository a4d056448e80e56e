/*
 * Unit tests of the py-spy dump parser (parsers/pyspy.c): the text dump
 * with --locals and --native frames, the --json array, sniffing by
 * content, and hostile or cut input.  And the engine's join of a dump to
 * a rank by pid (src/engine/hd-pyspy.c).
 */
#include "config.h"

#include <string.h>

#include "hd-test-parse.h"
#include "parsers.h"

#define DUMP                                                   \
	"Process 812: python3 train.py\n"                      \
	"Python v3.11.4 (/usr/bin/python3.11)\n"               \
	"\n"                                                   \
	"Thread 812 (idle): \"MainThread\"\n"                  \
	"    get (queue.py:171)\n"                             \
	"    next_batch (feed/loader.py:44)\n"                 \
	"        Arguments:\n"                                 \
	"            self: <Loader at 0x7f00>\n"               \
	"        Locals:\n"                                    \
	"            item: None\n"                             \
	"    step (run.py:9)\n"                                \
	"Thread 0x7F3C6E6D7740 (active+gil): \"worker (x)\"\n" \
	"    cudaStreamSynchronize (libcudart.so.12)\n"        \
	"    all_reduce (torch/distributed/distributed_c10d.py:2501)\n"

START_TEST(test_text)
{
	g_autoptr(hd_store) s = hd_test_parse_ok(HD_INPUT_PYSPY, DUMP);
	const struct hd_signal *m, *w;
	const struct hd_frame *f;
	size_t n = 0;

	ck_assert_int_eq(hd_store_input(s, 0)->kind, HD_INPUT_PYSPY);
	ck_assert_uint_eq(s->signals->len, 2);
	ck_assert_uint_eq(hd_store_input(s, 0)->skipped, 0);
	m = sig_at(s, 0);
	ck_assert_int_eq(m->type, HD_SIGT_PYSPY_THREAD);
	ck_assert_int_eq(m->cat, HD_SIG_INFO);
	ck_assert_int_eq(m->pid, 812);
	ck_assert_int_eq(m->code, 812);
	ck_assert_int_eq(m->rank, -1);
	f = hd_store_stack(s, m->stack, &n);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(f[0].name, "get");
	ck_assert_str_eq(f[1].name, "next_batch");
	ck_assert_str_eq(f[1].file, "feed/loader.py");
	ck_assert_int_eq(f[1].line, 44);
	/* a native frame: its library, no line */
	w = sig_at(s, 1);
	f = hd_store_stack(s, w->stack, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(f[0].name, "cudaStreamSynchronize");
	ck_assert_str_eq(f[0].file, "libcudart.so.12");
	ck_assert_int_eq(f[0].line, 0);
	ck_assert_ptr_nonnull(strstr(w->text, "worker (x)"));
}
END_TEST

START_TEST(test_json)
{
	g_autoptr(hd_store) s = hd_test_parse_ok(
		HD_INPUT_PYSPY,
		"[{\"pid\": 77, \"thread_id\": 1, \"thread_name\": "
		"\"MainThread\", \"os_thread_id\": 78, \"active\": true, "
		"\"owns_gil\": false, \"frames\": [{\"name\": \"fetch\", "
		"\"filename\": \"/a/loader.py\", \"module\": null, "
		"\"short_filename\": \"loader.py\", \"line\": 5, \"locals\": "
		"null}, {\"filename\": \"/a/x.py\", \"line\": 1}]},"
		" {\"pid\": 77, \"thread_id\": 2}, 5]");
	const struct hd_signal *m = sig_at(s, 0);
	const struct hd_frame *f;
	size_t n = 0;

	ck_assert_uint_eq(s->signals->len, 1);
	ck_assert_int_eq(m->pid, 77);
	ck_assert_int_eq(m->code, 78);
	f = hd_store_stack(s, m->stack, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(f[0].file, "loader.py");
	/* a frame without a name, a thread without frames, a number */
	ck_assert_uint_eq(hd_store_input(s, 0)->skipped, 3);
}
END_TEST

START_TEST(test_sniff)
{
	static const char json[] =
		"[\n  {\n    \"pid\": 1,\n    \"thread_id\": 2,\n    "
		"\"thread_name\": \"MainThread\",\n    \"owns_gil\": false,\n"
		"    \"frames\": []\n  }\n]\n";
	static const char log[] = "Process group 0 started\nPython version\n";

	ck_assert_int_eq(parsers_sniff((const uint8_t *)DUMP, strlen(DUMP)),
			 HD_INPUT_PYSPY);
	ck_assert_int_eq(parsers_sniff((const uint8_t *)json, strlen(json)),
			 HD_INPUT_PYSPY);
	/* a log that starts with "Process" is still a log */
	ck_assert_int_eq(parsers_sniff((const uint8_t *)log, strlen(log)),
			 HD_INPUT_NCCL_LOG);
}
END_TEST

START_TEST(test_malformed)
{
	g_autoptr(GString) t = g_string_new("Process 5: x\nPython v3\n");
	g_autoptr(hd_store) s = NULL;
	g_autoptr(hd_store) j = NULL;
	g_autoptr(hd_store) junk = NULL;
	bool ok = true;
	size_t n = 0;

	/* a thread of a million frames keeps a bounded few */
	g_string_append(t, "Thread 5 (idle): \"MainThread\"\n");
	for (int i = 0; i < 100000; i++)
		g_string_append_printf(t, "    f%d (m.py:%d)\n", i, i + 1);
	s = hd_test_parse_ok(HD_INPUT_PYSPY, t->str);
	(void)hd_store_stack(s, sig_at(s, 0)->stack, &n);
	ck_assert_uint_le(n, 256);
	/* cut JSON: an error that names it, no crash */
	j = hd_test_parse_named(HD_INPUT_PYSPY, "t.txt",
				"[{\"pid\": 1, \"frames\": [", &ok);
	ck_assert(!ok);
	/* lines that are no dump: each skipped with a warning */
	junk = hd_test_parse_ok(HD_INPUT_PYSPY,
				"Process : x\n"
				"Thread (idle)\n"
				"    orphan (a.py:1)\n"
				"Thread 9 (idle): \"T\"\n"
				"    no_paren a.py:1\n"
				"    f (a.py:99999999999999999999)\n"
				"    g ()\n"
				"    (x.py:1)\n"
				"garbage\n");
	ck_assert_uint_eq(junk->signals->len, 1);
	(void)hd_store_stack(junk, sig_at(junk, 0)->stack, &n);
	/* f with no usable line: kept, line 0 */
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_ge(hd_store_input(junk, 0)->skipped, 5);
	ck_assert_uint_gt(hd_store_input(junk, 0)->nwarnings, 0);
}
END_TEST

/*
 * Dumps as people paste them (docs/format-pyspy.md, real samples): with
 * the command that printed them above, without the process header (the
 * paste starts at a thread: no pid, joined to nobody), with hex thread
 * ids, or with the id left out.
 */
START_TEST(test_pasted_shapes)
{
	static const char *const dumps[] = {
		"root@node-b:/srv# py-spy dump --native --pid 7\n"
		"Process 7: python3 run.py\n"
		"Python v3.12.3 (/usr/bin/python3.12)\n\n"
		"Thread 7 (idle): \"MainThread\"\n"
		"    0x7f3b2e4a9117 (libc.so.6)\n"
		"    get (queue.py:180)\n",
		"Thread 0x7F768F77C740 (idle): \"MainThread\"\n"
		"    wait (threading.py:295)\n"
		"    main (main.py:841)\n",
		"Thread 90258 (idle): \"Thread-1\"\n"
		"    0x7f13fdd57d71 (libc.so.6)\n"
		"    PyThread_acquire_lock_timed (python3.12)\n",
		"Thread (idle): \"MainThread\"\n"
		"    get (queue.py:180)\n"
		"    _next_data (torch/utils/data/dataloader.py:1524)\n",
	};
	static const int32_t pids[] = { 7, 0, 0, 0 };
	static const char *const not_pyspy[] = {
		/* gdb's thread header */
		"Thread 4 (Thread 0x7fd2 (LWP 95)):\n#0  0x1 in poll ()\n",
		/* a thread line and no frame under it */
		"Thread 7 (idle): \"MainThread\"\nsomething else\n",
	};

	for (size_t i = 0; i < G_N_ELEMENTS(dumps); i++) {
		g_autoptr(hd_store) s = NULL;
		size_t n = 0;

		ck_assert_int_eq(parsers_sniff((const uint8_t *)dumps[i],
					       strlen(dumps[i])),
				 HD_INPUT_PYSPY);
		s = hd_test_parse_ok(HD_INPUT_PYSPY, dumps[i]);
		ck_assert_uint_eq(s->signals->len, 1);
		ck_assert_uint_eq(hd_store_input(s, 0)->skipped, 0);
		ck_assert_int_eq(sig_at(s, 0)->pid, pids[i]);
		(void)hd_store_stack(s, sig_at(s, 0)->stack, &n);
		ck_assert_uint_eq(n, 2);
	}
	for (size_t i = 0; i < G_N_ELEMENTS(not_pyspy); i++)
		ck_assert_int_ne(parsers_sniff((const uint8_t *)not_pyspy[i],
					       strlen(not_pyspy[i])),
				 HD_INPUT_PYSPY);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("pyspy");
	TCase *tc = tcase_create("pyspy");

	tcase_add_test(tc, test_text);
	tcase_add_test(tc, test_json);
	tcase_add_test(tc, test_sniff);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_pasted_shapes);
	suite_add_tcase(s, tc);
	return s;
}

HD_TEST_MAIN(suite)
