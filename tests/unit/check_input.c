/*
 * Input layer tests: compression detected by content, concatenated gzip
 * members, truncated streams, bounded lines, discovery order, budgets,
 * content digests, what is never opened or followed, and archives read as
 * directories (members, links skipped, malformed archives refused), and
 * the SHA-256 of bytes as stored.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <archive.h>
#include <archive_entry.h>

#include "hd-archive.h"
#include "hd-budget.h"
#include "hd-error.h"
#include "hd-input.h"
#include "hd-sha256.h"
#include "hd-test.h"
#include "hd-const.h"

static GBytes *zstd_bytes(const char *text, size_t len)
{
	size_t cap = ZSTD_compressBound(len);
	uint8_t *out = g_malloc(cap);
	size_t n = ZSTD_compress(out, cap, text, len, 3);

	ck_assert(!ZSTD_isError(n));
	return g_bytes_new_take(out, n);
}

static char *read_all(struct hd_reader *r, GError **error)
{
	GBytes *b = hd_reader_slurp(r, 1 << 20, error);
	gsize n;
	char *s;

	if (!b)
		return NULL;
	s = g_strndup(g_bytes_get_data(b, &n), g_bytes_get_size(b));
	g_bytes_unref(b);
	return s;
}

static const char text[] =
	"node-a:1:1 [0] NCCL INFO one\nnode-a:1:1 [0] NCCL INFO two\n";

/*
 * The incident's three budgets (hd-budget.h): records kept bound memory,
 * decoded bytes bound time, their ratio to what was read bounds a bomb.
 * Once the records' budget is spent, every later input is refused at its
 * first decoded bytes, with the records' reason.
 */
START_TEST(test_incident_pool)
{
	g_autoptr(hd_budget_pool) p = hd_budget_pool_new(1 << 30, 250, 1000);
	g_autoptr(hd_budget_pool) q = hd_budget_pool_new(100, 0, 1 << 20);
	char *why = NULL;

	hd_budget_pool_add_stored(p, 1 << 20);
	ck_assert(hd_budget_pool_add_decoded(p, 1 << 20, &why));
	ck_assert(hd_budget_pool_add_records(p, 600, &why));
	ck_assert(hd_budget_pool_add_records(p, 400, &why));
	ck_assert_ptr_null(why);
	/* one byte past: refused, and so is whatever comes after */
	ck_assert(!hd_budget_pool_add_records(p, 1, &why));
	ck_assert_ptr_nonnull(strstr(why, "the incident's records"));
	g_clear_pointer(&why, g_free);
	ck_assert(!hd_budget_pool_add_decoded(p, 1, &why));
	ck_assert_ptr_nonnull(strstr(why, "the incident's records"));
	g_clear_pointer(&why, g_free);
	/* bytes alone: the time budget, said as such */
	ck_assert(hd_budget_pool_add_decoded(q, 100, &why));
	ck_assert(!hd_budget_pool_add_decoded(q, 1, &why));
	ck_assert_ptr_nonnull(strstr(why, "decode to more than"));
	g_free(why);
}
END_TEST

START_TEST(test_plain_gzip_zstd_same_bytes)
{
	g_autoptr(GBytes) gz = hd_test_gzip(text, strlen(text));
	g_autoptr(GBytes) zs = zstd_bytes(text, strlen(text));
	g_autoptr(GError) err = NULL;
	g_autoptr(hd_reader) r1 =
		hd_reader_new_from_memory(text, strlen(text), &err);
	g_autoptr(hd_reader) r2 = hd_reader_new_from_memory(
		g_bytes_get_data(gz, NULL), g_bytes_get_size(gz), &err);
	g_autoptr(hd_reader) r3 = hd_reader_new_from_memory(
		g_bytes_get_data(zs, NULL), g_bytes_get_size(zs), &err);
	g_autofree char *a = read_all(r1, &err);
	g_autofree char *b = read_all(r2, &err);
	g_autofree char *c = read_all(r3, &err);

	ck_assert_int_eq(hd_reader_compression(r1), HD_COMP_NONE);
	ck_assert_int_eq(hd_reader_compression(r2), HD_COMP_GZIP);
	ck_assert_int_eq(hd_reader_compression(r3), HD_COMP_ZSTD);
	ck_assert_str_eq(a, text);
	ck_assert_str_eq(b, text);
	ck_assert_str_eq(c, text);
}
END_TEST

START_TEST(test_gzip_members_concatenated)
{
	g_autoptr(GBytes) one = hd_test_gzip("first\n", 6);
	g_autoptr(GBytes) two = hd_test_gzip("second\n", 7);
	g_autoptr(GByteArray) both = g_byte_array_new();
	g_autoptr(GError) err = NULL;
	g_autoptr(hd_reader) r = NULL;
	g_autofree char *s = NULL;

	g_byte_array_append(both, g_bytes_get_data(one, NULL),
			    (guint)g_bytes_get_size(one));
	g_byte_array_append(both, g_bytes_get_data(two, NULL),
			    (guint)g_bytes_get_size(two));
	r = hd_reader_new_from_memory(both->data, both->len, &err);
	s = read_all(r, &err);
	ck_assert_ptr_null(err);
	ck_assert_str_eq(s, "first\nsecond\n");
}
END_TEST

START_TEST(test_truncated_streams_fail_cleanly)
{
	g_autoptr(GBytes) gz = hd_test_gzip(text, strlen(text));
	g_autoptr(GBytes) zs = zstd_bytes(text, strlen(text));
	GBytes *all[] = { gz, zs };

	for (size_t k = 0; k < G_N_ELEMENTS(all); k++) {
		size_t n = g_bytes_get_size(all[k]);

		/* Every cut point: an error or a short read, never a crash. */
		for (size_t cut = 5; cut < n; cut++) {
			g_autoptr(GError) err = NULL;
			g_autoptr(hd_reader) r = hd_reader_new_from_memory(
				g_bytes_get_data(all[k], NULL), cut, &err);
			g_free(read_all(r, &err));
			ck_assert_msg(err != NULL,
				      "cut at %zu of %zu read fine", cut, n);
			ck_assert_int_eq(err->code, HD_ERROR_FORMAT);
		}
	}
}
END_TEST

/*
 * A short input cut inside its compressed stream: the head (what sniffing
 * reads) holds every byte before the cut and no error; the read after
 * the head's bytes gives the error.  Once, the head's error refused the
 * whole input, though its bytes had been read.
 */
START_TEST(test_cut_head_keeps_bytes)
{
	static const char small[] = "line one\nline two\n";
	g_autoptr(GBytes) gz = hd_test_gzip(small, strlen(small));
	g_autoptr(GError) err = NULL;
	/* the trailer (CRC and size) cut: every byte of the text is there */
	g_autoptr(hd_reader) r = hd_reader_new_from_memory(
		g_bytes_get_data(gz, NULL), g_bytes_get_size(gz) - 8, &err);
	char buf[64];
	const uint8_t *head;
	size_t len = 0;

	head = hd_reader_head(r, &len, &err);
	ck_assert_ptr_null(err);
	ck_assert_uint_eq(len, strlen(small));
	ck_assert(memcmp(head, small, len) == 0);
	ck_assert_int_eq(hd_reader_read(r, buf, sizeof(buf), &err),
			 (ssize_t)strlen(small));
	ck_assert_ptr_null(err);
	ck_assert_int_eq(hd_reader_read(r, buf, sizeof(buf), &err), -1);
	ck_assert_ptr_nonnull(err);
	ck_assert_int_eq(err->code, HD_ERROR_FORMAT);
}
END_TEST

