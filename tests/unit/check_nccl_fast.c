/*
 * Unit tests of the NCCL log parser's COLL fast path (parsers/nl-coll.c,
 * nl_coll_fast()): every input is parsed with the fast path on and off,
 * and the two stores must be the same, byte for byte.  The inputs are
 * every fixture and fuzz seed in the tree, COLL records whose every field
 * takes every width and spelling the long way reads or refuses, every
 * byte of a record replaced, dropped or doubled, record prefixes of
 * every kind, and the histories that change what a prefix means (a
 * process's new life, repeats, torn, wrapped and fused records).  Each
 * test also checks that the fast path read lines, so that it cannot
 * pass by never running.
 */
#include "config.h"

#include <string.h>

#include "formats.h"
#include "hd-test-parse.h"
#include "hd-test-same.h"

/* Parses text (len bytes) fast and slow and asserts the same store. */
static void assert_same_both_ways(const char *what, const char *text,
				  size_t len)
{
	g_autoptr(GError) e1 = NULL;
	g_autoptr(GError) e2 = NULL;
	g_autoptr(hd_store) fast = NULL;
	g_autoptr(hd_store) slow = NULL;
	g_autofree char *diff = NULL;

	nccl_log_set_fast(true);
	fast = hd_test_parse(HD_INPUT_NCCL_LOG, "fast.log", text, len, NULL,
			     &e1);
	nccl_log_set_fast(false);
	slow = hd_test_parse(HD_INPUT_NCCL_LOG, "fast.log", text, len, NULL,
			     &e2);
	nccl_log_set_fast(true);
	diff = hd_test_store_diff(fast, slow);
	ck_assert_msg(diff == NULL, "%s: %s\n%.*s", what, diff, (int)len, text);
}

/* The header every generated log starts with: two processes, one comm. */
static const char head[] =
	"node-a:4000:4000 [0] NCCL INFO NCCL version 2.21.5+cuda12.2\n"
	"node-a:4000:4000 [0] NCCL INFO comm 0x5600d0a10990 rank 0 nranks 2 "
	"cudaDev 0 nvmlDev 0 busId 1b000 commId 0x5c1e2f03a9d4b871 - Init "
	"COMPLETE\n"
	"node-b:4100:4100 [0] NCCL INFO comm 0x5600d0a11220 rank 1 nranks 2 "
	"cudaDev 0 busId 1b000 commId 0x5c1e2f03a9d4b871 - Init COMPLETE\n";

/* A COLL body (after "NCCL INFO ") of comm, opCount op. */
static char *coll_body(const char *name, const char *op, const char *comm)
{
	return g_strdup_printf(
		"%s: opCount %s sendbuff 0x7f00aa000000 recvbuff "
		"0x7f00aa000000 count 262144 datatype 7 op 0 root 0 comm %s "
		"[nranks=2] stream 0x55e0c1c8f7a0",
		name, op, comm);
}

/*
 * A log: the header, a COLL record of each process (the prefixes the
 * fast path learns), then target, then more records of both, whose
 * reading depends on what target left.
 */
static GString *log_around(const char *target)
{
	GString *g = g_string_new(head);
	g_autofree char *a0 = coll_body("AllReduce", "0", "0x5600d0a10990");
	g_autofree char *b0 = coll_body("AllReduce", "0", "0x5600d0a11220");
	g_autofree char *a2 = coll_body("AllGather", "2", "0x5600d0a10990");
	g_autofree char *b1 = coll_body("AllReduce", "1", "0x5600d0a11220");

	g_string_append_printf(g, "node-a:4000:4000 [0] NCCL INFO %s\n", a0);
	g_string_append_printf(g, "node-b:4100:4100 [0] NCCL INFO %s\n", b0);
	g_string_append(g, target);
	g_string_append_printf(g, "node-a:4000:4000 [0] NCCL INFO %s\n", a2);
	g_string_append_printf(g, "node-b:4100:4100 [0] NCCL INFO %s\n", b1);
	return g;
}

