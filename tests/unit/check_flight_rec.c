/*
 * Unit tests for the flight-recorder parser (parsers/flight-rec.c) over the
 * generated fixtures in tests/data/fr (scripts/gen-fr-dumps.py): every dump
 * version, the JSON variant, the empty and truncated dumps, coalescing,
 * p2p peers, stacks, pg_status, rank inference and hostile bytes.
 */
#include "config.h"

#include <string.h>

#include "hd-test-parse.h"
#include "hd-error.h"
#include "pickle.h"
#include "hd-const.h"

static struct hd_store *load(const char *rel, bool *ok)
{
	g_autofree char *path = hd_test_path(rel);
	g_autoptr(GError) err = NULL;
	struct hd_store *s = hd_test_parse_file(path, ok, &err);

	ck_assert_msg(!*ok || !err, "%s", err ? err->message : "");
	return s;
}

/* Parses a fixture's bytes under another file name. */
static struct hd_store *load_as(const char *rel, const char *name, size_t cut,
				bool *ok)
{
	g_autofree char *path = hd_test_path(rel);
	g_autofree char *data = NULL;
	g_autoptr(GError) err = NULL;
	gsize len;
	struct hd_store *s;

	ck_assert(g_file_get_contents(path, &data, &len, NULL));
	s = hd_test_parse(HD_INPUT_FLIGHT_REC, name, data,
			  cut ? MIN(cut, len) : len, ok, &err);
	return s;
}

START_TEST(test_healthy)
{
	bool ok;
	g_autoptr(hd_store) s =
		load("tests/data/fr/healthy/nccl_trace_rank_2", &ok);
	struct hd_input *in = hd_store_input(s, 0);
	const struct hd_op *op;
	const struct hd_frame *fr;
	const struct hd_signal *sig;
	struct hd_group *g;
	size_t nf;

	ck_assert(ok);
	ck_assert_int_eq(in->kind, HD_INPUT_FLIGHT_REC);
	ck_assert_int_eq(in->rank, 2);
	ck_assert_uint_eq(in->records, 10);
	ck_assert_uint_eq(in->skipped, 0);
	ck_assert_uint_eq(in->nwarnings, 0);
	ck_assert(!in->truncated && !in->empty);
	ck_assert_ptr_nonnull(hd_store_find_rank(s, 2));
	ck_assert_str_eq(hd_store_find_rank(s, 2)->nccl_version, "2.21.5");
	ck_assert_uint_eq(s->groups->len, 1);
	g = hd_store_group_at(s, 0);
	ck_assert_str_eq(g->id, "pg:0:[0-3]");
	ck_assert_str_eq(g->desc, "default_pg");
	ck_assert_int_eq(g->nranks, 4);
	ck_assert_int_eq(hd_group_global_rank(g, 3), 3);
	ck_assert_uint_eq(s->ops->len, 10);
	for (guint i = 0; i < 10; i++) {
		op = op_at(s, i);
		ck_assert_int_eq(op->seq, i + 1);
		ck_assert_int_eq(op->seq_kind, HD_SEQ_COLLECTIVE);
		ck_assert_int_eq(hd_op_rank(op), 2);
		ck_assert_uint_eq(hd_op_prov(s, op).at, i);
		ck_assert_int_eq(hd_op_prov(s, op).kind, HD_PROV_RECORD);
	}
	op = op_at(s, 9);
	ck_assert_int_eq(op->kind, HD_OP_ALL_REDUCE);
	ck_assert_str_eq(hd_op_desc(op)->name, "all_reduce");
	ck_assert_int_eq(op->state, HD_STATE_COMPLETED);
	ck_assert(op->flags & HD_OPF_RETIRED);
	ck_assert_str_eq(hd_op_desc(op)->shape_in, "[[4, 4]]");
	ck_assert_ptr_eq(hd_op_desc(op)->shape_in, hd_intern("[[4, 4]]"));
	ck_assert_int_eq(hd_op_desc(op)->count_in, 16);
	ck_assert_int_eq(hd_op_desc(op)->count_out, 16);
	ck_assert_int_eq(hd_op_desc(op)->dtype, HD_DTYPE_FLOAT32);
	ck_assert_str_eq(hd_op_desc(op)->dtype_name, "Float->Float");
	ck_assert_int_eq(hd_op_desc(op)->peer, -1);
	ck_assert_int_eq(hd_op_t_enqueue(s, op),
			 1700000000000000000LL + 9 * 1000000 + 2 * 1000);
	ck_assert_int_eq(hd_op_t_start(s, op), INT64_MIN);
	ck_assert_int_eq(hd_op_t_end(s, op), hd_op_t_enqueue(s, op) + 900000);
	/* memoized frames: one stack for all ten entries */
	ck_assert_uint_eq(s->stacks->len, 1);
	ck_assert_int_eq(hd_op_stack(s, op), 0);
	fr = hd_store_stack(s, hd_op_stack(s, op), &nf);
	ck_assert_uint_eq(nf, 3);
	ck_assert_str_eq(fr[0].name, "all_reduce");
	ck_assert_str_eq(fr[2].file, "train.py");
	ck_assert_int_eq(fr[2].line, 120);
	ck_assert_uint_eq(s->signals->len, 1);
	sig = &g_array_index(s->signals, struct hd_signal, 0);
	ck_assert_int_eq(sig->type, HD_SIGT_PG_STATUS);
	ck_assert_int_eq(sig->cat, HD_SIG_PROGRESS);
	ck_assert_str_eq(sig->group_name, "0");
	ck_assert_int_eq(sig->rank, 2);
	ck_assert_int_eq(sig->last_enqueued, 10);
	ck_assert_int_eq(sig->last_completed, 10);
	ck_assert_int_eq(sig->seq, -1);
}
END_TEST