START_TEST(test_garbage_after_gzip_magic)
{
	static const uint8_t junk[] = { 0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad,
					0xbe, 0xef, 0x00, 0x00, 0x11, 0x22 };
	g_autoptr(GError) err = NULL;
	g_autoptr(hd_reader) r =
		hd_reader_new_from_memory(junk, sizeof(junk), &err);
	g_autofree char *s = read_all(r, &err);

	ck_assert_ptr_null(s);
	ck_assert_ptr_nonnull(err);
}
END_TEST

START_TEST(test_lines_crlf_cut_and_last)
{
	GString *in = g_string_new("a\r\nb\n\n");
	g_autoptr(GError) err = NULL;
	g_autoptr(hd_reader) r = NULL;
	g_autoptr(hd_lines) l = NULL;
	const char *line;
	size_t len;
	bool cut;

	for (int i = 0; i < HD_LINE_MAX + 100; i++)
		g_string_append_c(in, 'x');
	g_string_append(in, "\nlast-no-newline");
	r = hd_reader_new_from_memory(in->str, in->len, &err);
	l = hd_lines_new(r);
	ck_assert(hd_lines_next(l, &line, &len, &cut, &err));
	ck_assert_uint_eq(len, 1);
	ck_assert_int_eq(line[0], 'a');
	ck_assert(hd_lines_next(l, &line, &len, &cut, &err));
	ck_assert_uint_eq(len, 1);
	ck_assert(hd_lines_next(l, &line, &len, &cut, &err));
	ck_assert_uint_eq(len, 0);
	ck_assert(!hd_lines_unterminated(l));
	ck_assert(hd_lines_next(l, &line, &len, &cut, &err));
	ck_assert(cut);
	ck_assert(!hd_lines_unterminated(l));
	ck_assert_uint_eq(len, HD_LINE_MAX);
	ck_assert(hd_lines_next(l, &line, &len, &cut, &err));
	ck_assert(!cut);
	/* the file ends inside its last line */
	ck_assert(hd_lines_unterminated(l));
	ck_assert_uint_eq(len, strlen("last-no-newline"));
	ck_assert(memcmp(line, "last-no-newline", len) == 0);
	ck_assert_uint_eq(hd_lines_lineno(l), 5);
	ck_assert(!hd_lines_next(l, &line, &len, &cut, &err));
	ck_assert_ptr_null(err);
	g_string_free(in, TRUE);
}
END_TEST

/*
 * A log appended to another (cat a.log b.log) brings b's UTF-8 mark to
 * the start of a line: the line is read without it.
 */
START_TEST(test_lines_mark_at_line_start)
{
	static const char in[] =
		"a\n\xef\xbb\xbfnode-b:1:1 [0] NCCL\n\xef\xbb\n";
	g_autoptr(GError) err = NULL;
	g_autoptr(hd_reader) r =
		hd_reader_new_from_memory(in, sizeof(in) - 1, &err);
	g_autoptr(hd_lines) l = hd_lines_new(r);
	const char *line;
	size_t len;
	bool cut;

	ck_assert(hd_lines_next(l, &line, &len, &cut, &err));
	ck_assert_uint_eq(len, 1);
	ck_assert(hd_lines_next(l, &line, &len, &cut, &err));
	ck_assert_uint_eq(len, strlen("node-b:1:1 [0] NCCL"));
	ck_assert(memcmp(line, "node-b:1:1 [0] NCCL", len) == 0);
	ck_assert_uint_eq(hd_lines_lineno(l), 2);
	/* two bytes of a mark are no mark */
	ck_assert(hd_lines_next(l, &line, &len, &cut, &err));
	ck_assert_uint_eq(len, 2);
	ck_assert(!hd_lines_next(l, &line, &len, &cut, &err));
}
END_TEST

/* Many lines across buffer refills come back whole and in order. */
START_TEST(test_lines_across_refills)
{
	GString *in = g_string_new(NULL);
	g_autoptr(GError) err = NULL;
	g_autoptr(hd_reader) r = NULL;
	g_autoptr(hd_lines) l = NULL;
	const char *line;
	size_t len;
	bool cut;
	int n = 0;

	for (int i = 0; i < 200000; i++)
		g_string_append_printf(in, "line %d %s\n", i,
				       i % 7 ? "" : "padding-padding-padding");
	r = hd_reader_new_from_memory(in->str, in->len, &err);
	l = hd_lines_new(r);
	while (hd_lines_next(l, &line, &len, &cut, &err)) {
		char want[64];
		int wn = g_snprintf(want, sizeof(want), "line %d ", n);

		ck_assert(len >= (size_t)wn && memcmp(line, want, wn) == 0);
		n++;
	}
	ck_assert_int_eq(n, 200000);
	g_string_free(in, TRUE);
}
END_TEST

START_TEST(test_slurp_limit)
{
	static const char data[] = "0123456789";
	g_autoptr(GError) err = NULL;
	g_autoptr(hd_reader) r = hd_reader_new_from_memory(data, 10, &err);
	GBytes *b = hd_reader_slurp(r, 4, &err);

	ck_assert_ptr_null(b);
	ck_assert_int_eq(err->code, HD_ERROR_TOO_BIG);
}
END_TEST

/* Reads r to the end in pieces of step bytes; returns the digest. */
static struct hd_digest digest_of(struct hd_reader *r, size_t step)
{
	g_autofree uint8_t *buf = g_malloc(step);
	struct hd_digest d;
	ssize_t n;

	while ((n = hd_reader_read(r, buf, step, NULL)) > 0)
		;
	ck_assert_int_eq(n, 0);
	hd_reader_digest(r, &d);
	return d;
}

/*
 * Issue 12: a log and its gzip -k copy are one input.  The digest is of the
 * decoded bytes, the same whatever the compression and the read sizes, and
 * complete only once the stream was read to its end.
 */
