/*
 * Archives read as directories, through libarchive, streaming: libarchive
 * pulls the archive's bytes from a hd_reader (which has already undone a
 * gzip or zstd wrapper, under its own budget), and each member's bytes are
 * pulled from libarchive by a reader of their own, so a member gets the
 * same decompression, sniffing and budgets as a file.  Zip archives are
 * read from their local headers, front to back, never by seeking to the
 * central directory: members that overlap (a known bomb) cost what their
 * bytes cost.  The archive's own budgets (src/core/hd-budget.h) are
 * checked here, on every byte a member hands out.  libarchive (with the
 * libxml2, ICU and codecs it brings) is opened on the first archive, not
 * linked (src/core/hd-dl.h): most runs read none.
 */
#include "config.h"

#include "hd-archive.h"

#include <errno.h>
#include <string.h>
#include <archive.h>
#include <archive_entry.h>

#include "hd-budget.h"
#include "hd-dl.h"
#include "hd-error.h"
#include "hd-banned.h"

#define ARCHIVE_BUF_SIZE (256 * 1024)

/* Every libarchive function this file calls, through la below. */
#define LA_FUNCS(X)                        \
	X(archive_read_new)                \
	X(archive_read_support_format_tar) \
	X(archive_read_support_format_zip) \
	X(archive_read_open)               \
	X(archive_read_next_header)        \
	X(archive_read_data)               \
	X(archive_read_free)               \
	X(archive_error_string)            \
	X(archive_set_error)               \
	X(archive_entry_pathname)          \
	X(archive_entry_filetype)          \
	X(archive_entry_hardlink)

#define LA_SYM(f) HD_DL_SYM(la, f)

/* Filled by hd_dl_load(&libarchive) before an archive is read. */
static struct {
	LA_FUNCS(HD_DL_POINTER)
} la;

static const struct hd_dl_sym la_syms[] = { LA_FUNCS(LA_SYM){ NULL, NULL } };

static struct hd_dl libarchive = { .soname = HD_LIBARCHIVE_SONAME,
				   .syms = la_syms };

struct hd_archive {
	struct archive *ar;
	struct hd_reader *outer; /* borrowed */
	uint8_t *buf; /* what libarchive was last given */
	char *outer_error; /* why outer failed, or NULL */
	char *member; /* the current member's label */
	uint64_t entries; /* headers read, of any type */
	uint64_t expanded; /* members' bytes as stored, handed out */
	char *refusal; /* set once past a budget: the archive stops there */
};

/*
 * Whether the 512-byte block h is a tar header: its checksum field (octal,
 * ended by a NUL or a space) is the sum of its bytes with that field read
 * as spaces, unsigned or, as some old tars wrote it, signed.  Text with
 * "ustar" at offset 257 is not one.
 */
static bool is_tar_header(const uint8_t *h)
{
	uint64_t want = 0, sum = 0;
	int64_t ssum = 0;
	int i = 148, digits = 0;

	while (i < 156 && h[i] == ' ')
		i++;
	for (; i < 156 && h[i] >= '0' && h[i] <= '7'; i++, digits++)
		want = want * 8 + (uint64_t)(h[i] - '0');
	if (digits == 0 || (i < 156 && h[i] != ' ' && h[i] != '\0'))
		return false;
	for (i = 0; i < 512; i++) {
		uint8_t c = i >= 148 && i < 156 ? ' ' : h[i];

		sum += c;
		ssum += (int8_t)c;
	}
	return want == sum || (int64_t)want == ssum;
}

/* libarchive's last error, never NULL. */
static const char *ar_error(struct hd_archive *a)
{
	const char *e = la.archive_error_string(a->ar);

	return e ? e : "not a readable tar or zip archive";
}

bool hd_archive_has_magic(const uint8_t *head, size_t len)
{
	if (len >= 4 && head[0] == 'P' && head[1] == 'K' &&
	    ((head[2] == 3 && head[3] == 4) || (head[2] == 5 && head[3] == 6)))
		return true;
	return len >= 512 && memcmp(head + 257, "ustar", 5) == 0 &&
	       is_tar_header(head);
}

