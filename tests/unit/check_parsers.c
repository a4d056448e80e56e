/*
 * The parser contract (parsers/parsers.c): content sniffing, ranks from file
 * names, and the one entry point that parses an input into a store; and
 * the loader's description of each file as stored (parsers/hd-load.c).
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

#include <xxhash.h>

#include "hd-const.h"
#include "hd-load.h"
#include "hd-test-parse.h"
#include "hd-budget.h"
#include "rank-name.h"

START_TEST(test_sniff)
{
	static const uint8_t pkl[] = { 0x80, 0x02, 0x7d, 0x28 };
	static const char fr_json[] =
		"{\"comm_lib_version\": \"2.21.5\", \"entries\": []}";
	static const char trace[] =
		"{\n  \"schemaVersion\": 1,\n  \"traceEvents\": [";
	static const char log[] =
		"node-a:1:1 [0] NCCL INFO Bootstrap : Using eth0\n";
	static const uint8_t bin[] = { 0, 1, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0 };

	ck_assert_int_eq(parsers_sniff(pkl, sizeof(pkl)), HD_INPUT_FLIGHT_REC);
	ck_assert_int_eq(
		parsers_sniff((const uint8_t *)fr_json, strlen(fr_json)),
		HD_INPUT_FLIGHT_REC);
	ck_assert_int_eq(parsers_sniff((const uint8_t *)trace, strlen(trace)),
			 HD_INPUT_KINETO);
	ck_assert_int_eq(parsers_sniff((const uint8_t *)log, strlen(log)),
			 HD_INPUT_NCCL_LOG);
	ck_assert_int_eq(parsers_sniff(bin, sizeof(bin)), HD_INPUT_UNKNOWN);
	/* Wrapper prefixes that start with '[' are still text. */
	ck_assert_int_eq(
		parsers_sniff(
			(const uint8_t
				 *)"[default0]:node-a:1:1 [0] NCCL INFO x\n",
			38),
		HD_INPUT_NCCL_LOG);
	ck_assert_int_eq(
		parsers_sniff(
			(const uint8_t
				 *)"[1,5]<stdout>:node-a:1:1 [0] NCCL INFO x\n",
			41),
		HD_INPUT_NCCL_LOG);
	ck_assert_int_eq(parsers_sniff(NULL, 0), HD_INPUT_UNKNOWN);
}
END_TEST

/*
 * Every input kind but UNKNOWN has exactly one registry entry, with a name
 * of its own, and the budget follows the entry (a pickle dump is not a
 * JSON dump).
 */
START_TEST(test_registry_covers_kinds)
{
	static const uint8_t pickle[] = { 0x80, 0x04, 0x95 };
	static const char json[] = "{\"pg_config\": {}}";
	struct parsers_budget b;

	ck_assert_ptr_null(parsers_entry(HD_INPUT_UNKNOWN));
	for (int k = HD_INPUT_UNKNOWN + 1; k < HD_INPUT_KIND_COUNT; k++) {
		const struct parsers_entry *e = parsers_entry(k);

		ck_assert_ptr_nonnull(e);
		ck_assert_int_eq(e->kind, k);
		ck_assert_ptr_nonnull(e->sniff);
		ck_assert_ptr_nonnull(e->parse);
		ck_assert_ptr_nonnull(e->budget);
		ck_assert_str_ne(hd_input_kind_name(k), "unknown");
		for (int j = HD_INPUT_UNKNOWN + 1; j < k; j++)
			ck_assert_str_ne(hd_input_kind_name(j),
					 hd_input_kind_name(k));
	}
	ck_assert_str_eq(hd_input_kind_name(HD_INPUT_KIND_COUNT), "unknown");
	ck_assert_uint_eq(hd_input_kind_flags(HD_INPUT_KIND_COUNT), 0);
	/* what core and the engine know of a kind is its line's flags */
	ck_assert(hd_input_kind_flags(HD_INPUT_KERNEL_LOG) &
		  HD_KIND_HOST_STATE);
	ck_assert(
		!(hd_input_kind_flags(HD_INPUT_NCCL_LOG) & HD_KIND_HOST_STATE));
	ck_assert(hd_input_kind_flags(HD_INPUT_GDB) & HD_KIND_RANK_BY_PID);
	b = parsers_budget(HD_INPUT_FLIGHT_REC, pickle, sizeof(pickle));
	ck_assert_uint_eq(b.bytes, HD_BUDGET_FR_PICKLE_BYTES);
	ck_assert_str_eq(b.what, "a flight-recorder pickle");
	b = parsers_budget(HD_INPUT_FLIGHT_REC, (const uint8_t *)json,
			   strlen(json));
	ck_assert_uint_eq(b.bytes, HD_BUDGET_FR_JSON_BYTES);
	b = parsers_budget(HD_INPUT_UNKNOWN, NULL, 0);
	ck_assert_uint_eq(b.bytes, HD_BUDGET_DEFAULT_BYTES);
	/* the sniffed kind of a head is its registry entry's */
	ck_assert_int_eq(parsers_sniff(pickle, sizeof(pickle)),
			 HD_INPUT_FLIGHT_REC);
	ck_assert_int_eq(parsers_sniff((const uint8_t *)json, strlen(json)),
			 HD_INPUT_FLIGHT_REC);
}
END_TEST