START_TEST(test_digest_same_content)
{
	GString *big = g_string_new(NULL);
	static const size_t steps[] = { 1, 7, 63, 64, 65, 1000, 1 << 20 };
	struct hd_digest want, d;
	g_autoptr(GBytes) gz = NULL;
	g_autoptr(GBytes) zs = NULL;

	for (int i = 0; i < 5000; i++)
		g_string_append_printf(big,
				       "node-a:1:1 [0] NCCL INFO line %d\n", i);
	gz = hd_test_gzip(big->str, big->len);
	zs = zstd_bytes(big->str, big->len);
	{
		g_autoptr(hd_reader) r =
			hd_reader_new_from_memory(big->str, big->len, NULL);

		want = digest_of(r, 4096);
	}
	ck_assert(want.complete);
	ck_assert_uint_eq(want.length, big->len);
	for (size_t i = 0; i < G_N_ELEMENTS(steps); i++) {
		g_autoptr(hd_reader) p =
			hd_reader_new_from_memory(big->str, big->len, NULL);
		g_autoptr(hd_reader) g = hd_reader_new_from_memory(
			g_bytes_get_data(gz, NULL), g_bytes_get_size(gz), NULL);
		g_autoptr(hd_reader) z = hd_reader_new_from_memory(
			g_bytes_get_data(zs, NULL), g_bytes_get_size(zs), NULL);

		d = digest_of(p, steps[i]);
		ck_assert_uint_eq(d.hash, want.hash);
		d = digest_of(g, steps[i]);
		ck_assert_uint_eq(d.hash, want.hash);
		ck_assert_uint_eq(d.length, want.length);
		d = digest_of(z, steps[i]);
		ck_assert_uint_eq(d.hash, want.hash);
	}
	/* the sniffed head counts, read or not */
	{
		g_autoptr(hd_reader) r =
			hd_reader_new_from_memory(big->str, big->len, NULL);
		size_t n;

		hd_reader_head(r, &n, NULL);
		hd_reader_digest(r, &d);
		ck_assert(!d.complete);
		ck_assert_uint_eq(d.length, HD_READER_HEAD_MAX);
		d = digest_of(r, 333);
		ck_assert_uint_eq(d.hash, want.hash);
		ck_assert(d.hashed);
	}
	/* told not to hash, a reader still counts what it decodes */
	{
		g_autoptr(hd_reader) r = hd_reader_new_from_memory(
			g_bytes_get_data(gz, NULL), g_bytes_get_size(gz), NULL);

		hd_reader_skip_content_hash(r);
		d = digest_of(r, 4096);
		ck_assert(!d.hashed);
		ck_assert(d.complete);
		ck_assert_uint_eq(d.length, want.length);
	}
	g_string_free(big, TRUE);
}
END_TEST

/* b followed by n bytes of fill.  (transfer full) */
static GBytes *with_tail(GBytes *b, const void *fill, size_t n)
{
	GByteArray *a = g_byte_array_new();

	g_byte_array_append(a, g_bytes_get_data(b, NULL),
			    (guint)g_bytes_get_size(b));
	g_byte_array_append(a, fill, (guint)n);
	return g_byte_array_free_to_bytes(a);
}

/*
 * Issue 20: a complete .gz or .zst followed by zero padding or garbage
 * (gzip -t says OK) is read whole, with what follows noted, and its digest
 * is the plain text's: it was taken as cut short, or refused whole.
 */
START_TEST(test_trailing_after_compressed)
{
	static const uint8_t zeros[4096];
	static const char junk[] = "garbage!";
	g_autoptr(GBytes) gz = hd_test_gzip(text, strlen(text));
	g_autoptr(GBytes) zs = zstd_bytes(text, strlen(text));
	struct hd_digest want, d;
	g_autoptr(hd_reader) p =
		hd_reader_new_from_memory(text, strlen(text), NULL);
	GBytes *all[] = { gz, zs };
	const char *names[] = { "gzip", "zstd" };

	want = digest_of(p, 4096);
	ck_assert(hd_reader_trailing(p) == NULL);
	for (size_t k = 0; k < G_N_ELEMENTS(all); k++) {
		/* every length of a tail, zeros or garbage, across reads */
		for (size_t n = 0; n <= 9; n++) {
			for (int z = 0; z < 2; z++) {
				g_autoptr(GBytes) b = with_tail(
					all[k],
					z ? (const void *)zeros
					  : (const void *)junk,
					n == 9 ? (z ? sizeof(zeros) : 8) : n);
				g_autoptr(hd_reader) r =
					hd_reader_new_from_memory(
						g_bytes_get_data(b, NULL),
						g_bytes_get_size(b), NULL);
				g_autofree char *note = NULL;
				size_t tail =
					n == 9 ? (z ? sizeof(zeros) : 8) : n;

				if (!z && tail > 8)
					continue;
				d = digest_of(r, 7);
				ck_assert_msg(d.complete, "%s + %zu", names[k],
					      tail);
				ck_assert_uint_eq(d.hash, want.hash);
				ck_assert_uint_eq(d.length, want.length);
				if (tail == 0) {
					ck_assert(hd_reader_trailing(r) ==
						  NULL);
					continue;
				}
				note = g_strdup_printf(
					"%zu %s after the %s data, ignored",
					tail,
					z ? (tail == 1
						     ? "byte of zero padding"
						     : "bytes of zero padding")
					  : (tail == 1
						     ? "byte of something else"
						     : "bytes of something else"),
					names[k]);
				ck_assert_str_eq(hd_reader_trailing(r), note);
			}
		}
	}
}
END_TEST

/* Members and frames that follow one another are all read, then the tail. */
START_TEST(test_members_then_padding)
{
	static const uint8_t zeros[512];
	g_autoptr(GBytes) g1 = hd_test_gzip("first\n", 6);
	g_autoptr(GBytes) g2 = hd_test_gzip("second\n", 7);
	g_autoptr(GBytes) z1 = zstd_bytes("first\n", 6);
	g_autoptr(GBytes) z2 = zstd_bytes("second\n", 7);
	GBytes *pairs[][2] = { { g1, g2 }, { z1, z2 } };

	for (size_t k = 0; k < G_N_ELEMENTS(pairs); k++) {
		g_autoptr(GBytes) two = with_tail(
			pairs[k][0], g_bytes_get_data(pairs[k][1], NULL),
			g_bytes_get_size(pairs[k][1]));
		g_autoptr(GBytes) b = with_tail(two, zeros, sizeof(zeros));
		g_autoptr(GError) err = NULL;
		g_autoptr(hd_reader) r = hd_reader_new_from_memory(
			g_bytes_get_data(b, NULL), g_bytes_get_size(b), NULL);
		g_autofree char *s = read_all(r, &err);

		ck_assert_ptr_null(err);
		ck_assert_str_eq(s, "first\nsecond\n");
		ck_assert_ptr_nonnull(hd_reader_trailing(r));
		ck_assert(strstr(hd_reader_trailing(r), "512 bytes of zero"));
	}
}
END_TEST

/* Every line of in, joined by "|", and how many there were. */
static char *all_lines(const char *in, size_t len, uint64_t *count)
{
	g_autoptr(hd_reader) r = hd_reader_new_from_memory(in, len, NULL);
	g_autoptr(hd_lines) l = hd_lines_new(r);
	g_autoptr(GError) err = NULL;
	GString *out = g_string_new(NULL);
	const char *line;
	size_t n;
	bool cut;

	while (hd_lines_next(l, &line, &n, &cut, &err)) {
		g_string_append_len(out, line, n);
		g_string_append_c(out, '|');
	}
	ck_assert_ptr_null(err);
	*count = hd_lines_lineno(l);
	return g_string_free(out, FALSE);
}

/*
 * Issue 20: \r-only line ends fused every record into the next.  A lone
 * \r ends a line as \n and \r\n do; \r\n stays one line end, and
 * \r\r\n is an empty line.
 */
START_TEST(test_lines_cr_only)
{
	static const char mixed[] = "a\rb\r\nc\nd\r\r\ne\rlast";
	uint64_t count;
	g_autofree char *got = all_lines(mixed, strlen(mixed), &count);
	GString *in = g_string_new(NULL);
	GString *want = g_string_new(NULL);
	g_autofree char *many = NULL;

	ck_assert_str_eq(got, "a|b|c|d||e|last|");
	ck_assert_uint_eq(count, 7);
	/* across buffer refills, with \r\n split between two reads */
	for (int i = 0; i < 300000; i++) {
		g_string_append_printf(in, "line %d%s", i,
				       i % 3 ? "\r" : "\r\n");
		g_string_append_printf(want, "line %d|", i);
	}
	many = all_lines(in->str, in->len, &count);
	ck_assert_uint_eq(count, 300000);
	ck_assert(strcmp(many, want->str) == 0);
	g_string_free(in, TRUE);
	g_string_free(want, TRUE);
}
END_TEST