/* libarchive's read callback: the archive's decoded bytes. */
static la_ssize_t archive_pull(struct archive *ar, void *data, const void **buf)
{
	struct hd_archive *a = data;
	g_autoptr(GError) err = NULL;
	ssize_t n = hd_reader_read(a->outer, a->buf, ARCHIVE_BUF_SIZE, &err);

	*buf = a->buf;
	if (n >= 0)
		return n;
	if (!a->outer_error)
		a->outer_error = g_strdup(err ? err->message : "read failed");
	la.archive_set_error(ar, EIO, "%s", a->outer_error);
	return -1;
}

struct hd_archive *hd_archive_new(struct hd_reader *outer, GError **error)
{
	g_autoptr(hd_archive) a = NULL;
	g_autoptr(GError) err = NULL;

	/* the input that holds the archive says why it is not read */
	if (!hd_dl_load(&libarchive, &err)) {
		g_set_error(error, HD_ERROR, HD_ERROR_UNSUPPORTED,
			    "cannot read the archive: %s", err->message);
		return NULL;
	}
	a = g_new0(struct hd_archive, 1);
	a->outer = outer;
	a->buf = g_malloc(ARCHIVE_BUF_SIZE);
	a->ar = la.archive_read_new();
	if (!a->ar) /* as g_malloc() does when memory runs out */
		g_error("out of memory for a libarchive reader");
	/*
	 * Only the formats hangdoc recognises, and no filter: the reader has
	 * undone gzip and zstd, and nothing else is a bundle.
	 */
	la.archive_read_support_format_tar(a->ar);
	la.archive_read_support_format_zip(a->ar);
	if (la.archive_read_open(a->ar, a, NULL, archive_pull, NULL) !=
	    ARCHIVE_OK) {
		g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
			    "cannot read the archive: %s",
			    a->outer_error ? a->outer_error : ar_error(a));
		return NULL;
	}
	return g_steal_pointer(&a);
}

void hd_archive_free(struct hd_archive *a)
{
	if (!a)
		return;
	if (a->ar)
		la.archive_read_free(a->ar);
	g_free(a->buf);
	g_free(a->outer_error);
	g_free(a->member);
	g_free(a->refusal);
	g_free(a);
}

void hd_archive_member_clear(struct hd_archive_member *m)
{
	if (!m)
		return;
	hd_reader_free(m->reader);
	g_free(m->name);
	g_free(m->skipped);
	memset(m, 0, sizeof(*m));
}

/* Refuses the rest of the archive: why names it and the member. */
static void refuse(struct hd_archive *a, char *why)
{
	if (!a->refusal)
		a->refusal = why;
	else
		g_free(why);
}

/* Whether got more member bytes keep a within its budgets; else says why. */
static bool archive_within_budget(struct hd_archive *a, size_t got)
{
	uint64_t total = a->expanded + got;
	uint64_t raw = hd_reader_raw_consumed(a->outer);

	if (total > HD_BUDGET_ARCHIVE_BYTES) {
		refuse(a,
		       g_strdup_printf(
			       "members of more than %" G_GUINT64_FORMAT
			       " GiB (at member '%s'), the budget for an archive; the rest is not read",
			       HD_BUDGET_ARCHIVE_BYTES >> 30, a->member));
		return false;
	}
	if (total > HD_BUDGET_RATIO_GRACE &&
	    total > (uint64_t)HD_BUDGET_ARCHIVE_RATIO * raw) {
		refuse(a,
		       g_strdup_printf(
			       "decompresses more than %u to 1 (%" G_GUINT64_FORMAT
			       " bytes from %" G_GUINT64_FORMAT
			       ", at member '%s'), the budget for an archive; the rest is not read",
			       HD_BUDGET_ARCHIVE_RATIO, total, raw, a->member));
		return false;
	}
	a->expanded = total;
	return true;
}

