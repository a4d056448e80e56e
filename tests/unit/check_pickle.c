/*
 * Unit tests for the safe pickle reader (parsers/pickle.c): every accepted
 * opcode, every refusal, hostile lengths, memo and depth limits, and
 * truncation at every byte of a real-shaped dump.
 */
#include "config.h"

#include <string.h>

#include "hd-budget.h"
#include "hd-test.h"
#include "pickle.h"

#define DEC(lit) pk_decode((const uint8_t *)(lit), sizeof(lit) - 1)

/* The empty dump of the format notes, section 2: 87 bytes. */
static const char empty87[] =
	"\x80\x02}(X\x07\x00\x00\x00versionq\x00X\x03\x00\x00\x00"
	"2.5q\x01X\x09\x00\x00\x00pg_configq\x02}(uX\x09\x00\x00\x00"
	"pg_statusq\x03}(uX\x07\x00\x00\x00"
	"entriesq\x04](euq\x05.";

/* The node for id, which the test expects to exist. */
static const struct pk_node *node_of(const struct pk_tree *t, uint32_t id)
{
	const struct pk_node *n = pk_node(t, id);

	ck_assert_ptr_nonnull(n);
	return n;
}

START_TEST(test_empty_dump)
{
	g_autoptr(pk_tree) t = DEC(empty87);
	uint32_t e;

	ck_assert_uint_eq(sizeof(empty87) - 1, 87);
	ck_assert_int_eq(t->status, PK_OK);
	ck_assert_int_eq(pk_type_of(t, t->root), PK_DICT);
	ck_assert_uint_eq(pk_len(t, t->root), 8);
	ck_assert(pk_str_eq(t, pk_dict_get(t, t->root, "version"), "2.5"));
	e = pk_dict_get(t, t->root, "entries");
	ck_assert_int_eq(pk_type_of(t, e), PK_LIST);
	ck_assert_uint_eq(pk_len(t, e), 0);
	ck_assert_uint_eq(pk_dict_get(t, t->root, "nope"), PK_NIL);
	ck_assert_uint_eq(t->stop_at, 87);
}
END_TEST

START_TEST(test_ints)
{
	/* [K 7, M 0x1234, J -1, LONG1 8 bytes, LONG1 0 bytes, LONG1 1 byte
	 * 0xff, LONG4 2 bytes, text I, text L, I01 (bool)] */
	g_autoptr(pk_tree) t =
		DEC("\x80\x02](K\x07M\x34\x12J\xff\xff\xff\xff"
		    "\x8a\x08\x00\x00\x64\xa7\xb3\xb6\xe0\x0d"
		    "\x8a\x00\x8a\x01\xff\x8b\x02\x00\x00\x00\x00\x01"
		    "I-42\nL99L\nI01\ne.");
	int64_t v;

	ck_assert_int_eq(t->status, PK_OK);
	ck_assert_uint_eq(pk_len(t, t->root), 10);
	ck_assert(pk_int(t, pk_child(t, t->root, 0), &v) && v == 7);
	ck_assert(pk_int(t, pk_child(t, t->root, 1), &v) && v == 0x1234);
	ck_assert(pk_int(t, pk_child(t, t->root, 2), &v) && v == -1);
	ck_assert(pk_int(t, pk_child(t, t->root, 3), &v));
	ck_assert_int_eq(v, 1000000000000000000LL);
	ck_assert(pk_int(t, pk_child(t, t->root, 4), &v) && v == 0);
	ck_assert(pk_int(t, pk_child(t, t->root, 5), &v) && v == -1);
	ck_assert(pk_int(t, pk_child(t, t->root, 6), &v) && v == 256);
	ck_assert(pk_int(t, pk_child(t, t->root, 7), &v) && v == -42);
	ck_assert(pk_int(t, pk_child(t, t->root, 8), &v) && v == 99);
	ck_assert_int_eq(pk_type_of(t, pk_child(t, t->root, 9)), PK_BOOL);
	ck_assert(pk_int(t, pk_child(t, t->root, 9), &v) && v == 1);
}
END_TEST