START_TEST(test_rank_from_filename)
{
	ck_assert_int_eq(parsers_rank_from_filename("/tmp/nccl_trace_rank_12"),
			 12);
	ck_assert_int_eq(
		parsers_rank_from_filename("comm_lib_trace_rank_3.pkl"), 3);
	ck_assert_int_eq(
		parsers_rank_from_filename("d/nccl_trace_rank_node-a_5"), 5);
	ck_assert_int_eq(parsers_rank_from_filename("rank7.json.gz"), 7);
	ck_assert_int_eq(parsers_rank_from_filename("trace.json.zst"), -1);
	ck_assert_int_eq(parsers_rank_from_filename("dump"), -1);
	/* Ten digits is not a rank. */
	ck_assert_int_eq(parsers_rank_from_filename("x_1234567890"), -1);
}
END_TEST

START_TEST(test_parse_input_records_errors)
{
	static const char garbage[] = "\x01\x02 not a log, a dump or a trace";
	g_autoptr(hd_store) s = NULL;
	const struct hd_input *in;
	bool ok = true;

	/* Unknown content is an input with an error, never a failure. */
	s = hd_test_parse(HD_INPUT_UNKNOWN, "junk.bin", garbage,
			  sizeof(garbage) - 1, &ok, NULL);
	in = hd_store_input(s, 0);
	ck_assert(!ok);
	ck_assert_str_eq(in->path, "junk.bin");
	ck_assert_int_eq(in->kind, HD_INPUT_UNKNOWN);
	ck_assert_str_eq(in->error, "unrecognized format, skipped");
	g_clear_pointer(&s, hd_store_free);

	/* Empty content says so. */
	s = hd_test_parse(HD_INPUT_UNKNOWN, "empty.log", "", 0, &ok, NULL);
	ck_assert(!ok);
	ck_assert_str_eq(hd_store_input(s, 0)->error, "empty file");
}
END_TEST

START_TEST(test_parse_file_sniffs_and_ranks)
{
	g_autofree char *missing = hd_test_path("tests/data/no-such-file.log");
	g_autofree char *dir = g_dir_make_tmp("hd-parse-XXXXXX", NULL);
	g_autofree char *path = g_build_filename(dir, "rank3.log", NULL);
	static const char log[] =
		"node-a:123:456 [3] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
		"node-a:123:456 [3] NCCL INFO comm 0x5d1f8e0 rank 3 nranks 4 "
		"cudaDev 3 nvmlDev 3 busId 3d000 commId 0x1a2b3c4d - Init "
		"COMPLETE\n";
	g_autoptr(hd_store) a = parsers_parse_file(missing);
	g_autoptr(hd_store) b = NULL;
	const struct hd_input *in;

	ck_assert_ptr_nonnull(hd_store_input(a, 0)->error);
	ck_assert(g_file_set_contents(path, log, -1, NULL));
	b = parsers_parse_file(path);
	in = hd_store_input(b, 0);
	ck_assert_ptr_null(in->error);
	ck_assert_int_eq(in->kind, HD_INPUT_NCCL_LOG);
	ck_assert_int_eq(in->rank, 3);
	ck_assert_uint_eq(in->bytes, sizeof(log) - 1);
	g_unlink(path);
	g_rmdir(dir);
}
END_TEST

