/*
 * Loading an incident: discovery, per-file parsing on a thread pool, the
 * ordered merge, and what only the whole incident can tell a log (a rotated
 * log's newer file continues the processes of its older one:
 * nl-continue.c).  Each file is parsed into a store of its own, so parser
 * threads share nothing but the string intern table; the merge then runs in
 * discovery order, which keeps reports independent of thread timing.  It
 * runs while the pool parses, each store as soon as it and all before it
 * are done, so only the few stores in flight exist besides the merged one.
 *
 * An archive (a tar or zip bundle, known by content) is one job whose
 * members, read in archive order by one worker, are inputs of their own,
 * merged at the archive's place.
 *
 * Each input is read under the budget of its kind (src/core/hd-budget.h),
 * and every input of the load under the incident's, which they share.
 * An input that repeats an earlier one, the same file reached by another
 * path or the same decoded bytes (a log and its gzip -k copy), is merged
 * as a note on the later one: it stays listed and adds nothing (what is
 * a copy is hd-copies.c's to say).  Asked to, it also describes each file
 * as stored (size, XXH3-128 and SHA-256 if asked for, hashed by the
 * worker in the one read that parses it), and tells a caller's callback
 * how far it has got; it never prints.
 */
#include "config.h"

#include "hd-load.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <glib/gstdio.h>

#include "hd-archive.h"
#include "hd-budget.h"
#include "hd-copies.h"
#include "hd-input.h"
#include "hd-sha256.h"
#include "hd-const.h"
#include "formats.h"
#include "parsers.h"
#include "hd-banned.h"

/*
 * One input a job read: the file, or one member of an archive.
 */
struct load_part {
	char *name; /* a member's label; NULL: the file itself */
	struct hd_store *store; /* one input */
	struct hd_digest digest; /* of what the worker read */
	char *refusal; /* why the reader stopped at the budget, or NULL */
	bool pool_refused; /* that budget was the incident's */
	/* a digest: its store holds the inputs it was made of, each
	   deduplicated and described when it was made */
	bool from_digest;
};

struct load_job {
	const struct hd_found *found;
	int copy_of; /* an earlier job this one is the same file as, or -1 */
	uint64_t max_bytes; /* the decoded-bytes budget, 0 for the kind's */
	/* struct load_part, filled by the worker: one, or an archive's
	   members in archive order */
	GArray *parts;
	guint first_input; /* the store's index of its first input */
	guint origin; /* the input merged in full that its first repeats */
	bool describe; /* size and hashes of the file as stored */
	bool sha256; /* SHA-256 among them */
	struct hd_stored stored; /* those, set by the worker */
	bool described; /* stored is set */
	int attempt; /* the job attempt to keep, 0 the last */
	const struct hd_window *window; /* records to keep, or NULL */
	bool keep_all; /* every attempt and record: for a digest */
	struct hd_budget_pool *pool; /* the incident's budget, shared */
	uint64_t size; /* on disk, for progress; 0 unknown */
	bool done; /* set under load_sync.lock by the worker */
	/*
	 * HANGDOC_BENCH_READ_COPIES set: merge every input, even one with
	 * the same bytes as an earlier one (scripts/bench-fr.sh hard-links
	 * one dump under many ranks' names, which no disk could hold
	 * otherwise); never for real incidents (docs/safety.md)
	 */
	bool read_copies;
	/*
	 * its content is not hashed as it is read: no other input has its
	 * size, so none can be a copy of it, unless one decodes to it
	 * (hd_copies_content() then reads it again)
	 */
	bool skip_key;
};

/* Whether s, which may be NULL, holds part. */
static bool has_text(const char *s, const char *part)
{
	return s && strstr(s, part);
}

/* Signals the merging thread that a job is done. */
struct load_sync {
	GMutex lock;
	GCond cond;
};

/* What an input is called in the store: its path, or <stdin> for "-". */
static const char *input_name(const struct hd_found *f)
{
	return strcmp(f->path, "-") == 0 ? HD_STDIN_NAME : f->path;
}

/* Sets rd's budget for an input of kind, whose first bytes are head. */
static void set_budget(struct hd_reader *rd, enum hd_input_kind kind,
		       const uint8_t *head, size_t len, uint64_t max_bytes)
{
	struct parsers_budget b = parsers_budget(kind, head, len);

	hd_reader_set_budget(rd, max_bytes ? max_bytes : b.bytes, b.ratio,
			     b.what);
}