START_TEST(test_scalars)
{
	/* BINFLOAT 1.5 big-endian, True, False, None, text float, bytes */
	g_autoptr(pk_tree) t = DEC("\x80\x02](G\x3f\xf8\x00\x00\x00\x00\x00"
				   "\x00\x88\x89NF2.5\nC\x02hiB\x01\x00\x00"
				   "\x00z\x8c\x03"
				   "abce.");
	const struct pk_node *n;
	size_t len;

	ck_assert_int_eq(t->status, PK_OK);
	ck_assert_uint_eq(pk_len(t, t->root), 8);
	n = node_of(t, pk_child(t, t->root, 0));
	ck_assert(n->type == PK_FLOAT && n->v.f == 1.5);
	ck_assert_int_eq(pk_type_of(t, pk_child(t, t->root, 1)), PK_BOOL);
	ck_assert_int_eq(node_of(t, pk_child(t, t->root, 1))->v.i, 1);
	ck_assert_int_eq(node_of(t, pk_child(t, t->root, 2))->v.i, 0);
	ck_assert_int_eq(pk_type_of(t, pk_child(t, t->root, 3)), PK_NONE);
	ck_assert(node_of(t, pk_child(t, t->root, 4))->v.f == 2.5);
	ck_assert_int_eq(pk_type_of(t, pk_child(t, t->root, 5)), PK_BYTES);
	ck_assert(memcmp(pk_str(t, pk_child(t, t->root, 5), &len), "hi", 2) ==
		  0);
	ck_assert_uint_eq(len, 2);
	ck_assert(pk_str_eq(t, pk_child(t, t->root, 7), "abc"));
}
END_TEST

START_TEST(test_containers)
{
	/* (1,), (1,2), (1,2,3), (), MARK tuple, DICT, LIST, SETITEM, APPEND,
	 * FRAME, MEMOIZE, POP, DUP, POP_MARK */
	g_autoptr(pk_tree) t =
		DEC("\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00"
		    "](K\x01\x85K\x01K\x02\x86K\x01K\x02K\x03\x87)(K\x09t"
		    "(X\x01\x00\x00\x00kK\x02"
		    "d(K\x05l}X\x01\x00\x00\x00"
		    "aK\x01s"
		    "]K\x04"
		    "a\x94K\x09"
		    "02(K\x01K\x02"
		    "1e.");
	uint32_t d;

	ck_assert_msg(t->status == PK_OK, "%s", t->message);
	ck_assert_uint_eq(pk_len(t, t->root), 10);
	ck_assert_uint_eq(pk_len(t, pk_child(t, t->root, 0)), 1);
	ck_assert_uint_eq(pk_len(t, pk_child(t, t->root, 1)), 2);
	ck_assert_uint_eq(pk_len(t, pk_child(t, t->root, 2)), 3);
	ck_assert_int_eq(pk_type_of(t, pk_child(t, t->root, 3)), PK_TUPLE);
	ck_assert_uint_eq(pk_len(t, pk_child(t, t->root, 3)), 0);
	ck_assert_uint_eq(pk_len(t, pk_child(t, t->root, 4)), 1);
	d = pk_child(t, t->root, 5);
	ck_assert_int_eq(pk_type_of(t, d), PK_DICT);
	ck_assert_int_eq(node_of(t, pk_dict_get(t, d, "k"))->v.i, 2);
	ck_assert_int_eq(pk_type_of(t, pk_child(t, t->root, 6)), PK_LIST);
	ck_assert_int_eq(
		node_of(t, pk_dict_get(t, pk_child(t, t->root, 7), "a"))->v.i,
		1);
	/* DUP: the same node twice */
	ck_assert_uint_eq(pk_child(t, t->root, 8), pk_child(t, t->root, 9));
	ck_assert_uint_eq(pk_len(t, pk_child(t, t->root, 8)), 1);
}
END_TEST

START_TEST(test_memo)
{
	/* BINPUT/BINGET share the node; LONG_BINPUT/LONG_BINGET too */
	g_autoptr(pk_tree) t = DEC("\x80\x02](X\x01\x00\x00\x00xq\x00h\x00"
				   "X\x01\x00\x00\x00yr\x05\x00\x00\x00"
				   "j\x05\x00\x00\x00"
				   "e.");

	ck_assert_msg(t->status == PK_OK, "%s", t->message);
	ck_assert_uint_eq(pk_len(t, t->root), 4);
	ck_assert_uint_eq(pk_child(t, t->root, 0), pk_child(t, t->root, 1));
	ck_assert_uint_eq(pk_child(t, t->root, 2), pk_child(t, t->root, 3));
	ck_assert(pk_str_eq(t, pk_child(t, t->root, 3), "y"));
}
END_TEST

