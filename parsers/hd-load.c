/*
 * Loading an incident: discovery, per-file parsing on a thread pool, and the
 * ordered merge.  Each file is parsed into a store of its own, so parser
 * threads share nothing but the string intern table; the merge then runs in
 * discovery order, which keeps reports independent of thread timing.  It
 * runs while the pool parses, each store as soon as it and all before it
 * are done, so only the few stores in flight exist besides the merged one.
 * Asked to, it also describes each file as stored (size, SHA-256), and
 * tells a caller's callback how far it has got; it never prints.
 */
#include "config.h"

#include "hd-load.h"

#include <stdio.h>
#include <string.h>
#include <glib/gstdio.h>

#include "hd-input.h"
#include "parsers.h"
#include "hd-banned.h"

struct load_job {
	char *path;
	bool describe; /* hash the file after parsing it */
	int attempt; /* the job attempt to keep, 0 the last */
	uint64_t size; /* on disk, for progress; 0 unknown */
	struct hd_store *store; /* filled by the worker */
	bool done;              /* set under load_sync.lock by the worker */
};

/* Signals the merging thread that a job is done. */
struct load_sync {
	GMutex lock;
	GCond cond;
};

/*
 * The size and SHA-256 of the file's bytes as stored (before any
 * decompression), for reports that identify their inputs.  Standard
 * input ("-") was consumed by the parser and is left undescribed.
 */
static void describe_file(const char *path, struct hd_input *in)
{
	g_autoptr(GChecksum) sum = NULL;
	g_autofree guchar *buf = NULL;
	int64_t size = 0;
	FILE *f;
	size_t n;

	if (strcmp(path, "-") == 0)
		return;
	f = g_fopen(path, "rb");
	if (!f)
		return;
	sum = g_checksum_new(G_CHECKSUM_SHA256);
	buf = g_malloc(1 << 20);
	while ((n = fread(buf, 1, 1 << 20, f)) > 0) {
		g_checksum_update(sum, buf, n);
		size += (int64_t)n;
	}
	if (!ferror(f)) {
		in->file_size = size;
		in->sha256 = g_strdup(g_checksum_get_string(sum));
	}
	fclose(f);
}

static void parse_one(struct load_job *job)
{
	job->store = parsers_parse_file(job->path);
	hd_store_keep_attempt(job->store, job->attempt);
	if (job->describe && job->store->inputs->len == 1)
		describe_file(job->path, hd_store_input(job->store, 0));
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
	g_mutex_lock(&sync->lock);
	job->done = true;
	g_cond_broadcast(&sync->cond);
	g_mutex_unlock(&sync->lock);
}

struct hd_store *hd_load(char **paths, int jobs, GPtrArray *problems)
{
	const struct hd_load_opts o = { .jobs = jobs };

	return hd_load_with(paths, &o, problems);
}

struct hd_store *hd_load_with(char **paths, const struct hd_load_opts *o,
			      GPtrArray *problems)
{
	g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
	g_autofree struct load_job *work = NULL;
	struct hd_store *store = hd_store_new();
	struct hd_load_progress prog = { 0 };
	int jobs = o->jobs;

	hd_discover(paths, files, problems);
	work = g_new0(struct load_job, files->len + 1);
	for (guint i = 0; i < files->len; i++) {
		GStatBuf st;

		work[i].path = g_ptr_array_index(files, i);
		work[i].describe = o->describe;
		work[i].attempt = o->attempt;
		if (o->progress && g_stat(work[i].path, &st) == 0 &&
		    st.st_size > 0)
			work[i].size = (uint64_t)st.st_size;
		prog.bytes_total += work[i].size;
	}
	prog.files_total = files->len;
	tell(o, &prog, NULL);
	if (jobs <= 0)
		jobs = g_get_num_processors();
	if (jobs > 1 && files->len > 1) {
		struct load_sync sync;
		GThreadPool *pool;

		g_mutex_init(&sync.lock);
		g_cond_init(&sync.cond);
		pool = g_thread_pool_new(worker, &sync, jobs, TRUE, NULL);
		for (guint i = 0; i < files->len; i++)
			g_thread_pool_push(pool, &work[i], NULL);
		for (guint i = 0; i < files->len; i++) {
			g_mutex_lock(&sync.lock);
			while (!work[i].done)
				g_cond_wait(&sync.cond, &sync.lock);
			g_mutex_unlock(&sync.lock);
			hd_store_merge(store, work[i].store);
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
			hd_store_merge(store, work[i].store);
			tell(o, &prog, &work[i]);
		}
	}
	parsers_release_buffers();
	hd_store_resolve(store);
	return store;
}