/* log_around(target), parsed fast and slow: the same store. */
static void assert_same_around(const char *target)
{
	g_autoptr(GString) g = log_around(target);

	assert_same_both_ways(target, g->str, g->len);
}

/* The parse of every file below dir (recursively): fast against slow. */
static guint compare_tree(const char *dir)
{
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	const char *name;
	guint n = 0;

	ck_assert_msg(d != NULL, "cannot open %s", dir);
	while ((name = g_dir_read_name(d)) != NULL) {
		g_autofree char *path = g_build_filename(dir, name, NULL);
		g_autoptr(hd_store) fast = NULL;
		g_autoptr(hd_store) slow = NULL;
		g_autofree char *diff = NULL;

		if (g_file_test(path, G_FILE_TEST_IS_SYMLINK))
			continue;
		if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
			n += compare_tree(path);
			continue;
		}
		nccl_log_set_fast(true);
		fast = parsers_parse_file(path);
		if (hd_store_input(fast, 0)->kind != HD_INPUT_NCCL_LOG)
			continue;
		nccl_log_set_fast(false);
		slow = parsers_parse_file(path);
		nccl_log_set_fast(true);
		diff = hd_test_store_diff(fast, slow);
		ck_assert_msg(diff == NULL, "%s: %s", path, diff);
		n++;
	}
	return n;
}

START_TEST(test_fixtures_and_seeds)
{
	static const char *const dirs[] = {
		"tests/data",
		"testdata",
		"tests/fuzz/corpus-nccl",
		"tests/fuzz/corpus-mixed",
		"tests/fuzz/corpus-analyze",
	};
	uint64_t before = nccl_log_fast_lines();
	guint n = 0;

	for (size_t i = 0; i < G_N_ELEMENTS(dirs); i++) {
		g_autofree char *dir = hd_test_path(dirs[i]);

		n += compare_tree(dir);
	}
	/* the tree holds hundreds of logs, most with COLL records */
	ck_assert_uint_gt(n, 150);
	ck_assert_uint_gt(nccl_log_fast_lines() - before, 5000);
}
END_TEST

/* Every spelling of each field, the others as NCCL prints them. */
START_TEST(test_field_spellings)
{
	static const char *const hexes[] = {
		"0",
		"7",
		"1a2b",
		"ABCDEF",
		"fffffffffffffff",
		"ffffffffffffffff",
		"fffffffffffffffff",
		"123456789abcdef0",
		"",
		"g",
		"1g",
		"-1",
		"0x1",
		"(nil)",
	};
	static const char *const ptrs[] = {
		"0x0",
		"0x7",
		"0x7f00aa000000",
		"0xABCDEF",
		"0xfffffffffffffff",
		"0xffffffffffffffff",
		"0xfffffffffffffffff",
		"0x",
		"0x-1",
		"0X12",
		"(nil)",
		"(nil",
		"1a2b",
		"7f00aa000000",
		"0x1g",
		"",
	};
	static const char *const ints[] = {
		"0",
		"7",
		"-1",
		"-",
		"--1",
		"12345678",
		"1234567",
		"123456789012345678",
		"1234567890123456789",
		"99999999999999999999",
		"1a",
		"",
		"4194304",
		"4194305",
	};
	static const char *const fmt =
		"node-a:4000:4000 [0] NCCL INFO AllReduce: opCount %s sendbuff "
		"%s recvbuff %s count %s datatype %s op %s root %s comm %s "
		"[nranks=%s] stream %s\n";
	uint64_t before = nccl_log_fast_lines();
	guint cases = 0;

	for (int field = 0; field < 10; field++) {
		bool hex = field == 0,
		     ptr = field == 1 || field == 2 || field == 7 || field == 9;
		const char *const *vals = hex ? hexes : ptr ? ptrs : ints;
		size_t nv = hex	  ? G_N_ELEMENTS(hexes)
			    : ptr ? G_N_ELEMENTS(ptrs)
				  : G_N_ELEMENTS(ints);

		for (size_t v = 0; v < nv; v++) {
			const char *f[10] = { "1",
					      "0x7f00aa000000",
					      "0x7f00aa000000",
					      "262144",
					      "7",
					      "0",
					      "0",
					      "0x5600d0a10990",
					      "2",
					      "0x55e0c1c8f7a0" };
			g_autofree char *line = NULL;

			f[field] = vals[v];
			line = g_strdup_printf(fmt, f[0], f[1], f[2], f[3],
					       f[4], f[5], f[6], f[7], f[8],
					       f[9]);
			assert_same_around(line);
			cases++;
		}
	}
	/* the two records after each changed one at least */
	ck_assert_uint_ge(nccl_log_fast_lines() - before, 2 * cases);
}
END_TEST