/* A store holding only an input named name that could not be read. */
static struct hd_store *unusable_store(const char *name, const char *why)
{
	struct hd_store *s = hd_store_new();

	hd_store_input(s, hd_store_add_input(s, name))->error = g_strdup(why);
	return s;
}

/* A new part of job, named name (NULL: the file itself).  (transfer none) */
static struct load_part *add_part(struct load_job *job, const char *name)
{
	struct load_part p = { .name = g_strdup(name) };

	if (!job->parts)
		job->parts = g_array_new(FALSE, TRUE, sizeof(struct load_part));
	g_array_append_val(job->parts, p);
	return &g_array_index(job->parts, struct load_part,
			      job->parts->len - 1);
}

/*
 * Counts what part's store keeps against the incident's records budget
 * (HD_BUDGET_INCIDENT_RECORDS): past it, the input keeps nothing, its
 * memory freed, and the refusal is the incident's.
 */
static void keep_within_records(struct load_job *job, struct load_part *part,
				const char *name)
{
	g_autofree char *why = NULL;
	const struct hd_input *in;
	struct hd_store *s;

	if (!job->pool ||
	    hd_budget_pool_add_records(job->pool,
				       hd_store_kept_bytes(part->store), &why))
		return;
	/* refused already at its first bytes: it says why */
	if (part->pool_refused)
		return;
	in = hd_store_input(part->store, 0);
	s = unusable_store(name, why);
	hd_store_input(s, 0)->kind = in->kind;
	hd_store_input(s, 0)->bytes = in->bytes;
	hd_store_free(part->store);
	part->store = s;
	g_free(part->refusal);
	part->refusal = g_steal_pointer(&why);
	part->pool_refused = true;
}

/*
 * Parses what rd holds, whose first bytes are head, into part, as an
 * input named name.
 */
static void parse_reader(struct load_job *job, struct load_part *part,
			 struct hd_reader *rd, const char *name,
			 const uint8_t *head, size_t len)
{
	g_autofree char *note = NULL;
	const struct hd_input *in;
	enum hd_input_kind kind;
	uint64_t refused;

	kind = parsers_sniff(head, len);
	set_budget(rd, kind, head, len, job->max_bytes);
	/*
	 * A digest's columns compress far past the incident's ratio (500 : 1
	 * where a training loop's times step evenly): its decoded bytes are
	 * held to its own budget (HD_BUDGET_DIGEST_BYTES at 1000 : 1), not
	 * summed with the files'.
	 */
	hd_reader_set_pool(rd, job->pool, false, kind != HD_INPUT_DIGEST);
	hd_intern_limit_begin(HD_BUDGET_STRINGS_PER_INPUT);
	part->store = parsers_parse_input(rd, name, kind);
	part->from_digest = kind == HD_INPUT_DIGEST;
	/*
	 * A digest keeps them all: the analysis of the digests chooses.  The
	 * attempt is chosen over every input at once (hd_load()): a rank's
	 * logs number attempts per file.
	 */
	if (!job->keep_all)
		hd_store_keep_window(part->store, job->window);
	refused = hd_intern_limit_end();
	hd_reader_digest(rd, &part->digest);
	note = hd_budget_take_note();
	if (hd_reader_trailing(rd))
		hd_input_warn(hd_store_input(part->store, 0), 0, "%s",
			      hd_reader_trailing(rd));
	if (hd_reader_encoding(rd))
		hd_input_warn(hd_store_input(part->store, 0), 0,
			      "%s text, read as UTF-8", hd_reader_encoding(rd));
	if (hd_reader_nul_skipped(rd))
		hd_input_warn(
			hd_store_input(part->store, 0), 0,
			"%" G_GUINT64_FORMAT
			" NUL bytes skipped: a hole a writer left (a log truncated by copytruncate while written, or not flushed before a crash); the text around it is read",
			hd_reader_nul_skipped(rd));
	if (hd_reader_refusal(rd)) {
		part->refusal = g_strdup(hd_reader_refusal(rd));
		part->pool_refused = hd_reader_refused_by_pool(rd);
	} else if (note)
		part->refusal =
			g_strdup_printf("%s; the rest is not read", note);
	if (refused == 0) {
		keep_within_records(job, part, name);
		return;
	}
	/*
	 * Strings past the budget all read as one placeholder, which would
	 * make different groups or hosts look the same: nothing of it is kept.
	 */
	in = hd_store_input(part->store, 0);
	{
		g_autofree char *why = g_strdup_printf(
			"more than %" G_GUINT64_FORMAT
			" distinct strings, the budget for one input; not used",
			(uint64_t)HD_BUDGET_STRINGS_PER_INPUT);
		struct hd_store *s = unusable_store(name, why);

		hd_store_input(s, 0)->kind = in->kind;
		hd_store_input(s, 0)->bytes = in->bytes;
		hd_store_free(part->store);
		part->store = s;
	}
}

