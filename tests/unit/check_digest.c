/*
 * Unit tests of digests (src/core/hd-digest-file.c, parsers/digest.c):
 * a store written and read back is the same store, compressed or not,
 * with every input's provenance; and a digest is untrusted input: cut at
 * every byte, flipped at every byte, claiming counts past its size, of
 * another version or with bytes after its end, it fails cleanly with a
 * message, or reads as a store whose every index is valid.
 */
#include "config.h"

#include <string.h>

#include "hd-digest-file.h"
#include "hd-load.h"
#include "hd-test-parse.h"

/* The example incident (logs and dumps), loaded as for a digest. */
static struct hd_store *load_example(void)
{
	g_autofree char *dir = hd_test_path("testdata/example-incident");
	char *paths[] = { dir, NULL };
	struct hd_load_opts o = { .jobs = 1,
				  .describe = true,
				  .for_digest = true };
	g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func(g_free);
	struct hd_store *s = hd_load_with(paths, &o, problems);

	ck_assert_uint_eq(problems->len, 0);
	ck_assert_uint_gt(s->inputs->len, 8);
	ck_assert_uint_gt(s->ops->len, 0);
	ck_assert_uint_gt(s->signals->len, 0);
	return s;
}

static GBytes *encode(const struct hd_store *s, int level)
{
	g_autoptr(GError) err = NULL;
	GBytes *b = hd_digest_file_encode(s, level, &err);

	ck_assert_ptr_nonnull(b);
	return b;
}

static struct hd_store *decode(GBytes *b, bool *ok, GError **err)
{
	gsize len = 0;
	const void *p = g_bytes_get_data(b, &len);

	return hd_test_parse(HD_INPUT_UNKNOWN, "node.hdd", p, len, ok, err);
}

/* Every index a store holds points at something in it. */
static void assert_indices_valid(const struct hd_store *s)
{
	for (guint i = 0; i < s->ops->len; i++) {
		const struct hd_op *op =
			&g_array_index(s->ops, struct hd_op, i);

		ck_assert_uint_lt(op->group, s->groups->len);
		ck_assert_uint_lt(op->input, s->inputs->len);
		ck_assert(hd_op_stack(s, op) >= -1 &&
			  hd_op_stack(s, op) < (int32_t)s->stacks->len);
		ck_assert_ptr_nonnull(hd_op_desc(op));
		ck_assert_uint_lt(op->kind, HD_OP_KIND_COUNT);
	}
	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);

		ck_assert_uint_lt(sig->prov.input, s->inputs->len);
		ck_assert(sig->stack >= -1 &&
			  sig->stack < (int32_t)s->stacks->len);
		ck_assert_uint_lt(sig->cat, HD_SIG_CAT_COUNT);
	}
	for (guint i = 0; i < s->inputs->len; i++) {
		const struct hd_input *in = hd_store_input(s, i);

		ck_assert_ptr_nonnull(in->path);
		ck_assert_uint_lt(in->kind, HD_INPUT_KIND_COUNT);
		ck_assert_uint_le(in->warnings->len, HD_INPUT_MAX_WARNINGS);
	}
}

