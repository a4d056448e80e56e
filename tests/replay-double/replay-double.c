/*
 * replay-double: a CPU test double for the CUDA runtime and NCCL calls that
 * replay/replay-run.c makes, so that the runner runs in make check without
 * a GPU (tests/replay-double/replay-cpu.sh).  A shared library that only
 * tests/replay-double/hangdoc-cpu opens; never installed, never linked into
 * hangdoc.  One thread per process, as the runner uses it.
 *
 * The model.  Each rank is a process (the runner forks them).  The unique
 * id names a file under /dev/shm that every rank of the communicator maps;
 * each rank writes only its own records there and reads the others'.
 *  - Device memory is host memory.  Every buffer an NCCL call names must lie
 *    inside one cudaMalloc allocation: NCCL does not check this, the double
 *    does (ncclInvalidArgument), so a runner that sizes buffers wrong fails
 *    here instead of corrupting memory on a GPU.  No data moves and nothing
 *    is reduced: only completion is modelled.
 *  - A stream is a queue of launched groups.  The group at the head has
 *    arrived: its collectives are posted at their position in the
 *    communicator, its sends and receives at their index for the peer.
 *  - A collective completes when every rank has posted the call at that
 *    position with the same kind, count, dtype, redop and root.  A rank that
 *    never calls it, or calls something else, leaves the others waiting
 *    until they abort: NCCL does not detect mismatches either.  (NCCL may
 *    also complete one, or a root's broadcast, early; the double always
 *    waits, so it checks the runner, not NCCL's algorithms.)
 *  - The i-th send from a to b completes when b posted its i-th receive
 *    from a with the same byte count, and the other way round.
 *  - Communicators with config.blocking = 0 behave as NCCL's non-blocking
 *    ones: init, every call outside a group and every outermost
 *    ncclGroupEnd return ncclInProgress, and ncclCommGetAsyncError says
 *    ncclInProgress until the launch is done (HD_FAKE_LAUNCH_POLLS polls;
 *    init also waits for every rank to join).  Only then is the work on the
 *    stream: an event recorded earlier does not cover it.  Using the
 *    communicator before that is ncclInvalidArgument, as in NCCL.
 *  - Nothing blocks: completion is seen by polling cudaEventQuery,
 *    cudaStreamQuery and ncclCommGetAsyncError.  The one wait, in a
 *    blocking init, is bounded.
 *  - ncclCommAbort ends the rank's outstanding work on the communicator.
 *
 * Test hooks, from the environment:
 *   HD_FAKE_GPUS=N          devices visible (default 8; 0: none)
 *   HD_FAKE_MEM_FREE=BYTES  cudaMemGetInfo's free memory (default 80 GiB
 *                           less what is allocated)
 *   HD_FAKE_LAUNCH_POLLS=N  polls until a non-blocking launch is done
 *                           (default 2); 0: calls return ncclSuccess
 *   HD_FAKE_CRASH_RANK=R and HD_FAKE_CRASH_AT=K|init: rank R calls abort()
 *                           at its K-th communication call (0-based;
 *                           collectives, sends and receives), or on
 *                           entering ncclCommInitRankConfig
 *   HD_FAKE_CRASH_AT=uid    the process calling ncclGetUniqueId aborts
 *   HD_FAKE_HANG_RANK=R and HD_FAKE_HANG_AT=K|abort: rank R's K-th call, or
 *                           its ncclCommAbort, does not return (it sleeps
 *                           for DBL_HANG_S), as a stuck NCCL call would
 *   HD_FAKE_ERROR_RANK=R and HD_FAKE_ERROR_AT=K: rank R's K-th call never
 *                           completes and the communicator reports
 *                           ncclRemoteError once it reached the stream
 *   HD_FAKE_TRACE=FILE      appends a line per call: "pid P rank R: call"
 *   HD_FAKE_SHM_DIR=DIR     where the shared files go (default /dev/shm)
 */
#include "config.h"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hd-banned.h"

/* Limits of the double; every table below is bounded by one of them. */
#define DBL_MAX_RANKS	    64
#define DBL_MAX_COLL	    1024 /* collectives per communicator */
#define DBL_MAX_P2P	    256 /* sends (receives) per ordered pair */
#define DBL_MAX_ALLOCS	    1024
#define DBL_MAX_STREAMS	    64
#define DBL_MAX_PENDING	    4096 /* launched groups queued on a stream */
#define DBL_MAX_GROUP_CALLS 4096
#define DBL_MAGIC	    0x68646231u /* "hdb1" */
#define DBL_CONFIG_MAGIC    0xcafebeefu
#define DBL_DEFAULT_GPUS    8
#define DBL_TOTAL_MEM	    ((size_t)80 << 30)
#define DBL_BLOCKING_INIT_S 30
#define DBL_HANG_S	    600 /* HD_FAKE_HANG_AT: longer than any test */

/* Shared by the ranks of one communicator. */

enum dbl_coll_kind {
	DBL_ALL_REDUCE = 1,
	DBL_BROADCAST,
	DBL_REDUCE,
	DBL_ALL_GATHER,
	DBL_REDUCE_SCATTER,
};

/* A collective as one rank posted it; redop and root -1 where unused. */
struct dbl_coll {
	_Atomic uint32_t posted; /* set last, with release */
	int32_t kind, dtype, redop, root;
	uint64_t count;
};