static void assert_error(struct pk_tree *t, const char *want)
{
	ck_assert_int_ne(t->status, PK_OK);
	ck_assert_msg(t->message && strstr(t->message, want), "'%s' lacks '%s'",
		      t->message, want);
	pk_tree_free(t);
}

/* A decoded string root kept with its bad bytes, flagged, n bytes long. */
static void assert_badtext(struct pk_tree *t, size_t n)
{
	const struct pk_node *nd;
	size_t len;

	ck_assert_msg(t->status == PK_OK, "%s", t->message);
	ck_assert_int_eq(pk_type_of(t, t->root), PK_STR);
	nd = pk_node(t, t->root);
	ck_assert_ptr_nonnull(nd);
	/* a long string is checked when asked, and says so after */
	ck_assert(!(nd->flags & PK_F_UNCHECKED) == (n <= PK_STR_CHECKED));
	ck_assert(pk_str_bad(t, t->root));
	ck_assert(nd->flags & PK_F_BADTEXT);
	ck_assert(!(nd->flags & PK_F_UNCHECKED));
	ck_assert_ptr_nonnull(pk_str(t, t->root, &len));
	ck_assert_uint_eq(len, n);
	pk_tree_free(t);
}

/*
 * The string of n bytes, digits and commas as a member list is, with
 * byte at (when < n) set to bad, pickled into b (emptied first) and
 * decoded as the root: the tree points into b.  (transfer full)
 */
static struct pk_tree *long_string(GString *b, size_t n, size_t at, char bad)
{
	uint32_t le = GUINT32_TO_LE((uint32_t)n);

	g_string_assign(b, "\x80\x02X");
	g_string_append_len(b, (const char *)&le, 4);
	for (size_t i = 0; i < n; i++)
		g_string_append_c(b, i == at ? bad : "0123456789, "[i % 12]);
	g_string_append_c(b, '.');
	return pk_decode((const uint8_t *)b->str, b->len);
}