START_TEST(test_missing_rank)
{
	bool ok;
	g_autoptr(hd_store) s0 = load("tests/data/fr/missing-rank/"
				      "nccl_trace_rank_0",
				      &ok);
	g_autoptr(hd_store) s2 = load("tests/data/fr/missing-rank/"
				      "nccl_trace_rank_2",
				      &ok);
	const struct hd_signal *sig;

	ck_assert_uint_eq(s0->ops->len, 8);
	ck_assert_int_eq(op_at(s0, 7)->seq, 8);
	ck_assert_int_eq(op_at(s0, 7)->state, HD_STATE_ENQUEUED);
	ck_assert(!(op_at(s0, 7)->flags & HD_OPF_RETIRED));
	ck_assert_int_eq(hd_op_t_end(s0, op_at(s0, 7)), INT64_MIN);
	sig = &g_array_index(s0->signals, struct hd_signal, 0);
	ck_assert_int_eq(sig->last_enqueued, 8);
	ck_assert_int_eq(sig->last_completed, 7);
	ck_assert_uint_eq(s2->ops->len, 7);
	ck_assert_int_eq(op_at(s2, 6)->state, HD_STATE_COMPLETED);
}
END_TEST

START_TEST(test_mismatch_fixtures)
{
	bool ok;
	g_autoptr(hd_store) a = load("tests/data/fr/size-mismatch/"
				     "comm_lib_trace_rank_1.pkl",
				     &ok);
	g_autoptr(hd_store) b = load("tests/data/fr/dtype-mismatch/"
				     "comm_lib_trace_rank_3.pkl",
				     &ok);
	g_autoptr(hd_store) c = load("tests/data/fr/type-mismatch/"
				     "nccl_trace_rank_0",
				     &ok);

	ck_assert_int_eq(hd_store_input(a, 0)->rank, 1);
	ck_assert_str_eq(hd_op_desc(op_at(a, 5))->shape_in, "[[5, 4]]");
	ck_assert_int_eq(hd_op_desc(op_at(a, 5))->count_in, 20);
	ck_assert_int_eq(hd_op_desc(op_at(b, 5))->dtype, HD_DTYPE_FLOAT16);
	ck_assert_str_eq(hd_op_desc(op_at(b, 5))->dtype_name, "Half->Half");
	ck_assert_int_eq(op_at(c, 5)->kind, HD_OP_ALL_GATHER);
	ck_assert_str_eq(hd_op_desc(op_at(c, 5))->name, "_all_gather_base");
	ck_assert_str_eq(hd_op_desc(op_at(c, 5))->shape_out, "[[16]]");
}
END_TEST

START_TEST(test_p2p_and_coalesced)
{
	bool ok;
	g_autoptr(hd_store) p = load("tests/data/fr/p2p-unmatched/"
				     "nccl_trace_rank_0",
				     &ok);
	g_autoptr(hd_store) c = load("tests/data/fr/coalesced/"
				     "nccl_trace_rank_1",
				     &ok);
	g_autoptr(hd_store) a = load("tests/data/fr/pairwise/any-source/"
				     "nccl_trace_rank_1",
				     &ok);
	static const struct {
		enum hd_op_kind kind;
		bool member;
		int seq_kind;
	} want[] = {
		{ HD_OP_ALL_REDUCE, false, HD_SEQ_COLLECTIVE },
		{ HD_OP_SEND, true, HD_SEQ_P2P },
		{ HD_OP_RECV, true, HD_SEQ_P2P },
		{ HD_OP_SEND, true, HD_SEQ_P2P },
		{ HD_OP_RECV, true, HD_SEQ_P2P },
		{ HD_OP_COALESCED, false, HD_SEQ_P2P },
		{ HD_OP_BROADCAST, true, HD_SEQ_COLLECTIVE },
		{ HD_OP_BROADCAST, true, HD_SEQ_COLLECTIVE },
		{ HD_OP_COALESCED, false, HD_SEQ_COLLECTIVE },
		{ HD_OP_REDUCE, true, HD_SEQ_COLLECTIVE },
		{ HD_OP_REDUCE, true, HD_SEQ_COLLECTIVE },
		{ HD_OP_COALESCED, false, HD_SEQ_COLLECTIVE },
		{ HD_OP_ALL_REDUCE, false, HD_SEQ_COLLECTIVE },
		{ HD_OP_REDUCE_SCATTER, false, HD_SEQ_COLLECTIVE },
		{ HD_OP_BARRIER, false, HD_SEQ_COLLECTIVE },
	};

	ck_assert_uint_eq(p->ops->len, 3);
	ck_assert_int_eq(op_at(p, 2)->kind, HD_OP_SEND);
	ck_assert_int_eq(op_at(p, 2)->seq, 3);
	ck_assert_int_eq(op_at(p, 2)->seq_kind, HD_SEQ_P2P);
	ck_assert_int_eq(hd_op_desc(op_at(p, 2))->peer, 1);
	ck_assert_str_eq(hd_op_desc(op_at(p, 2))->name, "send");

	ck_assert_uint_eq(c->ops->len, G_N_ELEMENTS(want));
	for (guint i = 0; i < G_N_ELEMENTS(want); i++) {
		const struct hd_op *o = op_at(c, i);

		ck_assert_msg(o->kind == want[i].kind, "op %u kind %d", i,
			      o->kind);
		ck_assert_msg(!!(o->flags & HD_OPF_COALESCED_MEMBER) ==
				      want[i].member,
			      "op %u member", i);
		ck_assert_int_eq(o->seq_kind, want[i].seq_kind);
	}
	ck_assert_int_eq(hd_op_desc(op_at(c, 1))->peer, 0);
	ck_assert_int_eq(op_at(c, 1)->seq, 1);
	ck_assert_int_eq(op_at(c, 6)->seq, 2);
	ck_assert_str_eq(hd_op_desc(op_at(c, 11))->name,
			 "REDUCE_SCATTER_coalesced");
	ck_assert_str_eq(hd_op_desc(op_at(c, 13))->shape_in,
			 "[[2, 2], [2, 2]]");
	ck_assert_int_eq(hd_op_desc(op_at(c, 13))->count_in, 8);
	ck_assert_str_eq(hd_op_desc(op_at(c, 12))->dtype_name,
			 "Float,Float->Float,Float");
	ck_assert_str_eq(hd_op_desc(op_at(c, 5))->shape_in, "[]");
	ck_assert_int_eq(hd_op_desc(op_at(c, 5))->count_in, 0);

	ck_assert_int_eq(op_at(a, 0)->kind, HD_OP_RECV);
	ck_assert(op_at(a, 0)->flags & HD_OPF_ANY_SOURCE);
	ck_assert_int_eq(hd_op_desc(op_at(a, 0))->peer, -1);
}
END_TEST