/* One member of an archive, into a part of its own. */
static void parse_member(struct load_job *job, struct hd_archive_member *m)
{
	struct load_part *part = add_part(job, m->name);
	g_autoptr(GError) err = NULL;
	const uint8_t *head;
	size_t len = 0;

	if (m->skipped) {
		part->store = unusable_store(m->name, m->skipped);
		return;
	}
	head = hd_reader_head(m->reader, &len, &err);
	if (err) {
		part->store = unusable_store(m->name, err->message);
		return;
	}
	/* a bomb's usual shape: each level multiplies what the last gave */
	if (hd_archive_has_magic(head, len)) {
		part->store = unusable_store(
			m->name, "an archive inside an archive, not opened");
		return;
	}
	parse_reader(job, part, m->reader, m->name, head, len);
}

/*
 * An archive: each member a part, in archive order.  Whatever stops the
 * archive early (a corrupt header, a budget) is the error of one more
 * input, named for the archive, so every report says it.
 */
static void parse_archive(struct load_job *job, struct hd_reader *rd)
{
	const char *name = input_name(job->found);
	struct hd_archive_member m = { 0 };
	g_autoptr(hd_archive) ar = NULL;
	g_autoptr(GError) err = NULL;
	guint members = 0;

	/* its bytes as decoded: the members and their headers */
	hd_reader_set_budget(
		rd, HD_BUDGET_ARCHIVE_BYTES + (HD_BUDGET_ARCHIVE_MEMBERS << 10),
		HD_BUDGET_ARCHIVE_RATIO, "an archive");
	ar = hd_archive_new(rd, &err);
	while (ar && hd_archive_next(ar, &m, &err)) {
		parse_member(job, &m);
		hd_archive_member_clear(&m);
		members++;
	}
	if (err)
		add_part(job, NULL)->store = unusable_store(name, err->message);
	else if (members == 0)
		add_part(job, NULL)->store =
			unusable_store(name, "an archive with no file in it");
}

/*
 * The size and hashes of the file's bytes as stored (before any
 * decompression), for reports that identify their inputs: rd hashed
 * what the parse read, and reads the rest, if any, here.
 */
static void describe_file(struct load_job *job, struct hd_reader *rd)
{
	job->described = hd_reader_stored_hashes(rd, &job->stored);
}

static void parse_one(struct load_job *job)
{
	const char *name = input_name(job->found);
	g_autoptr(GError) err = NULL;
	g_autoptr(hd_reader) rd = NULL;
	const uint8_t *head = NULL;
	size_t len = 0;

	if (job->copy_of >= 0)
		return; /* merged as a note on the first */
	if (job->found->error) {
		add_part(job, NULL)->store =
			unusable_store(name, job->found->error);
		return;
	}
	rd = hd_reader_open(job->found->path, &err);
	if (rd && job->skip_key)
		hd_reader_skip_content_hash(rd);
	if (rd) {
		/* standard input, read by the parser, is not described */
		if (job->describe && strcmp(job->found->path, "-") != 0)
			hd_reader_hash_stored(rd, job->sha256);
		hd_reader_set_pool(rd, job->pool, true, false);
		head = hd_reader_head(rd, &len, &err);
	}
	if (err)
		add_part(job, NULL)->store = unusable_store(name, err->message);
	else if (hd_archive_has_magic(head, len))
		parse_archive(job, rd);
	else
		parse_reader(job, add_part(job, NULL), rd, name, head, len);
	if (rd && job->describe)
		describe_file(job, rd);
}

static void tell(const struct hd_load_opts *o, struct hd_load_progress *p,
		 const struct load_job *done)
{
	if (done) {
		p->files_done++;
		p->bytes_done += done->size;
	}
	if (o->progress)
		o->progress(p, o->progress_data);
}

