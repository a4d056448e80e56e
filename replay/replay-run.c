/*
 * The replay runner.  The parent never touches CUDA: it forks one process
 * per rank first, and rank 0 creates the NCCL unique id (the bootstrap root
 * lives in the process that created it, so it must outlive the replay) and
 * sends it up a pipe; the parent hands it to every rank.  Each rank picks
 * device rank % ngpus, creates a non-blocking communicator, issues its ops
 * in order (adjacent coalesced ops in one ncclGroup), and waits for each
 * with a watchdog: completion, an asynchronous error, or the timeout.  It
 * reports per-op status and time, then waits for the parent's word and
 * aborts its communicator, so a blocked kernel never outlives the replay.
 * The parent reaps every child, SIGKILLing those that do not exit within a
 * grace period.
 *
 * The CUDA runtime and NCCL are not linked: the parent opens them before
 * it forks (src/core/hd-dl.h), so that hangdoc starts, and costs no
 * memory for them, where they are missing or unused.  Nothing is called
 * in them before the ranks run.  When they cannot be loaded the replay is
 * not attempted, as when no GPU is visible.
 *
 * Without HAVE_CUDA_NCCL, replay_run() fails with HD_ERROR_UNSUPPORTED.
 */
#include "config.h"

#include "replay-run.h"

#include "hd-const.h"
#include "hd-dl.h"
#include "hd-error.h"

#ifdef HAVE_CUDA_NCCL
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
/*
 * CUDA_CFLAGS adds the CUDA headers with -I, not as system headers; they
 * trip -Wundef and -Wstrict-prototypes, which say nothing about this file.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wundef"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <cuda_runtime_api.h>
#include <nccl.h>
#pragma GCC diagnostic pop
#endif

#include "hd-banned.h"

void replay_result_free(struct replay_result *r)
{
	if (!r)
		return;
	g_ptr_array_unref(r->ranks);
	g_free(r->summary);
	g_free(r);
}

const char *replay_outcome_name(enum replay_outcome o)
{
	switch (o) {
	case REPLAY_COMPLETED:
		return "completed";
	case REPLAY_REPRODUCED:
		return "reproduced";
	case REPLAY_ERROR:
		break;
	}
	return "error";
}

const char *replay_op_status_name(enum replay_op_status s)
{
	switch (s) {
	case REPLAY_OP_OK:
		return "ok";
	case REPLAY_OP_BLOCKED:
		return "blocked";
	case REPLAY_OP_ERROR:
		return "error";
	case REPLAY_OP_NOT_RUN:
		break;
	}
	return "not_run";
}

#ifndef HAVE_CUDA_NCCL

bool replay_run_available(void)
{
	return false;
}

struct replay_result *replay_run(const struct replay_plan *p,
				 const struct replay_options *opt,
				 GError **error)
{
	g_set_error(
		error, HD_ERROR, HD_ERROR_UNSUPPORTED,
		"hangdoc was built without CUDA and NCCL; use --dry-run or --plan-out");
	return NULL;
}

#else /* HAVE_CUDA_NCCL */

G_STATIC_ASSERT(sizeof(ncclUniqueId) <= 256);

/*
 * Where the CUDA runtime and NCCL are found: in the CUDA tree configure
 * found first, then through the loader's search path, by the sonames of
 * the libraries the build found.  The CPU build (tests/replay-double)
 * names its double instead, beside it.
 */
#ifndef HD_REPLAY_CUDART
#define HD_REPLAY_CUDART HD_CUDART_SONAME
#define HD_REPLAY_NCCL	 HD_NCCL_SONAME
#define HD_REPLAY_LIBDIR HD_CUDA_LIBDIR
#endif

/* Every CUDA runtime function the ranks call, through cu below. */
#define CU_FUNCS(X)                  \
	X(cudaGetDeviceCount)        \
	X(cudaSetDevice)             \
	X(cudaMemGetInfo)            \
	X(cudaMalloc)                \
	X(cudaMemset)                \
	X(cudaStreamCreateWithFlags) \
	X(cudaEventCreateWithFlags)  \
	X(cudaEventRecord)           \
	X(cudaEventQuery)

/* Every NCCL function the ranks call, through nc below. */
#define NC_FUNCS(X)               \
	X(ncclGetUniqueId)        \
	X(ncclCommInitRankConfig) \
	X(ncclCommGetAsyncError)  \
	X(ncclCommAbort)          \
	X(ncclGetErrorString)     \
	X(ncclGetLastError)       \
	X(ncclGroupStart)         \
	X(ncclGroupEnd)           \
	X(ncclAllReduce)          \
	X(ncclAllGather)          \
	X(ncclReduceScatter)      \
	X(ncclBroadcast)          \
	X(ncclReduce)             \
	X(ncclSend)               \
	X(ncclRecv)