/* Every byte of a COLL record replaced, dropped and doubled. */
START_TEST(test_every_byte)
{
	static const char repl[] = { '0', 'f', 'g', ' ', '-', '(', ']', 'x' };
	g_autofree char *body =
		coll_body("ReduceScatter", "1", "0x5600d0a10990");
	g_autofree char *line =
		g_strdup_printf("node-a:4000:4000 [0] NCCL INFO %s\n", body);
	size_t n = strlen(line) - 1;
	uint64_t before = nccl_log_fast_lines();

	for (size_t i = 0; i < n; i++) {
		for (size_t r = 0; r < G_N_ELEMENTS(repl) + 2; r++) {
			g_autoptr(GString) t = g_string_new(line);

			if (r < G_N_ELEMENTS(repl)) {
				if (line[i] == repl[r])
					continue;
				t->str[i] = repl[r];
			} else if (r == G_N_ELEMENTS(repl)) {
				g_string_erase(t, (gssize)i, 1);
			} else {
				g_string_insert_c(t, (gssize)i, line[i]);
			}
			assert_same_around(t->str);
		}
	}
	/* the lines around each changed one take the fast path */
	ck_assert_uint_gt(nccl_log_fast_lines() - before, n * 10);
}
END_TEST

/* Record prefixes and line ends of every kind around a COLL body. */
START_TEST(test_prefixes_and_ends)
{
	static const char *const prefixes[] = {
		"node-a:4000:4000 [0] ",
		"[1,0]<stdout>:node-a:4000:4000 [0] ",
		"[1,0]<stdout>: node-a:4000:4000 [0] ",
		"2024-03-05T10:00:00.123Z node-a:4000:4000 [0] ",
		"[0] ",
		"",
		"\x1b[36mnode-a:4000:4000 [0] ",
		"node-a(1):4000:4000 [0] ",
		"rank0: node-a:4000:4000 [0] ",
		"0: node-a:4000:4000 [0] ",
		"node-a.cluster.example.com.very.long.name:4000:4000 [0] ",
		"node-a:4000:4000 [0] node-a:4000:4000 [0] ",
		"node-a:4000:4000 ",
		"node-a:4000:4000 [x] ",
		"NCCL INFO node-a:4000:4000 [0] ",
		"WorkNCCL(x node-a:4000:4000 [0] ",
		"node-a:4000:4001 [1] ",
		"node-a:4001:4001 [0] ",
	};
	static const char *const ends[] = {
		"\n",
		" \n",
		"\r\n",
		"\r",
		"  \n",
		" [repeated 3x across cluster]\n",
		"\t\n",
		"x\n",
		" node-b:4100:4100 [0] NCCL INFO AllReduce: opCount 5 "
		"sendbuff 0x1 recvbuff 0x1 count 8 datatype 7 op 0 root 0 comm "
		"0x5600d0a11220 [nranks=2] stream 0x1\n",
	};
	static const char cont[] = "NET/IB : Got completion from peer "
				   "10.0.0.2<1234> with error 12\n";
	g_autofree char *body = coll_body("Broadcast", "1", "0x5600d0a10990");
	g_autofree char *body_b = coll_body("Broadcast", "1", "0x5600d0a11220");
	g_autofree char *other =
		g_strdup_printf("node-b:4100:4100 [0] NCCL INFO %s\n", body_b);
	uint64_t before = nccl_log_fast_lines();
	guint cases = 0;

	for (size_t p = 0; p < G_N_ELEMENTS(prefixes); p++) {
		for (size_t e = 0; e < G_N_ELEMENTS(ends); e++) {
			g_autofree char *line = g_strdup_printf(
				"%sNCCL INFO %s%s", prefixes[p], body, ends[e]);
			g_autoptr(GString) g = g_string_new(head);

			/*
			 * The same prefix again: the later ones may go fast.
			 * Between them, another process's record, and a
			 * line that may continue a wrapped c10d record and
			 * says something of its own.
			 */
			for (int k = 0; k < 4; k++) {
				g_string_append(g, line);
				if (k == 1)
					g_string_append(g, other);
				else if (k == 2)
					g_string_append(g, cont);
			}
			assert_same_both_ways(line, g->str, g->len);
			assert_same_around(line);
			cases++;
		}
	}
	/* the two records after each changed one at least */
	ck_assert_uint_ge(nccl_log_fast_lines() - before, 2 * cases);
}
END_TEST

