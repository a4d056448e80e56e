/*
 * Tests for the Kineto trace parser (parsers/kineto.c) and its event
 * scanner (parsers/json-scan.c): timestamp eras, linking and metadata on
 * real-shaped events, the real HTA traces, compressed fixtures, and hostile
 * input (cut, unterminated, oversized, wrongly typed, garbage).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "hd-test-parse.h"
#include "json-scan.h"

#define KERNEL_EV(ts, dur, extra)                                              \
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce_" \
	"Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)\",\"pid\":0,"      \
	"\"tid\":52,\"ts\":" ts ",\"dur\":" dur ",\"args\":{\"External id\":"  \
	"902,\"correlation\":7001" extra "}}"

#define FULL_META                                                             \
	",\"Collective name\":\"allreduce\",\"In msg nelems\":1048576,"       \
	"\"Out msg nelems\":1048576,\"Group size\":4,\"dtype\":\"BFloat16\"," \
	"\"Process Group Name\":\"0\",\"Process Group Description\":"         \
	"\"default_pg\",\"Process Group Ranks\":\"[0, 1, 2, 3]\",\"Seq\":17"

START_TEST(test_era_a)
{
	bool ok;
	g_autoptr(hd_store) s = hd_test_parse_str(
		HD_INPUT_KINETO,
		"{\"distributedInfo\":{\"rank\":3,\"world_size\":4},"
		"\"traceEvents\":[" KERNEL_EV("1694128201436304", "246",
					      "") "]}",
		&ok);

	ck_assert(ok);
	ck_assert_int_eq(hd_store_input(s, 0)->rank, 3);
	ck_assert_int_eq(s->world_size, 4);
	ck_assert_int_eq(hd_op_t_start(s, op_at(s, 0)), 1694128201436304000LL);
	ck_assert_int_eq(hd_op_t_end(s, op_at(s, 0)), 1694128201436550000LL);
	ck_assert_int_eq(op_at(s, 0)->kind, HD_OP_ALL_REDUCE);
	ck_assert_int_eq(hd_op_desc(op_at(s, 0))->dtype, HD_DTYPE_BFLOAT16);
	ck_assert_int_eq(op_at(s, 0)->state, HD_STATE_COMPLETED);
	ck_assert_int_eq(op_at(s, 0)->seq_kind, HD_SEQ_ORDINAL);
	ck_assert_int_eq(op_at(s, 0)->seq, 0);
	ck_assert_int_eq(hd_op_rank(op_at(s, 0)), 3);
	/* No PG metadata: the stream group, flagged as a guess. */
	ck_assert_str_eq(hd_store_group_at(s, op_at(s, 0)->group)->id,
			 "trace-stream:0");
	ck_assert(hd_store_group_at(s, op_at(s, 0)->group)
			  ->low_confidence_identity);
	ck_assert_int_eq(hd_store_group_at(s, op_at(s, 0)->group)->nranks, 4);
}
END_TEST

START_TEST(test_era_b_fraction)
{
	bool ok;
	/* Doubles cannot hold this at ns precision; text parsing can. */
	g_autoptr(hd_store) s = hd_test_parse_str(
		HD_INPUT_KINETO,
		"{\"distributedInfo\":{\"rank\":0},\"traceEvents\":[" KERNEL_EV(
			"1712195495519689.123", "812.5", FULL_META) "]}",
		&ok);

	ck_assert(ok);
	ck_assert_int_eq(hd_op_t_start(s, op_at(s, 0)), 1712195495519689123LL);
	ck_assert_int_eq(hd_op_t_end(s, op_at(s, 0)),
			 1712195495519689123LL + 812500);
	ck_assert_int_eq(op_at(s, 0)->seq, 17);
	ck_assert_int_eq(op_at(s, 0)->seq_kind, HD_SEQ_COLLECTIVE);
	ck_assert_int_eq(hd_op_desc(op_at(s, 0))->count_in, 1048576);
	ck_assert_str_eq(hd_store_group_at(s, op_at(s, 0)->group)->id,
			 "pg:0:[0-3]");
	ck_assert_str_eq(hd_store_group_at(s, op_at(s, 0)->group)->desc,
			 "default_pg");
}
END_TEST