static void assert_same_store(const struct hd_store *a,
			      const struct hd_store *b)
{
	ck_assert_uint_eq(a->inputs->len, b->inputs->len);
	for (guint i = 0; i < a->inputs->len; i++) {
		const struct hd_input *x = hd_store_input(a, i);
		const struct hd_input *y = hd_store_input(b, i);

		ck_assert_str_eq(x->path, y->path);
		ck_assert_int_eq(x->kind, y->kind);
		ck_assert_int_eq(x->rank, y->rank);
		ck_assert_uint_eq(x->bytes, y->bytes);
		ck_assert_uint_eq(x->records, y->records);
		ck_assert_int_eq(x->file_size, y->file_size);
		ck_assert_pstr_eq(x->sha256, y->sha256);
		ck_assert_pstr_eq(x->xxh3_128, y->xxh3_128);
		ck_assert_uint_eq(x->warnings->len, y->warnings->len);
		ck_assert_uint_eq(x->content_hash, y->content_hash);
	}
	ck_assert_uint_eq(a->groups->len, b->groups->len);
	for (guint i = 0; i < a->groups->len; i++) {
		const struct hd_group *x = hd_store_group_at(a, i);
		const struct hd_group *y = hd_store_group_at(b, i);

		ck_assert_str_eq(x->id, y->id);
		ck_assert_int_eq(x->nranks, y->nranks);
		ck_assert_uint_eq(x->members->len, y->members->len);
		/* an empty array may have no data: memcmp(NULL) is undefined */
		if (x->members->len)
			ck_assert_mem_eq(x->members->data, y->members->data,
					 x->members->len * sizeof(int));
	}
	ck_assert_uint_eq(g_hash_table_size(a->ranks),
			  g_hash_table_size(b->ranks));
	ck_assert_uint_eq(a->stacks->len, b->stacks->len);
	ck_assert_uint_eq(a->ops->len, b->ops->len);
	for (guint i = 0; i < a->ops->len; i++) {
		const struct hd_op *x = hd_store_op(a, i);
		const struct hd_op *y = hd_store_op(b, i);
		struct hd_prov px = hd_op_prov(a, x), py = hd_op_prov(b, y);

		/* interned descriptors: the same pointers */
		ck_assert(hd_op_desc(x) == hd_op_desc(y) && x->seq == y->seq &&
			  x->group == y->group && x->input == y->input &&
			  x->kind == y->kind && x->state == y->state &&
			  x->seq_kind == y->seq_kind && x->flags == y->flags);
		ck_assert_int_eq(hd_op_rank(x), hd_op_rank(y));
		ck_assert_int_eq(hd_op_anon(x), hd_op_anon(y));
		ck_assert_int_eq(hd_op_op_count(a, x), hd_op_op_count(b, y));
		ck_assert_int_eq(hd_op_t_enqueue(a, x), hd_op_t_enqueue(b, y));
		ck_assert_int_eq(hd_op_t_start(a, x), hd_op_t_start(b, y));
		ck_assert_int_eq(hd_op_t_end(a, x), hd_op_t_end(b, y));
		ck_assert_int_eq(hd_op_stack(a, x), hd_op_stack(b, y));
		ck_assert(px.input == py.input && px.kind == py.kind &&
			  px.attempt == py.attempt && px.at == py.at);
	}
	ck_assert_uint_eq(a->signals->len, b->signals->len);
	for (guint i = 0; i < a->signals->len; i++) {
		const struct hd_signal *x =
			&g_array_index(a->signals, struct hd_signal, i);
		const struct hd_signal *y =
			&g_array_index(b->signals, struct hd_signal, i);

		ck_assert_str_eq(x->text ? x->text : "",
				 y->text ? y->text : "");
		ck_assert(x->cat == y->cat && x->type == y->type &&
			  x->rank == y->rank && x->pid == y->pid &&
			  x->peer_rank == y->peer_rank &&
			  x->local_rank == y->local_rank &&
			  x->task == y->task && x->code == y->code &&
			  x->stack == y->stack && x->anon == y->anon);
		/* interned: the same pointers */
		ck_assert(x->host == y->host && x->peer == y->peer &&
			  x->group_name == y->group_name &&
			  x->op_name == y->op_name &&
			  x->dtype_name == y->dtype_name &&
			  x->device == y->device);
		ck_assert(x->time.ns == y->time.ns &&
			  x->time.clock == y->time.clock);
		ck_assert(x->seq == y->seq &&
			  x->last_enqueued == y->last_enqueued &&
			  x->last_completed == y->last_completed &&
			  x->numel_in == y->numel_in &&
			  x->numel_out == y->numel_out);
		ck_assert(x->prov.input == y->prov.input &&
			  x->prov.kind == y->prov.kind &&
			  x->prov.attempt == y->prov.attempt &&
			  x->prov.at == y->prov.at);
	}
	ck_assert_int_eq(a->world_size, b->world_size);
}

START_TEST(test_round_trip)
{
	g_autoptr(hd_store) s = load_example();
	int levels[] = { 0, 3, 19 };

	for (size_t l = 0; l < G_N_ELEMENTS(levels); l++) {
		g_autoptr(GBytes) b = encode(s, levels[l]);
		g_autoptr(GError) err = NULL;
		g_autoptr(hd_store) back = NULL;
		bool ok = false;

		back = decode(b, &ok, &err);
		ck_assert_msg(ok, "%s", err ? err->message : "?");
		assert_same_store(s, back);
		/* provenance: the original file, never the digest */
		ck_assert(strstr(hd_store_input(back, 0)->path,
				 "example-incident"));
	}
}
END_TEST

