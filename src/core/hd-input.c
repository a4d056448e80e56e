/*
 * The input layer: file discovery, streaming gzip/zstd decompression and
 * bounded line splitting.  Compression is detected from magic bytes, never
 * from the file name; concatenated gzip members and zstd frames are read
 * through.
 */
#include "config.h"

#include "hd-input.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "hd-error.h"
#include "hd-banned.h"

#define RAW_BUF_SIZE (256 * 1024)

struct hd_reader {
	char *path;
	int fd;           /* -1 for memory readers */
	const uint8_t *mem; /* memory reader data */
	size_t mem_len, mem_pos;
	enum hd_compression comp;

	/* Compressed input buffer. */
	uint8_t *raw;
	size_t raw_len, raw_pos;
	bool raw_eof;

	z_stream zs;
	bool zs_init;
	bool zs_member_done; /* a gzip member ended; another may follow */
	ZSTD_DCtx *zctx;
	bool zstd_frame_open;

	/* Decompressed bytes sniffed but not yet handed out. */
	uint8_t head[HD_READER_HEAD_MAX];
	size_t head_len, head_pos;
	bool head_done;

	uint64_t consumed;
	bool eof;
};

/* Reads more compressed (or plain) bytes into raw; false at end of input. */
static bool raw_fill(struct hd_reader *r, GError **error)
{
	ssize_t n;

	if (r->raw_pos < r->raw_len)
		return true;
	if (r->raw_eof)
		return false;
	r->raw_pos = 0;
	r->raw_len = 0;
	if (r->fd < 0) {
		size_t left = r->mem_len - r->mem_pos;
		size_t take = MIN(left, (size_t)RAW_BUF_SIZE);

		/* Memory readers copy in chunks, like files. */
		if (take == 0) {
			r->raw_eof = true;
			return false;
		}
		memcpy(r->raw, r->mem + r->mem_pos, take);
		r->mem_pos += take;
		r->raw_len = take;
		return true;
	}
	do {
		n = read(r->fd, r->raw, RAW_BUF_SIZE);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		g_set_error(error, HD_ERROR, HD_ERROR_IO, "cannot read '%s': %s",
			    r->path, g_strerror(errno));
		return false;
	}
	if (n == 0) {
		r->raw_eof = true;
		return false;
	}
	r->raw_len = n;
	return true;
}

static ssize_t read_plain(struct hd_reader *r, uint8_t *buf, size_t n,
			  GError **error)
{
	size_t take;

	if (r->fd >= 0 && r->raw_pos >= r->raw_len && n >= RAW_BUF_SIZE) {
		/* Large reads bypass the buffer. */
		ssize_t got;

		do {
			got = read(r->fd, buf, n);
		} while (got < 0 && errno == EINTR);
		if (got < 0) {
			g_set_error(error, HD_ERROR, HD_ERROR_IO,
				    "cannot read '%s': %s", r->path,
				    g_strerror(errno));
			return -1;
		}
		return got;
	}
	if (!raw_fill(r, error))
		return error && *error ? -1 : 0;
	take = MIN(n, r->raw_len - r->raw_pos);
	memcpy(buf, r->raw + r->raw_pos, take);
	r->raw_pos += take;
	return take;
}

static ssize_t read_gzip(struct hd_reader *r, uint8_t *buf, size_t n,
			 GError **error)
{
	int rc;

	r->zs.next_out = buf;
	r->zs.avail_out = n;
	while (r->zs.avail_out == n) {
		if (r->zs.avail_in == 0) {
			if (!raw_fill(r, error)) {
				if (error && *error)
					return -1;
				if (r->zs_member_done)
					return 0;
				g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
					    "'%s': gzip stream is truncated",
					    r->path);
				return -1;
			}
			r->zs.next_in = r->raw + r->raw_pos;
			r->zs.avail_in = r->raw_len - r->raw_pos;
			r->raw_pos = r->raw_len;
		}
		if (r->zs_member_done) {
			/* Another member follows the one that ended. */
			inflateReset(&r->zs);
			r->zs_member_done = false;
		}
		rc = inflate(&r->zs, Z_NO_FLUSH);
		if (rc == Z_STREAM_END) {
			r->zs_member_done = true;
			if (r->zs.avail_out != n)
				break;
			continue;
		}
		if (rc != Z_OK && rc != Z_BUF_ERROR) {
			g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
				    "'%s': corrupt gzip data: %s", r->path,
				    r->zs.msg ? r->zs.msg : "inflate failed");
			return -1;
		}
	}
	return n - r->zs.avail_out;
}