/* hangdoc's own outputs are known by their first bytes; logs are not. */
START_TEST(test_own_outputs)
{
	static const char *const own[] = {
		"missing_rank [high] rank 5 (node-b), group 0 seq 38\n",
		"insufficient_data [medium]: an error or hang was seen\n",
		"WARNING: these inputs cannot all belong to one incident:\n",
		"# hangdoc: missing_rank, rank 5 (high confidence)\n",
		"<!DOCTYPE html>\n<html>\n<title>hangdoc: no_fault</title>",
		"{\n  \"schema\": 1,\n  \"tool\": {\n    \"name\": \"hangdoc\",",
		"{\"path\":\"x\",\"verdict\":\"no_fault\",\"fingerprint\":\"0\"}",
		"{\"generator\": \"hangdoc 0.1.0\",\n\"traceEvents\": [",
		"ops: 3\ngroup     rank seq   kind  state  source\n",
	};
	static const char plan[] =
		"{\n  \"format\": \"hangdoc-replay-plan\",\n  \"version\": 1,\n"
		"  \"seq_kind\": \"collective\",\n  \"ranks\": [\n    {\n"
		"      \"ops\": [\n";
	static const char *const not_own[] = {
		"node-a:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n",
		"error [high] voltage on rack 3\n",
		"ab [high] too short a word\n",
		"missing_rank [urgent] rank 5\n",
		"# hangdocs are nice\n",
		"{\"traceEvents\": [{\"ph\": \"X\"}]}",
		"{\"tool\": \"other\", \"name\": \"hangdocx\"}",
	};

	for (size_t i = 0; i < G_N_ELEMENTS(own); i++)
		ck_assert_msg(parsers_own_output((const uint8_t *)own[i],
						 strlen(own[i])),
			      "not recognised: %s", own[i]);
	/* a replay plan is named as one, not as a listing of ops */
	ck_assert_str_eq(
		parsers_own_output((const uint8_t *)plan, strlen(plan)),
		"a hangdoc replay plan");
	for (size_t i = 0; i < G_N_ELEMENTS(not_own); i++)
		ck_assert_msg(!parsers_own_output((const uint8_t *)not_own[i],
						  strlen(not_own[i])),
			      "taken for hangdoc's: %s", not_own[i]);
}
END_TEST

/* Runs the shell command prog on path, quoted; its output.  (transfer full) */
static char *run_on(const char *prog, const char *path)
{
	g_autofree char *quoted = g_shell_quote(path);
	g_autofree char *cmd = g_strdup_printf("%s -- %s", prog, quoted);
	const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	g_autoptr(GError) err = NULL;
	char *out = NULL;
	int status = 0;

	ck_assert_msg(g_spawn_sync(NULL, (char **)hd_unconst(argv), NULL,
				   G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out,
				   NULL, &status, &err),
		      "%s: %s", cmd, err ? err->message : "?");
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "%s failed", cmd);
	return out;
}

/* What sha256sum says of path: 64 hex digits.  (transfer full) */
static char *sha256sum(const char *path)
{
	g_autofree char *out = run_on("sha256sum", path);

	ck_assert(out && strlen(out) > 64 && out[64] == ' ');
	return g_strndup(out, 64);
}

/*
 * XXH3-128 of path's bytes in canonical lowercase hex, as xxhsum -H2
 * prints it, hashed here in one piece.  (transfer full)
 */
static char *xxh128sum(const char *path)
{
	g_autofree char *data = NULL;
	gsize len;
	XXH128_canonical_t c;
	GString *hex = g_string_new(NULL);

	ck_assert(g_file_get_contents(path, &data, &len, NULL));
	XXH128_canonicalFromHash(&c, XXH3_128bits(data, len));
	for (size_t i = 0; i < sizeof(c.digest); i++)
		g_string_append_printf(hex, "%02x", c.digest[i]);
	return g_string_free(hex, FALSE);
}