/*
 * What the op record packs (docs/format-digest.md): opCounts of 32 bits
 * and past, a line past 2^32, times, the largest attempt, processes of
 * unknown rank and the signal naming one, all read back.
 */
START_TEST(test_round_trip_packed)
{
	g_autoptr(hd_store) s = hd_store_new();
	static const int64_t counts[] = {
		-1,	   0, (int64_t)UINT32_MAX - 1, (int64_t)UINT32_MAX,
		INT64_MAX, -9
	};
	uint32_t in = hd_store_add_input(s, "coll.log");
	uint32_t g = hd_store_group(s, "nccl-nranks:4#0");
	struct hd_signal sig;

	hd_store_input(s, in)->kind = HD_INPUT_NCCL_LOG;
	for (size_t i = 0; i < G_N_ELEMENTS(counts) * 2; i++) {
		struct hd_op_rec rec;

		hd_op_rec_init(&rec);
		if (i % 2)
			hd_op_set_anon(&rec.op, (int32_t)(i / 2));
		else
			hd_op_set_rank(&rec.op, (int32_t)i);
		rec.op.group = g;
		rec.op.seq = (int64_t)i;
		rec.op.seq_kind = HD_SEQ_ORDINAL;
		rec.op_count = counts[i / 2];
		if (i == 4)
			rec.t_end_ns = 1700000000000000000;
		rec.prov.input = in;
		rec.prov.kind = HD_PROV_LINE;
		rec.prov.attempt = i == 3 ? HD_MAX_ATTEMPT : 0;
		rec.prov.at = i == 5 ? (UINT64_C(1) << 33) + 1 : i + 1;
		hd_store_add_op(s, &rec);
	}
	hd_signal_init(&sig);
	sig.cat = HD_SIG_INFO;
	sig.type = HD_SIGT_ANON_PROC;
	sig.anon = 1;
	sig.host = hd_intern("node-a");
	sig.pid = 4242;
	sig.prov.input = in;
	hd_store_add_signal(s, &sig);
	hd_store_bound(s); /* as every parsed store is */
	{
		g_autoptr(GBytes) b = encode(s, 3);
		g_autoptr(GError) err = NULL;
		bool ok = false;
		g_autoptr(hd_store) back = decode(b, &ok, &err);

		ck_assert_msg(ok, "%s", err ? err->message : "?");
		assert_same_store(s, back);
		ck_assert_int_eq(hd_op_op_count(back, hd_store_op(back, 8)),
				 INT64_MAX);
		ck_assert_int_eq(hd_op_anon(hd_store_op(back, 9)), 4);
	}
}
END_TEST

/* Decodes bytes; a failure must say so and leave only the digest. */
static bool decode_bytes(const guint8 *p, gsize len, GError **err)
{
	g_autoptr(GBytes) b = g_bytes_new(p, len);
	g_autoptr(hd_store) s = NULL;
	bool ok = false;

	s = decode(b, &ok, err);
	assert_indices_valid(s);
	if (!ok && hd_store_input(s, 0)->kind == HD_INPUT_DIGEST) {
		ck_assert_uint_eq(s->inputs->len, 1);
		ck_assert_uint_eq(s->ops->len, 0);
		ck_assert_uint_eq(s->signals->len, 0);
		ck_assert_str_eq(hd_store_input(s, 0)->path, "node.hdd");
	}
	return ok;
}

START_TEST(test_cut)
{
	g_autoptr(hd_store) s = load_example();
	g_autoptr(GBytes) b = encode(s, 0);
	gsize len = 0;
	const guint8 *p = g_bytes_get_data(b, &len);

	/* cut anywhere past the magic: refused whole, with a message */
	for (gsize n = HD_DIGEST_MAGIC_LEN; n < len; n++) {
		g_autoptr(GError) err = NULL;

		ck_assert_msg(!decode_bytes(p, n, &err), "cut at %zu read", n);
		ck_assert_ptr_nonnull(err);
		ck_assert_msg(strstr(err->message, "malformed digest"), "%s",
			      err->message);
	}
}
END_TEST