START_TEST(test_refused)
{
	static const struct {
		uint8_t op;
		const char *name;
	} ops[] = {
		{ 'c', "GLOBAL" },  { 0x93, "STACK_GLOBAL" },
		{ 'R', "REDUCE" },  { 'b', "BUILD" },
		{ 'i', "INST" },    { 'o', "OBJ" },
		{ 0x81, "NEWOBJ" }, { 0x92, "NEWOBJ_EX" },
		{ 'P', "PERSID" },  { 'Q', "BINPERSID" },
		{ 0x82, "EXT1" },   { 0x83, "EXT2" },
		{ 0x84, "EXT4" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(ops); i++) {
		uint8_t buf[] = { 0x80, 0x02, ops[i].op, 'o', 's', '\n', 's',
				  'y',	's',  't',	 'e', 'm', '\n', '.' };
		struct pk_tree *t = pk_decode(buf, sizeof(buf));
		g_autofree char *want = g_strdup_printf(
			"refused opcode %s (0x%02x) at offset 2", ops[i].name,
			ops[i].op);

		ck_assert_int_eq(t->status, PK_ERROR);
		ck_assert_uint_eq(t->root, PK_NIL);
		assert_error(t, want);
	}
	assert_error(DEC("\x80\x02\xff."), "unknown opcode 0xff at offset 2");
	assert_error(DEC("\x80\x09."), "unsupported protocol 9");
}
END_TEST

START_TEST(test_hostile)
{
	struct pk_tree *t;
	GString *bomb = g_string_new("\x80\x02");
	g_autoptr(GString) lb = g_string_new(NULL);

	/* lengths past the end */
	t = DEC("\x80\x02X\xff\xff\xff\x7f"
		"abc");
	ck_assert_int_eq(t->status, PK_TRUNCATED);
	assert_error(t, "runs past the end");
	assert_error(DEC("\x80\x02\x8d\xff\xff\xff\xff\xff\xff\xff\xff."),
		     "past the end");
	assert_error(DEC("\x80\x02\x8a\x09\x01\x02\x03\x04\x05\x06\x07\x08"
			 "\x09."),
		     "exceeds 64 bits");
	assert_error(DEC("\x80\x02\x8b\x00\x00\x00\x80."), "exceeds 64 bits");
	assert_error(DEC("\x80\x02h\x03."), "memo id 3 not set");
	assert_error(DEC("\x80\x02K\x01r\xff\xff\xff\xff."), "too large");
	/*
	 * A string that is not UTF-8 or holds a NUL is one bad field: kept,
	 * flagged, the decode goes on (a NUL in a frame's file name once
	 * dropped the rest of the dump as cut).  The ASCII fast path: a bad
	 * byte or NUL in a word and in the tail.
	 */
	assert_badtext(DEC("\x80\x02X\x02\x00\x00\x00\xc3\x28."), 2);
	/* long strings, checked when asked: a bad byte or NUL in a 64-byte
	   step, at its edges, in the tail; a good one is not bad */
	assert_badtext(long_string(lb, 300, 5, '\xff'), 300);
	assert_badtext(long_string(lb, 300, 63, '\0'), 300);
	assert_badtext(long_string(lb, 300, 64, '\x80'), 300);
	assert_badtext(long_string(lb, 300, 299, '\0'), 300);
	assert_badtext(long_string(lb, PK_STR_CHECKED, 100, '\xfe'),
		       PK_STR_CHECKED);
	{
		g_autoptr(pk_tree) g = long_string(lb, 1 << 20, 1 << 20, 0);
		const struct pk_node *nd = pk_node(g, g->root);

		ck_assert_ptr_nonnull(nd);
		ck_assert(nd->flags & PK_F_UNCHECKED);
		ck_assert(!pk_str_bad(g, g->root));
		ck_assert(!(nd->flags & (PK_F_UNCHECKED | PK_F_BADTEXT)));
		ck_assert(!pk_str_bad(g, g->root + 1000)); /* no such node */
	}
	assert_badtext(DEC("\x80\x02X\x0b\x00\x00\x00"
			   "abcdefg\xc3\x28"
			   "bc."),
		       11);
	assert_badtext(DEC("\x80\x02X\x0b\x00\x00\x00"
			   "abc\x00"
			   "efghijk."),
		       11);
	assert_badtext(DEC("\x80\x02X\x0b\x00\x00\x00"
			   "abcdefghij\x00."),
		       11);
	assert_badtext(DEC("\x80\x02X\x0b\x00\x00\x00"
			   "abcdefghij\xff."),
		       11);
	{
		/* in a list, the items after it are all read */
		g_autoptr(pk_tree) l = DEC("\x80\x02](X\x03\x00\x00\x00"
					   "a\x00"
					   "b"
					   "K\x07"
					   "e.");
		const struct pk_node *bad;
		int64_t x = 0;

		ck_assert_int_eq(l->status, PK_OK);
		ck_assert_uint_eq(pk_len(l, l->root), 2);
		bad = pk_node(l, pk_child(l, l->root, 0));
		ck_assert_ptr_nonnull(bad);
		ck_assert(bad->flags & PK_F_BADTEXT);
		ck_assert(pk_int(l, pk_child(l, l->root, 1), &x));
		ck_assert_int_eq(x, 7);
	}
	{
		/* text past the first word, valid outside ASCII */
		g_autoptr(pk_tree) u = DEC("\x80\x02X\x0d\x00\x00\x00"
					   "rank_\xc3\xa9t\xc3\xa9_01.");
		size_t n;

		ck_assert_int_eq(u->status, PK_OK);
		ck_assert_ptr_nonnull(pk_str(u, u->root, &n));
		ck_assert_uint_eq(n, 13);
		ck_assert(memcmp(pk_str(u, u->root, &n),
				 "rank_\xc3\xa9t\xc3\xa9_01", 13) == 0);
	}
	assert_error(DEC("\x80\x02u."), "no mark");
	assert_error(DEC("\x80\x02(K\x01u."), "no container");
	assert_error(DEC("\x80\x02](K\x01u."), "non-dict");
	assert_error(DEC("\x80\x02}(K\x01u."), "odd number");
	assert_error(DEC("\x80\x02\x86."), "underflow");
	assert_error(DEC("\x80\x02."), "underflow");
	/* self-reference and indirect cycle are refused */
	assert_error(DEC("\x80\x02]q\x00(h\x00"
			 "e."),
		     "modified after use");
	assert_error(DEC("\x80\x02]q\x00(](h\x00"
			 "ee."),
		     "modified after use");
	/* depth bombs: marks, and nesting without marks */
	for (int i = 0; i < 200; i++)
		g_string_append(bomb, "](");
	assert_error(pk_decode((const uint8_t *)bomb->str, bomb->len),
		     "nesting deeper");
	g_string_assign(bomb, "\x80\x02");
	for (int i = 0; i < 200; i++)
		g_string_append_c(bomb, ']');
	for (int i = 0; i < 199; i++)
		g_string_append_c(bomb, 'a');
	g_string_append_c(bomb, '.');
	assert_error(pk_decode((const uint8_t *)bomb->str, bomb->len),
		     "deeper than 64");
	g_string_free(bomb, TRUE);
}
END_TEST

/*
 * Decodes prefix (len bytes) followed by pad None opcodes and STOP, built
 * in b, which the tree borrows.  With the padding, the opcodes of prefix
 * run in the decoder's fast loop rather than in step(), which takes the
 * last 10 bytes.  (transfer full)
 */
static struct pk_tree *decode_padded(GString *b, const char *prefix, size_t len,
				     size_t pad)
{
	g_string_truncate(b, 0);
	g_string_append_len(b, prefix, (gssize)len);
	for (size_t i = 0; i < pad; i++)
		g_string_append_c(b, 'N');
	g_string_append_c(b, '.');
	return pk_decode((const uint8_t *)b->str, b->len);
}

/*
 * Every refusal the fast loop hands to step() comes out as step() alone
 * says it: same status, message and offset with and without padding.
 */
START_TEST(test_fast_loop_errors)
{
	static const struct {
		const char *bytes;
		size_t len;
		const char *want;
	} cases[] = {
#define C(lit, want) { lit, sizeof(lit) - 1, want }
		C("\x80\x02h\x03", "memo id 3 not set at offset 2"),
		C("\x80\x02j\x07\x00\x00\x00", "memo id 7 not set at offset 2"),
		C("\x80\x02]q\x00(K\x01h\x01", "memo id 1 not set at offset 8"),
		C("\x80\x02K\x01q\x03h\x01", "memo id 1 not set at offset 6"),
		C("\x80\x02\x8a\x09\x01\x02\x03\x04\x05\x06\x07\x08\x09",
		  "exceeds 64 bits at offset 2"),
		C("\x80\x02u", "no mark on the stack at offset 2"),
		C("\x80\x02(K\x01u",
		  "no container below the items at offset 5"),
		C("\x80\x02]((e", "no container below the items at offset 5"),
		C("\x80\x02](K\x01u", "non-dict at offset 6"),
		C("\x80\x02}(K\x01"
		  "e",
		  "non-list at offset 6"),
		C("\x80\x02}(K\x01u", "odd number of dict items at offset 6"),
		C("\x80\x02N\x86", "stack underflow at offset 3"),
		C("\x80\x02(N\x86", "stack underflow at offset 4"),
		C("\x80\x02]q\x00(h\x00"
		  "e",
		  "modified after use"),
		/* a list filled, put in another, then filled again */
		C("\x80\x02]q\x00(K\x01"
		  "e](h\x00"
		  "eh\x00(K\x02"
		  "e",
		  "modified after use"),
#undef C
	};

	g_autoptr(GString) b1 = g_string_new(NULL);
	g_autoptr(GString) b2 = g_string_new(NULL);

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		struct pk_tree *plain =
			decode_padded(b1, cases[i].bytes, cases[i].len, 0);
		struct pk_tree *fast =
			decode_padded(b2, cases[i].bytes, cases[i].len, 32);

		ck_assert_int_eq(fast->status, PK_ERROR);
		ck_assert_int_eq(plain->status, fast->status);
		ck_assert_uint_eq(plain->stop_at, fast->stop_at);
		ck_assert_uint_eq(plain->nnodes, fast->nnodes);
		ck_assert_str_eq(plain->message, fast->message);
		assert_error(plain, cases[i].want);
		assert_error(fast, cases[i].want);
	}
}
END_TEST