START_TEST(test_backends_and_gather)
{
	bool ok;
	g_autoptr(hd_store) b =
		load("tests/data/fr/pairwise/backends_rank_0", &ok);
	g_autoptr(hd_store) g = load("tests/data/fr/pairwise/gather-root/"
				     "nccl_trace_rank_1",
				     &ok);

	ck_assert_uint_eq(b->ops->len, 8);
	for (guint i = 0; i < 8; i++) {
		ck_assert_int_eq(op_at(b, i)->kind, HD_OP_ALL_REDUCE);
		ck_assert_str_eq(hd_op_desc(op_at(b, i))->name, "all_reduce");
	}
	ck_assert_uint_eq(hd_store_input(b, 0)->nwarnings, 0);
	/* a non-root gather output [[]]: one scalar tensor */
	ck_assert_str_eq(hd_op_desc(op_at(g, 0))->shape_out, "[[]]");
	ck_assert_int_eq(hd_op_desc(op_at(g, 0))->count_out, 1);
	ck_assert_int_eq(op_at(g, 0)->kind, HD_OP_GATHER);
}
END_TEST

START_TEST(test_blocked_chain_groups)
{
	bool ok;
	g_autoptr(hd_store) s = load("tests/data/fr/blocked-chain/"
				     "nccl_trace_rank_2",
				     &ok);
	const char *ids[] = { "pg:0:[0-3]", "pg:2:[2,3]", "pg:3:[0,2]" };

	ck_assert(ok);
	ck_assert_uint_eq(s->groups->len, 3);
	for (guint i = 0; i < 3; i++)
		ck_assert_int_ge(hd_store_find_group(s, ids[i]), 0);
	ck_assert_uint_eq(s->signals->len, 3);
	for (guint i = 0; i < 3; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);

		ck_assert_ptr_nonnull(sig->group_name);
		if (strcmp(sig->group_name, "3") == 0)
			ck_assert_int_eq(sig->last_completed, 3);
	}
	/* the last op is the stuck DP all_reduce */
	ck_assert_int_eq(op_at(s, s->ops->len - 1)->state, HD_STATE_ENQUEUED);
	ck_assert_str_eq(
		hd_store_group_at(s, op_at(s, s->ops->len - 1)->group)->id,
		"pg:3:[0,2]");
}
END_TEST

START_TEST(test_rank_inference)
{
	bool ok;
	g_autoptr(hd_store) a = load_as("tests/data/fr/blocked-chain/"
					"nccl_trace_rank_2",
					"dump.pkl", 0, &ok);
	g_autoptr(hd_store) b = load_as("tests/data/fr/blocked-chain/"
					"nccl_trace_rank_2",
					"trace_9", 0, &ok);
	g_autoptr(hd_store) c = load_as("tests/data/fr/healthy/"
					"nccl_trace_rank_2",
					"trace_7", 0, &ok);
	g_autoptr(hd_store) d = load("tests/data/fr/mixed-fr-nccl/"
				     "nccl_trace_rank_node-a_1",
				     &ok);

	ck_assert_int_eq(hd_store_input(a, 0)->rank, 2);
	ck_assert_uint_eq(hd_store_input(a, 0)->nwarnings, 0);
	ck_assert_int_eq(hd_store_input(b, 0)->rank, 2);
	ck_assert(hd_test_has_warning(hd_store_input(b, 0),
				      "file name says rank 9"));
	/* no single common rank: keep the name's, but say so */
	ck_assert_int_eq(hd_store_input(c, 0)->rank, 7);
	ck_assert(hd_test_has_warning(hd_store_input(c, 0), "not in every"));
	ck_assert_int_eq(hd_store_input(d, 0)->rank, 1);
	ck_assert_int_eq(hd_op_rank(op_at(d, 0)), 1);
}
END_TEST

