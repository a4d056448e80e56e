/*
 * torchelastic error files (docs/format-torchelastic.md): the JSON that
 * torch.distributed.elastic's @record writes to TORCHELASTIC_ERROR_FILE
 * when a worker raises, and that the agent reads back for its "Root
 * Cause" table:
 *
 *   {"message": {"message": "RuntimeError: ...",
 *                "extraInfo": {"py_callstack": "Traceback ...",
 *                              "timestamp": "1763694165"}}}
 *
 * and the older shape whose "message" is the text itself, with an
 * optional "extraInfo" beside it.  The file becomes one crash signal:
 * type traceback (oom when the exception is CUDA's out of memory), text
 * the exception's message, time the timestamp (UTC seconds), stack the
 * frames of py_callstack innermost first.  The file names no rank: it is
 * the rank in the file's name ("error-rank3.json"), else none, and a
 * rankless exception blames no one (docs/verdicts.md).
 *
 * Ownership: the parsed document is per call; the store owns what is
 * added.
 */
#include "config.h"

#include <string.h>

#include <cjson/cJSON.h>

#include "formats.h"
#include "parse-util.h"
#include "rank-name.h"
#include "hd-banned.h"

/* Bounds that keep hostile input from growing the parser's state. */
#define TE_BYTES  ((size_t)16 << 20) /* an error file is read whole */
#define TE_FRAMES 256 /* frames kept of the callstack */

static const char *json_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* '  File "train.py", line 85, in train_step' (outermost first). */
static void callstack_frames(const char *cs, GArray *frames)
{
	const char *p = cs;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		const char *e = nl ? nl : p + strlen(p), *s = p, *file, *q;
		int64_t line = 0;

		p = nl ? nl + 1 : NULL;
		while (s < e && *s == ' ')
			s++;
		if ((size_t)(e - s) < 6 || memcmp(s, "File \"", 6) != 0)
			continue;
		file = s + 6;
		q = memchr(file, '"', (size_t)(e - file));
		if (!q || (size_t)(e - q) < 8 || memcmp(q, "\", line ", 8))
			continue;
		s = q + 8;
		if (!pu_dec(&s, e, &line))
			continue;
		if ((size_t)(e - s) < 5 || memcmp(s, ", in ", 5) != 0)
			continue;
		s += 5;
		while (e > s && (e[-1] == ' ' || e[-1] == '\r'))
			e--;
		if (e == s)
			continue;
		struct hd_frame f = {
			.name = hd_intern_len(s, MIN((size_t)(e - s), 512)),
			.file = hd_intern_len(file,
					      MIN((size_t)(q - file), 1024)),
			.line = line > 0 && line <= INT32_MAX ? (int)line : 0,
		};
		if (frames->len >= TE_FRAMES)
			g_array_remove_index(frames,
					     0); /* keep the innermost */
		g_array_append_val(frames, f);
	}
}

/* The timestamp, a string or number of seconds since the epoch (UTC). */
static struct hd_time timestamp(const cJSON *extra)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(extra, "timestamp");
	int64_t sec = -1;

	if (cJSON_IsString(v)) {
		const char *s = v->valuestring, *e = s + strlen(s);

		if (!pu_dec(&s, e, &sec) || s != e)
			sec = -1;
	} else if (cJSON_IsNumber(v) && v->valuedouble >= 0 &&
		   v->valuedouble < 7258118400.0) {
		sec = (int64_t)v->valuedouble;
	}
	if (sec <= 0 || sec >= HD_TIME_NS_MAX / HD_NS_PER_SEC)
		return hd_time_none();
	return hd_time_make(sec * HD_NS_PER_SEC, HD_CLOCK_UTC);
}