/*
 * Depth limits in the fast loop: a tuple of a 64-deep list, marks nested
 * past the cap, and SETITEMS that would nest too deep.
 */
START_TEST(test_fast_loop_depth)
{
	g_autoptr(GString) b = g_string_new("\x80\x02");
	g_autoptr(GString) in = g_string_new(NULL);
	struct pk_tree *t;

	/* ] x64, APPEND x63: one list 64 deep; then (it, None) as TUPLE2 */
	for (int i = 0; i < 64; i++)
		g_string_append_c(b, ']');
	for (int i = 0; i < 63; i++)
		g_string_append_c(b, 'a');
	g_string_append(b, "N\x86");
	t = decode_padded(in, b->str, b->len, 32);
	ck_assert_uint_eq(t->stop_at, b->len - 1);
	assert_error(t, "nesting deeper than 64");
	/* the same list under a dict key: SETITEMS refuses */
	g_string_truncate(b, 2);
	g_string_append(b, "}(K\x01");
	for (int i = 0; i < 64; i++)
		g_string_append_c(b, ']');
	for (int i = 0; i < 63; i++)
		g_string_append_c(b, 'a');
	g_string_append_c(b, 'u');
	t = decode_padded(in, b->str, b->len, 32);
	assert_error(t, "nested deeper than 64");
	/* 63 deep is fine */
	g_string_truncate(b, 2);
	g_string_append(b, "}(K\x01");
	for (int i = 0; i < 62; i++)
		g_string_append_c(b, ']');
	for (int i = 0; i < 61; i++)
		g_string_append_c(b, 'a');
	g_string_append(b, "u0");
	t = decode_padded(in, b->str, b->len, 32);
	ck_assert_msg(t->status == PK_OK, "%s", t->message);
	pk_tree_free(t);
	/* marks past the cap */
	g_string_truncate(b, 2);
	for (int i = 0; i < 70; i++)
		g_string_append(b, "](");
	t = decode_padded(in, b->str, b->len, 32);
	assert_error(t, "nesting deeper than 64");
}
END_TEST