START_TEST(test_empty)
{
	bool ok;
	g_autoptr(hd_store) a = load("tests/data/fr/empty-dump/"
				     "nccl_trace_rank_0",
				     &ok);
	g_autoptr(hd_store) b = load("tests/data/fr/empty-dump/"
				     "nccl_trace_rank_1",
				     &ok);
	g_autoptr(hd_store) c = load("tests/data/fr/versions/"
				     "noentries_rank_0",
				     &ok);

	ck_assert(ok);
	ck_assert_uint_eq(hd_store_input(a, 0)->bytes, 87);
	ck_assert(hd_store_input(a, 0)->empty);
	ck_assert_uint_eq(hd_store_input(a, 0)->nwarnings, 0);
	ck_assert_int_eq(hd_store_input(a, 0)->rank, 0);
	ck_assert_uint_eq(hd_store_input(b, 0)->bytes, 113);
	ck_assert(hd_store_input(b, 0)->empty);
	ck_assert(hd_store_input(c, 0)->empty);
	ck_assert(hd_test_has_warning(hd_store_input(c, 0), "no entries"));
	ck_assert_uint_eq(a->ops->len + b->ops->len + c->ops->len, 0);
}
END_TEST

START_TEST(test_versions)
{
	static const char *const files[] = {
		"v2.3_rank_0", "v2.5_rank_0",  "v2.6_rank_0",
		"v2.9_rank_0", "v2.10_rank_0",
	};
	bool ok;

	for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
		g_autofree char *rel =
			g_strconcat("tests/data/fr/versions/", files[i], NULL);
		g_autoptr(hd_store) s = load(rel, &ok);

		ck_assert(ok);
		ck_assert_uint_eq(s->ops->len, 2);
		ck_assert_uint_eq(hd_store_input(s, 0)->nwarnings, 0);
		ck_assert_int_eq(op_at(s, 1)->seq, 2);
		ck_assert_str_eq(hd_store_group_at(s, 0)->id, "pg:0:[0,1]");
	}
	{
		/* 2.3 with timing: started times and last_started */
		g_autoptr(hd_store) s = load("tests/data/fr/versions/"
					     "v2.3_rank_0",
					     &ok);

		ck_assert_int_ne(hd_op_t_start(s, op_at(s, 0)), INT64_MIN);
		ck_assert_int_eq(
			g_array_index(s->signals, struct hd_signal, 0).seq, 2);
	}
}
END_TEST

START_TEST(test_old_versions)
{
	bool ok;
	g_autoptr(hd_store) a =
		load("tests/data/fr/versions/torch22_rank_1", &ok);
	g_autoptr(hd_store) b = load("tests/data/fr/versions/v1.0_rank_1", &ok);
	g_autoptr(hd_store) c = load("tests/data/fr/versions/v1.2_rank_1", &ok);
	g_autoptr(hd_store) d =
		load("tests/data/fr/versions/v2.11_rank_0", &ok);
	g_autoptr(hd_store) e = load("tests/data/fr/versions/"
				     "noframes_rank_1",
				     &ok);

	ck_assert(ok);
	ck_assert_uint_eq(a->ops->len, 2);
	ck_assert_int_eq(hd_store_input(a, 0)->rank, 1);
	ck_assert_int_eq(op_at(a, 1)->seq, 2);
	ck_assert_int_eq(op_at(a, 1)->seq_kind, HD_SEQ_COLLECTIVE);
	ck_assert_str_eq(hd_store_group_at(a, op_at(a, 0)->group)->id,
			 "pg:?:?");
	ck_assert(
		hd_test_has_warning(hd_store_input(a, 0), "not in pg_config"));
	/* one warning for the missing PG, not one per entry */
	ck_assert_uint_eq(hd_store_input(a, 0)->nwarnings, 1);
	ck_assert_uint_eq(b->ops->len, 2);
	ck_assert_uint_eq(c->ops->len, 2);
	ck_assert_int_ge(hd_store_find_group(c, "pg:0:[0,1]"), 0);
	/* 2.11: two unknown keys, warned once each */
	ck_assert_uint_eq(d->ops->len, 2);
	ck_assert_uint_eq(hd_store_input(d, 0)->nwarnings, 2);
	ck_assert(hd_test_has_warning(hd_store_input(d, 0),
				      "'input_split_sizes'"));
	ck_assert_int_eq(op_at(d, 1)->kind, HD_OP_ALL_TO_ALL);
	ck_assert_int_eq(hd_op_stack(e, op_at(e, 0)), -1);
	ck_assert_uint_eq(e->stacks->len, 0);
}
END_TEST

START_TEST(test_json)
{
	bool ok;
	g_autoptr(hd_store) s = load("tests/data/fr/json-variant/"
				     "comm_lib_trace_rank_2.json",
				     &ok);
	const struct hd_signal *sig;

	ck_assert(ok);
	ck_assert_int_eq(hd_store_input(s, 0)->rank, 2);
	ck_assert_uint_eq(s->ops->len, 5);
	ck_assert_uint_eq(hd_store_input(s, 0)->nwarnings, 0);
	/* > 2^53, exact */
	ck_assert_int_eq(hd_op_t_enqueue(s, op_at(s, 4)),
			 1700000000000000000LL + 4 * 1000000 + 2 * 1000);
	ck_assert_int_eq(hd_op_t_end(s, op_at(s, 4)), INT64_MIN);
	ck_assert_int_eq(op_at(s, 4)->state, HD_STATE_ENQUEUED);
	ck_assert_int_eq(hd_op_stack(s, op_at(s, 0)), -1);
	sig = &g_array_index(s->signals, struct hd_signal, 0);
	ck_assert_int_eq(sig->last_enqueued, 5);
	ck_assert_int_eq(sig->last_completed, 4);
}
END_TEST