static void worker(gpointer data, gpointer user)
{
	struct load_job *job = data;
	struct load_sync *sync = user;

	parse_one(job);
	/* the pool's threads may outlive the process's libcrypto */
	if (job->sha256)
		hd_sha256_thread_done();
	g_mutex_lock(&sync->lock);
	job->done = true;
	g_cond_broadcast(&sync->cond);
	g_mutex_unlock(&sync->lock);
}

/*
 * Merges part of job into dst, or a note in its place when it repeats an
 * earlier input (copies knows the inputs before it).
 * Returns the index of the input merged in full that it is or repeats.
 */
static guint merge_part(struct hd_store *dst, struct load_job *job,
			struct load_part *part, struct hd_copies *copies,
			GPtrArray *problems, guint *pool_refused)
{
	const char *name = part->name ? part->name : input_name(job->found);
	struct hd_store *s = part->store;
	guint origin = dst->inputs->len;

	/*
	 * A parser that keeps what it read before the budget ran out only
	 * warns, and warnings past the first few are counted, not kept: the
	 * refusal is said where it cannot be missed.
	 */
	/* past the incident's budget, the first is said, the rest counted */
	if (part->refusal && part->pool_refused && (*pool_refused)++)
		g_clear_pointer(&part->refusal, g_free);
	if (part->refusal &&
	    !has_text(hd_store_input(s, 0)->error, part->refusal))
		g_ptr_array_add(problems, g_strdup_printf("'%s': %s", name,
							  part->refusal));
	g_clear_pointer(&part->refusal, g_free);
	/* a digest's inputs are looked up one by one (hd_copies_digest()) */
	if (part->digest.complete && part->digest.length > 0 &&
	    !job->read_copies && !part->from_digest &&
	    hd_copies_content(copies, dst, job->found->path, &part->digest))
		s = hd_copies_input(copies, dst, s, name, part->digest.hash,
				    part->digest.length, &origin);
	part->store = NULL;
	if (part->from_digest)
		hd_copies_digest(copies, dst, s);
	else
		hd_copies_drop_procs(copies, dst, s);
	/* a member is not its archive, but -o must not replace either */
	hd_store_input(s, 0)->dev = job->found->dev;
	hd_store_input(s, 0)->ino = job->found->ino;
	/* a digest's first input has its own file's size and hashes */
	if (job->described && !part->name && !part->from_digest) {
		struct hd_input *in = hd_store_input(s, 0);

		in->file_size = (int64_t)job->stored.size;
		in->xxh3_128 = g_strdup(job->stored.xxh3_128);
		if (job->stored.has_sha256)
			in->sha256 = g_strdup(job->stored.sha256);
	}
	hd_store_merge(dst, s);
	return origin;
}

/*
 * Merges job i into dst: each of its parts in order, or, when it is the
 * same file as an earlier job, one note naming that job's first input.
 */
static void merge_job(struct hd_store *dst, struct load_job *work, guint i,
		      struct hd_copies *copies, GPtrArray *problems,
		      guint *pool_refused)
{
	struct load_job *job = &work[i];

	job->first_input = job->origin = dst->inputs->len;
	if (job->copy_of >= 0) {
		struct load_job *orig = &work[job->copy_of];
		struct hd_store *s;

		/* name the input that was read, not a note on it */
		job->origin = orig->origin;
		s = hd_copies_repeat_store(input_name(job->found),
					   hd_store_input(dst, orig->origin), 0,
					   orig->origin == orig->first_input
						   ? "same file as"
						   : "same content as");
		hd_store_input(s, 0)->dev = job->found->dev;
		hd_store_input(s, 0)->ino = job->found->ino;
		hd_store_merge(dst, s);
		return;
	}
	for (guint p = 0; job->parts && p < job->parts->len; p++) {
		struct load_part *part =
			&g_array_index(job->parts, struct load_part, p);

		guint origin = merge_part(dst, job, part, copies, problems,
					  pool_refused);

		if (p == 0)
			job->origin = origin;
		g_free(part->name);
	}
	g_clear_pointer(&job->parts, g_array_unref);
}