/* A \r-only line past HD_LINE_MAX is cut, and the next line is whole. */
START_TEST(test_lines_cr_cut)
{
	GString *in = g_string_new(NULL);
	uint64_t count;
	g_autofree char *got = NULL;

	for (int i = 0; i < HD_LINE_MAX + 10; i++)
		g_string_append_c(in, 'x');
	g_string_append(in, "\r\nnext\r");
	got = all_lines(in->str, in->len, &count);
	ck_assert_uint_eq(count, 2);
	ck_assert(g_str_has_suffix(got, "x|next|"));
	g_string_free(in, TRUE);
}
END_TEST

/*
 * adv4: NUL bytes are holes a writer left, not text.  A log truncated by
 * logrotate's copytruncate while its writer kept its offset starts with
 * megabytes of zeros; a crash leaves zeros where unflushed lines were.
 * The run is skipped and counted, a line that reaches one stops there
 * (unterminated), and the text after the hole keeps the line's number.
 */
START_TEST(test_lines_nul_holes)
{
	static const char holes[] = "one\n\0\0\0two\nthr\0\0ee\n\0\0";
	GString *big = g_string_new(NULL);
	uint64_t count;
	g_autofree char *got = all_lines(holes, sizeof(holes) - 1, &count);
	g_autofree char *after = NULL;

	ck_assert_str_eq(got, "one|two|thr|ee|");
	/* "thr" and "ee" are one line of the file, split by the hole */
	ck_assert_uint_eq(count, 3);
	/* a hole longer than a line and than the buffer keeps what follows */
	g_string_append(big, "first\n");
	g_string_set_size(big, big->len + 3 * 1024 * 1024);
	memset(big->str + 6, 0, 3 * 1024 * 1024);
	g_string_append(big, "after the hole\n");
	after = all_lines(big->str, big->len, &count);
	ck_assert_str_eq(after, "first|after the hole|");
	ck_assert_uint_eq(count, 2);
	g_string_free(big, TRUE);
}
END_TEST

/*
 * The NUL search runs over the buffer once, not once a line: holes
 * scattered through megabytes of lines, across every refill, each one
 * found where it is, and a line after one found whole.
 */
START_TEST(test_lines_nul_holes_across_refills)
{
	GString *in = g_string_new(NULL);
	GString *want = g_string_new(NULL);
	g_autofree char *got = NULL;
	uint64_t count, lines = 0;

	for (int i = 0; i < 200000; i++) {
		if (i % 997 == 0) {
			/* a line cut by a hole: "pre" and "post" share one
			   number */
			g_string_append_printf(in, "pre %d", i);
			g_string_append_len(in, "\0\0\0", 1 + i % 3);
			g_string_append_printf(in, "post %d\n", i);
			g_string_append_printf(want, "pre %d|post %d|", i, i);
		} else if (i % 1009 == 0) {
			/* a hole between lines */
			g_string_append_len(in, "\0\0\0\0", 4);
			g_string_append_printf(in, "after %d\n", i);
			g_string_append_printf(want, "after %d|", i);
		} else {
			g_string_append_printf(in, "line %d\n", i);
			g_string_append_printf(want, "line %d|", i);
		}
		lines++;
	}
	got = all_lines(in->str, in->len, &count);
	ck_assert_str_eq(got, want->str);
	ck_assert_uint_eq(count, lines);
	g_string_free(in, TRUE);
	g_string_free(want, TRUE);
}
END_TEST

/* A stream that starts with NULs: the head is the text after them. */
START_TEST(test_head_skips_nul)
{
	GString *in = g_string_new(NULL);
	g_autoptr(GError) err = NULL;
	const uint8_t *head;
	size_t len = 0;

	g_string_set_size(in, 10000);
	memset(in->str, 0, 10000);
	g_string_append(in, "node-a:1:1 [0] NCCL INFO NCCL version 2.21.5\n");
	{
		g_autoptr(hd_reader) r =
			hd_reader_new_from_memory(in->str, in->len, NULL);

		head = hd_reader_head(r, &len, &err);
		ck_assert_ptr_null(err);
		ck_assert_uint_eq(len, in->len - 10000);
		ck_assert(memcmp(head, "node-a:", 7) == 0);
		ck_assert_uint_eq(hd_reader_nul_skipped(r), 10000);
	}
	{
		/* only zeros: nothing is left, and they are counted */
		g_autoptr(hd_reader) r =
			hd_reader_new_from_memory(in->str, 10000, NULL);

		head = hd_reader_head(r, &len, &err);
		ck_assert_uint_eq(len, 0);
		ck_assert_uint_eq(hd_reader_nul_skipped(r), 10000);
	}
	g_string_free(in, TRUE);
}
END_TEST

/* Everything r hands out, read n bytes at a time.  (transfer full) */
static char *read_every(struct hd_reader *r, size_t n)
{
	GString *out = g_string_new(NULL);
	g_autoptr(GError) err = NULL;
	char buf[64];
	ssize_t got;

	while ((got = hd_reader_read(r, buf, MIN(n, sizeof(buf)), &err)) > 0)
		g_string_append_len(out, buf, got);
	ck_assert_ptr_null(err);
	return g_string_free(out, FALSE);
}

/*
 * adv4: UTF-16 text (PowerShell 5's ">" writes UTF-16LE with a mark) is
 * read as UTF-8: it was "unrecognized format, skipped".  A surrogate
 * pair becomes one character, a lone surrogate or an odd last byte
 * U+FFFD; without a mark, ASCII with every other byte 0 is UTF-16 too;
 * one byte at a time gives the same text.
 */