struct dbl_shared {
	uint32_t magic;
	_Atomic int32_t nranks; /* set by the first rank to join */
	_Atomic int32_t attached;
	_Atomic uint32_t joined[DBL_MAX_RANKS];
	/* sent[a][b][i]: bytes + 1 of a's i-th send to b; 0 not posted */
	_Atomic uint64_t sent[DBL_MAX_RANKS][DBL_MAX_RANKS][DBL_MAX_P2P];
	/* recvd[b][a][i]: bytes + 1 of b's i-th receive from a */
	_Atomic uint64_t recvd[DBL_MAX_RANKS][DBL_MAX_RANKS][DBL_MAX_P2P];
	struct dbl_coll coll[DBL_MAX_RANKS][DBL_MAX_COLL];
};

/* What ncclGetUniqueId hands out: the shared file's path. */
struct dbl_id {
	uint32_t magic;
	char path[NCCL_UNIQUE_ID_BYTES - sizeof(uint32_t)];
};
_Static_assert(sizeof(struct dbl_id) == sizeof(ncclUniqueId),
	       "the id must fit ncclUniqueId");

/* Per process. */

enum comm_state { COMM_JOINING, COMM_READY };

struct dbl_launch;

struct ncclComm {
	struct dbl_shared *sh;
	char path[sizeof(((struct dbl_id *)0)->path)];
	int rank, nranks;
	bool blocking;
	bool consistent; /* every rank said the same nranks */
	enum comm_state state;
	ncclResult_t async; /* an injected error, else ncclSuccess */
	struct dbl_launch *launch; /* a non-blocking launch in progress */
	uint32_t coll_next;
	uint32_t send_next[DBL_MAX_RANKS], recv_next[DBL_MAX_RANKS];
};

enum sub_kind { SUB_COLL, SUB_SEND, SUB_RECV };

/* One call of a launched group. */
struct dbl_sub {
	struct ncclComm *comm; /* NULL once the communicator was aborted */
	enum sub_kind kind;
	int peer;
	uint32_t index; /* collective position, or p2p index for the peer */
	uint64_t bytes; /* send/recv */
	struct dbl_coll desc; /* collectives; posted unused */
	bool faulted; /* HD_FAKE_ERROR_AT: never completes */
	bool done;
};

/* One launched group on one stream. */
struct dbl_item {
	struct dbl_sub *subs;
	size_t n;
	bool arrived;
};

struct CUstream_st {
	bool live;
	struct dbl_item *pending; /* launched, not complete, in order */
	size_t npending, cap;
	uint64_t enqueued, completed;
};

struct CUevent_st {
	cudaStream_t stream; /* NULL until recorded */
	uint64_t target; /* stream's enqueued count when recorded */
};

struct dbl_call {
	cudaStream_t stream;
	struct dbl_sub sub;
};

struct dbl_launch {
	int polls_left;
	struct dbl_call *calls; /* positions assigned, in call order */
	size_t ncalls;
};

struct dbl_alloc {
	char *p;
	size_t n;
};

static struct {
	bool read;
	int gpus;
	long long mem_free; /* -1: derived */
	int launch_polls;
	int crash_rank, error_rank, hang_rank;
	/* -1 none; crash_at -2 init, -3 uid; hang_at -2 abort */
	long crash_at, error_at, hang_at;
	const char *trace;
	const char *shm_dir;
} env;

static int cur_device;
static struct dbl_alloc allocs[DBL_MAX_ALLOCS];
static size_t allocated;
/* streams[0] is the legacy default stream (a NULL cudaStream_t). */
static struct CUstream_st streams[DBL_MAX_STREAMS] = { [0] = { .live = true } };
static int group_depth;
static ncclResult_t group_error;
static struct dbl_call *group_calls;
static size_t group_ncalls, group_cap;
static long comm_calls; /* communication calls made, for the hooks */
static unsigned id_counter;
static char last_error[512];
static int trace_fd = -1;
static int trace_rank = -1;

static long env_long(const char *name, long def, long lo, long hi)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < lo || v > hi) {
		fprintf(stderr, "replay double: ignoring %s=%s\n", name, s);
		return def;
	}
	return v;
}

static void read_env(void)
{
	const char *s;

	if (env.read)
		return;
	env.read = true;
	env.gpus = (int)env_long("HD_FAKE_GPUS", DBL_DEFAULT_GPUS, 0, 1024);
	env.mem_free = env_long("HD_FAKE_MEM_FREE", -1, 0, LONG_MAX);
	env.launch_polls = (int)env_long("HD_FAKE_LAUNCH_POLLS", 2, 0, 1000);
	env.crash_rank = (int)env_long("HD_FAKE_CRASH_RANK", -1, 0, INT_MAX);
	s = getenv("HD_FAKE_CRASH_AT");
	if (s && strcmp(s, "init") == 0)
		env.crash_at = -2;
	else if (s && strcmp(s, "uid") == 0)
		env.crash_at = -3;
	else
		env.crash_at = env_long("HD_FAKE_CRASH_AT", -1, 0, LONG_MAX);
	env.error_rank = (int)env_long("HD_FAKE_ERROR_RANK", -1, 0, INT_MAX);
	env.error_at = env_long("HD_FAKE_ERROR_AT", -1, 0, LONG_MAX);
	env.hang_rank = (int)env_long("HD_FAKE_HANG_RANK", -1, 0, INT_MAX);
	s = getenv("HD_FAKE_HANG_AT");
	if (s && strcmp(s, "abort") == 0)
		env.hang_at = -2;
	else
		env.hang_at = env_long("HD_FAKE_HANG_AT", -1, 0, LONG_MAX);
	env.trace = getenv("HD_FAKE_TRACE");
	env.shm_dir = getenv("HD_FAKE_SHM_DIR");
	if (!env.shm_dir || !*env.shm_dir)
		env.shm_dir = "/dev/shm";
}