/*
 * Which of the n jobs need not hash their content as they are read.  Two
 * inputs are copies only if they decode to as many bytes, and a file as
 * stored decodes to its size: a file whose size no other input has is
 * read without the hash (7% of the time one NCCL log takes), and hashed
 * by a second read only if a compressed input decodes to its size.  A
 * digest keeps every input's content, and inputs merged whatever their
 * content (HANGDOC_BENCH_READ_COPIES) are never compared.
 */
static void plan_content_keys(struct load_job *work, guint n, bool for_digest)
{
	g_autoptr(GHashTable) sizes = NULL;

	if (for_digest)
		return;
	sizes = g_hash_table_new(g_int64_hash, g_int64_equal);
	for (guint i = 0; i < n; i++) {
		const struct hd_found *f = work[i].found;

		if (work[i].copy_of < 0 && f->size)
			g_hash_table_insert(
				sizes, hd_unconst(&f->size),
				GUINT_TO_POINTER(!g_hash_table_contains(
					sizes, &f->size)));
	}
	for (guint i = 0; i < n; i++) {
		const struct hd_found *f = work[i].found;

		work[i].skip_key = work[i].read_copies ||
				   (work[i].copy_of < 0 && f->size &&
				    strcmp(f->path, "-") != 0 &&
				    GPOINTER_TO_UINT(g_hash_table_lookup(
					    sizes, &f->size)));
	}
}

/*
 * A size from the environment variable var: bytes, or with a K, M, G or
 * T suffix (powers of 1024).  0 when unset; a bad value is said in
 * problems (with what applies instead) and ignored.  HANGDOC_MAX_INPUT_SIZE
 * is the decoded-bytes budget of every input in place of its kind's,
 * HANGDOC_MAX_INCIDENT_RECORDS the incident's records budget.
 */
static uint64_t size_from_env(const char *var, const char *instead,
			      GPtrArray *problems)
{
	static const char units[] = "KMGT";
	const char *v = g_getenv(var);
	const char *unit;
	unsigned shift = 0;
	guint64 n;
	char *end;

	if (!v || !*v)
		return 0;
	n = g_ascii_strtoull(v, &end, 10);
	unit = *end ? strchr(units, g_ascii_toupper(*end)) : NULL;
	if (unit) {
		shift = 10 * (unsigned)(unit - units + 1);
		end++;
	}
	if (end == v || !g_ascii_isdigit(*v) || *end || n == 0 ||
	    n > (G_MAXUINT64 >> shift)) {
		g_ptr_array_add(
			problems,
			g_strdup_printf(
				"%s: '%s' is not a size (bytes, or with K, M, G or T); %s",
				var, v, instead));
		return 0;
	}
	return n << shift;
}

/*
 * Paths given that do not exist or cannot be looked at become inputs with
 * their error, so that every report lists them, not only stderr.
 */
static void add_missing(struct hd_store *store, char **paths,
			GPtrArray *problems)
{
	for (; paths && *paths; paths++) {
		g_autofree char *said = NULL;
		GStatBuf st;
		int err;

		if (strcmp(*paths, "-") == 0 || g_stat(*paths, &st) == 0)
			continue;
		err = errno;
		hd_store_input(store, hd_store_add_input(store, *paths))
			->error = g_strdup(g_strerror(err));
		/* said once, as an unusable input, not also as a problem */
		said = g_strdup_printf("cannot read '%s': %s", *paths,
				       g_strerror(err));
		for (guint i = 0; problems && i < problems->len; i++)
			if (strcmp(g_ptr_array_index(problems, i), said) == 0)
				g_ptr_array_remove_index(problems, i--);
	}
}

struct hd_store *hd_load(char **paths, int jobs, GPtrArray *problems)
{
	const struct hd_load_opts o = { .jobs = jobs };

	return hd_load_with(paths, &o, problems);
}