bool torchelastic_parse(struct hd_reader *rd, struct hd_store *store,
			uint32_t input, GError **error)
{
	g_autoptr(GArray) frames =
		g_array_new(FALSE, FALSE, sizeof(struct hd_frame));
	g_autofree char *text = NULL;
	struct hd_input *in = hd_store_input(store, input);
	const cJSON *m, *extra = NULL;
	const char *msg = NULL, *cs = NULL;
	struct hd_signal sig;
	cJSON *j;

	in->kind = HD_INPUT_TORCHELASTIC;
	j = pu_slurp_json(rd, TE_BYTES, "a torchelastic error file", error);
	if (!j)
		return false;
	m = cJSON_GetObjectItemCaseSensitive(j, "message");
	if (cJSON_IsObject(m)) {
		msg = json_str(m, "message");
		extra = cJSON_GetObjectItemCaseSensitive(m, "extraInfo");
	} else if (cJSON_IsString(m)) {
		/* the older shape: the text itself */
		msg = m->valuestring;
		extra = cJSON_GetObjectItemCaseSensitive(j, "extraInfo");
	}
	if (!msg) {
		cJSON_Delete(j);
		in->skipped++;
		hd_input_warn(in, 0,
			      "no \"message\" text: not a torchelastic error "
			      "file, or one of a newer shape");
		in->empty = true;
		return true;
	}
	if (cJSON_IsObject(extra)) {
		const cJSON *v =
			cJSON_GetObjectItemCaseSensitive(extra, "py_callstack");
		const cJSON *el;

		if (cJSON_IsString(v)) {
			cs = v->valuestring;
		} else if (cJSON_IsArray(v)) {
			/* traceback.format_stack()'s list, as the agent
			   writes its own error: one string a frame */
			cs = "";
			cJSON_ArrayForEach(el, v) {
				if (cJSON_IsString(el))
					callstack_frames(el->valuestring,
							 frames);
			}
		}
	}
	if (cs && *cs)
		callstack_frames(cs, frames);
	/* innermost first */
	for (guint a = 0, b = frames->len; a + 1 < b; a++, b--) {
		struct hd_frame t = g_array_index(frames, struct hd_frame, a);

		g_array_index(frames, struct hd_frame, a) =
			g_array_index(frames, struct hd_frame, b - 1);
		g_array_index(frames, struct hd_frame, b - 1) = t;
	}
	text = g_utf8_make_valid(msg, (gssize)MIN(strlen(msg), 1024));
	in->rank = parsers_rank_from_filename(in->path);
	hd_signal_init(&sig);
	if (strstr(text, "OutOfMemoryError") || strstr(text, "out of memory")) {
		sig.cat = HD_SIG_CUDA;
		sig.type = HD_SIGT_OOM;
	} else {
		sig.cat = HD_SIG_CRASH;
		sig.type = HD_SIGT_TRACEBACK;
	}
	sig.rank = in->rank;
	sig.text = text;
	/* the older shape keeps its timestamp beside the message */
	sig.time = cJSON_IsObject(extra) ? timestamp(extra)
		   : cJSON_IsString(m)	 ? timestamp(j)
					 : hd_time_none();
	sig.prov.input = input;
	sig.prov.kind = HD_PROV_RECORD;
	sig.prov.at = 1;
	if (frames->len)
		sig.stack = hd_store_add_stack(
			store, (const struct hd_frame *)frames->data,
			frames->len);
	hd_store_add_signal(store, &sig);
	in->records++;
	if (cJSON_IsObject(extra) && !cs) {
		in->skipped++;
		hd_input_warn(in, 0, "extraInfo without a py_callstack");
	}
	cJSON_Delete(j);
	return true;
}

/* '{' then the key "message" first, as the error handler writes it. */
bool torchelastic_sniff(const uint8_t *head, size_t len)
{
	size_t at = 0;

	if (!head)
		return false;
	while (at < len && g_ascii_isspace(head[at]))
		at++;
	if (at >= len || head[at] != '{')
		return false;
	for (at++; at < len && g_ascii_isspace(head[at]); at++)
		;
	return len - at >= 10 && memcmp(head + at, "\"message\"", 9) == 0;
}