static ssize_t read_zstd(struct hd_reader *r, uint8_t *buf, size_t n,
			 GError **error)
{
	ZSTD_outBuffer out = { buf, n, 0 };

	while (out.pos == 0) {
		ZSTD_inBuffer in;
		size_t rc;

		if (r->raw_pos >= r->raw_len && !raw_fill(r, error)) {
			if (error && *error)
				return -1;
			if (r->zstd_frame_open) {
				g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
					    "'%s': zstd stream is truncated",
					    r->path);
				return -1;
			}
			return 0;
		}
		in.src = r->raw;
		in.size = r->raw_len;
		in.pos = r->raw_pos;
		rc = ZSTD_decompressStream(r->zctx, &out, &in);
		r->raw_pos = in.pos;
		if (ZSTD_isError(rc)) {
			g_set_error(error, HD_ERROR, HD_ERROR_FORMAT,
				    "'%s': corrupt zstd data: %s", r->path,
				    ZSTD_getErrorName(rc));
			return -1;
		}
		r->zstd_frame_open = rc != 0;
	}
	return out.pos;
}

static ssize_t read_decoded(struct hd_reader *r, uint8_t *buf, size_t n,
			    GError **error)
{
	switch (r->comp) {
	case HD_COMP_GZIP:
		return read_gzip(r, buf, n, error);
	case HD_COMP_ZSTD:
		return read_zstd(r, buf, n, error);
	case HD_COMP_NONE:
		break;
	}
	return read_plain(r, buf, n, error);
}

static bool reader_setup(struct hd_reader *r, GError **error)
{
	r->raw = g_malloc(RAW_BUF_SIZE);
	if (!raw_fill(r, error) && error && *error)
		return false;
	if (r->raw_len >= 2 && r->raw[0] == 0x1f && r->raw[1] == 0x8b) {
		r->comp = HD_COMP_GZIP;
		if (inflateInit2(&r->zs, 15 + 32) != Z_OK) {
			g_set_error(error, HD_ERROR, HD_ERROR_IO,
				    "'%s': cannot start gzip decoder", r->path);
			return false;
		}
		r->zs_init = true;
	} else if (r->raw_len >= 4 && r->raw[0] == 0x28 && r->raw[1] == 0xb5 &&
		   r->raw[2] == 0x2f && r->raw[3] == 0xfd) {
		r->comp = HD_COMP_ZSTD;
		r->zctx = ZSTD_createDCtx();
		/* Cap the window: a hostile frame must not ask for GBs. */
		ZSTD_DCtx_setParameter(r->zctx, ZSTD_d_windowLogMax, 27);
	}
	return true;
}

struct hd_reader *hd_reader_open(const char *path, GError **error)
{
	g_autoptr(hd_reader) r = g_new0(struct hd_reader, 1);
	struct stat st;

	r->path = g_strdup(path);
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		g_set_error(error, HD_ERROR, HD_ERROR_IO, "cannot open '%s': %s",
			    path, g_strerror(errno));
		return NULL;
	}
	if (fstat(r->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		g_set_error(error, HD_ERROR, HD_ERROR_IO,
			    "cannot read '%s': is a directory", path);
		return NULL;
	}
#ifdef POSIX_FADV_SEQUENTIAL
	posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
	if (!reader_setup(r, error))
		return NULL;
	return g_steal_pointer(&r);
}