START_TEST(test_utf16_read_as_utf8)
{
	static const uint8_t le[] = { 0xff, 0xfe, 'o',	0,    'k',  0,	  ' ',
				      0,    0xe9, 0,	0x3d, 0xd8, 0x00, 0xde,
				      '\n', 0,	  0x00, 0xdc, 'x' };
	static const uint8_t be[] = { 0xfe, 0xff, 0, 'o', 0, 'k', 0, '\n' };
	static const char want_le[] = "ok \xc3\xa9\xf0\x9f\x98\x80\n"
				      "\xef\xbf\xbd\xef\xbf\xbd";
	GString *bare = g_string_new(NULL);

	for (size_t step = 1; step <= 64; step *= 4) {
		g_autoptr(hd_reader) r =
			hd_reader_new_from_memory(le, sizeof(le), NULL);
		g_autofree char *got = read_every(r, step);

		ck_assert_str_eq(got, want_le);
		ck_assert_str_eq(hd_reader_encoding(r), "UTF-16LE");
	}
	{
		g_autoptr(hd_reader) r =
			hd_reader_new_from_memory(be, sizeof(be), NULL);
		g_autofree char *got = read_every(r, 64);

		ck_assert_str_eq(got, "ok\n");
		ck_assert_str_eq(hd_reader_encoding(r), "UTF-16BE");
	}
	for (const char *p = "node-a:4000:4000 [0] NCCL INFO x\n"; *p; p++) {
		g_string_append_c(bare, *p);
		g_string_append_c(bare, '\0');
	}
	{
		g_autoptr(hd_reader) r =
			hd_reader_new_from_memory(bare->str, bare->len, NULL);
		g_autoptr(GError) err = NULL;
		size_t len = 0;
		const uint8_t *head = hd_reader_head(r, &len, &err);

		ck_assert_uint_eq(len, bare->len / 2);
		ck_assert(memcmp(head, "node-a:4000", 11) == 0);
		ck_assert_str_eq(hd_reader_encoding(r), "UTF-16LE");
	}
	for (size_t step = 1; step <= 4; step++) {
		/* UTF-8 stays as it is, without its mark: no text of the
		   file's, it hid the first line from every sniffer */
		static const char u8[] = "\xef\xbb\xbfnode-a \xc3\xa9\n";
		g_autoptr(hd_reader) r =
			hd_reader_new_from_memory(u8, strlen(u8), NULL);
		g_autofree char *got = read_every(r, step);

		ck_assert_str_eq(got, u8 + 3);
		ck_assert_ptr_null(hd_reader_encoding(r));
	}
	{
		/* a mark alone is an empty file; a mark later is text */
		g_autoptr(hd_reader) r =
			hd_reader_new_from_memory("\xef\xbb\xbf", 3, NULL);
		g_autoptr(hd_reader) q =
			hd_reader_new_from_memory("a\xef\xbb\xbf", 4, NULL);
		g_autofree char *got = read_every(r, 1);
		g_autofree char *mid = read_every(q, 1);

		ck_assert_str_eq(got, "");
		ck_assert_str_eq(mid, "a\xef\xbb\xbf");
	}
	g_string_free(bare, TRUE);
}
END_TEST

/* Any one byte changed, added or dropped changes the digest. */
START_TEST(test_digest_differs)
{
	enum { N = 3000 };
	g_autofree uint8_t *a = g_malloc0(N + 1);
	GHashTable *seen = g_hash_table_new_full(g_int64_hash, g_int64_equal,
						 g_free, NULL);
	struct hd_digest d;

	for (size_t len = 0; len <= N; len += len < 200 ? 1 : 97) {
		g_autoptr(hd_reader) r =
			hd_reader_new_from_memory(a, len, NULL);
		gint64 *k = g_new(gint64, 1);

		d = digest_of(r, 1000);
		*k = (gint64)d.hash;
		ck_assert_msg(!g_hash_table_contains(seen, k),
			      "zeros of length %zu collide", len);
		g_hash_table_add(seen, k);
	}
	for (size_t at = 0; at < N; at += at < 130 ? 1 : 61) {
		g_autoptr(hd_reader) r = NULL;
		gint64 *k = g_new(gint64, 1);

		a[at] = 1;
		r = hd_reader_new_from_memory(a, N, NULL);
		d = digest_of(r, 1000);
		a[at] = 0;
		*k = (gint64)d.hash;
		ck_assert_msg(!g_hash_table_contains(seen, k),
			      "a 1 at %zu collides", at);
		g_hash_table_add(seen, k);
	}
	g_hash_table_unref(seen);
}
END_TEST

/* Issue 12: past the decoded-bytes budget every read fails, naming it. */
START_TEST(test_budget_bytes)
{
	static const char data[] = "0123456789abcdefghij";
	g_autoptr(GError) err = NULL;
	g_autoptr(hd_reader) r = hd_reader_new_from_memory(data, 20, NULL);
	char buf[64];
	ssize_t n;

	hd_reader_set_budget(r, 12, 0, "a test input");
	ck_assert_int_eq(hd_reader_read(r, buf, 8, &err), 8);
	n = hd_reader_read(r, buf, 8, &err);
	ck_assert_int_eq(n, -1);
	ck_assert_int_eq(err->code, HD_ERROR_TOO_BIG);
	ck_assert_ptr_nonnull(strstr(err->message, "a test input"));
	/* the caller names the input: the message does not repeat it */
	ck_assert_ptr_null(strstr(err->message, "<memory>"));
	g_clear_error(&err);
	/* sticky: no smaller read gets past it either */
	ck_assert_int_eq(hd_reader_read(r, buf, 1, &err), -1);
	ck_assert_ptr_nonnull(err);
}
END_TEST

/*
 * Issue 12: a zstd bomb (a few hundred bytes that decode to GBs) is refused
 * once past the grace size, by its ratio, with the default budget.
 */
START_TEST(test_budget_ratio)
{
	size_t len = HD_BUDGET_RATIO_GRACE * 2;
	g_autofree char *zeros = g_malloc0(len);
	g_autoptr(GBytes) zs = zstd_bytes(zeros, len);
	g_autoptr(GError) err = NULL;
	g_autoptr(hd_reader) r = hd_reader_new_from_memory(
		g_bytes_get_data(zs, NULL), g_bytes_get_size(zs), NULL);
	g_autofree char *buf = g_malloc(1 << 20);
	uint64_t got = 0;
	ssize_t n;

	while ((n = hd_reader_read(r, buf, 1 << 20, &err)) > 0)
		got += n;
	ck_assert_int_eq(n, -1);
	ck_assert_int_eq(err->code, HD_ERROR_TOO_BIG);
	ck_assert_ptr_nonnull(strstr(err->message, "decompresses more than"));
	ck_assert_uint_le(got, HD_BUDGET_RATIO_GRACE);
	/* the same bytes uncompressed are fine: there is no ratio */
	{
		g_autoptr(hd_reader) p =
			hd_reader_new_from_memory(zeros, len, NULL);
		struct hd_digest d = digest_of(p, 1 << 20);

		ck_assert(d.complete);
	}
}
END_TEST

/* Issue 12: pzstd output starts with a skippable frame; it is zstd too. */
START_TEST(test_pzstd_skippable_frame)
{
	g_autoptr(GBytes) zs = zstd_bytes(text, strlen(text));
	g_autoptr(GByteArray) all = g_byte_array_new();
	/* magic 0x184D2A50 little-endian, 4 bytes of content: a frame size */
	static const uint8_t skip[] = { 0x50, 0x2a, 0x4d, 0x18, 4, 0,
					0,    0,    0x10, 0,	0, 0 };
	static const uint8_t skip2[] = { 0x5e, 0x2a, 0x4d, 0x18, 0, 0, 0, 0 };
	g_autoptr(GError) err = NULL;
	g_autoptr(hd_reader) r = NULL;
	g_autofree char *s = NULL;

	g_byte_array_append(all, skip, sizeof(skip));
	g_byte_array_append(all, g_bytes_get_data(zs, NULL),
			    (guint)g_bytes_get_size(zs));
	g_byte_array_append(all, skip2, sizeof(skip2));
	g_byte_array_append(all, g_bytes_get_data(zs, NULL),
			    (guint)g_bytes_get_size(zs));
	r = hd_reader_new_from_memory(all->data, all->len, &err);
	ck_assert_int_eq(hd_reader_compression(r), HD_COMP_ZSTD);
	s = read_all(r, &err);
	ck_assert_ptr_null(err);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(strlen(s), 2 * strlen(text));
	ck_assert(strncmp(s, text, strlen(text)) == 0);
}
END_TEST