/* Era C with the base after traceEvents, and a 4th fraction digit. */
START_TEST(test_era_c_base_after)
{
	bool ok;
	g_autoptr(hd_store) s = hd_test_parse_str(
		HD_INPUT_KINETO,
		"{\"traceEvents\":[" KERNEL_EV(
			"4458677009840.0159", "1.5",
			FULL_META) "],\"distributedInfo\":{\"rank\":1,\"world_size\":4,"
				   "\"nccl_version\":\"2.20.5\"},\"host_name\":\"node-a\","
				   "\"baseTimeNanoseconds\":1706400000000000000}",
		&ok);
	const struct hd_rank *r;

	ck_assert(ok);
	ck_assert_int_eq(hd_op_t_start(s, op_at(s, 0)),
			 1706400000000000000LL + 4458677009840015LL);
	ck_assert(
		hd_test_has_warning(hd_store_input(s, 0), "3 fraction digits"));
	r = hd_store_find_rank(s, 1);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(r->host, "node-a");
	ck_assert_str_eq(r->nccl_version, "2.20.5");
}
END_TEST

/* The send/recv of annotation, as test_link_by_correlation has it. */
static struct hd_store *parse_annotated_send(const char *annotation)
{
	bool ok;
	g_autofree char *json = g_strdup_printf(
		"{\"distributedInfo\":{\"rank\":0,\"world_size\":2},"
		"\"traceEvents\":["
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\","
		"\"pid\":10,\"tid\":11,\"ts\":1000,\"dur\":100,\"args\":{"
		"\"External id\":5,\"Collective name\":\"send\",\"dtype\":\"Float\","
		"\"In msg nelems\":64,\"Out msg nelems\":64,\"Group size\":2,"
		"\"Process Group Name\":\"3\",\"Process Group Ranks\":\"[4, 6]\"}},"
		"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"%s\","
		"\"pid\":10,\"tid\":11,\"ts\":1010,\"dur\":50},"
		"{\"ph\":\"X\",\"cat\":\"cuda_runtime\","
		"\"name\":\"cudaLaunchKernelExC\",\"pid\":10,\"tid\":11,"
		"\"ts\":1020,\"dur\":5,\"args\":{\"correlation\":77}},"
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":"
		"\"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)\","
		"\"pid\":0,\"tid\":7,\"ts\":1100,\"dur\":20,\"args\":{"
		"\"correlation\":77,\"External id\":77}}"
		"]}",
		annotation);
	struct hd_store *s = hd_test_parse_str(HD_INPUT_KINETO, json, &ok);

	ck_assert(ok);
	ck_assert_uint_eq(s->ops->len, 1);
	return s;
}

/*
 * The peer of "nccl:send 0->N" is read as a number with its end and range
 * checked (atoi is banned): a peer that is no number, or out of an int's
 * range, is unknown (-1), never rank 0.
 */
START_TEST(test_annotation_peer_checked)
{
	static const struct {
		const char *name;
		int peer;
	} cases[] = {
		{ "nccl:send 0->1", 1 },   { "nccl:recv 1<-0", 0 },
		{ "nccl:send 0->x", -1 },  { "nccl:send 0->", -1 },
		{ "nccl:send 0->-3", -1 }, { "nccl:send 0->99999999999", -1 },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(hd_store) s = parse_annotated_send(cases[i].name);

		ck_assert_msg(hd_op_desc(op_at(s, 0))->peer == cases[i].peer,
			      "%s: peer %d, want %d", cases[i].name,
			      hd_op_desc(op_at(s, 0))->peer, cases[i].peer);
	}
}
END_TEST

/*
 * A base past 2200 (UBSan: base + ts overflowed int64) is ignored with a
 * warning; the trace's times stay relative to its own origin.
 */