/*
 * Loads paths describing each file, checks each against xxh128sum() and,
 * with sha256, sha256sum; without, no SHA-256 is given.
 */
static void check_described(char **paths, guint inputs, guint problems_want,
			    bool sha256)
{
	g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func(g_free);
	const struct hd_load_opts o = { .jobs = 2,
					.describe = true,
					.sha256 = sha256 };
	g_autoptr(hd_store) s = hd_load_with(paths, &o, problems);

	ck_assert_uint_eq(s->inputs->len, inputs);
	ck_assert_uint_eq(problems->len, problems_want);
	for (guint i = 0; i < s->inputs->len; i++) {
		const struct hd_input *in = hd_store_input(s, i);
		g_autofree char *xxh = xxh128sum(in->path);
		GStatBuf st;

		ck_assert_ptr_nonnull(in->xxh3_128);
		ck_assert_str_eq(in->xxh3_128, xxh);
		if (sha256) {
			g_autofree char *want = sha256sum(in->path);

			ck_assert_ptr_nonnull(in->sha256);
			ck_assert_str_eq(in->sha256, want);
		} else {
			ck_assert_ptr_null(in->sha256);
		}
		ck_assert_int_eq(g_stat(in->path, &st), 0);
		ck_assert_int_eq(in->file_size, (int64_t)st.st_size);
	}
}

/*
 * Issue 22: the xxh3_128 a JSON report gives each file, and the sha256
 * with --sha256, are those of the bytes as stored (sha256sum's), hashed
 * in the read that parses them: for a plain log, its gzip copy (a
 * repeat, read once), and a log whose parse stops at its budget (the
 * rest is read for the hashes alone).
 */
START_TEST(test_load_describes_stored_bytes)
{
	g_autofree char *dir = g_dir_make_tmp("hd-sha-XXXXXX", NULL);
	g_autofree char *plain = g_build_filename(dir, "rank0.log", NULL);
	g_autofree char *gz = g_build_filename(dir, "rank0.log.gz", NULL);
	g_autoptr(GString) log = g_string_new(NULL);
	char *both[] = { plain, gz, NULL };
	char *one[] = { plain, NULL };

	g_string_append(log, "node-a:123:456 [0] NCCL INFO comm 0x5d1f8e0 "
			     "rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId "
			     "3d000 commId 0x1a2b3c4d - Init COMPLETE\n");
	/* past the first reads, hashed apart, and hd-sha256's inline part */
	for (int i = 0; log->len < HD_SHA256_INLINE_BYTES + (1 << 20); i++)
		g_string_append_printf(
			log,
			"node-a:123:456 [0] NCCL INFO AllReduce: opCount %x "
			"sendbuff 0x7f00 recvbuff 0x7f00 count 1024 datatype 7 "
			"op 0 root 0 comm 0x5d1f8e0 [nranks=2] stream 0x9\n",
			i);
	ck_assert(g_file_set_contents(plain, log->str, (gssize)log->len, NULL));
	g_free(run_on("gzip -k -n", plain));
	check_described(both, 2, 0, true);
	check_described(both, 2, 0, false);
	/* the parse stops at 64 KiB; the hashes do not */
	g_setenv("HANGDOC_MAX_INPUT_SIZE", "64K", TRUE);
	check_described(one, 1, 1, true);
	check_described(one, 1, 1, false);
	g_unsetenv("HANGDOC_MAX_INPUT_SIZE");
	g_unlink(gz);
	g_unlink(plain);
	g_rmdir(dir);
}
END_TEST

/*
 * Dumps that repeat one world group share its parsed member list: after
 * a load of four ranks' dumps the group points at one interned list,
 * whose ranks are the dumps' (0-3), and each dump's rank is still its
 * own (membership found by search in the shared list).
 */