START_TEST(test_truncated_fixture)
{
	bool ok;
	g_autoptr(hd_store) s = load("tests/data/fr/truncated-dump/"
				     "nccl_trace_rank_1",
				     &ok);
	struct hd_input *in = hd_store_input(s, 0);

	ck_assert(ok);
	ck_assert(in->truncated);
	ck_assert_uint_gt(in->records, 3);
	ck_assert_uint_lt(in->records, 12);
	ck_assert_uint_eq(in->skipped, 1);
	ck_assert(hd_test_has_warning(in, "truncated at byte"));
	for (guint i = 0; i < s->ops->len; i++)
		ck_assert_int_eq(op_at(s, i)->seq, i + 1);
}
END_TEST

START_TEST(test_every_cut)
{
	g_autofree char *path = hd_test_path("tests/data/fr/coalesced/"
					     "nccl_trace_rank_0");
	gsize len;
	g_autofree char *data = NULL;
	uint64_t prev = 0;

	ck_assert(g_file_get_contents(path, &data, &len, NULL));
	for (gsize cut = 1; cut <= len; cut++) {
		bool ok;
		g_autoptr(hd_store) s = load_as("tests/data/fr/coalesced/"
						"nccl_trace_rank_0",
						"nccl_trace_rank_0", cut, &ok);
		struct hd_input *in = hd_store_input(s, 0);

		ck_assert_uint_eq(in->records, s->ops->len);
		ck_assert_uint_ge(in->records, prev);
		ck_assert(in->truncated == (cut < len) || !ok);
		prev = in->records;
	}
	ck_assert_uint_eq(prev, 15);
}
END_TEST

/* The JSON fixture's text with s inserted at the first occurrence of at. */
static GString *json_fixture_with(const char *at, const char *s)
{
	g_autofree char *path = hd_test_path("tests/data/fr/json-variant/"
					     "comm_lib_trace_rank_2.json");
	g_autofree char *data = NULL;
	gsize len;
	GString *b;
	const char *p;

	ck_assert(g_file_get_contents(path, &data, &len, NULL));
	p = strstr(data, at);
	ck_assert_ptr_nonnull(p);
	p += strlen(at);
	b = g_string_new_len(data, p - data);
	g_string_append(b, s);
	g_string_append(b, p);
	return b;
}

static struct hd_store *parse_json(const GString *b, bool *ok, GError **err)
{
	return hd_test_parse(HD_INPUT_FLIGHT_REC, "comm_lib_trace_rank_2.json",
			     b->str, b->len, ok, err);
}

/*
 * issue 12: the JSON variant had no node budget, only byte ones, and built
 * its tree without checking the builders.  Millions of tiny values are
 * refused by a count taken before jansson builds anything (so memory stays
 * bounded), keeping the whole entries before the cut like a pickle does.
 */
START_TEST(test_json_node_budget)
{
	g_autoptr(GString) zeros = g_string_new(NULL);
	g_autoptr(GString) b = NULL;
	g_autoptr(GString) deep = g_string_new(NULL);
	g_autoptr(GError) err = NULL;
	struct hd_store *s;
	struct hd_input *in;
	bool ok;

	/* 4 M values after the entries, under a budget of 1 M nodes */
	g_string_append(zeros, ",\"junk\":[0");
	for (int i = 0; i < 4 << 20; i++)
		g_string_append(zeros, ",0");
	g_string_append(zeros, "]");
	b = json_fixture_with("\"version\":\"2.10\"", zeros->str);
	flight_rec_set_node_budget(1 << 20);
	s = parse_json(b, &ok, &err);
	flight_rec_set_node_budget(0);
	in = hd_store_input(s, 0);
	ck_assert(ok);
	ck_assert(in->truncated);
	ck_assert_uint_eq(in->records, 5);
	ck_assert_uint_eq(s->ops->len, 5);
	ck_assert(
		hd_test_has_warning(in, "JSON values, the budget for a dump"));
	hd_store_free(s);

	/* past the budget with nothing whole before it: refused */
	g_string_assign(b, "{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":1}}}}}");
	flight_rec_set_node_budget(6);
	s = parse_json(b, &ok, &err);
	flight_rec_set_node_budget(0);
	ck_assert(!ok);
	ck_assert_ptr_nonnull(strstr(err->message, "budget"));
	hd_store_free(s);
	g_clear_error(&err);

	/* deep nesting: refused by the count, jansson never recurses */
	for (int i = 0; i < 100000; i++)
		g_string_append_c(deep, i % 2 ? '[' : '{');
	s = parse_json(deep, &ok, &err);
	ck_assert(!ok);
	ck_assert_ptr_nonnull(strstr(err->message, "nested deeper"));
	hd_store_free(s);
	g_clear_error(&err);
	g_string_assign(deep, "{\"entries\":");
	for (int i = 0; i < PK_MAX_DEPTH + 1; i++)
		g_string_append_c(deep, '[');
	for (int i = 0; i < PK_MAX_DEPTH + 1; i++)
		g_string_append_c(deep, ']');
	g_string_append_c(deep, '}');
	s = parse_json(deep, &ok, &err);
	ck_assert(!ok);
	hd_store_free(s);
	g_clear_error(&err);

	/* an entry of 300,000 keys under a budget of 200,000 nodes */
	g_string_truncate(zeros, 0);
	for (int i = 0; i < 300000; i++)
		g_string_append_printf(zeros, "\"k%d\":%d,", i, i);
	g_string_free(b, TRUE);
	b = json_fixture_with("\"timeout_ms\":600000},{", zeros->str);
	flight_rec_set_node_budget(200000);
	s = parse_json(b, &ok, &err);
	flight_rec_set_node_budget(0);
	in = hd_store_input(s, 0);
	ck_assert(ok);
	ck_assert(in->truncated);
	/* the entry that was cut is partial: not kept */
	ck_assert_uint_eq(in->records, 1);
	hd_store_free(s);
}
END_TEST