START_TEST(test_base_out_of_range)
{
	bool ok;
	g_autoptr(hd_store) s = hd_test_parse_str(
		HD_INPUT_KINETO,
		"{\"traceEvents\":[" KERNEL_EV(
			"4458677009840.015", "1.5",
			FULL_META) "],\"distributedInfo\":{\"rank\":1,\"world_size\":4},"
				   "\"baseTimeNanoseconds\":9223372036854775000}",
		&ok);

	ck_assert(ok);
	ck_assert(hd_test_has_warning(hd_store_input(s, 0),
				      "no time between 1970 and 2200"));
	ck_assert_int_eq(hd_op_t_start(s, op_at(s, 0)), 4458677009840015LL);
	ck_assert_int_eq(hd_store_input(s, 0)->op_clock, HD_CLOCK_TRACE);
}
END_TEST

/* With a base the trace's ops are UTC. */
START_TEST(test_base_gives_utc)
{
	bool ok;
	g_autoptr(hd_store) s = hd_test_parse_str(
		HD_INPUT_KINETO,
		"{\"traceEvents\":[" KERNEL_EV(
			"4458677009840.015", "1.5",
			FULL_META) "],\"distributedInfo\":{\"rank\":1,\"world_size\":4},"
				   "\"baseTimeNanoseconds\":1706400000000000000}",
		&ok);

	ck_assert(ok);
	ck_assert_int_eq(hd_store_input(s, 0)->op_clock, HD_CLOCK_UTC);
}
END_TEST

/*
 * The the format notes, section 4 nesting, era before copied metadata: the kernel links
 * through correlation to the launch, and by time to record_param_comms and
 * the nccl:send annotation on the launching thread.
 */