START_TEST(test_fr_member_lists_shared)
{
	g_autofree char *dir = hd_test_path("tests/data/fr/healthy");
	char *paths[] = { dir, NULL };
	g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func(g_free);
	const struct hd_load_opts o = { .jobs = 2 };
	g_autoptr(hd_store) s = hd_load_with(paths, &o, problems);
	const struct hd_group *g = NULL;

	ck_assert_uint_eq(s->inputs->len, 4);
	for (guint i = 0; i < s->groups->len; i++)
		if (hd_store_group_at(s, i)->members->len == 4)
			g = hd_store_group_at(s, i);
	ck_assert_ptr_nonnull(g);
	ck_assert_ptr_nonnull(g->shared);
	ck_assert_ptr_eq(g->members, g->shared->ranks);
	for (int r = 0; r < 4; r++) {
		ck_assert_int_eq(hd_group_global_rank(g, r), r);
		ck_assert_int_eq(hd_store_input(s, (uint32_t)r)->rank, r);
	}
}
END_TEST

/*
 * Every line parser keeps what it read when a read error cuts its input
 * (a gzip copy cut before its trailer): the input is truncated, not
 * refused, and a warning says it ends early, so that no_fault cannot
 * stand on it (docs/verdicts.md).  One rule for all (parse-util.c).
 */
START_TEST(test_cut_input_kept)
{
	static const struct {
		enum hd_input_kind kind;
		const char *path;
	} cases[] = {
		{ HD_INPUT_NCCL_LOG, "tests/data/nccl/healthy/rank0.log" },
		{ HD_INPUT_KERNEL_LOG,
		  "tests/data/hostlogs/kernel/xid79-dmesg/hosts/trn-02/"
		  "dmesg.txt" },
		{ HD_INPUT_IB_STATE,
		  "tests/data/hostlogs/ib/port-down-chain/hosts/trn-02/"
		  "ibstat.txt" },
		{ HD_INPUT_GPU_STATE,
		  "tests/data/hostlogs/gpu/remap-pending/hosts/trn-02/"
		  "nvidia-smi-q.txt" },
		{ HD_INPUT_GDB,
		  "tests/data/gdb/proxy-crash/rank5-core-bt.txt" },
		{ HD_INPUT_PYSPY, "tests/data/pyspy/refuted/rank5-pyspy.txt" },
		{ HD_INPUT_NCCL_INSPECTOR,
		  "tests/data/inspector/healthy/inspector-gpu-a.log" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *path = hd_test_path(cases[i].path);
		g_autofree char *text = NULL;
		g_autoptr(GBytes) gz = NULL;
		g_autoptr(GError) err = NULL;
		g_autoptr(hd_store) s = NULL;
		const struct hd_input *in;
		gsize len = 0;
		bool ok = false;

		ck_assert(g_file_get_contents(path, &text, &len, NULL));
		gz = hd_test_gzip(text, len);
		/* the CRC and size trailer cut: every line is there */
		s = hd_test_parse(cases[i].kind, "cut.gz",
				  g_bytes_get_data(gz, NULL),
				  g_bytes_get_size(gz) - 8, &ok, &err);
		in = hd_store_input(s, 0);
		ck_assert_msg(ok, "%s: refused: %s", cases[i].path,
			      err ? err->message : "?");
		ck_assert_msg(in->records > 0, "%s: no record", cases[i].path);
		ck_assert_msg(in->truncated, "%s: not truncated",
			      cases[i].path);
		ck_assert_msg(hd_test_has_warning(in, "ends early"),
			      "%s: no warning", cases[i].path);
	}
}
END_TEST

static Suite *parsers_suite(void)
{
	Suite *s = suite_create("parsers");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_sniff);
	tcase_add_test(tc, test_fr_member_lists_shared);
	tcase_add_test(tc, test_registry_covers_kinds);
	tcase_add_test(tc, test_rank_from_filename);
	tcase_add_test(tc, test_parse_input_records_errors);
	tcase_add_test(tc, test_parse_file_sniffs_and_ranks);
	tcase_add_test(tc, test_own_outputs);
	tcase_add_test(tc, test_cut_input_kept);
	tcase_add_test(tc, test_load_describes_stored_bytes);
	suite_add_tcase(s, tc);
	return s;
}

HD_TEST_MAIN(parsers_suite)