/*
 * The fast loop's values and growth: LONG1 of every width (sign extended),
 * BININT2/BININT, bools, None, and a list longer than the initial stack
 * filled by one APPENDS.
 */
START_TEST(test_fast_loop_values)
{
	static const char longs[] =
		"\x80\x02](\x8a\x00\x8a\x01\x7f\x8a\x01\x80\x8a\x02\x00\x80"
		"\x8a\x03\xff\xff\x7f\x8a\x04\x00\x00\x00\x80"
		"\x8a\x05\x01\x00\x00\x00\x00\x8a\x06\xff\xff\xff\xff\xff\xff"
		"\x8a\x07\x00\x00\x00\x00\x00\x00\x01"
		"\x8a\x08\xff\xff\xff\xff\xff\xff\xff\x7f"
		"M\x34\x12J\xfe\xff\xff\xff\x88\x89N"
		"e";
	static const int64_t want[] = {
		0,	   127,	    -128,
		-32768,	   8388607, -2147483648LL,
		1,	   -1,	    INT64_C(1) << 48,
		INT64_MAX, 0x1234,  -2,
	};
	g_autoptr(GString) b = g_string_new("\x80\x02](");
	g_autoptr(GString) in = g_string_new(NULL);
	struct pk_tree *t = decode_padded(in, longs, sizeof(longs) - 1, 16);
	uint32_t l = PK_NIL;
	int64_t v;

	/* STOP takes the last None; the list is below the others */
	ck_assert_msg(t->status == PK_OK, "%s", t->message);
	for (uint32_t i = 0; i < t->nnodes; i++)
		if (t->node[i].type == PK_LIST)
			l = i;
	ck_assert_uint_eq(pk_len(t, l), G_N_ELEMENTS(want) + 3);
	for (guint i = 0; i < G_N_ELEMENTS(want); i++) {
		ck_assert(pk_int(t, pk_child(t, l, i), &v));
		ck_assert_int_eq(v, want[i]);
	}
	ck_assert_int_eq(pk_type_of(t, pk_child(t, l, 12)), PK_BOOL);
	ck_assert(pk_int(t, pk_child(t, l, 12), &v) && v == 1);
	ck_assert(pk_int(t, pk_child(t, l, 13), &v) && v == 0);
	ck_assert_int_eq(pk_type_of(t, pk_child(t, l, 14)), PK_NONE);
	pk_tree_free(t);

	for (int i = 0; i < 5000; i++) {
		g_string_append_c(b, 'K');
		g_string_append_c(b, (char)(i % 251));
	}
	g_string_append(b, "e.");
	t = pk_decode((const uint8_t *)b->str, b->len);
	ck_assert_msg(t->status == PK_OK, "%s", t->message);
	ck_assert_uint_eq(pk_len(t, t->root), 5000);
	for (uint32_t i = 0; i < 5000; i += 499) {
		ck_assert(pk_int(t, pk_child(t, t->root, i), &v));
		ck_assert_int_eq(v, i % 251);
	}
	pk_tree_free(t);
}
END_TEST