/*
 * Issue 12: a FIFO given as PATH blocked in open() for a writer that never
 * came.  Only regular files are read, and opening one never waits.
 */
START_TEST(test_open_fifo_refused)
{
	g_autofree char *dir = g_dir_make_tmp("hd-fifo-XXXXXX", NULL);
	g_autofree char *fifo = g_build_filename(dir, "pipe", NULL);
	g_autoptr(GError) err = NULL;
	g_autoptr(hd_reader) r = NULL;

	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	r = hd_reader_open(fifo, &err);
	ck_assert_ptr_null(r);
	ck_assert_ptr_nonnull(strstr(err->message, "not a regular file"));
	ck_assert_ptr_null(strstr(err->message, "pipe"));
	unlink(fifo);
	rmdir(dir);
}
END_TEST

/* "-" reads standard input, named <stdin>. */
START_TEST(test_open_stdin)
{
	int fds[2];
	g_autoptr(GError) err = NULL;
	g_autoptr(hd_reader) r = NULL;
	g_autofree char *s = NULL;

	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(write(fds[1], text, strlen(text)),
			 (ssize_t)strlen(text));
	close(fds[1]);
	ck_assert_int_ge(dup2(fds[0], STDIN_FILENO), 0);
	close(fds[0]);
	r = hd_reader_open("-", &err);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(hd_reader_path(r), HD_STDIN_NAME);
	s = read_all(r, &err);
	ck_assert_str_eq(s, text);
}
END_TEST

/* The path of found entry i. */
static const char *found_path(GPtrArray *found, guint i)
{
	return ((struct hd_found *)g_ptr_array_index(found, i))->path;
}

static int found_same_as(GPtrArray *found, guint i)
{
	return ((struct hd_found *)g_ptr_array_index(found, i))->same_as;
}

START_TEST(test_discover_sorted_recursive)
{
	g_autofree char *dir = g_dir_make_tmp("hd-disc-XXXXXX", NULL);
	g_autofree char *sub = g_build_filename(dir, "b", NULL);
	g_autofree char *f1 = g_build_filename(dir, "c.log", NULL);
	g_autofree char *f2 = g_build_filename(sub, "a.log", NULL);
	g_autofree char *hidden = g_build_filename(dir, ".hidden", NULL);
	g_autofree char *missing = g_build_filename(dir, "nope", NULL);
	g_autoptr(GPtrArray) files =
		g_ptr_array_new_with_free_func(hd_found_free);
	g_autoptr(GPtrArray) errors = g_ptr_array_new_with_free_func(g_free);
	char *paths[] = { dir, missing, NULL };

	mkdir(sub, 0700);
	g_file_set_contents(f1, "x", 1, NULL);
	g_file_set_contents(f2, "y", 1, NULL);
	g_file_set_contents(hidden, "z", 1, NULL);
	hd_discover(paths, files, errors);
	ck_assert_uint_eq(files->len, 2);
	ck_assert_str_eq(found_path(files, 0), f2);
	ck_assert_str_eq(found_path(files, 1), f1);
	ck_assert_int_eq(found_same_as(files, 1), -1);
	ck_assert_uint_eq(errors->len, 1);
	ck_assert_ptr_nonnull(strstr(g_ptr_array_index(errors, 0), "nope"));
	unlink(f1);
	unlink(f2);
	unlink(hidden);
	rmdir(sub);
	rmdir(dir);
}
END_TEST

/* Whether some error names s. */
static bool errors_name(GPtrArray *errors, const char *s)
{
	for (guint i = 0; i < errors->len; i++)
		if (strstr(g_ptr_array_index(errors, i), s))
			return true;
	return false;
}

/*
 * Issue 12: two links to "." made the walk exponential and a self-link
 * read every file 32 times; a link out of the tree led to /proc/kmsg.
 * Links to directories are not followed, links to files only inside the
 * given paths, and a link to a file already found is the same file.
 */
START_TEST(test_discover_links)
{
	g_autofree char *top = g_dir_make_tmp("hd-links-XXXXXX", NULL);
	g_autofree char *root = g_build_filename(top, "root", NULL);
	g_autofree char *outside = g_build_filename(top, "outside.log", NULL);
	g_autofree char *a = g_build_filename(root, "a.log", NULL);
	g_autofree char *sub = g_build_filename(root, "sub", NULL);
	g_autofree char *b = g_build_filename(sub, "b.log", NULL);
	g_autofree char *in = g_build_filename(root, "in.log", NULL);
	g_autofree char *out = g_build_filename(root, "out.log", NULL);
	g_autofree char *outdir = g_build_filename(root, "outdir", NULL);
	g_autofree char *self1 = g_build_filename(root, "self1", NULL);
	g_autofree char *self2 = g_build_filename(root, "self2", NULL);
	g_autofree char *fifo = g_build_filename(root, "fifo", NULL);
	g_autoptr(GPtrArray) files =
		g_ptr_array_new_with_free_func(hd_found_free);
	g_autoptr(GPtrArray) errors = g_ptr_array_new_with_free_func(g_free);
	char *paths[] = { root, NULL };

	ck_assert_int_eq(mkdir(root, 0700), 0);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	g_file_set_contents(a, "a\n", 2, NULL);
	g_file_set_contents(b, "b\n", 2, NULL);
	g_file_set_contents(outside, "o\n", 2, NULL);
	ck_assert_int_eq(symlink("a.log", in), 0);
	ck_assert_int_eq(symlink("../outside.log", out), 0);
	ck_assert_int_eq(symlink("..", outdir), 0);
	ck_assert_int_eq(symlink(".", self1), 0);
	ck_assert_int_eq(symlink(".", self2), 0);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	hd_discover(paths, files, errors);
	ck_assert_uint_eq(files->len, 3);
	ck_assert_str_eq(found_path(files, 0), a);
	ck_assert_str_eq(found_path(files, 1), in);
	ck_assert_int_eq(found_same_as(files, 1), 0);
	ck_assert_str_eq(found_path(files, 2), b);
	ck_assert_int_eq(found_same_as(files, 2), -1);
	ck_assert(errors_name(errors, "out.log"));
	ck_assert(errors_name(errors, "outdir"));
	ck_assert_uint_eq(errors->len, 2);

	/*
	 * Named on the command line, a link is followed wherever it leads; a
	 * FIFO is refused; the same directory twice lists each file again as
	 * the same file.
	 */
	{
		g_autoptr(GPtrArray) f2 =
			g_ptr_array_new_with_free_func(hd_found_free);
		g_autoptr(GPtrArray) e2 =
			g_ptr_array_new_with_free_func(g_free);
		char *again[] = { out, fifo, sub, sub, NULL };

		hd_discover(again, f2, e2);
		ck_assert_uint_eq(f2->len, 3);
		ck_assert_str_eq(found_path(f2, 0), out);
		ck_assert_str_eq(found_path(f2, 1), b);
		ck_assert_int_eq(found_same_as(f2, 1), -1);
		ck_assert_str_eq(found_path(f2, 2), b);
		ck_assert_int_eq(found_same_as(f2, 2), 1);
		ck_assert_uint_eq(e2->len, 1);
		ck_assert(errors_name(e2, "not a regular file"));
		ck_assert(errors_name(e2, "fifo"));
	}
	/* "-" is standard input, once however often it is given */
	{
		g_autoptr(GPtrArray) f3 =
			g_ptr_array_new_with_free_func(hd_found_free);
		g_autoptr(GPtrArray) e3 =
			g_ptr_array_new_with_free_func(g_free);
		char dash[] = "-";
		char *std[] = { dash, dash, NULL };

		hd_discover(std, f3, e3);
		ck_assert_uint_eq(f3->len, 2);
		ck_assert_str_eq(found_path(f3, 0), "-");
		ck_assert_int_eq(found_same_as(f3, 1), 0);
	}
	unlink(fifo);
	unlink(self2);
	unlink(self1);
	unlink(outdir);
	unlink(out);
	unlink(in);
	unlink(b);
	unlink(a);
	unlink(outside);
	rmdir(sub);
	rmdir(root);
	rmdir(top);
}
END_TEST