struct hd_store *hd_load_with(char **paths, const struct hd_load_opts *o,
			      GPtrArray *problems)
{
	struct hd_load_progress prog = { 0 };
	int jobs = o->jobs;
	g_autoptr(GPtrArray) files =
		g_ptr_array_new_with_free_func(hd_found_free);
	g_autoptr(hd_copies) copies = hd_copies_new();
	g_autofree struct load_job *work = NULL;
	struct hd_store *store = hd_store_new();
	uint64_t max_bytes =
		size_from_env("HANGDOC_MAX_INPUT_SIZE",
			      "the budgets of each kind apply", problems);
	uint64_t max_records =
		size_from_env("HANGDOC_MAX_INCIDENT_RECORDS",
			      "the incident's budget applies", problems);
	const char *bench_copies = g_getenv("HANGDOC_BENCH_READ_COPIES");
	bool read_copies = bench_copies && *bench_copies;
	g_autoptr(hd_budget_pool) budget = hd_budget_pool_new(
		HD_BUDGET_INCIDENT_BYTES, HD_BUDGET_INCIDENT_RATIO,
		max_records ? max_records : HD_BUDGET_INCIDENT_RECORDS);
	guint cpus = g_get_num_processors();
	guint to_parse = 0;
	guint pool_refused = 0; /* inputs past the incident's budget */

	hd_discover(paths, files, problems);
	work = g_new0(struct load_job, files->len + 1);
	for (guint i = 0; i < files->len; i++) {
		const struct hd_found *f = g_ptr_array_index(files, i);

		work[i].found = f;
		work[i].max_bytes = max_bytes;
		work[i].copy_of = -1;
		work[i].describe = o->describe;
		work[i].sha256 = o->describe && o->sha256;
		work[i].attempt = o->attempt;
		work[i].window = o->window;
		work[i].keep_all = o->for_digest;
		work[i].pool = budget;
		work[i].read_copies = read_copies;
		if (o->progress) {
			GStatBuf st;

			if (g_stat(f->path, &st) == 0 && st.st_size > 0)
				work[i].size = (uint64_t)st.st_size;
			prog.bytes_total += work[i].size;
		}
		if (f->same_as >= 0 &&
		    hd_copies_names_agree(
			    ((const struct hd_found *)g_ptr_array_index(
				     files, f->same_as))
				    ->path,
			    f->path))
			work[i].copy_of = f->same_as;
		if (work[i].copy_of < 0)
			to_parse++;
		else
			work[i].done = true;
	}
	plan_content_keys(work, files->len, o->for_digest);
	prog.files_total = files->len;
	tell(o, &prog, NULL);
	/* more threads than files or than a few per CPU only cost memory */
	if (jobs <= 0)
		jobs = (int)cpus;
	jobs = (int)MIN((guint)jobs, cpus * HD_BUDGET_JOBS_PER_CPU);
	jobs = (int)MIN((guint)jobs, to_parse);
	if (jobs > 1) {
		struct load_sync sync;
		GThreadPool *pool;

		g_mutex_init(&sync.lock);
		g_cond_init(&sync.cond);
		pool = g_thread_pool_new(worker, &sync, jobs, TRUE, NULL);
		for (guint i = 0; i < files->len; i++)
			if (work[i].copy_of < 0)
				g_thread_pool_push(pool, &work[i], NULL);
		for (guint i = 0; i < files->len; i++) {
			g_mutex_lock(&sync.lock);
			while (!work[i].done)
				g_cond_wait(&sync.cond, &sync.lock);
			g_mutex_unlock(&sync.lock);
			merge_job(store, work, i, copies, problems,
				  &pool_refused);
			tell(o, &prog, &work[i]);
		}
		g_thread_pool_free(pool, FALSE, TRUE);
		/* Idle workers exit, which frees their per-thread buffers. */
		g_thread_pool_stop_unused_threads();
		g_cond_clear(&sync.cond);
		g_mutex_clear(&sync.lock);
	} else {
		for (guint i = 0; i < files->len; i++) {
			parse_one(&work[i]);
			merge_job(store, work, i, copies, problems,
				  &pool_refused);
			tell(o, &prog, &work[i]);
		}
	}
	parsers_release_buffers();
	if (pool_refused > 1)
		g_ptr_array_add(
			problems,
			g_strdup_printf(
				"%u more inputs were not read whole: the incident's budget was spent (their warnings say so in the report)",
				pool_refused - 1));
	add_missing(store, paths, problems);
	/* joins across inputs: once, over every node, when digests are read */
	if (!o->for_digest) {
		hd_store_keep_attempt(store, o->attempt);
		nl_continue_procs(store);
		nl_drop_earlier_copies(store);
		hd_copies_merge_dumps(store);
		hd_store_resolve(store);
		/* a dump of an earlier run among this hang's: set apart */
		hd_store_keep_incident(store);
		/* after it: another incident's counters complete nothing */
		nl_counters_complete(store);
		hd_store_mark_local_zones(store);
	}
	return store;
}