START_TEST(test_salvage)
{
	/* a list of two complete dicts, then a cut inside the third */
	g_autoptr(pk_tree) t = DEC("\x80\x02](}(K\x01K\x02u}(K\x03K\x04u"
				   "}(K\x05K\x06K\x07");
	uint32_t third;

	ck_assert_int_eq(t->status, PK_TRUNCATED);
	ck_assert_int_eq(pk_type_of(t, t->root), PK_LIST);
	ck_assert(node_of(t, t->root)->flags & PK_F_PARTIAL);
	ck_assert_uint_eq(pk_len(t, t->root), 3);
	ck_assert(!(node_of(t, pk_child(t, t->root, 0))->flags & PK_F_PARTIAL));
	ck_assert(!(node_of(t, pk_child(t, t->root, 1))->flags & PK_F_PARTIAL));
	third = pk_child(t, t->root, 2);
	ck_assert(node_of(t, third)->flags & PK_F_PARTIAL);
	/* the dangling key is dropped */
	ck_assert_uint_eq(pk_len(t, third), 2);
	ck_assert_uint_eq(t->stop_at, 26);
}
END_TEST

START_TEST(test_batches)
{
	/* Python batches big containers; nested lists land in between, so
	 * the outer list's children move; they must stay in order. */
	GString *s = g_string_new_len("\x80\x02]q\x00", 5);
	g_autoptr(pk_tree) t = NULL;

	for (int b = 0; b < 50; b++) {
		g_string_append(s, "(");
		for (int i = 0; i < 3; i++) {
			g_string_append(s, "](K");
			g_string_append_c(s, (char)(b * 3 + i));
			g_string_append_c(s, 'e');
		}
		g_string_append(s, "e");
	}
	g_string_append(s, ".");
	t = pk_decode((const uint8_t *)s->str, s->len);
	ck_assert_msg(t->status == PK_OK, "%s", t->message);
	ck_assert_uint_eq(pk_len(t, t->root), 150);
	for (uint32_t i = 0; i < 150; i++) {
		int64_t v = -1;

		ck_assert(
			pk_int(t, pk_child(t, pk_child(t, t->root, i), 0), &v));
		ck_assert_int_eq(v, (uint8_t)i);
	}
	g_string_free(s, TRUE);
}
END_TEST

START_TEST(test_every_cut)
{
	g_autofree char *path = hd_test_path("tests/data/fr/healthy/"
					     "nccl_trace_rank_0");
	g_autofree char *data = NULL;
	gsize len;
	uint32_t prev = 0;

	ck_assert(g_file_get_contents(path, &data, &len, NULL));
	for (gsize cut = 0; cut <= len; cut++) {
		g_autoptr(pk_tree) t = pk_decode((const uint8_t *)data, cut);
		uint32_t e = pk_dict_get(t, t->root, "entries");
		uint32_t whole = 0;

		ck_assert_int_eq(t->status, cut == len ? PK_OK : PK_TRUNCATED);
		for (uint32_t i = 0; i < pk_len(t, e); i++)
			if (!(node_of(t, pk_child(t, e, i))->flags &
			      PK_F_PARTIAL))
				whole++;
		ck_assert_uint_ge(whole, prev);
		prev = whole;
	}
	ck_assert_uint_eq(prev, 10);
}
END_TEST

/*
 * Issue 12: a 49 KB .zst pickle of NONE opcodes grew to 4 GB and aborted
 * in GLib.  With the default budget the decoder stops at HD_BUDGET_PK_NODES
 * nodes, says so, and keeps what it salvaged.
 */
START_TEST(test_budget_none_bomb)
{
	size_t n = (size_t)HD_BUDGET_PK_NODES + 1000;
	g_autofree uint8_t *buf = g_malloc(n + 3);
	g_autoptr(pk_tree) t = NULL;

	buf[0] = 0x80;
	buf[1] = 2;
	buf[2] = ']'; /* something for the salvage to return */
	memset(buf + 3, 'N', n);
	t = pk_decode(buf, n + 3);
	ck_assert_int_eq(t->status, PK_ERROR);
	ck_assert_ptr_nonnull(strstr(t->message, "nodes, the budget"));
	ck_assert_uint_le(t->nnodes, HD_BUDGET_PK_NODES + 8);
	ck_assert_int_eq(pk_type_of(t, t->root), PK_LIST);
}
END_TEST