START_TEST(test_link_by_correlation)
{
	bool ok;
	g_autoptr(hd_store) s = hd_test_parse_str(
		HD_INPUT_KINETO,
		"{\"distributedInfo\":{\"rank\":0,\"world_size\":2},"
		"\"traceEvents\":["
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\","
		"\"pid\":10,\"tid\":11,\"ts\":1000,\"dur\":100,\"args\":{"
		"\"External id\":5,\"Collective name\":\"send\",\"dtype\":\"Float\","
		"\"In msg nelems\":64,\"Out msg nelems\":64,\"Group size\":2,"
		"\"Process Group Name\":\"3\",\"Process Group Ranks\":\"[4, 6]\"}},"
		"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"nccl:send 0->1\","
		"\"pid\":10,\"tid\":11,\"ts\":1010,\"dur\":50},"
		"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernelExC\","
		"\"pid\":10,\"tid\":11,\"ts\":1020,\"dur\":5,\"args\":{\"correlation\":77}},"
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_SendRecv("
		"ncclDevKernelArgsStorage<4096ul>)\",\"pid\":0,\"tid\":7,\"ts\":1100,"
		"\"dur\":20,\"args\":{\"correlation\":77,\"External id\":77}},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\","
		"\"pid\":10,\"tid\":11,\"ts\":2000,\"dur\":3,\"args\":{"
		"\"Collective name\":\"wait\"}}"
		"]}",
		&ok);
	const struct hd_op *op;

	ck_assert(ok);
	ck_assert_uint_eq(s->ops->len, 1); /* the wait is not an op */
	op = op_at(s, 0);
	ck_assert_int_eq(op->kind, HD_OP_SEND);
	ck_assert_int_eq(hd_op_desc(op)->peer, 1);
	ck_assert_int_eq(hd_op_t_enqueue(s, op), 1000000);
	ck_assert_int_eq(hd_op_desc(op)->count_in, 64);
	ck_assert_int_eq(hd_op_desc(op)->dtype, HD_DTYPE_FLOAT32);
	ck_assert_str_eq(hd_op_desc(op)->name, "nccl:send 0->1");
	ck_assert_str_eq(hd_store_group_at(s, op->group)->id, "pg:3:[4,6]");
	ck_assert_uint_eq(hd_store_input(s, 0)->skipped, 0);
	ck_assert_uint_eq(hd_store_input(s, 0)->records, 5);
}
END_TEST

/*
 * issue 12: every kernel, cpu_op and annotation name, and every
 * annotation's Input Dims, was interned before it was known to be kept,
 * so a trace of distinct junk spent the input's budget of new strings.
 * Only what becomes an op is interned now.
 */
START_TEST(test_junk_not_interned)
{
	GString *t = g_string_new(
		"{\"distributedInfo\":{\"rank\":0,\"world_size\":2},"
		"\"traceEvents\":["
		"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":"
		"\"nccl:send 0->1\",\"pid\":10,\"tid\":11,\"ts\":1010,"
		"\"dur\":50,\"args\":{\"Input Dims\":[[64]]}},"
		"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":"
		"\"cudaLaunchKernelExC\",\"pid\":10,\"tid\":11,\"ts\":1020,"
		"\"dur\":5,\"args\":{\"correlation\":77}},"
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_"
		"SendRecv(ncclDevKernelArgsStorage<4096ul>)\",\"pid\":0,"
		"\"tid\":7,\"ts\":1100,\"dur\":20,\"args\":{\"correlation\":77,"
		"\"External id\":77}}");
	g_autoptr(hd_store) s = NULL;
	g_autoptr(GError) err = NULL;
	uint64_t refused;
	bool ok;

	for (int i = 0; i < 2000; i++)
		g_string_append_printf(
			t,
			",{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":"
			"\"nccl:all_reduce\",\"pid\":10,\"tid\":12,\"ts\":%d,"
			"\"dur\":1,\"args\":{\"Input Dims\":[[%d]]}},"
			"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::junk%d\","
			"\"pid\":10,\"tid\":12,\"ts\":%d,\"dur\":1}",
			5000 + 2 * i, i, i, 5001 + 2 * i);
	g_string_append(t, "]}");
	hd_intern_limit_begin(20);
	s = hd_test_parse(HD_INPUT_KINETO, "rank0.json", t->str, t->len, &ok,
			  &err);
	refused = hd_intern_limit_end();
	g_string_free(t, TRUE);
	ck_assert(ok);
	ck_assert_uint_eq(refused, 0);
	ck_assert_uint_eq(s->ops->len, 1);
	ck_assert_str_eq(hd_op_desc(op_at(s, 0))->shape_in, "[[64]]");
}
END_TEST

START_TEST(test_old_kernel_names)
{
	static const char *const names[] = {
		"ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)",
		"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, ncclWorkElem)",
		"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
		"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
		"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
	};

	for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
		bool ok;
		g_autofree char *doc = g_strdup_printf(
			"{\"distributedInfo\":{\"rank\":0},\"traceEvents\":["
			"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\","
			"\"pid\":0,\"tid\":7,\"ts\":5,\"dur\":1}]}",
			names[i]);
		g_autoptr(hd_store) s =
			hd_test_parse_str(HD_INPUT_KINETO, doc, &ok);

		ck_assert(ok);
		ck_assert_int_eq(op_at(s, 0)->kind, HD_OP_ALL_REDUCE);
		ck_assert_int_eq(hd_op_desc(op_at(s, 0))->dtype,
				 HD_DTYPE_FLOAT32);
		ck_assert_int_eq(hd_op_desc(op_at(s, 0))->redop, HD_REDOP_SUM);
	}
}
END_TEST

START_TEST(test_rank_from_filename)
{
	const char *doc = "{\"traceEvents\":[" KERNEL_EV("5", "1", "") "]}";
	g_autoptr(GError) err = NULL;
	bool ok;
	g_autoptr(hd_store) s =
		hd_test_parse(HD_INPUT_KINETO, "trainer_rank5.json", doc,
			      strlen(doc), &ok, &err);

	ck_assert(ok);
	ck_assert_int_eq(hd_store_input(s, 0)->rank, 5);
	ck_assert(hd_test_has_warning(hd_store_input(s, 0), "low confidence"));
}
END_TEST