struct hd_reader *hd_reader_new_from_memory(const void *data, size_t len,
					    GError **error)
{
	g_autoptr(hd_reader) r = g_new0(struct hd_reader, 1);

	r->path = g_strdup("<memory>");
	r->fd = -1;
	r->mem = data;
	r->mem_len = len;
	if (!reader_setup(r, error))
		return NULL;
	return g_steal_pointer(&r);
}

void hd_reader_free(struct hd_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	if (r->zs_init)
		inflateEnd(&r->zs);
	ZSTD_freeDCtx(r->zctx);
	g_free(r->raw);
	g_free(r->path);
	g_free(r);
}

enum hd_compression hd_reader_compression(const struct hd_reader *r)
{
	return r->comp;
}

const char *hd_reader_path(const struct hd_reader *r)
{
	return r->path;
}

const uint8_t *hd_reader_head(struct hd_reader *r, size_t *len,
			      GError **error)
{
	if (!r->head_done) {
		while (r->head_len < HD_READER_HEAD_MAX) {
			ssize_t n = read_decoded(r, r->head + r->head_len,
						 HD_READER_HEAD_MAX -
							 r->head_len,
						 error);

			if (n < 0)
				break;
			if (n == 0)
				break;
			r->head_len += n;
		}
		r->head_done = true;
	}
	*len = r->head_len;
	return r->head;
}

ssize_t hd_reader_read(struct hd_reader *r, void *buf, size_t n,
		       GError **error)
{
	ssize_t got;

	if (n == 0)
		return 0;
	if (r->head_pos < r->head_len) {
		size_t take = MIN(n, r->head_len - r->head_pos);

		memcpy(buf, r->head + r->head_pos, take);
		r->head_pos += take;
		r->consumed += take;
		return take;
	}
	r->head_done = true;
	if (r->eof)
		return 0;
	got = read_decoded(r, buf, n, error);
	if (got == 0)
		r->eof = true;
	if (got > 0)
		r->consumed += got;
	return got;
}

uint64_t hd_reader_consumed(const struct hd_reader *r)
{
	return r->consumed;
}

GBytes *hd_reader_slurp(struct hd_reader *r, size_t max, GError **error)
{
	GByteArray *a = g_byte_array_new();
	size_t chunk = 64 * 1024;

	for (;;) {
		ssize_t n;

		if (a->len >= max) {
			uint8_t probe;

			/* Exactly max bytes is fine; one more is not. */
			n = hd_reader_read(r, &probe, 1, error);
			if (n == 0)
				break;
			if (n > 0)
				g_set_error(error, HD_ERROR, HD_ERROR_TOO_BIG,
					    "'%s' is larger than %zu bytes",
					    r->path, max);
			g_byte_array_unref(a);
			return NULL;
		}
		g_byte_array_set_size(a, a->len + chunk);
		n = hd_reader_read(r, a->data + a->len - chunk,
				   MIN(chunk, max - (a->len - chunk)), error);
		if (n < 0) {
			g_byte_array_unref(a);
			return NULL;
		}
		g_byte_array_set_size(a, a->len - chunk + n);
		if (n == 0)
			break;
		if (chunk < 16 * 1024 * 1024)
			chunk *= 2;
	}
	return g_byte_array_free_to_bytes(a);
}

#define LINES_BUF_SIZE (1024 * 1024)

struct hd_lines {
	struct hd_reader *r;
	char *buf;
	size_t cap;
	size_t start, end; /* unread bytes are buf[start, end) */
	bool eof;
	bool skipping; /* inside the overflow of a cut line */
	uint64_t lineno;
};

struct hd_lines *hd_lines_new(struct hd_reader *r)
{
	struct hd_lines *l = g_new0(struct hd_lines, 1);

	l->r = r;
	l->cap = LINES_BUF_SIZE + HD_LINE_MAX;
	l->buf = g_malloc(l->cap);
	return l;
}

void hd_lines_free(struct hd_lines *l)
{
	if (!l)
		return;
	g_free(l->buf);
	g_free(l);
}

uint64_t hd_lines_lineno(const struct hd_lines *l)
{
	return l->lineno;
}