/* Histories that change what a known prefix means. */
START_TEST(test_histories)
{
	static const char *const between[] = {
		/* a new life of node-a:4000: teardown, banner, Init */
		"node-a:4000:4000 [0] NCCL INFO comm 0x5600d0a10990 rank 0 "
		"nranks 2 cudaDev 0 busId 1b000 - Destroy COMPLETE\n"
		"node-a:4000:4000 [0] NCCL INFO NCCL version 2.21.5+cuda12.2\n"
		"node-a:4000:4000 [0] NCCL INFO comm 0x5600d0a10990 rank 0 "
		"nranks 2 cudaDev 0 busId 1b000 commId 0x5c1e2f03a9d4b871 - "
		"Init COMPLETE\n",
		/* a WARN, then the banner again */
		"node-a:4000:4000 [0] NCCL WARN NET/IB : Got completion from "
		"peer 10.0.0.2<1234> with error 12\n"
		"node-a:4000:4000 [0] NCCL INFO NCCL version 2.21.5+cuda12.2\n",
		/* torchrun restarts the workers */
		"[2024-03-05 10:00:00,000] torch.distributed.elastic.agent."
		"server.api: [WARNING] [default] Worker group FAILED. 3/3 "
		"attempts left; will restart worker group\n"
		"node-a:4000:4000 [0] NCCL INFO NCCL version 2.21.5+cuda12.2\n",
		/* the same record again: a repeat */
		"node-a:4000:4000 [0] NCCL INFO AllReduce: opCount 0 sendbuff "
		"0x7f00aa000000 recvbuff 0x7f00aa000000 count 262144 datatype "
		"7 op 0 root 0 comm 0x5600d0a10990 [nranks=2] stream "
		"0x55e0c1c8f7a0\n",
		/* a prefix with no body, then a body with no prefix */
		"node-a:4000:4000 [0] NCCL INFO\n"
		"AllReduce: opCount 1 sendbuff 0x1 recvbuff 0x1 count 8 "
		"datatype 7 op 0 root 0 comm 0x5600d0a10990 [nranks=2] stream "
		"0x1\n",
		/* the same, with another process's record between them */
		"node-a:4000:4000 [0] NCCL INFO\n"
		"node-b:4100:4100 [0] NCCL INFO AllReduce: opCount 7 sendbuff "
		"0x1 recvbuff 0x1 count 8 datatype 7 op 0 root 0 comm "
		"0x5600d0a11220 [nranks=2] stream 0x1\n"
		"AllReduce: opCount 1 sendbuff 0x1 recvbuff 0x1 count 8 "
		"datatype 7 op 0 root 0 comm 0x5600d0a10990 [nranks=2] stream "
		"0x1\n",
		/* a c10d record a terminal wrapped, held over the next line */
		"[rank0]:[E305 10:00:00.000000 4000 ProcessGroupNCCL.cpp:616] "
		"[Rank 0] Watchdog caught collective operation timeout: "
		"WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=8, NumelOut=8, "
		"Timeout(ms)=600000) ran for 600001 milliseconds before timing "
		"out\n",
		"[rank0]:[E305 10:00:00.000000 4000 ProcessGroupNCCL.cpp:616] "
		"[Rank 0] Watchdog caught collective operation timeout: "
		"WorkNCCL(SeqNum=5, OpType=ALLREDUCE,\n",
		/* a comm the process was not seen to make */
		"node-a:4000:4000 [0] NCCL INFO AllReduce: opCount 0 sendbuff "
		"0x1 recvbuff 0x1 count 8 datatype 7 op 0 root 0 comm 0x99 "
		"[nranks=4] stream 0x1\n",
		/* an ANSI-coloured record of the same process */
		"\x1b[0mnode-a:4000:4000 [0] NCCL INFO AllReduce: opCount 9 "
		"sendbuff 0x1 recvbuff 0x1 count 8 datatype 7 op 0 root 0 comm "
		"0x5600d0a10990 [nranks=2] stream 0x1\n",
		/* another device for the same process */
		"node-a:4000:4000 [3] NCCL INFO AllReduce: opCount 9 sendbuff "
		"0x1 recvbuff 0x1 count 8 datatype 7 op 0 root 0 comm "
		"0x5600d0a10990 [nranks=2] stream 0x1\n",
		"",
	};
	/*
	 * A prefix without host:pid:tid names the one process of its
	 * stream, until a second one prints there.
	 */
	static const char trimmed[] =
		"node-a:4000:4000 [0] NCCL INFO comm 0x5600d0a10990 rank 0 "
		"nranks 2 cudaDev 0 busId 1b000 commId 0x5c1e2f03a9d4b871 - "
		"Init COMPLETE\n"
		"[0] NCCL INFO AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x1 "
		"count 8 datatype 7 op 0 root 0 comm 0x5600d0a10990 "
		"[nranks=2] stream 0x1\n"
		"[0] NCCL INFO AllReduce: opCount 1 sendbuff 0x1 recvbuff 0x1 "
		"count 8 datatype 7 op 0 root 0 comm 0x5600d0a10990 "
		"[nranks=2] stream 0x1\n"
		"node-b:4100:4100 [0] NCCL INFO comm 0x5600d0a11220 rank 1 "
		"nranks 2 cudaDev 0 busId 1b000 commId 0x5c1e2f03a9d4b871 - "
		"Init COMPLETE\n"
		"[0] NCCL INFO AllReduce: opCount 2 sendbuff 0x1 recvbuff 0x1 "
		"count 8 datatype 7 op 0 root 0 comm 0x5600d0a10990 "
		"[nranks=2] stream 0x1\n";
	/*
	 * Records whose first bytes are a known prefix's: another device,
	 * another level word, last of their process, so that nothing after
	 * them hides what they did.
	 */
	static const struct {
		const char *warm, *alike;
	} alike[] = {
		{ "node-a:4000:4000 [0] ", "node-a:4000:4000 [3] NCCL INFO " },
		{ "node-a:4000:4000 [0] ", "node-a:4000:4000 [0] NCCL WARN " },
		{ "node-a:4000:4000 [0] ", "node-a:4000:4000 [0] NCCL INFO  " },
		{ "node-a:4000:4000 [0] ", "node-a:4000:4000 [0]  NCCL INFO " },
		{ "node-a:4000:4000 [0] ", "node-a:4000:4000 [0]NCCL INFO " },
		{ "node-a:4000:4000 [0] ", "node-a:4000:40000 [0] NCCL INFO " },
		/* the same first 16 bytes, another process */
		{ "gpu-node-a-long:4000:4000 [0] ",
		  "gpu-node-a-long:4001:4000 [0] NCCL INFO " },
		{ "gpu-node-a-long:4000:4000 [0] ",
		  "gpu-node-a-long:4000:4001 [0] NCCL INFO " },
	};
	uint64_t before = nccl_log_fast_lines();

	for (size_t i = 0; i < G_N_ELEMENTS(alike); i++) {
		g_autoptr(GString) g = g_string_new(head);
		g_autofree char *a =
			coll_body("AllReduce", "3", "0x5600d0a10990");
		g_autoptr(hd_store) s = NULL;
		bool ok;

		for (int k = 0; k < 3; k++) {
			g_autofree char *w = coll_body(
				"AllReduce", k ? "1" : "0", "0x5600d0a10990");

			g_string_append_printf(g, "%sNCCL INFO %s\n",
					       alike[i].warm, w);
		}
		g_string_append_printf(g, "%s%s\n", alike[i].alike, a);
		assert_same_both_ways(alike[i].alike, g->str, g->len);
		/* the record after the known prefix is read, or refused */
		s = hd_test_parse_str(HD_INPUT_NCCL_LOG, g->str, &ok);
		ck_assert_uint_ge(s->ops->len, 2);
	}
	assert_same_both_ways("trimmed", trimmed, strlen(trimmed));
	for (size_t i = 0; i < G_N_ELEMENTS(between); i++) {
		g_autoptr(GString) g = log_around(between[i]);

		/* and the whole again after it, as a log appended to itself */
		g_string_append(g, g->str);
		assert_same_both_ways(between[i], g->str, g->len);
		/* and cut without its last line end */
		assert_same_both_ways(between[i], g->str, g->len - 1);
	}
	ck_assert_uint_gt(nccl_log_fast_lines() - before, 50);
}
END_TEST