__attribute__((format(printf, 1, 2))) static void trace(const char *fmt, ...);

static void trace(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	read_env();
	if (!env.trace)
		return;
	if (trace_fd < 0)
		trace_fd =
			open(env.trace,
			     O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (trace_fd < 0)
		return;
	n = snprintf(line, sizeof(line), "pid %ld rank %d: ", (long)getpid(),
		     trace_rank);
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	/* One write per line: O_APPEND keeps lines of ranks whole. */
	if (write(trace_fd, line, (size_t)n) < 0)
		return;
}

__attribute__((format(printf, 2, 3))) static ncclResult_t
fail(ncclResult_t r, const char *fmt, ...);

/* Sets ncclGetLastError()'s text; inside a group, fails the group too. */
static ncclResult_t fail(ncclResult_t r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	trace("error %d: %s", (int)r, last_error);
	if (group_depth > 0 && group_error == ncclSuccess)
		group_error = r;
	return r;
}

/* HD_FAKE_HANG_AT: a call that does not return, for a while. */
static void hang(const char *where)
{
	struct timespec ts = { DBL_HANG_S, 0 };

	fprintf(stderr, "replay double: rank %d hangs in %s\n", trace_rank,
		where);
	trace("hangs in %s", where);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* CUDA: devices, memory, streams, events. */

cudaError_t cudaGetDeviceCount(int *count)
{
	read_env();
	if (!count)
		return cudaErrorInvalidValue;
	*count = env.gpus;
	return env.gpus > 0 ? cudaSuccess : cudaErrorNoDevice;
}

cudaError_t cudaSetDevice(int device)
{
	read_env();
	trace("cudaSetDevice %d", device);
	if (env.gpus == 0)
		return cudaErrorNoDevice;
	if (device < 0 || device >= env.gpus)
		return cudaErrorInvalidDevice;
	cur_device = device;
	return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
	read_env();
	if (!device)
		return cudaErrorInvalidValue;
	if (env.gpus == 0)
		return cudaErrorNoDevice;
	*device = cur_device;
	return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_b, size_t *total_b)
{
	read_env();
	if (!free_b || !total_b)
		return cudaErrorInvalidValue;
	if (env.gpus == 0)
		return cudaErrorNoDevice;
	*total_b = DBL_TOTAL_MEM;
	*free_b = env.mem_free >= 0 ? (size_t)env.mem_free
				    : DBL_TOTAL_MEM - allocated;
	return cudaSuccess;
}

cudaError_t cudaMalloc(void **dev_ptr, size_t size)
{
	size_t free_b, total_b;

	if (!dev_ptr)
		return cudaErrorInvalidValue;
	if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess)
		return cudaErrorNoDevice;
	*dev_ptr = NULL;
	if (size == 0)
		return cudaSuccess;
	if (size > free_b)
		return cudaErrorMemoryAllocation;
	for (size_t i = 0; i < DBL_MAX_ALLOCS; i++) {
		if (allocs[i].p)
			continue;
		allocs[i].p = malloc(size);
		if (!allocs[i].p)
			return cudaErrorMemoryAllocation;
		allocs[i].n = size;
		allocated += size;
		*dev_ptr = allocs[i].p;
		return cudaSuccess;
	}
	return cudaErrorMemoryAllocation;
}

static struct dbl_alloc *alloc_find(const void *p)
{
	const char *c = p;

	for (size_t i = 0; i < DBL_MAX_ALLOCS; i++)
		if (allocs[i].p && c >= allocs[i].p &&
		    c < allocs[i].p + allocs[i].n)
			return &allocs[i];
	return NULL;
}

/* True when [p, p + n) lies inside one allocation (n = 0: anything). */
static bool is_device_range(const void *p, uint64_t n)
{
	const struct dbl_alloc *a;

	if (n == 0)
		return true;
	a = alloc_find(p);
	return a && n <= (uint64_t)(a->p + a->n - (const char *)p);
}

cudaError_t cudaFree(void *dev_ptr)
{
	struct dbl_alloc *a;

	if (!dev_ptr)
		return cudaSuccess;
	a = alloc_find(dev_ptr);
	if (!a || a->p != dev_ptr)
		return cudaErrorInvalidValue;
	free(a->p);
	allocated -= a->n;
	a->p = NULL;
	a->n = 0;
	return cudaSuccess;
}

cudaError_t cudaMemset(void *dev_ptr, int value, size_t count)
{
	if (!is_device_range(dev_ptr, count))
		return cudaErrorInvalidValue;
	if (count)
		memset(dev_ptr, value, count);
	return cudaSuccess;
}

/* The stream a handle names (NULL: the default stream), or NULL. */
static cudaStream_t stream_get(cudaStream_t s)
{
	if (!s)
		return &streams[0];
	for (size_t i = 0; i < DBL_MAX_STREAMS; i++)
		if (s == &streams[i])
			return s->live ? s : NULL;
	return NULL;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
	if (!stream)
		return cudaErrorInvalidValue;
	for (size_t i = 1; i < DBL_MAX_STREAMS; i++) {
		if (streams[i].live)
			continue;
		memset(&streams[i], 0, sizeof(streams[i]));
		streams[i].live = true;
		*stream = &streams[i];
		return cudaSuccess;
	}
	return cudaErrorMemoryAllocation;
}

static bool sub_done(struct dbl_sub *s)
{
	const struct ncclComm *c = s->comm;
	uint64_t v;

	if (s->done || !c)
		return true;
	if (s->faulted)
		return false;
	switch (s->kind) {
	case SUB_COLL:
		for (int q = 0; q < c->nranks; q++) {
			const struct dbl_coll *p = &c->sh->coll[q][s->index];

			if (!atomic_load_explicit(&p->posted,
						  memory_order_acquire))
				return false;
			/* A mismatch never completes, as in NCCL. */
			if (p->kind != s->desc.kind ||
			    p->count != s->desc.count ||
			    p->dtype != s->desc.dtype ||
			    p->redop != s->desc.redop ||
			    p->root != s->desc.root)
				return false;
		}
		break;
	case SUB_SEND:
		v = atomic_load_explicit(
			&c->sh->recvd[s->peer][c->rank][s->index],
			memory_order_acquire);
		if (v == 0 || v - 1 != s->bytes)
			return false;
		break;
	case SUB_RECV:
		v = atomic_load_explicit(
			&c->sh->sent[s->peer][c->rank][s->index],
			memory_order_acquire);
		if (v == 0 || v - 1 != s->bytes)
			return false;
		break;
	}
	s->done = true;
	return true;
}

/* The group reached the head of its stream: its calls are posted. */
static void sub_arrive(struct dbl_sub *s)
{
	struct ncclComm *c = s->comm;
	struct dbl_coll *p;

	if (!c)
		return;
	if (s->faulted) {
		c->async = ncclRemoteError;
		snprintf(
			last_error, sizeof(last_error),
			"test double: injected remote error (HD_FAKE_ERROR_AT)");
		trace("injected remote error");
		return;
	}
	switch (s->kind) {
	case SUB_COLL:
		p = &c->sh->coll[c->rank][s->index];
		p->kind = s->desc.kind;
		p->count = s->desc.count;
		p->dtype = s->desc.dtype;
		p->redop = s->desc.redop;
		p->root = s->desc.root;
		atomic_store_explicit(&p->posted, 1, memory_order_release);
		break;
	case SUB_SEND:
		atomic_store_explicit(&c->sh->sent[c->rank][s->peer][s->index],
				      s->bytes + 1, memory_order_release);
		break;
	case SUB_RECV:
		atomic_store_explicit(&c->sh->recvd[c->rank][s->peer][s->index],
				      s->bytes + 1, memory_order_release);
		break;
	}
}

static void stream_progress(cudaStream_t st)
{
	while (st->npending > 0) {
		struct dbl_item *it = &st->pending[0];
		bool done = true;

		if (!it->arrived) {
			for (size_t k = 0; k < it->n; k++)
				sub_arrive(&it->subs[k]);
			it->arrived = true;
		}
		for (size_t k = 0; k < it->n; k++)
			done &= sub_done(&it->subs[k]);
		if (!done)
			return;
		free(it->subs);
		st->npending--;
		memmove(&st->pending[0], &st->pending[1],
			st->npending * sizeof(st->pending[0]));
		st->completed++;
	}
}

static void progress_all(void)
{
	for (size_t i = 0; i < DBL_MAX_STREAMS; i++)
		if (streams[i].live)
			stream_progress(&streams[i]);
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
	cudaStream_t st = stream_get(stream);

	if (!st)
		return cudaErrorInvalidResourceHandle;
	stream_progress(st);
	return st->completed == st->enqueued ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
	cudaStream_t st = stream_get(stream);

	if (!st || st == &streams[0])
		return cudaErrorInvalidResourceHandle;
	/* CUDA lets queued work finish; here it is dropped. */
	for (size_t i = 0; i < st->npending; i++)
		free(st->pending[i].subs);
	free(st->pending);
	memset(st, 0, sizeof(*st));
	return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
	if (!event)
		return cudaErrorInvalidValue;
	*event = calloc(1, sizeof(**event));
	return *event ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
	cudaStream_t st = stream_get(stream);

	if (!event || !st)
		return cudaErrorInvalidResourceHandle;
	event->stream = st;
	event->target = st->enqueued;
	return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
	if (!event)
		return cudaErrorInvalidResourceHandle;
	if (!event->stream || !event->stream->live)
		return cudaSuccess;
	stream_progress(event->stream);
	return event->stream->completed >= event->target ? cudaSuccess
							 : cudaErrorNotReady;
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
	free(event);
	return cudaSuccess;
}

const char *cudaGetErrorString(cudaError_t error)
{
	switch (error) {
	case cudaSuccess:
		return "no error";
	case cudaErrorInvalidValue:
		return "invalid argument";
	case cudaErrorMemoryAllocation:
		return "out of memory";
	case cudaErrorNoDevice:
		return "no CUDA-capable device is detected";
	case cudaErrorInvalidDevice:
		return "invalid device ordinal";
	case cudaErrorInvalidResourceHandle:
		return "invalid resource handle";
	case cudaErrorNotReady:
		return "device not ready";
	}
	return "unrecognized error code";
}

/* NCCL: communicators. */

ncclResult_t ncclGetVersion(int *version)
{
	if (!version)
		return ncclInvalidArgument;
	*version = NCCL_VERSION_CODE;
	return ncclSuccess;
}

const char *ncclGetErrorString(ncclResult_t result)
{
	switch (result) {
	case ncclSuccess:
		return "no error";
	case ncclUnhandledCudaError:
		return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
	case ncclSystemError:
		return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
	case ncclInternalError:
		return "internal error - please report this issue to the NCCL developers";
	case ncclInvalidArgument:
		return "invalid argument (run with NCCL_DEBUG=WARN for details)";
	case ncclInvalidUsage:
		return "invalid usage (run with NCCL_DEBUG=WARN for details)";
	case ncclRemoteError:
		return "remote process exited or there was a network error";
	case ncclInProgress:
		return "NCCL operation in progress";
	case ncclNumResults:
		break;
	}
	return "unknown result code";
}

const char *ncclGetLastError(ncclComm_t comm)
{
	return last_error;
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *unique_id)
{
	struct dbl_id id;
	uint32_t magic = DBL_MAGIC;
	int fd, n;

	read_env();
	if (env.crash_at == -3) {
		fprintf(stderr, "replay double: crashing in ncclGetUniqueId\n");
		abort();
	}
	if (!unique_id)
		return fail(ncclInvalidArgument, "ncclGetUniqueId: NULL id");
	memset(&id, 0, sizeof(id));
	id.magic = DBL_MAGIC;
	/* The session id lets a test find what its own replays left. */
	n = snprintf(id.path, sizeof(id.path), "%s/hd-replay-double.%ld.%ld.%u",
		     env.shm_dir, (long)getsid(0), (long)getpid(),
		     id_counter++);
	if (n < 0 || (size_t)n >= sizeof(id.path))
		return fail(ncclInvalidArgument,
			    "test double: HD_FAKE_SHM_DIR is too long");
	fd = open(id.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return fail(ncclSystemError,
			    "test double: cannot create '%s': %s", id.path,
			    strerror(errno));
	if (ftruncate(fd, (off_t)sizeof(struct dbl_shared)) < 0 ||
	    pwrite(fd, &magic, sizeof(magic), 0) != (ssize_t)sizeof(magic)) {
		fail(ncclSystemError, "test double: cannot size '%s': %s",
		     id.path, strerror(errno));
		close(fd);
		unlink(id.path);
		return ncclSystemError;
	}
	close(fd);
	memcpy(unique_id, &id, sizeof(id));
	trace("ncclGetUniqueId %s", id.path);
	return ncclSuccess;
}

static bool is_everyone_joined(const struct ncclComm *c)
{
	if (!c->consistent)
		return false;
	for (int q = 0; q < c->nranks; q++)
		if (!atomic_load_explicit(&c->sh->joined[q],
					  memory_order_acquire))
			return false;
	return true;
}

static void launch_finish(struct dbl_launch *l);

/* What the background work of a non-blocking communicator has done. */
static void comm_progress(struct ncclComm *c)
{
	if (c->state == COMM_JOINING && is_everyone_joined(c))
		c->state = COMM_READY;
	if (c->state == COMM_READY && c->launch && --c->launch->polls_left <= 0)
		launch_finish(c->launch);
	progress_all();
}

static ncclResult_t comm_status(const struct ncclComm *c)
{
	if (c->async != ncclSuccess)
		return c->async;
	if (c->state == COMM_JOINING || c->launch)
		return ncclInProgress;
	return ncclSuccess;
}

static void comm_unmap(struct ncclComm *c)
{
	/* The last rank to join unlinked it already, unless one never did. */
	unlink(c->path);
	munmap(c->sh, sizeof(*c->sh));
	free(c);
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks,
				    ncclUniqueId comm_id, int rank,
				    ncclConfig_t *config)
{
	struct dbl_id id;
	struct ncclComm *c;
	struct dbl_shared *sh;
	int32_t expect = 0;
	bool blocking;
	int fd;

	read_env();
	memcpy(&id, &comm_id, sizeof(id));
	trace_rank = rank;
	trace("ncclCommInitRankConfig nranks %d rank %d blocking %d device %d NCCL_HOSTID %s",
	      nranks, rank, config ? config->blocking : -1, cur_device,
	      getenv("NCCL_HOSTID") ? getenv("NCCL_HOSTID") : "-");
	if (env.crash_at == -2 && env.crash_rank == rank) {
		fprintf(stderr, "replay double: rank %d crashes in init\n",
			rank);
		abort();
	}
	if (!comm)
		return fail(ncclInvalidArgument,
			    "ncclCommInitRankConfig: NULL comm");
	*comm = NULL;
	if (env.gpus == 0)
		return fail(ncclUnhandledCudaError, "test double: no device");
	if (nranks < 1 || nranks > DBL_MAX_RANKS)
		return fail(ncclInvalidArgument,
			    "test double: nranks %d outside 1..%d", nranks,
			    DBL_MAX_RANKS);
	if (rank < 0 || rank >= nranks)
		return fail(ncclInvalidArgument, "invalid rank %d of %d", rank,
			    nranks);
	if (config && (config->magic != DBL_CONFIG_MAGIC ||
		       config->size != sizeof(*config)))
		return fail(
			ncclInvalidArgument,
			"config not initialized with NCCL_CONFIG_INITIALIZER");
	blocking = !config || config->blocking != 0;
	if (id.magic != DBL_MAGIC || !memchr(id.path, '\0', sizeof(id.path)))
		return fail(
			ncclInvalidArgument,
			"test double: not a unique id from ncclGetUniqueId");
	fd = open(id.path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return fail(ncclSystemError,
			    "test double: cannot open '%s': %s", id.path,
			    strerror(errno));
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (sh == MAP_FAILED)
		return fail(ncclSystemError, "test double: cannot map '%s': %s",
			    id.path, strerror(errno));
	if (sh->magic != DBL_MAGIC) {
		munmap(sh, sizeof(*sh));
		return fail(ncclInvalidArgument,
			    "test double: '%s' is not a communicator", id.path);
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		munmap(sh, sizeof(*sh));
		return fail(ncclSystemError, "out of memory");
	}
	c->sh = sh;
	memcpy(c->path, id.path, sizeof(c->path));
	c->rank = rank;
	c->nranks = nranks;
	c->blocking = blocking;
	c->state = COMM_JOINING;
	/* Ranks that disagree on the size never finish init (NCCL hangs). */
	c->consistent =
		atomic_compare_exchange_strong(&sh->nranks, &expect, nranks) ||
		expect == nranks;
	if (atomic_exchange(&sh->joined[rank], 1)) {
		comm_unmap(c);
		return fail(ncclInvalidUsage,
			    "test double: rank %d joined twice", rank);
	}
	/* Every rank has the file mapped: the name is no longer needed. */
	if (atomic_fetch_add(&sh->attached, 1) + 1 == nranks)
		unlink(c->path);
	*comm = c;
	if (!blocking)
		return ncclInProgress;
	/* A blocking init waits for the others, but not forever. */
	for (int i = 0; i < DBL_BLOCKING_INIT_S * 1000; i++) {
		struct timespec ms = { 0, 1000000 };

		comm_progress(c);
		if (c->state == COMM_READY)
			return ncclSuccess;
		nanosleep(&ms, NULL);
	}
	*comm = NULL;
	comm_unmap(c);
	return fail(ncclSystemError,
		    "test double: not every rank joined within %d s",
		    DBL_BLOCKING_INIT_S);
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *async_error)
{
	if (!comm || !async_error)
		return fail(ncclInvalidArgument,
			    "ncclCommGetAsyncError: NULL argument");
	comm_progress(comm);
	*async_error = comm_status(comm);
	return ncclSuccess;
}

/* Forgets comm's calls everywhere: its outstanding work ends. */
static void comm_forget(struct ncclComm *c)
{
	size_t k = 0;

	if (c->launch)
		launch_finish(c->launch);
	for (size_t i = 0; i < DBL_MAX_STREAMS; i++)
		for (size_t j = 0; j < streams[i].npending; j++)
			for (size_t s = 0; s < streams[i].pending[j].n; s++)
				if (streams[i].pending[j].subs[s].comm == c)
					streams[i].pending[j].subs[s].comm =
						NULL;
	for (size_t i = 0; i < group_ncalls; i++)
		if (group_calls[i].sub.comm != c)
			group_calls[k++] = group_calls[i];
	group_ncalls = k;
	progress_all();
}

ncclResult_t ncclCommAbort(ncclComm_t comm)
{
	if (!comm)
		return ncclSuccess;
	trace("ncclCommAbort");
	if (env.hang_at == -2 && env.hang_rank == comm->rank)
		hang("ncclCommAbort");
	comm_forget(comm);
	comm_unmap(comm);
	return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
	if (!comm)
		return ncclSuccess;
	trace("ncclCommDestroy");
	progress_all();
	/* NCCL would wait for the outstanding work: the double refuses. */
	if (comm->launch)
		return fail(ncclInvalidUsage,
			    "test double: ncclCommDestroy during a launch");
	for (size_t i = 0; i < DBL_MAX_STREAMS; i++)
		for (size_t j = 0; j < streams[i].npending; j++)
			for (size_t s = 0; s < streams[i].pending[j].n; s++)
				if (streams[i].pending[j].subs[s].comm ==
					    comm &&
				    !streams[i].pending[j].subs[s].done)
					return fail(
						ncclInvalidUsage,
						"test double: ncclCommDestroy with work in flight would block; use ncclCommAbort");
	comm_forget(comm);
	comm_unmap(comm);
	return ncclSuccess;
}

/* NCCL: groups and calls. */

static bool stream_push(cudaStream_t st, struct dbl_sub *subs, size_t n)
{
	struct dbl_item *it;

	if (st->npending == st->cap) {
		size_t cap = st->cap ? 2 * st->cap : 4;
		struct dbl_item *p;

		if (cap > DBL_MAX_PENDING)
			return false;
		p = realloc(st->pending, cap * sizeof(*p));
		if (!p)
			return false;
		st->pending = p;
		st->cap = cap;
	}
	it = &st->pending[st->npending++];
	it->subs = subs;
	it->n = n;
	it->arrived = false;
	st->enqueued++;
	return true;
}

/* Puts a launched group on its streams: one item per stream. */
static void launch_finish(struct dbl_launch *l)
{
	for (size_t i = 0; i < l->ncalls; i++) {
		struct dbl_sub *subs;
		cudaStream_t st = l->calls[i].stream;
		size_t n = 0;

		if (!st)
			continue;
		subs = calloc(l->ncalls - i, sizeof(*subs));
		for (size_t j = i; subs && j < l->ncalls; j++) {
			if (l->calls[j].stream != st)
				continue;
			subs[n++] = l->calls[j].sub;
			l->calls[j].stream = NULL;
		}
		if (!subs || !stream_push(st, subs, n)) {
			/* Bounded queue full: the work is lost, say so. */
			free(subs);
			fail(ncclInternalError,
			     "test double: more than %d launches queued",
			     DBL_MAX_PENDING);
		}
	}
	for (size_t i = 0; i < l->ncalls; i++) {
		struct ncclComm *c = l->calls[i].sub.comm;

		if (c && c->launch == l)
			c->launch = NULL;
	}
	free(l->calls);
	free(l);
	progress_all();
}

/* Assigns each call its position, in call order. */
static ncclResult_t assign_positions(void)
{
	for (size_t i = 0; i < group_ncalls; i++) {
		struct dbl_sub *s = &group_calls[i].sub;
		struct ncclComm *c = s->comm;
		uint32_t *next;
		uint32_t cap;

		switch (s->kind) {
		case SUB_COLL:
			next = &c->coll_next;
			cap = DBL_MAX_COLL;
			break;
		case SUB_SEND:
			next = &c->send_next[s->peer];
			cap = DBL_MAX_P2P;
			break;
		default:
			next = &c->recv_next[s->peer];
			cap = DBL_MAX_P2P;
			break;
		}
		if (*next >= cap)
			return fail(
				ncclInternalError,
				"test double: more than %u calls of one kind on a communicator (or peer)",
				cap);
		s->index = (*next)++;
	}
	return ncclSuccess;
}

static ncclResult_t group_launch(void)
{
	struct dbl_launch *l;
	ncclResult_t r = group_error;
	bool nonblocking = false;

	group_error = ncclSuccess;
	if (r == ncclSuccess)
		r = assign_positions();
	if (r != ncclSuccess || group_ncalls == 0) {
		group_ncalls = 0;
		return r;
	}
	l = calloc(1, sizeof(*l));
	if (!l) {
		group_ncalls = 0;
		return fail(ncclSystemError, "out of memory");
	}
	l->calls = group_calls;
	l->ncalls = group_ncalls;
	group_calls = NULL;
	group_ncalls = group_cap = 0;
	for (size_t i = 0; i < l->ncalls; i++)
		nonblocking |= !l->calls[i].sub.comm->blocking;
	if (nonblocking && env.launch_polls > 0) {
		l->polls_left = env.launch_polls;
		for (size_t i = 0; i < l->ncalls; i++)
			l->calls[i].sub.comm->launch = l;
		return ncclInProgress;
	}
	launch_finish(l);
	return ncclSuccess;
}

ncclResult_t ncclGroupStart(void)
{
	trace("ncclGroupStart");
	group_depth++;
	return ncclSuccess;
}

ncclResult_t ncclGroupEnd(void)
{
	trace("ncclGroupEnd");
	if (group_depth == 0)
		return fail(ncclInvalidUsage,
			    "ncclGroupEnd without ncclGroupStart");
	if (--group_depth > 0)
		return ncclSuccess;
	return group_launch();
}

static size_t dtype_size(ncclDataType_t t)
{
	switch (t) {
	case ncclInt8:
	case ncclUint8:
	case ncclFloat8e4m3:
	case ncclFloat8e5m2:
		return 1;
	case ncclFloat16:
	case ncclBfloat16:
		return 2;
	case ncclInt32:
	case ncclUint32:
	case ncclFloat32:
		return 4;
	case ncclInt64:
	case ncclUint64:
	case ncclFloat64:
		return 8;
	case ncclNumTypes:
		break;
	}
	return 0;
}

/* How many elements a call's send or receive buffer must hold. */
enum buf_need {
	BUF_NONE,
	BUF_COUNT,
	BUF_COUNT_X_NRANKS,
	BUF_COUNT_AT_ROOT, /* count on the root, nothing elsewhere */
};

/* One communication call, checked as NCCL would, then queued. */
struct call {
	const char *name;
	ncclComm_t comm;
	cudaStream_t stream;
	size_t count;
	ncclDataType_t dtype;
	enum sub_kind kind;
	int coll_kind; /* enum dbl_coll_kind, collectives */
	int redop; /* -1 none */
	int root_or_peer; /* -1 none */
	const void *buf[2]; /* send, receive */
	enum buf_need need[2];
};

static ncclResult_t call_check(const struct call *a, const struct ncclComm *c)
{
	size_t es = dtype_size(a->dtype);

	if (es == 0)
		return fail(ncclInvalidArgument, "%s: invalid type %d", a->name,
			    (int)a->dtype);
	if (a->redop != -1 && (a->redop < 0 || a->redop >= ncclNumOps))
		return fail(ncclInvalidArgument, "%s: invalid reduction %d",
			    a->name, a->redop);
	if ((a->kind != SUB_COLL || a->coll_kind == DBL_BROADCAST ||
	     a->coll_kind == DBL_REDUCE) &&
	    (a->root_or_peer < 0 || a->root_or_peer >= c->nranks))
		return fail(ncclInvalidArgument, "%s: invalid root or peer %d",
			    a->name, a->root_or_peer);
	if (a->count > SIZE_MAX / 8 / DBL_MAX_RANKS)
		return fail(ncclInvalidArgument, "%s: count %zu too large",
			    a->name, a->count);
	for (int b = 0; b < 2; b++) {
		uint64_t n = 0;

		switch (a->need[b]) {
		case BUF_NONE:
			break;
		case BUF_COUNT:
			n = a->count;
			break;
		case BUF_COUNT_X_NRANKS:
			n = (uint64_t)a->count * (uint64_t)c->nranks;
			break;
		case BUF_COUNT_AT_ROOT:
			n = c->rank == a->root_or_peer ? a->count : 0;
			break;
		}
		if (!is_device_range(a->buf[b], n * es))
			return fail(
				ncclInvalidArgument,
				"%s: %s buffer %p does not hold %" PRIu64
				" bytes in one cudaMalloc allocation (a test double check)",
				a->name, b ? "receive" : "send", a->buf[b],
				n * es);
	}
	return ncclSuccess;
}

static ncclResult_t call_submit(const struct call *a)
{
	struct ncclComm *c = a->comm;
	cudaStream_t st = stream_get(a->stream);
	struct dbl_sub *s;
	long idx;
	ncclResult_t r;

	read_env();
	trace("%s count %zu dtype %d root/peer %d", a->name, a->count,
	      (int)a->dtype, a->root_or_peer);
	if (!c)
		return fail(ncclInvalidArgument, "%s: NULL communicator",
			    a->name);
	idx = comm_calls++;
	if (env.crash_rank == c->rank && env.crash_at == idx) {
		fprintf(stderr, "replay double: rank %d crashes at call %ld\n",
			c->rank, idx);
		abort();
	}
	if (env.hang_rank == c->rank && env.hang_at == idx)
		hang(a->name);
	/* NCCL's ncclCommEnsureReady: the previous call must have settled. */
	comm_progress(c);
	r = comm_status(c);
	if (r == ncclInProgress)
		return fail(
			ncclInvalidArgument,
			"%s: communicator used before its previous operation returned ncclSuccess",
			a->name);
	if (r != ncclSuccess) {
		if (group_depth > 0 && group_error == ncclSuccess)
			group_error = r;
		return r;
	}
	if (!st)
		return fail(ncclInvalidArgument, "%s: invalid stream", a->name);
	r = call_check(a, c);
	if (r != ncclSuccess)
		return r;
	if (group_ncalls == group_cap) {
		size_t cap = group_cap ? 2 * group_cap : 16;
		struct dbl_call *p;

		if (cap > DBL_MAX_GROUP_CALLS)
			return fail(
				ncclInvalidUsage,
				"test double: more than %d calls in a group",
				DBL_MAX_GROUP_CALLS);
		p = realloc(group_calls, cap * sizeof(*p));
		if (!p)
			return fail(ncclSystemError, "out of memory");
		group_calls = p;
		group_cap = cap;
	}
	group_calls[group_ncalls].stream = st;
	s = &group_calls[group_ncalls++].sub;
	memset(s, 0, sizeof(*s));
	s->comm = c;
	s->kind = a->kind;
	s->peer = a->kind == SUB_COLL ? -1 : a->root_or_peer;
	s->bytes = (uint64_t)a->count * dtype_size(a->dtype);
	s->desc.kind = a->coll_kind;
	s->desc.count = a->count;
	s->desc.dtype = (int32_t)a->dtype;
	s->desc.redop = a->redop;
	s->desc.root = a->kind == SUB_COLL ? a->root_or_peer : -1;
	s->faulted = env.error_rank == c->rank && env.error_at == idx;
	/* Outside a group a call is a group of its own. */
	return group_depth > 0 ? ncclSuccess : group_launch();
}

/* Builds and submits one call; buffers with what each must hold. */
static ncclResult_t submit(const char *name, ncclComm_t comm,
			   cudaStream_t stream, enum sub_kind kind,
			   int coll_kind, size_t count, ncclDataType_t dtype,
			   int redop, int root_or_peer, const void *sendbuff,
			   enum buf_need send_need, const void *recvbuff,
			   enum buf_need recv_need)
{
	const struct call a = {
		.name = name,
		.comm = comm,
		.stream = stream,
		.count = count,
		.dtype = dtype,
		.kind = kind,
		.coll_kind = coll_kind,
		.redop = redop,
		.root_or_peer = root_or_peer,
		.buf = { sendbuff, recvbuff },
		.need = { send_need, recv_need },
	};

	return call_submit(&a);
}

ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
			   ncclDataType_t datatype, ncclRedOp_t op,
			   ncclComm_t comm, cudaStream_t stream)
{
	return submit("ncclAllReduce", comm, stream, SUB_COLL, DBL_ALL_REDUCE,
		      count, datatype, (int)op, -1, sendbuff, BUF_COUNT,
		      recvbuff, BUF_COUNT);
}

ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
			   ncclDataType_t datatype, int root, ncclComm_t comm,
			   cudaStream_t stream)
{
	return submit("ncclBroadcast", comm, stream, SUB_COLL, DBL_BROADCAST,
		      count, datatype, -1, root, sendbuff, BUF_COUNT_AT_ROOT,
		      recvbuff, BUF_COUNT);
}

ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count,
			ncclDataType_t datatype, ncclRedOp_t op, int root,
			ncclComm_t comm, cudaStream_t stream)
{
	return submit("ncclReduce", comm, stream, SUB_COLL, DBL_REDUCE, count,
		      datatype, (int)op, root, sendbuff, BUF_COUNT, recvbuff,
		      BUF_COUNT_AT_ROOT);
}

ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff,
			   size_t sendcount, ncclDataType_t datatype,
			   ncclComm_t comm, cudaStream_t stream)
{
	return submit("ncclAllGather", comm, stream, SUB_COLL, DBL_ALL_GATHER,
		      sendcount, datatype, -1, -1, sendbuff, BUF_COUNT,
		      recvbuff, BUF_COUNT_X_NRANKS);
}

ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff,
			       size_t recvcount, ncclDataType_t datatype,
			       ncclRedOp_t op, ncclComm_t comm,
			       cudaStream_t stream)
{
	return submit("ncclReduceScatter", comm, stream, SUB_COLL,
		      DBL_REDUCE_SCATTER, recvcount, datatype, (int)op, -1,
		      sendbuff, BUF_COUNT_X_NRANKS, recvbuff, BUF_COUNT);
}

ncclResult_t ncclSend(const void *sendbuff, size_t count,
		      ncclDataType_t datatype, int peer, ncclComm_t comm,
		      cudaStream_t stream)
{
	return submit("ncclSend", comm, stream, SUB_SEND, 0, count, datatype,
		      -1, peer, sendbuff, BUF_COUNT, NULL, BUF_NONE);
}

ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype,
		      int peer, ncclComm_t comm, cudaStream_t stream)
{
	return submit("ncclRecv", comm, stream, SUB_RECV, 0, count, datatype,
		      -1, peer, NULL, BUF_NONE, recvbuff, BUF_COUNT);
}