/*
 * issue 12: every dict key, unknown state and decimal string was interned,
 * so a dump of distinct junk keys spent the input's budget of new strings
 * (HD_BUDGET_STRINGS_PER_INPUT) and was refused whole.  Keys are compared
 * as bytes now: 100,000 junk keys leave the budget untouched.
 */
START_TEST(test_junk_keys_not_interned)
{
	g_autoptr(GString) junk = g_string_new(NULL);
	g_autoptr(GString) b = NULL;
	g_autoptr(GError) err = NULL;
	struct hd_store *s;
	struct hd_input *in;
	uint64_t refused;
	bool ok;

	for (int i = 0; i < 100000; i++)
		g_string_append_printf(junk, "\"junk-%d\":\"v%d\",", i, i);
	b = json_fixture_with("\"entries\":[{", junk->str);
	g_string_truncate(junk, 0);
	for (int i = 0; i < 1000; i++)
		g_string_append_printf(junk, "\"state\":\"odd-%d\",", i);
	g_string_insert(b, (gssize)(strstr(b->str, "},{") - b->str) + 3,
			junk->str);
	hd_intern_limit_begin(200);
	s = parse_json(b, &ok, &err);
	refused = hd_intern_limit_end();
	in = hd_store_input(s, 0);
	ck_assert_msg(ok, "%s", err ? err->message : "");
	ck_assert_uint_eq(refused, 0);
	ck_assert_uint_eq(in->records, 5);
	ck_assert_uint_ge(in->nwarnings, 100000);
	ck_assert(hd_test_has_warning(in, "unknown key 'junk-0' ignored"));
	hd_store_free(s);
}
END_TEST

START_TEST(test_hostile)
{
	static const char refused[] = "\x80\x02\x63os\nsystem\n(S'true'\ntR.";
	g_autofree char *path = hd_test_path("tests/data/fr/blocked-chain/"
					     "nccl_trace_rank_0");
	g_autofree char *data = NULL;
	g_autoptr(GError) err = NULL;
	g_autoptr(GRand) rnd = g_rand_new_with_seed(42);
	gsize len;
	bool ok;
	struct hd_store *s;

	s = hd_test_parse(HD_INPUT_FLIGHT_REC, "x_0", refused,
			  sizeof(refused) - 1, &ok, &err);
	ck_assert(!ok);
	/* The store keeps the message, which must say it refused. */
	ck_assert(strstr(err->message, "refused"));
	ck_assert(strstr(err->message, "GLOBAL"));
	hd_store_free(s);
	g_clear_error(&err);
	/* cut JSON keeps the whole values before its last ',' */
	s = hd_test_parse(HD_INPUT_FLIGHT_REC, "x_0", "{\"entries\": [1, ", 15,
			  &ok, &err);
	ck_assert(ok);
	ck_assert(hd_store_input(s, 0)->truncated);
	ck_assert_uint_eq(hd_store_input(s, 0)->records, 0);
	hd_store_free(s);
	s = hd_test_parse(HD_INPUT_FLIGHT_REC, "x_0", "{\"entries\": [", 13,
			  &ok, &err);
	ck_assert(!ok);
	hd_store_free(s);
	g_clear_error(&err);

	ck_assert(g_file_get_contents(path, &data, &len, NULL));
	for (int round = 0; round < 3000; round++) {
		g_autofree char *m = g_malloc(len);
		int flips = g_rand_int_range(rnd, 1, 8);

		memcpy(m, data, len);
		for (int f = 0; f < flips; f++)
			m[g_rand_int_range(rnd, 0, (gint32)len)] =
				(char)g_rand_int_range(rnd, 0, 256);
		s = hd_test_parse(HD_INPUT_FLIGHT_REC, "x_0", m, len, &ok,
				  &err);
		ck_assert(ok || err);
		hd_store_free(s);
		g_clear_error(&err);
	}
}
END_TEST

/*
 * A protocol-2 writer for hand-made dumps that, like PyTorch's, memoizes
 * every string by value, so repeated strings are BINGETs of one node.
 */
struct pw {
	GString *b;
	GHashTable *memo; /* string -> memo id + 1 */
	guint32 next;
};

static void pw_u32(struct pw *w, char op, guint32 v)
{
	guint32 le = GUINT32_TO_LE(v);

	g_string_append_c(w->b, op);
	g_string_append_len(w->b, (const char *)&le, 4);
}

static void pw_put(struct pw *w)
{
	pw_u32(w, 'r', w->next++);
}

static void pw_str(struct pw *w, const char *s)
{
	gpointer v = g_hash_table_lookup(w->memo, s);

	if (v) {
		pw_u32(w, 'j', GPOINTER_TO_UINT(v) - 1);
		return;
	}
	pw_u32(w, 'X', (guint32)strlen(s));
	g_string_append(w->b, s);
	g_hash_table_insert(w->memo, hd_unconst(s),
			    GUINT_TO_POINTER(w->next + 1));
	pw_put(w);
}

static void pw_int(struct pw *w, gint64 v)
{
	guint64 le = GUINT64_TO_LE((guint64)v);

	g_string_append_len(w->b, "\x8a\x08", 2);
	g_string_append_len(w->b, (const char *)&le, 8);
}

/*
 * Sizes from "4,4;8" ([[4, 4], [8]]): a dim "s" is a string, "-" is -1,
 * a shape "#" is the int 5 rather than a list; "" is [].
 */