/* Each cap of a scratch's budget stops decoding with its own message. */
START_TEST(test_budget_limits)
{
	const struct pk_limits lim = { .max_nodes = 1000,
				       .max_kids = 4000,
				       .max_strings = 50 };
	struct pk_scratch *sc = pk_scratch_new();
	GByteArray *b = g_byte_array_new();
	static const uint8_t head[] = { 0x80, 2, ']', '(' };

	pk_scratch_set_limits(sc, &lim);
	/* distinct strings: SHORT_BINUNICODE "sNNN", APPENDS at the end */
	g_byte_array_append(b, head, sizeof(head));
	for (int i = 0; i < 60; i++) {
		char str[8];
		uint8_t op[2] = { 0x8c, 0 };

		op[1] = (uint8_t)g_snprintf(str, sizeof(str), "s%03d", i);
		g_byte_array_append(b, op, 2);
		g_byte_array_append(b, (const uint8_t *)str, op[1]);
	}
	g_byte_array_append(b, (const uint8_t *)"e.", 2);
	{
		g_autoptr(pk_tree) t = pk_decode_with(b->data, b->len, sc);

		ck_assert_int_eq(t->status, PK_ERROR);
		ck_assert_ptr_nonnull(
			strstr(t->message, "more than 50 strings"));
		/* the strings before the cap are salvaged into the list */
		ck_assert_uint_eq(pk_len(t, t->root), 50);
	}
	/* nodes: small ints */
	g_byte_array_set_size(b, sizeof(head));
	for (int i = 0; i < 2000; i++)
		g_byte_array_append(b, (const uint8_t *)"K\x01", 2);
	g_byte_array_append(b, (const uint8_t *)"e.", 2);
	{
		g_autoptr(pk_tree) t = pk_decode_with(b->data, b->len, sc);

		ck_assert_int_eq(t->status, PK_ERROR);
		ck_assert_ptr_nonnull(
			strstr(t->message, "more than 1000 nodes"));
		ck_assert_uint_le(t->nnodes, 1000);
	}
	/* items without nodes: one None repeated by DUP, then APPENDS */
	g_byte_array_set_size(b, sizeof(head));
	g_byte_array_append(b, (const uint8_t *)"N", 1);
	for (int i = 0; i < 5000; i++)
		g_byte_array_append(b, (const uint8_t *)"2", 1);
	g_byte_array_append(b, (const uint8_t *)"e.", 2);
	{
		g_autoptr(pk_tree) t = pk_decode_with(b->data, b->len, sc);

		ck_assert_int_eq(t->status, PK_ERROR);
		ck_assert_ptr_nonnull(strstr(
			t->message, "more than 4000 items in containers"));
	}
	/* within the budget, the same kinds of input decode whole */
	g_byte_array_set_size(b, sizeof(head));
	for (int i = 0; i < 500; i++)
		g_byte_array_append(b, (const uint8_t *)"K\x01", 2);
	g_byte_array_append(b, (const uint8_t *)"e.", 2);
	{
		g_autoptr(pk_tree) t = pk_decode_with(b->data, b->len, sc);

		ck_assert_int_eq(t->status, PK_OK);
		ck_assert_uint_eq(pk_len(t, t->root), 500);
	}
	g_byte_array_unref(b);
	pk_scratch_free(sc);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("pickle");
	TCase *tc = tcase_create("decode");

	tcase_add_test(tc, test_empty_dump);
	tcase_add_test(tc, test_ints);
	tcase_add_test(tc, test_scalars);
	tcase_add_test(tc, test_containers);
	tcase_add_test(tc, test_memo);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_hostile);
	tcase_add_test(tc, test_fast_loop_errors);
	tcase_add_test(tc, test_fast_loop_depth);
	tcase_add_test(tc, test_fast_loop_values);
	tcase_add_test(tc, test_salvage);
	tcase_add_test(tc, test_batches);
	tcase_add_test(tc, test_every_cut);
	tcase_add_test(tc, test_budget_none_bomb);
	tcase_add_test(tc, test_budget_limits);
	/* the NONE bomb builds 2^25 nodes, under ASan too */
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

HD_TEST_MAIN(suite)