/*
 * Issue 20: a link loop or a dangling link below a walked directory is
 * listed with its error (reports name it), not only said on stderr.
 */
START_TEST(test_discover_unreadable_listed)
{
	g_autofree char *top = g_dir_make_tmp("hd-loop-XXXXXX", NULL);
	g_autofree char *a = g_build_filename(top, "a.log", NULL);
	g_autofree char *l1 = g_build_filename(top, "loop1", NULL);
	g_autofree char *l2 = g_build_filename(top, "loop2", NULL);
	g_autofree char *gone = g_build_filename(top, "nowhere", NULL);
	g_autoptr(GPtrArray) files =
		g_ptr_array_new_with_free_func(hd_found_free);
	g_autoptr(GPtrArray) errors = g_ptr_array_new_with_free_func(g_free);
	char *paths[] = { top, NULL };
	const struct hd_found *f;

	g_file_set_contents(a, "a\n", 2, NULL);
	ck_assert_int_eq(symlink("loop2", l1), 0);
	ck_assert_int_eq(symlink("loop1", l2), 0);
	ck_assert_int_eq(symlink("missing.log", gone), 0);
	hd_discover(paths, files, errors);
	ck_assert_uint_eq(files->len, 4);
	ck_assert_uint_eq(errors->len, 0);
	f = g_ptr_array_index(files, 0);
	ck_assert_str_eq(f->path, a);
	ck_assert_ptr_null(f->error);
	for (guint i = 1; i < 4; i++) {
		f = g_ptr_array_index(files, i);
		ck_assert_ptr_nonnull(f->error);
		ck_assert_int_eq(f->same_as, -1);
	}
	f = g_ptr_array_index(files, 1);
	ck_assert_str_eq(f->path, l1);
	ck_assert_str_eq(f->error, g_strerror(ELOOP));
	f = g_ptr_array_index(files, 3);
	ck_assert_str_eq(f->path, gone);
	ck_assert_str_eq(f->error, g_strerror(ENOENT));
	unlink(gone);
	unlink(l2);
	unlink(l1);
	unlink(a);
	rmdir(top);
}
END_TEST

/*
 * An archive in memory, written by libarchive (format "ustar" or "zip"):
 * a directory, the regular file "d/rank_0.log" holding body (blen bytes),
 * and a symbolic link "link" to /etc/passwd.  (transfer full)
 */
static GBytes *archive_bytes(const char *format, const void *body, size_t blen)
{
	size_t cap = blen + 64 * 1024, used = 0;
	uint8_t *buf = g_malloc(cap);
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();

	ck_assert_int_eq(archive_write_set_format_by_name(a, format),
			 ARCHIVE_OK);
	ck_assert_int_eq(archive_write_open_memory(a, buf, cap, &used),
			 ARCHIVE_OK);
	archive_entry_set_pathname(e, "d/");
	archive_entry_set_filetype(e, AE_IFDIR);
	archive_entry_set_perm(e, 0755);
	ck_assert_int_eq(archive_write_header(a, e), ARCHIVE_OK);
	archive_entry_clear(e);
	archive_entry_set_pathname(e, "d/rank_0.log");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, (la_int64_t)blen);
	ck_assert_int_eq(archive_write_header(a, e), ARCHIVE_OK);
	ck_assert_int_eq(archive_write_data(a, body, blen), (la_ssize_t)blen);
	archive_entry_clear(e);
	archive_entry_set_pathname(e, "link");
	archive_entry_set_filetype(e, AE_IFLNK);
	archive_entry_set_symlink(e, "/etc/passwd");
	archive_entry_set_perm(e, 0777);
	ck_assert_int_eq(archive_write_header(a, e), ARCHIVE_OK);
	ck_assert_int_eq(archive_write_close(a), ARCHIVE_OK);
	archive_entry_free(e);
	archive_write_free(a);
	return g_bytes_new_take(buf, used);
}

/* Reads every member of the archive in b; their names and bodies. */
static bool read_members(GBytes *b, GString *out, GError **error)
{
	g_autoptr(hd_reader) rd = NULL;
	g_autoptr(hd_archive) ar = NULL;
	struct hd_archive_member m = { 0 };
	const uint8_t *head;
	size_t len = 0;

	rd = hd_reader_new_from_memory(g_bytes_get_data(b, NULL),
				       g_bytes_get_size(b), error);
	if (!rd)
		return false;
	head = hd_reader_head(rd, &len, error);
	ck_assert(hd_archive_has_magic(head, len));
	ar = hd_archive_new(rd, error);
	if (!ar)
		return false;
	while (hd_archive_next(ar, &m, error)) {
		g_string_append_printf(out, "%s:", m.name);
		if (m.skipped) {
			g_string_append_printf(out, "skipped %s\n", m.skipped);
		} else {
			g_autofree char *body = read_all(m.reader, error);

			if (!body) {
				hd_archive_member_clear(&m);
				return false;
			}
			g_string_append_printf(out, "%s|", body);
		}
		hd_archive_member_clear(&m);
	}
	return !(error && *error);
}