/* The pointers are declared with the headers' own prototypes (hd-dl.h). */
#define CU_SYM(f) HD_DL_SYM(cu, f)
#define NC_SYM(f) HD_DL_SYM(nc, f)

/* Filled by load_libs() before the first fork. */
static struct {
	CU_FUNCS(HD_DL_POINTER)
} cu;
static struct {
	NC_FUNCS(HD_DL_POINTER)
} nc;

static const struct hd_dl_sym cu_syms[] = { CU_FUNCS(CU_SYM){ NULL, NULL } };
static const struct hd_dl_sym nc_syms[] = { NC_FUNCS(NC_SYM){ NULL, NULL } };

static struct hd_dl libcudart = { .soname = HD_REPLAY_CUDART,
				  .dir = HD_REPLAY_LIBDIR,
				  .syms = cu_syms };
static struct hd_dl libnccl = { .soname = HD_REPLAY_NCCL,
				.dir = HD_REPLAY_LIBDIR,
				.syms = nc_syms };

/*
 * Opens the CUDA runtime, then NCCL (which may need it).  Loading them
 * touches no device, as when they were linked: CUDA starts at a rank's
 * first call, after the fork.
 */
static bool load_libs(GError **error)
{
	g_autoptr(GError) err = NULL;

	if (hd_dl_load(&libcudart, &err) && hd_dl_load(&libnccl, &err))
		return true;
	g_set_error(
		error, HD_ERROR, HD_ERROR_UNSUPPORTED,
		"the CUDA and NCCL libraries could not be loaded (%s); use --dry-run or --plan-out",
		err->message);
	return false;
}

enum msg_type {
	MSG_UID = 1, /* rank 0: the unique id, in text */
	MSG_OP, /* one op's status and time */
	MSG_END, /* the rank is done; status: enum end_kind */
};

enum end_kind {
	END_DONE = 0,
	END_BLOCKED,
	END_ERROR,
	END_SETUP, /* failed before NCCL: no device, memory, buffers */
};

/* Child -> parent; smaller than PIPE_BUF, so each write is atomic. */
struct msg {
	int32_t type;
	int32_t op;
	int32_t status;
	int32_t nccl;
	int32_t device;
	int32_t pad;
	double ms;
	char text[256];
};

/* Parent -> child after every rank ended: abort and exit. */
#define CMD_EXIT  'x'
/*
 * Seconds a child gets to exit after the parent's word.  The CPU test build
 * (tests/replay-double) shortens it to test the SIGKILL path quickly.
 */
#ifndef GRACE_S
#define GRACE_S 10
#endif
#define POLL_US 200

bool replay_run_available(void)
{
	return true;
}

/*
 * Reads (out false) or writes all len bytes at p, through EINTR; false
 * on an error or an end of file before the last byte.
 */