START_TEST(test_truncated)
{
	const char *full =
		"{\"distributedInfo\":{\"rank\":0},\"traceEvents\":[" KERNEL_EV(
			"1", "1", "") "," KERNEL_EV("9", "1", "") "]}";
	/* Cut inside the second event. */
	size_t cut = strlen(full) - 40;
	g_autoptr(GError) err = NULL;
	bool ok;
	g_autoptr(hd_store) s =
		hd_test_parse(HD_INPUT_KINETO, "t.json", full, cut, &ok, &err);

	ck_assert(ok);
	ck_assert(hd_store_input(s, 0)->truncated);
	ck_assert_uint_eq(s->ops->len, 1);
	ck_assert(
		hd_test_has_warning(hd_store_input(s, 0), "trace ends early"));
}
END_TEST

START_TEST(test_unterminated_string)
{
	bool ok;
	g_autoptr(hd_store) s = hd_test_parse_str(
		HD_INPUT_KINETO,
		"{\"distributedInfo\":{\"rank\":0},\"traceEvents\":[" KERNEL_EV(
			"1", "1", "") ",{\"ph\":\"X\",\"name\":\"ncclKern",
		&ok);

	ck_assert(ok);
	ck_assert(hd_store_input(s, 0)->truncated);
	ck_assert_uint_eq(s->ops->len, 1);
}
END_TEST

START_TEST(test_garbage)
{
	bool ok;
	g_autoptr(hd_store) s = hd_test_parse_str(HD_INPUT_KINETO,
						  "\x01\x02 not json {{{", &ok);
	g_autoptr(hd_store) e = hd_test_parse_str(HD_INPUT_KINETO, "  \n", &ok);

	ck_assert(!ok);
	ck_assert_uint_eq(s->ops->len, 0);
	ck_assert_uint_eq(e->ops->len, 0);
}
END_TEST

START_TEST(test_bad_events)
{
	bool ok;
	/* Wrong types in args, a bad ts, a non-object event, escapes. */
	g_autoptr(hd_store) s = hd_test_parse_str(
		HD_INPUT_KINETO,
		"{\"distributedInfo\":{\"rank\":0},\"traceEvents\":[42," KERNEL_EV(
			"1", "1",
			",\"In msg nelems\":\"abc\",\"Seq\":[1],"
			"\"Collective name\":\"allreduce\"") ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_Generic\","
							     "\"pid\":0,\"tid\":1,\"ts\":\"soon\",\"dur\":1},"
							     "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\\\"}b nccl {[\","
							     "\"ts\":1,\"dur\":1}"
							     "]}",
		&ok);
	const struct hd_input *in = hd_store_input(s, 0);

	ck_assert(ok);
	ck_assert(!in->truncated);
	ck_assert_uint_eq(in->records, 4);
	ck_assert_uint_eq(in->skipped, 2); /* 42 and the bad ts */
	ck_assert_uint_eq(s->ops->len, 1);
	ck_assert_int_eq(hd_op_desc(op_at(s, 0))->count_in, -1);
	ck_assert_int_eq(op_at(s, 0)->seq_kind, HD_SEQ_ORDINAL);
	ck_assert(hd_test_has_warning(hd_store_input(s, 0), "wrong type"));
}
END_TEST