START_TEST(test_archive_members)
{
	/*
	 * A zip is read front to back, from its local headers, which do not
	 * carry the file type: its link is a small file holding the target,
	 * read as bytes and never followed.
	 */
	static const char *const formats[][2] = {
		{ "ustar",
		  "skipped a symbolic link inside an archive, not followed\n" },
		{ "zip", "/etc/passwd|" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
		g_autoptr(GBytes) b =
			archive_bytes(formats[i][0], text, strlen(text));
		g_autoptr(GString) out = g_string_new(NULL);
		g_autoptr(GError) err = NULL;
		g_autofree char *want = g_strdup_printf(
			"<memory>/d/rank_0.log:%s|<memory>/link:%s", text,
			formats[i][1]);

		ck_assert_msg(read_members(b, out, &err), "%s: %s",
			      formats[i][0], err ? err->message : "?");
		ck_assert_str_eq(out->str, want);
	}
}
END_TEST

START_TEST(test_archive_compressed_member)
{
	g_autoptr(GBytes) gz = hd_test_gzip(text, strlen(text));
	gsize n;
	const void *p = g_bytes_get_data(gz, &n);
	g_autoptr(GBytes) b = archive_bytes("ustar", p, n);
	g_autoptr(GString) out = g_string_new(NULL);
	g_autoptr(GError) err = NULL;

	/* the .gz member is decompressed like a file */
	ck_assert(read_members(b, out, &err));
	ck_assert(strstr(out->str, text));
}
END_TEST

START_TEST(test_archive_magic_by_content)
{
	g_autoptr(GBytes) gz = hd_test_gzip(text, strlen(text));
	g_autoptr(GBytes) tar = archive_bytes("ustar", text, strlen(text));
	g_autoptr(GBytes) tgz = NULL;
	g_autoptr(hd_reader) r1 = NULL;
	g_autoptr(hd_reader) r2 = NULL;
	const uint8_t *head;
	size_t len = 0;
	gsize n;
	const char *t = g_bytes_get_data(tar, &n);

	/* a gzip log stays a log; a gzip tar is an archive */
	r1 = hd_reader_new_from_memory(g_bytes_get_data(gz, NULL),
				       g_bytes_get_size(gz), NULL);
	head = hd_reader_head(r1, &len, NULL);
	ck_assert(!hd_archive_has_magic(head, len));
	tgz = hd_test_gzip(t, g_bytes_get_size(tar));
	r2 = hd_reader_new_from_memory(g_bytes_get_data(tgz, NULL),
				       g_bytes_get_size(tgz), NULL);
	head = hd_reader_head(r2, &len, NULL);
	ck_assert(hd_archive_has_magic(head, len));
	ck_assert(!hd_archive_has_magic((const uint8_t *)"PK", 2));
	/* issue 20: text with "ustar" at byte 257 is no tar header */
	{
		char log[1024];

		memset(log, 'x', sizeof(log));
		memcpy(log + 257,
		       "ustar\0"
		       "00",
		       8);
		ck_assert(!hd_archive_has_magic((const uint8_t *)log,
						sizeof(log)));
		/* nor is a tar header with one byte changed */
		memcpy(log, t, 512);
		ck_assert(hd_archive_has_magic((const uint8_t *)log, 512));
		log[0] ^= 1;
		ck_assert(!hd_archive_has_magic((const uint8_t *)log, 512));
	}
}
END_TEST

START_TEST(test_archive_truncated_tar)
{
	g_autofree char *body = g_strnfill(5000, 'x');
	g_autoptr(GBytes) tar = archive_bytes("ustar", body, 5000);
	/* the directory's header, the file's, and part of its data */
	g_autoptr(GBytes) cut = g_bytes_new_from_bytes(tar, 0, 1024 + 2000);
	g_autoptr(GString) out = g_string_new(NULL);
	g_autoptr(GError) err = NULL;

	ck_assert(!read_members(cut, out, &err));
	ck_assert(err != NULL);
	ck_assert_msg(strstr(err->message, "<memory>"), "%s", err->message);
}
END_TEST

START_TEST(test_archive_zip_garbage)
{
	uint8_t junk[300];
	g_autoptr(GBytes) b = NULL;
	g_autoptr(GString) out = g_string_new(NULL);
	g_autoptr(GError) err = NULL;

	memset(junk, 0xff, sizeof(junk));
	memcpy(junk, "PK\x03\x04", 4);
	b = g_bytes_new(junk, sizeof(junk));
	ck_assert(!read_members(b, out, &err));
	ck_assert(err != NULL);
	/* says why, never "(null)"; the caller names the archive */
	ck_assert_msg(strstr(err->message, "cannot read the archive") &&
			      !strstr(err->message, "(null)"),
		      "%s", err->message);
}
END_TEST

/*
 * hd-sha256 gives GLib's SHA-256 of what it is fed, in pieces of any size,
 * inline and on its thread, and a hasher freed unfinished stops cleanly.
 */
START_TEST(test_sha256_pieces)
{
	size_t len = HD_SHA256_INLINE_BYTES + 3 * HD_SHA256_CHUNK_BYTES + 77;
	g_autofree uint8_t *data = g_malloc(len);
	g_autoptr(GChecksum) want = g_checksum_new(G_CHECKSUM_SHA256);
	char hex[HD_SHA256_HEX_LEN + 1];
	size_t sizes[] = { 1, 4095, HD_SHA256_CHUNK_BYTES + 1, 65536, 3 };

	for (size_t i = 0; i < len; i++)
		data[i] = (uint8_t)(i * 2654435761u >> 13);
	g_checksum_update(want, data, (gssize)len);
	for (size_t k = 0; k < G_N_ELEMENTS(sizes); k++) {
		g_autoptr(hd_sha256) h = hd_sha256_new();
		g_autoptr(hd_sha256) dropped = hd_sha256_new();

		ck_assert_ptr_nonnull(h);
		for (size_t at = 0, i = 0; at < len; i++) {
			size_t n = MIN(sizes[(k + i) % G_N_ELEMENTS(sizes)],
				       len - at);

			hd_sha256_update(h, data + at, n);
			hd_sha256_update(dropped, data + at, n);
			at += n;
		}
		ck_assert(hd_sha256_finish(h, hex));
		ck_assert_str_eq(hex, g_checksum_get_string(want));
	}
	/* nothing fed: the hash of no bytes */
	{
		g_autoptr(hd_sha256) h = hd_sha256_new();

		ck_assert(hd_sha256_finish(h, hex));
		ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb924"
				      "27ae41e4649b934ca495991b7852b855");
	}
}
END_TEST

static Suite *input_suite(void)
{
	Suite *s = suite_create("input");
	TCase *tc = tcase_create("reader");

	tcase_add_test(tc, test_plain_gzip_zstd_same_bytes);
	tcase_add_test(tc, test_incident_pool);
	tcase_add_test(tc, test_gzip_members_concatenated);
	tcase_add_test(tc, test_truncated_streams_fail_cleanly);
	tcase_add_test(tc, test_cut_head_keeps_bytes);
	tcase_add_test(tc, test_garbage_after_gzip_magic);
	tcase_add_test(tc, test_lines_crlf_cut_and_last);
	tcase_add_test(tc, test_lines_mark_at_line_start);
	tcase_add_test(tc, test_trailing_after_compressed);
	tcase_add_test(tc, test_members_then_padding);
	tcase_add_test(tc, test_lines_nul_holes);
	tcase_add_test(tc, test_lines_nul_holes_across_refills);
	tcase_add_test(tc, test_head_skips_nul);
	tcase_add_test(tc, test_utf16_read_as_utf8);
	tcase_add_test(tc, test_lines_cr_only);
	tcase_add_test(tc, test_lines_cr_cut);
	tcase_add_test(tc, test_discover_unreadable_listed);
	tcase_add_test(tc, test_lines_across_refills);
	tcase_add_test(tc, test_slurp_limit);
	tcase_add_test(tc, test_digest_same_content);
	tcase_add_test(tc, test_digest_differs);
	tcase_add_test(tc, test_budget_bytes);
	tcase_add_test(tc, test_budget_ratio);
	tcase_add_test(tc, test_pzstd_skippable_frame);
	tcase_add_test(tc, test_open_fifo_refused);
	tcase_add_test(tc, test_open_stdin);
	tcase_add_test(tc, test_discover_sorted_recursive);
	tcase_add_test(tc, test_discover_links);
	tcase_add_test(tc, test_archive_members);
	tcase_add_test(tc, test_archive_compressed_member);
	tcase_add_test(tc, test_archive_magic_by_content);
	tcase_add_test(tc, test_archive_truncated_tar);
	tcase_add_test(tc, test_archive_zip_garbage);
	tcase_add_test(tc, test_sha256_pieces);
	suite_add_tcase(s, tc);
	return s;
}

HD_TEST_MAIN(input_suite)