/* A member reader's source: the current member's bytes, as stored. */
static ssize_t member_pull(void *data, void *buf, size_t n, GError **error)
{
	struct hd_archive *a = data;
	la_ssize_t got;

	if (!a->refusal) {
		got = la.archive_read_data(a->ar, buf, n);
		if (got >= 0 && archive_within_budget(a, (size_t)got))
			return got;
		if (got < 0 && a->outer_error)
			refuse(a, g_strdup_printf("%s (at member '%s')",
						  a->outer_error, a->member));
		else if (got < 0)
			g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
				    "cannot read from the archive: %s",
				    ar_error(a));
	}
	if (a->refusal)
		g_set_error_literal(error, HD_ERROR, HD_ERROR_TOO_BIG,
				    a->refusal);
	return -1;
}

/* Why an entry of this type is not read, or NULL for a regular file. */
static const char *skip_reason(struct archive_entry *e)
{
	if (la.archive_entry_hardlink(e))
		return "a hard link inside an archive, not followed";
	switch (la.archive_entry_filetype(e)) {
	case AE_IFREG:
		return NULL;
	case AE_IFLNK:
		return "a symbolic link inside an archive, not followed";
	default:
		return "not a regular file (a device, FIFO or socket inside an archive), skipped";
	}
}

/* "ARCHIVE/path" for a member: a label for reports, never opened. */
static char *member_label(struct hd_archive *a, struct archive_entry *e)
{
	const char *p = la.archive_entry_pathname(e);

	if (!p || !*p)
		p = "?";
	/* "./x" from `tar -C dir .`: the same member, easier to read */
	while (p[0] == '.' && p[1] == '/' && p[2])
		p += 2;
	return g_strdup_printf("%s/%s", hd_reader_path(a->outer), p);
}

bool hd_archive_next(struct hd_archive *a, struct hd_archive_member *m,
		     GError **error)
{
	struct archive_entry *e;

	for (;;) {
		g_autoptr(GError) err = NULL;
		int rc;

		if (a->refusal) {
			g_set_error_literal(error, HD_ERROR, HD_ERROR_TOO_BIG,
					    a->refusal);
			return false;
		}
		rc = la.archive_read_next_header(a->ar, &e);
		if (rc == ARCHIVE_EOF)
			return false;
		if (rc < ARCHIVE_WARN) {
			const char *after = a->member ? a->member : "none";

			if (hd_reader_refusal(a->outer))
				g_set_error(error, HD_ERROR, HD_ERROR_TOO_BIG,
					    "%s (after member '%s')",
					    hd_reader_refusal(a->outer), after);
			else
				g_set_error(
					error, HD_ERROR, HD_ERROR_FORMAT,
					"cannot read the archive after member '%s': %s",
					after,
					a->outer_error ? a->outer_error
						       : ar_error(a));
			return false;
		}
		if (++a->entries > HD_BUDGET_ARCHIVE_MEMBERS) {
			refuse(a,
			       g_strdup_printf(
				       "more than %" G_GUINT64_FORMAT
				       " members, the budget for an archive; the rest is not read",
				       HD_BUDGET_ARCHIVE_MEMBERS));
			continue;
		}
		if (la.archive_entry_filetype(e) == AE_IFDIR &&
		    !la.archive_entry_hardlink(e))
			continue;
		g_free(a->member);
		a->member = member_label(a, e);
		m->name = g_strdup(a->member);
		if (skip_reason(e)) {
			m->skipped = g_strdup(skip_reason(e));
			return true;
		}
		m->reader = hd_reader_new_from_callback(m->name, member_pull, a,
							&err);
		if (m->reader)
			return true;
		if (a->refusal) {
			hd_archive_member_clear(m);
			continue;
		}
		/* the member's first bytes are bad; say so and go on */
		m->skipped = g_strdup(err->message);
		return true;
	}
}