/* Moves unread bytes to the front and reads more; false at end of input. */
static bool lines_fill(struct hd_lines *l, GError **error)
{
	ssize_t n;

	if (l->eof)
		return false;
	if (l->start > 0) {
		memmove(l->buf, l->buf + l->start, l->end - l->start);
		l->end -= l->start;
		l->start = 0;
	}
	if (l->end >= l->cap)
		return true;
	n = hd_reader_read(l->r, l->buf + l->end, l->cap - l->end, error);
	if (n <= 0) {
		l->eof = true;
		return false;
	}
	l->end += n;
	return true;
}

bool hd_lines_next(struct hd_lines *l, const char **line, size_t *len,
		   bool *cut, GError **error)
{
	size_t scanned = 0;

	*cut = false;
	for (;;) {
		char *base = l->buf + l->start;
		size_t avail = l->end - l->start;
		char *nl = memchr(base + scanned, '\n', avail - scanned);
		size_t n;

		if (l->skipping) {
			/* Drop the rest of a cut line. */
			if (nl) {
				l->start += nl - base + 1;
				l->skipping = false;
				scanned = 0;
				continue;
			}
			l->start = l->end;
			if (!lines_fill(l, error))
				return false;
			continue;
		}
		if (nl || avail >= HD_LINE_MAX || (l->eof && avail > 0)) {
			if (nl && (size_t)(nl - base) <= HD_LINE_MAX) {
				n = nl - base;
				l->start += n + 1;
			} else if (avail >= HD_LINE_MAX) {
				n = HD_LINE_MAX;
				*cut = true;
				l->start += n;
				l->skipping = true;
			} else {
				n = avail;
				l->start += n;
			}
			if (n > 0 && base[n - 1] == '\r')
				n--;
			l->lineno++;
			*line = base;
			*len = n;
			return true;
		}
		scanned = avail;
		if (!lines_fill(l, error)) {
			if (l->end > l->start)
				continue;
			return false;
		}
		/* lines_fill() moved the data to the front. */
	}
}

static int compare_paths(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Directories deeper than this are not entered (symlink loops, bombs). */
#define HD_MAX_DEPTH 32

static void discover_dir(const char *dir, int depth, GPtrArray *files,
			 GPtrArray *errors)
{
	g_autoptr(GError) err = NULL;
	g_autoptr(GDir) d = g_dir_open(dir, 0, &err);
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	const char *name;

	if (!d) {
		g_ptr_array_add(errors, g_strdup_printf("cannot read '%s': %s",
							dir, err->message));
		return;
	}
	while ((name = g_dir_read_name(d)))
		if (name[0] != '.')
			g_ptr_array_add(names, g_build_filename(dir, name,
								NULL));
	g_ptr_array_sort(names, compare_paths);
	for (guint i = 0; i < names->len; i++) {
		const char *p = g_ptr_array_index(names, i);
		struct stat st;

		if (stat(p, &st) != 0) {
			g_ptr_array_add(errors,
					g_strdup_printf("cannot read '%s': %s",
							p, g_strerror(errno)));
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			if (depth + 1 >= HD_MAX_DEPTH) {
				g_ptr_array_add(errors,
						g_strdup_printf("'%s': too deep, not entered",
								p));
				continue;
			}
			discover_dir(p, depth + 1, files, errors);
		} else if (S_ISREG(st.st_mode)) {
			g_ptr_array_add(files, g_strdup(p));
		}
	}
}

void hd_discover(char **paths, GPtrArray *files, GPtrArray *errors)
{
	for (; paths && *paths; paths++) {
		struct stat st;

		if (stat(*paths, &st) != 0) {
			g_ptr_array_add(errors,
					g_strdup_printf("cannot read '%s': %s",
							*paths,
							g_strerror(errno)));
			continue;
		}
		if (S_ISDIR(st.st_mode))
			discover_dir(*paths, 0, files, errors);
		else
			g_ptr_array_add(files, g_strdup(*paths));
	}
}