/* An event over the cap is skipped by offset; the next one still parses. */
START_TEST(test_oversize_event)
{
	size_t big = 20u * 1024 * 1024; /* over the 16 MiB default cap */
	GString *d = g_string_sized_new(big + 1024);
	g_autoptr(GError) err = NULL;
	g_autoptr(hd_store) s = NULL;
	bool ok;

	g_string_append(d, "{\"distributedInfo\":{\"rank\":0},\"traceEvents\":["
			   "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"");
	for (size_t i = 0; i < big; i += 8)
		g_string_append(d, "nccl\\\"{[");
	g_string_append(d, "\"},");
	g_string_append(d, KERNEL_EV("3", "1", "") "]}");
	s = hd_test_parse(HD_INPUT_KINETO, "big.json", d->str, d->len, &ok,
			  &err);
	ck_assert(ok);
	ck_assert_uint_eq(hd_store_input(s, 0)->skipped, 1);
	ck_assert_uint_eq(hd_store_input(s, 0)->records, 2);
	ck_assert_uint_eq(s->ops->len, 1);
	ck_assert(hd_test_has_warning(hd_store_input(s, 0), "at byte 45: "));
	g_string_free(d, TRUE);
}
END_TEST

/* The cap logic at a small size, through the scanner directly. */
static void count_ev(void *ud, const char *p, size_t len, uint64_t off,
		     uint64_t idx)
{
	GString *out = ud;

	g_string_append_printf(
		out, "E%" G_GUINT64_FORMAT "@%" G_GUINT64_FORMAT ":%.*s;", idx,
		off, (int)len, p);
}

static void count_big(void *ud, const char *key, uint64_t off, uint64_t size,
		      uint64_t idx)
{
	GString *out = ud;

	g_string_append_printf(
		out, "BIG%s@%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT ";",
		key ? key : "", off, size);
}

static void count_top(void *ud, const char *key, const char *p, size_t len,
		      uint64_t off)
{
	GString *out = ud;

	g_string_append_printf(out, "K%s=%.*s;", key, (int)len, p);
}

static char *scan_all(const char *doc, size_t cap, size_t step)
{
	static const struct json_scan_cb cb = { .event = count_ev,
						.top_value = count_top,
						.oversize = count_big };
	GString *out = g_string_new(NULL);
	struct json_scan *sc = json_scan_new(cap, &cb, out);
	size_t n = strlen(doc);

	for (size_t i = 0; i < n; i += step)
		json_scan_feed(sc, doc + i, MIN(step, n - i));
	g_string_append_printf(out, "end=%d", json_scan_finish(sc, NULL));
	json_scan_free(sc);
	return g_string_free(out, FALSE);
}

START_TEST(test_scanner_chunks)
{
	const char *doc =
		"\xef\xbb\xbf{\"a\" : {\"x\":\"}\\\\\"}, \"traceEvents\" :"
		" [ {\"n\":\"\\\"]}\"} , [1,{}], 7 ,{\"k\":[\""
		"0123456789"
		"0123456789\"]}], \"z\": -1.5e3 }";
	g_autofree char *whole = scan_all(doc, 24, 4096);

	ck_assert_str_eq(whole,
			 "Ka={\"x\":\"}\\\\\"};E0@41:{\"n\":\"\\\"]}\"};"
			 "E1@56:[1,{}];E2@64:7;BIG@67/30;Kz=-1.5e3;end=0");
	for (size_t step = 1; step < 9; step++) {
		g_autofree char *part = scan_all(doc, 24, step);

		ck_assert_str_eq(part, whole);
	}
}
END_TEST

static struct hd_store *parse_path(const char *rel)
{
	g_autofree char *p = hd_test_path(rel);
	g_autoptr(GError) err = NULL;
	bool ok;
	struct hd_store *s = hd_test_parse_file(p, &ok, &err);

	ck_assert_msg(ok, "%s: %s", p, err ? err->message : "?");
	return s;
}

/* Every int64 parses, quoted or not; nothing outside it does. */
START_TEST(test_raw_int_range)
{
	static const struct {
		const char *text;
		bool ok;
		int64_t v;
	} t[] = {
		{ "0", true, 0 },
		{ "-0", true, 0 },
		{ "\"42\"", true, 42 },
		{ "4611686018427387904", true, INT64_C(4611686018427387904) },
		{ "1714000000000000000", true, INT64_C(1714000000000000000) },
		{ "9223372036854775807", true, INT64_MAX },
		{ "-9223372036854775808", true, INT64_MIN },
		{ "9223372036854775808", false, 0 },
		{ "-9223372036854775809", false, 0 },
		{ "18446744073709551616", false, 0 },
		{ "99999999999999999999999", false, 0 },
		{ "-", false, 0 },
		{ "", false, 0 },
		{ "1.5", false, 0 },
		{ "1e3", false, 0 },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(t); i++) {
		int64_t v = -1;
		bool ok = json_raw_int(t[i].text, strlen(t[i].text), &v);

		ck_assert_msg(ok == t[i].ok, "%s", t[i].text);
		if (ok)
			ck_assert_int_eq(v, t[i].v);
	}
}
END_TEST

/* Trace times in microseconds, kept to the ns (json_raw_fixed()). */
START_TEST(test_raw_fixed)
{
	static const struct {
		const char *text;
		bool ok, cut;
		int64_t v;
	} t[] = {
		{ "4458677009840.015", true, false, INT64_C(4458677009840015) },
		{ "\"1694128201436304\"", true, false,
		  INT64_C(1694128201436304000) },
		{ "1.5", true, false, 1500 },
		{ "1.", true, false, 1000 },
		{ "-3", true, false, -3000 },
		{ "1.23456", true, true, 1234 },
		{ "9223372036854775.807", true, false, INT64_MAX },
		{ "9223372036854775.808", false, false, 0 },
		{ "-9223372036854775.808", true, false, INT64_MIN },
		{ "1e3", false, false, 0 },
		{ ".5", false, false, 0 },
		{ "-", false, false, 0 },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(t); i++) {
		int64_t v = -1;
		bool cut = false;
		bool ok = json_raw_fixed(t[i].text, strlen(t[i].text), 3, &v,
					 &cut);

		ck_assert_msg(ok == t[i].ok, "%s", t[i].text);
		if (!ok)
			continue;
		ck_assert_int_eq(v, t[i].v);
		ck_assert_int_eq(cut, t[i].cut);
	}
}
END_TEST

START_TEST(test_fixtures_gzip_zstd)
{
	g_autoptr(hd_store) g = parse_path(
		"tests/data/kineto/straggler-eraC-gz/rank1.pt.trace.json.gz");
	g_autoptr(hd_store) z = parse_path(
		"tests/data/kineto/offset-eraA-zst/rank3.pt.trace.json.zst");

	ck_assert_uint_eq(g->ops->len, 12);
	ck_assert_uint_eq(z->ops->len, 12);
	ck_assert_int_eq(hd_store_input(g, 0)->rank, 1);
	ck_assert_int_eq(hd_store_input(z, 0)->rank, 3);
	/* Era C plus base: absolute 2024 times. */
	ck_assert_int_gt(hd_op_t_start(g, op_at(g, 0)), 1714000000000000000LL);
	ck_assert_int_lt(hd_op_t_start(g, op_at(g, 0)), 1715000000000000000LL);
	ck_assert_int_eq(op_at(z, 0)->seq, 1);
	ck_assert_int_eq(op_at(z, 0)->seq_kind, HD_SEQ_COLLECTIVE);
}
END_TEST

/* The real traces shipped with the tests (MIT, see its README). */
#define REAL_HTA "tests/data/real-kineto/hta"

/*
 * The real HTA traces.  Counts verified with a python json one-off:
 * events, NCCL kernels (name has ncclKernel/ncclDevKernel or starts with
 * nccl), record_param_comms.  ns_resolution has no kernels: its 45
 * records are 35 collectives (enqueued, no times) plus 10 wait/barrier.
 */
START_TEST(test_hta_real)
{
	static const struct {
		const char *file;
		int rank;
		uint64_t events;
		guint ops, timed;
	} t[] = {
		{ "hta_nccl_parser_config-nccl_data.json.gz", 0, 40573, 21,
		  21 },
		{ "hta_ns_resolution-rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
		  0, 68692, 35, 0 },
		{ "hta_trace_diff_control-control.json.gz", 3, 109123, 60, 60 },
		{ "sampled_rank-0.json.gz", 0, 4855, 10, 10 },
		{ "sampled_rank-1.json.gz", 1, 4720, 10, 10 },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(t); i++) {
		g_autofree char *rel =
			g_build_filename(REAL_HTA, t[i].file, NULL);
		g_autoptr(hd_store) s = parse_path(rel);
		const struct hd_input *in = hd_store_input(s, 0);
		guint timed = 0;

		ck_assert_int_eq(in->rank, t[i].rank);
		ck_assert_uint_eq(in->records, t[i].events);
		ck_assert(!in->truncated);
		ck_assert_uint_eq(s->ops->len, t[i].ops);
		for (guint j = 0; j < s->ops->len; j++) {
			const struct hd_op *op =
				&g_array_index(s->ops, struct hd_op, j);

			if (hd_op_t_start(s, op) != INT64_MIN) {
				timed++;
				ck_assert_int_ge(hd_op_t_end(s, op),
						 hd_op_t_start(s, op));
				/* All of these were recorded 2022-2024. */
				ck_assert_int_gt(hd_op_t_start(s, op),
						 1640000000000000000LL);
				ck_assert_int_lt(hd_op_t_start(s, op),
						 1735000000000000000LL);
			}
		}
		ck_assert_uint_eq(timed, t[i].timed);
	}
}
END_TEST

START_TEST(test_hta_full_metadata)
{
	g_autoptr(hd_store) s = NULL;
	const struct hd_group *g;

	s = parse_path(REAL_HTA "/hta_nccl_parser_config-nccl_data.json.gz");
	g = hd_store_group_at(s, op_at(s, 0)->group);
	ck_assert_str_eq(g->id, "pg:0:[0,1]");
	ck_assert(!g->low_confidence_identity);
	ck_assert_int_eq(op_at(s, 0)->kind, HD_OP_BROADCAST);
	ck_assert_int_eq(hd_op_desc(op_at(s, 0))->count_in, 53120);
	ck_assert_int_eq(hd_op_desc(op_at(s, 0))->dtype, HD_DTYPE_FLOAT32);
	ck_assert_int_ne(hd_op_t_enqueue(s, op_at(s, 0)), INT64_MIN);
	ck_assert_str_eq(hd_store_find_rank(s, 0)->nccl_version, "2.17.1");
	ck_assert_int_eq(s->world_size, 2);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("kineto");
	TCase *tc = tcase_create("parse");
	TCase *bad = tcase_create("malformed");
	TCase *real = tcase_create("realdata");

	tcase_add_test(tc, test_era_a);
	tcase_add_test(tc, test_annotation_peer_checked);
	tcase_add_test(tc, test_era_b_fraction);
	tcase_add_test(tc, test_era_c_base_after);
	tcase_add_test(tc, test_base_out_of_range);
	tcase_add_test(tc, test_base_gives_utc);
	tcase_add_test(tc, test_link_by_correlation);
	tcase_add_test(tc, test_junk_not_interned);
	tcase_add_test(tc, test_old_kernel_names);
	tcase_add_test(tc, test_rank_from_filename);
	tcase_add_test(tc, test_scanner_chunks);
	tcase_add_test(tc, test_raw_int_range);
	tcase_add_test(tc, test_raw_fixed);
	tcase_add_test(tc, test_fixtures_gzip_zstd);
	suite_add_tcase(s, tc);
	tcase_set_timeout(bad, 60);
	tcase_add_test(bad, test_truncated);
	tcase_add_test(bad, test_unterminated_string);
	tcase_add_test(bad, test_garbage);
	tcase_add_test(bad, test_bad_events);
	tcase_add_test(bad, test_oversize_event);
	suite_add_tcase(s, bad);
	tcase_set_timeout(real, 60);
	tcase_add_test(real, test_hta_real);
	tcase_add_test(real, test_hta_full_metadata);
	suite_add_tcase(s, real);
	return s;
}

HD_TEST_MAIN(suite)
