/*
 * Loading an incident: discovery, per-file parsing on a thread pool, and the
 * ordered merge.  Each file is parsed into a store of its own, so parser
 * threads share nothing but the string intern table; the merge then runs in
 * discovery order, which keeps reports independent of thread timing.  It
 * runs while the pool parses, each store as soon as it and all before it
 * are done, so only the few stores in flight exist besides the merged one.
 */
#include "config.h"

#include "hd-load.h"

#include "hd-input.h"
#include "parsers.h"
#include "hd-banned.h"

struct load_job {
	char *path;
	struct hd_store *store; /* filled by the worker */
	bool done;              /* set under load_sync.lock by the worker */
};

/* Signals the merging thread that a job is done. */
struct load_sync {
	GMutex lock;
	GCond cond;
};

static void parse_one(struct load_job *job)
{
	job->store = parsers_parse_file(job->path);
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
	g_autoptr(GPtrArray) files =
		g_ptr_array_new_with_free_func(hd_found_free);
	g_autofree struct load_job *work = NULL;
	struct hd_store *store = hd_store_new();

	hd_discover(paths, files, problems);
	work = g_new0(struct load_job, files->len + 1);
	for (guint i = 0; i < files->len; i++)
		work[i].path =
			((struct hd_found *)g_ptr_array_index(files, i))->path;
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
		}
	}
	parsers_release_buffers();
	hd_store_resolve(store);
	return store;
}