static bool io_full(int fd, char *p, size_t len, bool out)
{
	while (len > 0) {
		ssize_t n = out ? write(fd, p, len) : read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

static bool write_full(int fd, const void *buf, size_t len)
{
	return io_full(fd, hd_unconst(buf), len, true);
}

static bool read_full(int fd, void *buf, size_t len)
{
	return io_full(fd, buf, len, false);
}

/* The child side: one rank. */

struct child {
	const struct replay_plan *plan;
	int rank, nranks, up, down, device;
	double timeout_s;
	ncclComm_t comm;
};

static void send_msg(struct child *c, int type, int op, int status, int nccl,
		     double ms, const char *text)
{
	struct msg m;

	memset(&m, 0, sizeof(m));
	m.type = type;
	m.op = op;
	m.status = status;
	m.nccl = nccl;
	m.device = c->device;
	m.ms = ms;
	if (text)
		g_strlcpy(m.text, text, sizeof(m.text));
	write_full(c->up, &m, sizeof(m));
}

/* Reports the end, waits for the parent's word, aborts, exits. */
G_GNUC_NORETURN static void child_end(struct child *c, int kind, int nccl,
				      const char *text)
{
	char cmd;

	send_msg(c, MSG_END, -1, kind, nccl, -1, text);
	/* Any byte, or EOF (the parent went away), means: abort and exit. */
	while (read(c->down, &cmd, 1) < 0 && errno == EINTR)
		;
	if (c->comm)
		nc.ncclCommAbort(c->comm);
	_exit(kind == END_DONE ? 0 : 1);
}

static double now_s(void)
{
	return (double)g_get_monotonic_time() / 1e6;
}

static ncclDataType_t nccl_dtype(enum hd_dtype t)
{
	switch (t) {
	case HD_DTYPE_INT8:
		return ncclInt8;
	case HD_DTYPE_UINT8:
	case HD_DTYPE_BOOL:
		return ncclUint8;
	case HD_DTYPE_INT32:
		return ncclInt32;
	case HD_DTYPE_UINT32:
		return ncclUint32;
	case HD_DTYPE_INT64:
		return ncclInt64;
	case HD_DTYPE_UINT64:
		return ncclUint64;
	case HD_DTYPE_FLOAT16:
	case HD_DTYPE_INT16: /* NCCL has no int16: same width */
		return ncclFloat16;
	case HD_DTYPE_FLOAT64:
		return ncclFloat64;
	case HD_DTYPE_BFLOAT16:
		return ncclBfloat16;
	case HD_DTYPE_FP8_E4M3:
		return ncclFloat8e4m3;
	case HD_DTYPE_FP8_E5M2:
		return ncclFloat8e5m2;
	case HD_DTYPE_FLOAT32:
	case HD_DTYPE_UNKNOWN:
	case HD_DTYPE_OTHER:
		break;
	}
	return ncclFloat32;
}

static size_t elem_size(enum hd_dtype t)
{
	size_t s = replay_dtype_size(t);

	return s ? s : 4; /* unknown: replayed as float32 */
}

static ncclRedOp_t nccl_redop(enum hd_redop r)
{
	switch (r) {
	case HD_REDOP_PROD:
		return ncclProd;
	case HD_REDOP_MAX:
		return ncclMax;
	case HD_REDOP_MIN:
		return ncclMin;
	case HD_REDOP_AVG:
		return ncclAvg;
	case HD_REDOP_SUM:
	case HD_REDOP_PREMULSUM: /* the scalar is not recorded */
	case HD_REDOP_NONE:
		break;
	}
	return ncclSum;
}

/*
 * Ends a group and returns the first failure, else ncclGroupEnd's result:
 * on a non-blocking communicator the outermost ncclGroupEnd returns
 * ncclInProgress until the launch is done, and the caller must wait for
 * that before recording the completion event (or the event covers none of
 * the group's work) and before the next call (which NCCL refuses).
 */
static ncclResult_t group_end(ncclResult_t r)
{
	ncclResult_t ge = nc.ncclGroupEnd();

	return r != ncclSuccess ? r : ge;
}

static ncclResult_t issue(struct child *c, const struct replay_op *o,
			  cudaStream_t st, char *sb, char *rb)
{
	size_t n = o->count >= 0 ? (size_t)o->count : 1;
	size_t es = elem_size(o->dtype);
	ncclDataType_t t = nccl_dtype(o->dtype);
	ncclRedOp_t op = nccl_redop(o->redop);
	int root = o->peer >= 0 ? o->peer : 0;
	ncclComm_t comm = c->comm;
	ncclResult_t r = ncclSuccess;
	size_t per;

	switch (o->kind) {
	case HD_OP_ALL_REDUCE:
		return nc.ncclAllReduce(sb, rb, n, t, op, comm, st);
	case HD_OP_BARRIER:
		return nc.ncclAllReduce(sb, rb, 1, ncclFloat32, ncclSum, comm,
					st);
	case HD_OP_ALL_GATHER:
		return nc.ncclAllGather(sb, rb, n, t, comm, st);
	case HD_OP_REDUCE_SCATTER:
		return nc.ncclReduceScatter(sb, rb, n, t, op, comm, st);
	case HD_OP_BROADCAST:
		return nc.ncclBroadcast(sb, rb, n, t, root, comm, st);
	case HD_OP_REDUCE:
		return nc.ncclReduce(sb, rb, n, t, op, root, comm, st);
	case HD_OP_SEND:
		return nc.ncclSend(sb, n, t, o->peer, comm, st);
	case HD_OP_RECV:
		return nc.ncclRecv(rb, n, t, o->peer, comm, st);
	case HD_OP_ALL_TO_ALL:
		per = n / (size_t)c->nranks;
		nc.ncclGroupStart();
		for (int q = 0; q < c->nranks && r == ncclSuccess; q++) {
			r = nc.ncclSend(sb + (size_t)q * per * es, per, t, q,
					comm, st);
			if (r == ncclSuccess)
				r = nc.ncclRecv(rb + (size_t)q * per * es, per,
						t, q, comm, st);
		}
		return group_end(r);
	case HD_OP_GATHER:
		nc.ncclGroupStart();
		r = nc.ncclSend(sb, n, t, root, comm, st);
		for (int q = 0;
		     c->rank == root && q < c->nranks && r == ncclSuccess; q++)
			r = nc.ncclRecv(rb + (size_t)q * n * es, n, t, q, comm,
					st);
		return group_end(r);
	case HD_OP_SCATTER:
		nc.ncclGroupStart();
		for (int q = 0;
		     c->rank == root && q < c->nranks && r == ncclSuccess; q++)
			r = nc.ncclSend(sb + (size_t)q * n * es, n, t, q, comm,
					st);
		if (r == ncclSuccess)
			r = nc.ncclRecv(rb, n, t, root, comm, st);
		return group_end(r);
	default:
		return ncclInvalidUsage;
	}
}

/* Polls the communicator until it leaves ncclInProgress or time runs out. */
static ncclResult_t settle(struct child *c, double deadline, bool *timed_out)
{
	ncclResult_t ae = ncclInProgress;

	*timed_out = false;
	for (;;) {
		if (nc.ncclCommGetAsyncError(c->comm, &ae) != ncclSuccess)
			return ncclInternalError;
		if (ae != ncclInProgress)
			return ae;
		if (now_s() > deadline) {
			*timed_out = true;
			return ncclInProgress;
		}
		g_usleep(POLL_US);
	}
}

/*
 * Picks this rank's device (rank % GPUs).  With more ranks than GPUs,
 * NCCL is told each process is its own host and talks over loopback
 * sockets, so ranks can share a device.  Returns the GPU count.
 */
static int child_pick_device(struct child *c)
{
	char text[64];
	int ngpus = 0;

	if (cu.cudaGetDeviceCount(&ngpus) != cudaSuccess || ngpus < 1)
		child_end(c, END_SETUP, 0, "no CUDA device visible");
	if (c->nranks > ngpus) {
		g_snprintf(text, sizeof(text), "hangdoc-replay-%d", c->rank);
		setenv("NCCL_HOSTID", text, 1);
		setenv("NCCL_P2P_DISABLE", "1", 1);
		setenv("NCCL_SHM_DISABLE", "1", 1);
		setenv("NCCL_IB_DISABLE", "1", 1);
		setenv("NCCL_SOCKET_IFNAME", "lo", 1);
	}
	c->device = c->rank % ngpus;
	if (cu.cudaSetDevice(c->device) != cudaSuccess)
		child_end(c, END_SETUP, 0, "cudaSetDevice failed");
	return ngpus;
}

/* The largest send and receive buffers any of rr's ops needs, in bytes. */
static void child_buffer_sizes(const struct child *c,
			       const struct replay_rank *rr, int64_t *max_send,
			       int64_t *max_recv)
{
	*max_send = *max_recv = 1;
	for (guint i = 0; i < rr->ops->len; i++) {
		const struct replay_op *o =
			&g_array_index(rr->ops, struct replay_op, i);
		int64_t s, r;

		replay_op_elems(o, c->nranks, &s, &r);
		s *= (int64_t)elem_size(o->dtype);
		r *= (int64_t)elem_size(o->dtype);
		/* issue() replays a barrier as one float32, whatever it was. */
		if (o->kind == HD_OP_BARRIER)
			s = r = (int64_t)sizeof(float);
		*max_send = MAX(*max_send, s);
		*max_recv = MAX(*max_recv, r);
	}
}

/* Every rank sharing this device needs about as much: refuse if short. */
static void child_check_memory(struct child *c, int ngpus, int64_t need)
{
	size_t free_b = 0, total_b = 0;
	char text[160];

	if (cu.cudaMemGetInfo(&free_b, &total_b) == cudaSuccess &&
	    (double)need * ((c->nranks + ngpus - 1) / ngpus) <=
		    (double)free_b * 0.9)
		return;
	g_snprintf(text, sizeof(text),
		   "not enough free memory on device %d: %" G_GINT64_FORMAT
		   " bytes per rank, %zu free",
		   c->device, need, free_b);
	/* Not an outcome: the replay could not be attempted. */
	child_end(c, END_SETUP, 0, text);
}

/* Rank 0 makes the unique id and sends it up; every rank reads it back. */
static void child_share_id(struct child *c, ncclUniqueId *id)
{
	ncclResult_t nr;

	if (c->rank == 0) {
		nr = nc.ncclGetUniqueId(id);
		if (nr != ncclSuccess)
			child_end(c, END_ERROR, nr, nc.ncclGetErrorString(nr));
		send_msg(c, MSG_UID, -1, 0, 0, -1, NULL);
		/* The id rides in a second write of exactly its size. */
		write_full(c->up, id, sizeof(*id));
	}
	if (!read_full(c->down, id, sizeof(*id)))
		child_end(c, END_ERROR, 0, "no NCCL unique id from rank 0");
}

/* A non-blocking communicator, waited for within the timeout. */
static void child_init_comm(struct child *c, ncclUniqueId id)
{
	ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
	ncclResult_t nr;
	bool timed_out;

	config.blocking = 0;
	nr = nc.ncclCommInitRankConfig(&c->comm, c->nranks, id, c->rank,
				       &config);
	if (nr != ncclSuccess && nr != ncclInProgress)
		child_end(c, END_ERROR, nr, nc.ncclGetErrorString(nr));
	nr = settle(c, now_s() + c->timeout_s, &timed_out);
	if (timed_out)
		child_end(c, END_ERROR, ncclInProgress,
			  "communicator setup timed out");
	if (nr != ncclSuccess)
		child_end(c, END_ERROR, nr, nc.ncclGetLastError(c->comm));
}

/*
 * Waits for the work recorded by done: completion, an asynchronous
 * error, or the deadline (*status becomes REPLAY_OP_BLOCKED).
 */
static ncclResult_t child_wait(struct child *c, cudaEvent_t done,
			       double deadline, int *status)
{
	for (;;) {
		ncclResult_t ae = ncclSuccess;
		cudaError_t ce = cu.cudaEventQuery(done);

		if (ce == cudaSuccess)
			return ncclSuccess;
		if (ce != cudaErrorNotReady)
			return ncclUnhandledCudaError;
		nc.ncclCommGetAsyncError(c->comm, &ae);
		if (ae != ncclSuccess && ae != ncclInProgress)
			return ae;
		if (now_s() > deadline) {
			*status = REPLAY_OP_BLOCKED;
			return ncclSuccess;
		}
		g_usleep(POLL_US);
	}
}

/*
 * Issues rr's ops from i (adjacent ops of one coalesced batch in one
 * group), waits for them and reports each; a blocked or failed batch
 * ends the process.  Returns the index after the batch.
 */
static guint child_run_batch(struct child *c, const struct replay_rank *rr,
			     guint i, cudaStream_t st, cudaEvent_t done,
			     char *sb, char *rb)
{
	const struct replay_op *o =
		&g_array_index(rr->ops, struct replay_op, i);
	guint end = i + 1;
	double t0 = now_s(), deadline = t0 + c->timeout_s;
	int status = REPLAY_OP_OK;
	bool timed_out;
	ncclResult_t nr = ncclSuccess;
	char text[256];

	while (o->coalesce >= 0 && end < rr->ops->len &&
	       g_array_index(rr->ops, struct replay_op, end).coalesce ==
		       o->coalesce)
		end++;
	if (end - i > 1)
		nc.ncclGroupStart();
	for (guint k = i; k < end && nr == ncclSuccess; k++)
		nr = issue(c, &g_array_index(rr->ops, struct replay_op, k), st,
			   sb, rb);
	if (end - i > 1)
		nr = group_end(nr);
	if (nr == ncclInProgress)
		nr = settle(c, deadline, &timed_out);
	if (nr == ncclSuccess && cu.cudaEventRecord(done, st) != cudaSuccess)
		nr = ncclUnhandledCudaError;
	if (nr == ncclSuccess)
		nr = child_wait(c, done, deadline, &status);
	if (nr == ncclInProgress)
		status = REPLAY_OP_BLOCKED;
	else if (nr != ncclSuccess)
		status = REPLAY_OP_ERROR;
	for (guint k = i; k < end; k++)
		send_msg(c, MSG_OP, (int)k, status, nr, (now_s() - t0) * 1000.0,
			 NULL);
	if (status == REPLAY_OP_BLOCKED)
		child_end(c, END_BLOCKED, 0, NULL);
	if (status == REPLAY_OP_ERROR) {
		const char *le = nc.ncclGetLastError(c->comm);

		g_snprintf(text, sizeof(text), "%s%s%s",
			   nc.ncclGetErrorString(nr), le && *le ? ": " : "",
			   le ? le : "");
		child_end(c, END_ERROR, nr, text);
	}
	return end;
}

G_GNUC_NORETURN static void child_main(struct child *c)
{
	const struct replay_rank *rr =
		g_ptr_array_index(c->plan->ranks, c->rank);
	ncclUniqueId id;
	int64_t max_send, max_recv;
	char *sb = NULL, *rb = NULL;
	cudaStream_t st;
	cudaEvent_t done;
	int ngpus = child_pick_device(c);

	child_buffer_sizes(c, rr, &max_send, &max_recv);
	child_check_memory(c, ngpus, max_send + max_recv);
	child_share_id(c, &id);
	if (cu.cudaMalloc((void **)&sb, (size_t)max_send) != cudaSuccess ||
	    cu.cudaMalloc((void **)&rb, (size_t)max_recv) != cudaSuccess ||
	    cu.cudaMemset(sb, 0, (size_t)max_send) != cudaSuccess ||
	    cu.cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) !=
		    cudaSuccess ||
	    cu.cudaEventCreateWithFlags(&done, cudaEventDisableTiming) !=
		    cudaSuccess)
		child_end(c, END_SETUP, 0, "cannot allocate device buffers");
	child_init_comm(c, id);
	for (guint i = 0; i < rr->ops->len;)
		i = child_run_batch(c, rr, i, st, done, sb, rb);
	child_end(c, END_DONE, 0, NULL);
}

/* The parent side. */

struct slot {
	pid_t pid;
	int up, down; /* parent's ends, -1 closed */
	struct msg buf;
	size_t have;
	bool want_uid; /* rank 0 announced its id; the next bytes are it */
	bool ended;
};

static void rank_result_free(gpointer p)
{
	struct replay_rank_result *r = p;

	if (!r)
		return;
	g_array_unref(r->ops);
	g_free(r->error);
	g_free(r);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void on_msg(struct replay_result *res, struct slot *slots, int n,
		   int rank, const struct msg *m)
{
	struct replay_rank_result *rr = g_ptr_array_index(res->ranks, rank);
	char text[sizeof(m->text) + 1];

	memcpy(text, m->text, sizeof(m->text));
	text[sizeof(m->text)] = '\0';
	if (m->device >= 0)
		rr->device = m->device;
	switch (m->type) {
	case MSG_UID:
		if (rank == 0)
			slots[0].want_uid = true;
		break;
	case MSG_OP:
		if (m->op >= 0 && (guint)m->op < rr->ops->len) {
			struct replay_op_result *o = &g_array_index(
				rr->ops, struct replay_op_result, m->op);

			o->status = m->status;
			o->ms = m->ms;
			if (m->status == REPLAY_OP_BLOCKED &&
			    rr->blocked_op < 0)
				rr->blocked_op = m->op;
		}
		break;
	case MSG_END:
		rr->reported = true;
		slots[rank].ended = true;
		if (m->status == END_ERROR || m->status == END_SETUP) {
			rr->nccl_result = m->nccl ? m->nccl : -1;
			rr->error = g_strdup(text);
			rr->setup_failed = m->status == END_SETUP;
		}
		break;
	default:
		break;
	}
}

/* Reads what is there from one child; false at EOF. */
static bool pump(struct replay_result *res, struct slot *slots, int n, int r,
		 ncclUniqueId *id, size_t *id_have)
{
	struct slot *s = &slots[r];
	ssize_t got;

	if (s->want_uid) {
		got = read(s->up, (char *)id + *id_have,
			   sizeof(*id) - *id_have);
		if (got <= 0)
			return got < 0 && errno == EINTR;
		*id_have += (size_t)got;
		if (*id_have == sizeof(*id)) {
			s->want_uid = false;
			for (int q = 0; q < n; q++)
				if (slots[q].down >= 0 &&
				    !write_full(slots[q].down, id, sizeof(*id)))
					close_fd(&slots[q].down);
		}
		return true;
	}
	got = read(s->up, (char *)&s->buf + s->have, sizeof(s->buf) - s->have);
	if (got <= 0)
		return got < 0 && errno == EINTR;
	s->have += (size_t)got;
	if (s->have == sizeof(s->buf)) {
		s->have = 0;
		on_msg(res, slots, n, r, &s->buf);
	}
	return true;
}

static void summarize(struct replay_result *res, const struct replay_plan *p)
{
	GString *sum = g_string_new(NULL);
	bool error = false, blocked = false;

	for (guint r = 0; r < res->ranks->len; r++) {
		const struct replay_rank_result *rr =
			g_ptr_array_index(res->ranks, r);

		error |= rr->error != NULL;
		blocked |= rr->blocked_op >= 0;
	}
	if (error) {
		res->outcome = REPLAY_ERROR;
		g_string_append(sum, "error:");
		for (guint r = 0; r < res->ranks->len; r++) {
			const struct replay_rank_result *rr =
				g_ptr_array_index(res->ranks, r);

			if (rr->error)
				g_string_append_printf(
					sum, " rank %u: %s (ncclResult %d);", r,
					rr->error, rr->nccl_result);
		}
		g_string_truncate(sum, sum->len - 1);
	} else if (blocked) {
		res->outcome = REPLAY_REPRODUCED;
		g_string_append(sum, "reproduced:");
		for (guint r = 0; r < res->ranks->len; r++) {
			const struct replay_rank_result *rr =
				g_ptr_array_index(res->ranks, r);
			const struct replay_rank *pr =
				g_ptr_array_index(p->ranks, r);
			const struct replay_op *o;

			if (rr->blocked_op < 0)
				continue;
			o = &g_array_index(pr->ops, struct replay_op,
					   rr->blocked_op);
			g_string_append_printf(
				sum, " rank %u blocked in op %d (%s", r,
				rr->blocked_op, hd_op_kind_name(o->kind));
			if (o->seq >= 0)
				g_string_append_printf(
					sum, " seq %" G_GINT64_FORMAT, o->seq);
			g_string_append(sum, ");");
		}
		g_string_truncate(sum, sum->len - 1);
	} else {
		res->outcome = REPLAY_COMPLETED;
		g_string_append(
			sum,
			"completed: every rank finished every op, not reproduced");
	}
	res->summary = g_string_free(sum, FALSE);
}

/* Refuses ops no NCCL call replays; *max_ops gets the longest window. */
static bool check_ops(const struct replay_plan *p, guint *max_ops,
		      GError **error)
{
	*max_ops = 0;
	for (guint r = 0; r < p->ranks->len; r++) {
		const struct replay_rank *pr = g_ptr_array_index(p->ranks, r);

		*max_ops = MAX(*max_ops, pr->ops->len);
		for (guint i = 0; i < pr->ops->len; i++) {
			enum hd_op_kind k =
				g_array_index(pr->ops, struct replay_op, i)
					.kind;

			if (k == HD_OP_UNKNOWN || k == HD_OP_COALESCED) {
				g_set_error(
					error, HD_ERROR, HD_ERROR_UNSUPPORTED,
					"rank %u op %u: a %s op cannot be replayed",
					r, i, hd_op_kind_name(k));
				return false;
			}
		}
	}
	return true;
}

/* A result with one row per rank and one per op, nothing known yet. */
static struct replay_result *result_new(const struct replay_plan *p)
{
	struct replay_result *res = g_new0(struct replay_result, 1);

	res->ranks = g_ptr_array_new_with_free_func(rank_result_free);
	for (guint r = 0; r < p->ranks->len; r++) {
		const struct replay_rank *pr = g_ptr_array_index(p->ranks, r);
		struct replay_rank_result *rr =
			g_new0(struct replay_rank_result, 1);

		rr->rank = (int)r;
		rr->device = -1;
		rr->blocked_op = -1;
		rr->ops = g_array_new(FALSE, TRUE,
				      sizeof(struct replay_op_result));
		g_array_set_size(rr->ops, pr->ops->len);
		for (guint i = 0; i < pr->ops->len; i++)
			g_array_index(rr->ops, struct replay_op_result, i).ms =
				-1;
		g_ptr_array_add(res->ranks, rr);
	}
	return res;
}

/* Kills and reaps every child still running and closes their pipes. */
static void kill_all(struct slot *slots, int n)
{
	for (int r = 0; r < n; r++) {
		if (slots[r].pid > 0) {
			kill(slots[r].pid, SIGKILL);
			waitpid(slots[r].pid, NULL, 0);
			slots[r].pid = -1;
		}
		close_fd(&slots[r].up);
		close_fd(&slots[r].down);
	}
}

/* Forks one process per rank, each with a pipe up and one down. */
static bool spawn_ranks(const struct replay_plan *p, struct slot *slots, int n,
			double timeout, GError **error)
{
	for (int r = 0; r < n; r++) {
		slots[r].pid = -1;
		slots[r].up = slots[r].down = -1;
	}
	for (int r = 0; r < n; r++) {
		int up[2], down[2];

		if (pipe(up) < 0) {
			g_set_error(error, HD_ERROR, HD_ERROR_IO, "pipe: %s",
				    g_strerror(errno));
			return false;
		}
		if (pipe(down) < 0) {
			g_set_error(error, HD_ERROR, HD_ERROR_IO, "pipe: %s",
				    g_strerror(errno));
			close(up[0]);
			close(up[1]);
			return false;
		}
		slots[r].pid = fork();
		if (slots[r].pid == 0) {
			struct child c = { .plan = p,
					   .rank = r,
					   .nranks = n,
					   .up = up[1],
					   .down = down[0],
					   .device = -1,
					   .timeout_s = timeout };

			close(up[0]);
			close(down[1]);
			for (int q = 0; q < r; q++) {
				close_fd(&slots[q].up);
				close_fd(&slots[q].down);
			}
			child_main(&c);
		}
		close(up[1]);
		close(down[0]);
		if (slots[r].pid < 0) {
			g_set_error(error, HD_ERROR, HD_ERROR_IO, "fork: %s",
				    g_strerror(errno));
			close(up[0]);
			close(down[1]);
			return false;
		}
		slots[r].up = up[0];
		slots[r].down = down[1];
	}
	return true;
}

/*
 * Reads the ranks' reports until every rank ended or the deadline: setup,
 * every op and the reports are all bounded by it.
 */
static void collect_reports(struct replay_result *res, struct slot *slots,
			    int n, double deadline)
{
	g_autofree struct pollfd *fds = g_new0(struct pollfd, (guint)n);
	ncclUniqueId id;
	size_t id_have = 0;
	int ended = 0;

	while (ended < n && now_s() < deadline) {
		int ready;

		for (int r = 0; r < n; r++) {
			fds[r].fd = slots[r].up;
			fds[r].events = POLLIN;
			fds[r].revents = 0;
		}
		ready = poll(fds, (nfds_t)n, 100);
		if (ready < 0 && errno != EINTR)
			break;
		for (int r = 0; r < n && ready > 0; r++) {
			if (!(fds[r].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (pump(res, slots, n, r, &id, &id_have))
				continue;
			/* EOF: the child is gone, reported or not. */
			close_fd(&slots[r].up);
			if (!slots[r].ended) {
				struct replay_rank_result *rr =
					g_ptr_array_index(res->ranks, r);

				slots[r].ended = true;
				rr->nccl_result = -1;
				rr->error = g_strdup(
					"rank process exited without reporting");
			}
		}
		ended = 0;
		for (int r = 0; r < n; r++)
			ended += slots[r].ended;
		/* Without rank 0's id nobody can start: release everyone. */
		if (slots[0].ended && id_have < sizeof(id))
			for (int r = 0; r < n; r++)
				close_fd(&slots[r].down);
	}
}

/* Tells every rank to exit, then reaps them within the grace period. */
static void release_and_reap(struct replay_result *res, struct slot *slots,
			     int n)
{
	double deadline;
	int reaped = 0;

	for (int r = 0; r < n; r++) {
		char cmd = CMD_EXIT;

		if (slots[r].down >= 0)
			write_full(slots[r].down, &cmd, 1);
		close_fd(&slots[r].down);
	}
	deadline = now_s() + GRACE_S;
	while (reaped < n && now_s() < deadline) {
		reaped = 0;
		for (int r = 0; r < n; r++) {
			struct replay_rank_result *rr =
				g_ptr_array_index(res->ranks, r);

			if (slots[r].pid > 0 &&
			    waitpid(slots[r].pid, &rr->exit_status, WNOHANG) ==
				    slots[r].pid)
				slots[r].pid = -1;
			reaped += slots[r].pid <= 0;
		}
		if (reaped < n)
			g_usleep(10000);
	}
	for (int r = 0; r < n; r++) {
		struct replay_rank_result *rr =
			g_ptr_array_index(res->ranks, r);

		if (!slots[r].ended) {
			rr->nccl_result = -1;
			rr->error = g_strdup(
				"rank did not report before the deadline");
		}
	}
}

/* Nothing was replayed when a rank could not even set up. */
static bool setup_failed(const struct replay_result *res, GError **error)
{
	for (guint r = 0; r < res->ranks->len; r++) {
		const struct replay_rank_result *rr =
			g_ptr_array_index(res->ranks, r);

		if (rr->setup_failed) {
			g_set_error(error, HD_ERROR, HD_ERROR_UNSUPPORTED,
				    "rank %u: %s", r, rr->error);
			return true;
		}
	}
	return false;
}

struct replay_result *replay_run(const struct replay_plan *p,
				 const struct replay_options *opt,
				 GError **error)
{
	int n = (int)p->ranks->len;
	g_autofree struct slot *slots = NULL;
	g_autoptr(replay_result) res = NULL;
	double timeout = opt && opt->timeout_s > 0 ? opt->timeout_s : 30;
	guint max_ops;
	struct sigaction ign = { 0 }, old_pipe;
	bool ok;

	if (!replay_plan_validate(p, error) || !check_ops(p, &max_ops, error) ||
	    !load_libs(error))
		return NULL;
	res = result_new(p);
	/* A child that dies must not kill the parent through SIGPIPE. */
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &old_pipe);
	fflush(NULL);
	slots = g_new0(struct slot, p->ranks->len);
	ok = spawn_ranks(p, slots, n, timeout, error);
	if (ok) {
		collect_reports(res, slots, n,
				now_s() + timeout * (max_ops + 2) + GRACE_S);
		release_and_reap(res, slots, n);
		ok = !setup_failed(res, error);
	}
	kill_all(slots, n);
	sigaction(SIGPIPE, &old_pipe, NULL);
	if (!ok)
		return NULL;
	summarize(res, p);
	res->ranks_share_gpus = false;
	for (int r = 0; r < n; r++) {
		const struct replay_rank_result *rr =
			g_ptr_array_index(res->ranks, r);

		if (rr->device >= 0 && rr->device != r)
			res->ranks_share_gpus = true;
	}
	return g_steal_pointer(&res);
}

#endif /* HAVE_CUDA_NCCL */