START_TEST(test_flipped)
{
	g_autoptr(hd_store) s = load_example();
	g_autoptr(GBytes) b = encode(s, 0);
	gsize len = 0;
	const guint8 *p = g_bytes_get_data(b, &len);
	g_autofree guint8 *q = g_malloc(len + 1);
	guint refused = 0;

	memcpy(q, p, len);
	/* each byte changed: never a crash, and every index stays valid */
	for (gsize i = HD_DIGEST_MAGIC_LEN; i < len; i++) {
		g_autoptr(GError) err = NULL;

		q[i] ^= 0x5a;
		if (!decode_bytes(q, len, &err))
			refused++;
		q[i] = p[i];
	}
	/* many break a count, an index or the end mark (a changed letter
	   of a string or a changed time is a valid digest) */
	ck_assert_uint_gt(refused, (len - HD_DIGEST_MAGIC_LEN) / 8);
}
END_TEST

/* A digest of the given bytes after the magic. */
static bool decode_body(const char *body, size_t n, GError **err)
{
	g_autoptr(GByteArray) a = g_byte_array_new();

	g_byte_array_append(a, (const guint8 *)HD_DIGEST_MAGIC,
			    HD_DIGEST_MAGIC_LEN);
	g_byte_array_append(a, (const guint8 *)body, (guint)n);
	return decode_bytes(a->data, a->len, err);
}

START_TEST(test_claims)
{
	g_autoptr(GError) e1 = NULL;
	g_autoptr(GError) e2 = NULL;
	g_autoptr(GError) e3 = NULL;
	g_autoptr(GError) e4 = NULL;
	g_autoptr(GError) e5 = NULL;
	g_autoptr(GError) e6 = NULL;
	g_autoptr(GError) e7 = NULL;
	g_autoptr(hd_store) s = load_example();
	g_autoptr(GBytes) b = encode(s, 0);
	g_autoptr(GByteArray) tail = g_byte_array_new();
	gsize len = 0;
	const guint8 *p = g_bytes_get_data(b, &len);

	/* version 6, one this reader does not know */
	ck_assert(!decode_body("\x06\x01\x00", 3, &e1));
	ck_assert(strstr(e1->message, "format version 6"));
	/* version 3, whose attempts had no time they began: refused, named */
	ck_assert(!decode_body("\x03\x01\x00", 3, &e6));
	ck_assert(strstr(e6->message, "format version 3"));
	/* version 4, whose signals had no srun task: refused, named */
	ck_assert(!decode_body("\x04\x01\x00", 3, &e7));
	ck_assert(strstr(e7->message, "format version 4"));
	/* 2^62 strings claimed in a few bytes: refused before allocating */
	ck_assert(!decode_body("\x05\x01\x80\x80\x80\x80\x80\x80\x80\x80\x40",
			       11, &e2));
	ck_assert_msg(strstr(e2->message, "strings claimed"), "%s",
		      e2->message);
	/* a number of 11 bytes */
	ck_assert(!decode_body("\x05\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff"
			       "\xff\x01",
			       13, &e3));
	ck_assert(strstr(e3->message, "longer than 64 bits"));
	/* no strings, then a section out of order */
	ck_assert(!decode_body("\x05\x01\x00\x05", 4, &e4));
	ck_assert_msg(strstr(e4->message, "where inputs was due"), "%s",
		      e4->message);
	/* a whole digest with a byte after its end mark */
	g_byte_array_append(tail, p, (guint)len);
	g_byte_array_append(tail, (const guint8 *)"x", 1);
	ck_assert(!decode_bytes(tail->data, tail->len, &e5));
	ck_assert(strstr(e5->message, "after the end mark"));
}
END_TEST

START_TEST(test_sniff)
{
	ck_assert_int_eq(parsers_sniff((const uint8_t *)HD_DIGEST_MAGIC,
				       HD_DIGEST_MAGIC_LEN),
			 HD_INPUT_DIGEST);
	/* a text log that mentions digests is a log */
	ck_assert_int_ne(parsers_sniff((const uint8_t *)"hangdoc-digest\n", 15),
			 HD_INPUT_DIGEST);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("digest");
	TCase *tc = tcase_create("digest");

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_round_trip_packed);
	tcase_add_test(tc, test_cut);
	tcase_add_test(tc, test_flipped);
	tcase_add_test(tc, test_claims);
	tcase_add_test(tc, test_sniff);
	suite_add_tcase(s, tc);
	return s;
}

HD_TEST_MAIN(suite)