static void pw_sizes(struct pw *w, const char *spec)
{
	g_auto(GStrv) shapes = *spec ? g_strsplit(spec, ";", -1) : NULL;

	g_string_append(w->b, "](");
	for (guint i = 0; shapes && shapes[i]; i++) {
		g_auto(GStrv) dims =
			*shapes[i] ? g_strsplit(shapes[i], ",", -1) : NULL;

		if (strcmp(shapes[i], "#") == 0) {
			pw_int(w, 5);
			continue;
		}
		g_string_append(w->b, "](");
		for (guint k = 0; dims && dims[k]; k++)
			if (strcmp(dims[k], "s") == 0)
				pw_str(w, "s");
			else if (strcmp(dims[k], "-") == 0)
				pw_int(w, -1);
			else
				pw_int(w, g_ascii_strtoll(dims[k], NULL, 10));
		g_string_append_c(w->b, 'e');
	}
	g_string_append_c(w->b, 'e');
}

/* A list of strings from "Float,Half" ("" is []). */
static void pw_strs(struct pw *w, const char *spec)
{
	g_auto(GStrv) v = *spec ? g_strsplit(spec, ",", -1) : NULL;

	g_string_append(w->b, "](");
	for (guint i = 0; v && v[i]; i++)
		pw_str(w, g_intern_string(v[i]));
	g_string_append_c(w->b, 'e');
}

/* A frame dict, memoized as a shared one is; returns its memo id. */
static guint32 pw_frame(struct pw *w, const char *name, gint64 line)
{
	g_string_append(w->b, "}(");
	pw_str(w, "name");
	pw_str(w, name);
	pw_str(w, "filename");
	pw_str(w, "train.py");
	pw_str(w, "line");
	pw_int(w, line);
	g_string_append_c(w->b, 'u');
	pw_put(w);
	return w->next - 1;
}

/*
 * One entry; frames 'A' is a list of the shared frames f[0], f[1], 'B' of
 * f[1] alone: a new list each time, as the writer makes them.
 */
static void pw_entry(struct pw *w, const char *pg, const char *in,
		     const char *dt_in, const char *dt_out, const char *state,
		     char frames, const guint32 *f, gint64 seq)
{
	g_string_append(w->b, "}(");
	pw_str(w, "frames");
	g_string_append(w->b, "](");
	if (frames == 'A')
		pw_u32(w, 'j', f[0]);
	pw_u32(w, 'j', f[1]);
	g_string_append_c(w->b, 'e');
	pw_str(w, "pg_id");
	pw_int(w, strcmp(pg, "0") == 0 ? 0 : 1);
	pw_str(w, "process_group");
	pw_str(w, pg);
	pw_str(w, "undefined");
	g_string_append_c(w->b, '\x86');
	pw_str(w, "collective_seq_id");
	pw_int(w, seq);
	pw_str(w, "profiling_name");
	pw_str(w, "nccl:all_reduce");
	pw_str(w, "input_sizes");
	pw_sizes(w, in);
	pw_str(w, "output_sizes");
	pw_sizes(w, "4,4");
	pw_str(w, "input_dtypes");
	pw_strs(w, dt_in);
	pw_str(w, "output_dtypes");
	pw_strs(w, dt_out);
	pw_str(w, "state");
	pw_str(w, state);
	g_string_append_c(w->b, 'u');
}

static void pw_pg(struct pw *w, const char *name)
{
	pw_str(w, name);
	g_string_append(w->b, "}(");
	pw_str(w, "name");
	pw_str(w, name);
	pw_str(w, "desc");
	pw_str(w, "undefined");
	pw_str(w, "ranks");
	pw_str(w, "[0]");
	g_string_append_c(w->b, 'u');
}

static void pw_status(struct pw *w, const char *pg_id, gint64 done)
{
	pw_str(w, pg_id);
	g_string_append(w->b, "}(");
	pw_str(w, "last_enqueued_collective");
	pw_int(w, done + 1);
	pw_str(w, "last_started_collective");
	pw_int(w, -1);
	pw_str(w, "last_completed_collective");
	pw_int(w, done);
	g_string_append_c(w->b, 'u');
}

static const char *group_name_of(struct hd_store *s, const struct hd_op *op)
{
	return hd_store_group_at(s, op->group)->name;
}

/*
 * Entries that repeat, or nearly repeat, the one before: the parser reuses
 * the last entry's rendering of sizes and dtypes, profiling_name, group,
 * pg_id and state when what they are computed from is the same, so every
 * near miss must still come out as if parsed alone.
 */