/* Every op name NCCL prints, and names that are almost one. */
START_TEST(test_op_names)
{
	static const struct {
		const char *name;
		int kind; /* enum hd_op_kind, -1: not a COLL record */
	} names[] = {
		{ "AllReduce", HD_OP_ALL_REDUCE },
		{ "AllGather", HD_OP_ALL_GATHER },
		{ "ReduceScatter", HD_OP_REDUCE_SCATTER },
		{ "Broadcast", HD_OP_BROADCAST },
		{ "Reduce", HD_OP_REDUCE },
		{ "Send", HD_OP_SEND },
		{ "Recv", HD_OP_RECV },
		{ "AlltoAll", HD_OP_ALL_TO_ALL },
		{ "Gather", HD_OP_GATHER },
		{ "Scatter", HD_OP_SCATTER },
		{ "Allreduce", -1 },
		{ "AllReduce2", -1 },
		{ "Reducer", -1 },
		{ "Sen", -1 },
		{ "Scatterr", -1 },
		{ "ReduceScatterAll", -1 },
		{ "", -1 },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
		g_autofree char *body =
			coll_body(names[i].name, "1", "0x5600d0a10990");
		g_autofree char *line = g_strdup_printf(
			"node-a:4000:4000 [0] NCCL INFO %s\n", body);
		g_autoptr(GString) g = log_around(line);
		g_autoptr(hd_store) s = NULL;
		bool ok;

		assert_same_both_ways(line, g->str, g->len);
		/* the header's two records, the one named, the two after */
		s = hd_test_parse_str(HD_INPUT_NCCL_LOG, g->str, &ok);
		ck_assert(ok);
		ck_assert_uint_eq(s->ops->len, names[i].kind >= 0 ? 5 : 4);
		if (names[i].kind >= 0)
			ck_assert_int_eq(hd_store_op(s, 2)->kind,
					 names[i].kind);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("nccl_fast");
	TCase *tc = tcase_create("fast_slow");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_fixtures_and_seeds);
	tcase_add_test(tc, test_field_spellings);
	tcase_add_test(tc, test_op_names);
	tcase_add_test(tc, test_every_byte);
	tcase_add_test(tc, test_prefixes_and_ends);
	tcase_add_test(tc, test_histories);
	suite_add_tcase(s, tc);
	return s;
}

HD_TEST_MAIN(suite)