START_TEST(test_entry_caches)
{
	static const struct {
		const char *pg, *in, *dt_in, *dt_out, *state;
		char frames;
		const char *shape;
		gint64 count;
		const char *dtype_name;
		enum hd_op_state st;
	} e[] = {
		{ "0", "4,4", "Float", "Float", "completed", 'A', "[[4, 4]]",
		  16, "Float->Float", HD_STATE_COMPLETED },
		{ "0", "4,4", "Float", "Float", "completed", 'A', "[[4, 4]]",
		  16, "Float->Float", HD_STATE_COMPLETED },
		{ "0", "4,s", "Float", "Float", "completed", 'A', "[[4, ?]]",
		  -1, "Float->Float", HD_STATE_COMPLETED },
		{ "0", "4,-", "Float", "Float", "completed", 'A', "[[4, ?]]",
		  -1, "Float->Float", HD_STATE_COMPLETED },
		{ "0", "4;", "Float", "Float", "completed", 'A', "[[4], []]", 5,
		  "Float->Float", HD_STATE_COMPLETED },
		/* the same text, but a shape that is not a list: unknown */
		{ "0", "4;#", "Float", "Float", "completed", 'A', "[[4], []]",
		  -1, "Float->Float", HD_STATE_COMPLETED },
		{ "0", "", "Half", "Float", "weird", 'B', "[]", 0,
		  "Half->Float", HD_STATE_UNKNOWN },
		{ "0", "4,4", "", "Half", "weird", 'B', "[[4, 4]]", 16,
		  "->Half", HD_STATE_UNKNOWN },
		{ "1", "4,4", "", "Half", "scheduled", 'A', "[[4, 4]]", 16,
		  "->Half", HD_STATE_ENQUEUED },
		{ "0", "4,4", "Float", "Float", "completed", 'A', "[[4, 4]]",
		  16, "Float->Float", HD_STATE_COMPLETED },
	};
	struct pw w = { .b = g_string_new("\x80\x02}("),
			.memo = g_hash_table_new(g_str_hash, g_str_equal) };
	g_autoptr(GError) err = NULL;
	g_autoptr(hd_store) s = NULL;
	struct hd_input *in;
	guint32 f[2];
	size_t nframes;
	int nweird = 0;
	bool ok;

	/* the shared frames, made and dropped from the stack (POP) */
	f[0] = pw_frame(&w, "all_reduce", 7);
	f[1] = pw_frame(&w, "train_step", 88);
	g_string_append(w.b, "00");
	pw_str(&w, "version");
	pw_str(&w, "2.8");
	pw_str(&w, "pg_config");
	g_string_append(w.b, "}(");
	pw_pg(&w, "0");
	pw_pg(&w, "1");
	g_string_append_c(w.b, 'u');
	pw_str(&w, "pg_status");
	g_string_append(w.b, "}(");
	pw_status(&w, "0", 7);
	pw_status(&w, "1", 3);
	g_string_append_c(w.b, 'u');
	pw_str(&w, "entries");
	g_string_append(w.b, "](");
	for (guint i = 0; i < G_N_ELEMENTS(e); i++)
		pw_entry(&w, e[i].pg, e[i].in, e[i].dt_in, e[i].dt_out,
			 e[i].state, e[i].frames, f, (gint64)i + 1);
	g_string_append(w.b, "eu.");

	s = hd_test_parse(HD_INPUT_FLIGHT_REC, "nccl_trace_rank_0", w.b->str,
			  w.b->len, &ok, &err);
	ck_assert_msg(ok, "%s", err ? err->message : "");
	in = hd_store_input(s, 0);
	ck_assert_uint_eq(s->ops->len, G_N_ELEMENTS(e));
	for (guint i = 0; i < G_N_ELEMENTS(e); i++) {
		const struct hd_op *op = op_at(s, i);

		ck_assert_str_eq(hd_op_desc(op)->shape_in, e[i].shape);
		ck_assert_int_eq(hd_op_desc(op)->count_in, e[i].count);
		ck_assert_str_eq(hd_op_desc(op)->shape_out, "[[4, 4]]");
		ck_assert_int_eq(hd_op_desc(op)->count_out, 16);
		ck_assert_str_eq(hd_op_desc(op)->dtype_name, e[i].dtype_name);
		ck_assert_int_eq(hd_op_desc(op)->dtype,
				 e[i].dt_in[0] == 'F' ? HD_DTYPE_FLOAT32
						      : HD_DTYPE_FLOAT16);
		ck_assert_int_eq(op->state, e[i].st);
		ck_assert_str_eq(group_name_of(s, op), e[i].pg);
		ck_assert_int_eq(op->seq, (gint64)i + 1);
		ck_assert_int_ge(hd_op_stack(s, op), 0);
		ck_assert_int_eq(hd_op_stack(s, op) ==
					 hd_op_stack(s, op_at(s, 0)),
				 e[i].frames == 'A');
	}
	ck_assert_ptr_nonnull(
		hd_store_stack(s, hd_op_stack(s, op_at(s, 0)), &nframes));
	ck_assert_uint_eq(nframes, 2);
	ck_assert_ptr_nonnull(
		hd_store_stack(s, hd_op_stack(s, op_at(s, 6)), &nframes));
	ck_assert_uint_eq(nframes, 1);
	for (guint i = 0; i < in->warnings->len; i++)
		nweird += strstr(g_ptr_array_index(in->warnings, i),
				 "unknown state 'weird'") != NULL;
	ck_assert_int_eq(nweird, 1);
	/* pg_status is keyed by pg_id, mapped through the entries */
	ck_assert_uint_eq(s->signals->len, 2);
	for (guint i = 0; i < 2; i++) {
		const struct hd_signal *sig =
			&g_array_index(s->signals, struct hd_signal, i);

		ck_assert_str_eq(sig->group_name, i ? "1" : "0");
		ck_assert_int_eq(sig->last_completed, i ? 3 : 7);
	}
	g_hash_table_unref(w.memo);
	g_string_free(w.b, TRUE);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("flight_rec");
	TCase *tc = tcase_create("parse");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_healthy);
	tcase_add_test(tc, test_missing_rank);
	tcase_add_test(tc, test_mismatch_fixtures);
	tcase_add_test(tc, test_p2p_and_coalesced);
	tcase_add_test(tc, test_backends_and_gather);
	tcase_add_test(tc, test_blocked_chain_groups);
	tcase_add_test(tc, test_rank_inference);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_versions);
	tcase_add_test(tc, test_old_versions);
	tcase_add_test(tc, test_json);
	tcase_add_test(tc, test_truncated_fixture);
	tcase_add_test(tc, test_every_cut);
	tcase_add_test(tc, test_hostile);
	tcase_add_test(tc, test_json_node_budget);
	tcase_add_test(tc, test_junk_keys_not_interned);
	tcase_add_test(tc, test_entry_caches);
	suite_add_tcase(s, tc);
	return s;
}

HD_TEST_MAIN(suite)
