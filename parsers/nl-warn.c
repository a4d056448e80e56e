/*
 * What an NCCL WARN (or "Last error") text reports: its signal category,
 * type, and the peer, rank or code it names.  One table of rules, tried in
 * order, first match wins; both grammars use it (nccl-record.c for WARN
 * records, c10d-record.c for the NCCL error a c10d exception quotes).
 */
#include "config.h"

#include "nl-ctx.h"

#include "hd-banned.h"

/* What a rule reads with its pattern, capture 1, once it matched. */
enum warn_cap {
	CAP_NONE = 0,
	CAP_PEER, /* the peer as printed ("10.1.0.5<41873>") */
	CAP_PEER_RANK, /* a rank number */
	CAP_CODE, /* an error code */
};

/* At most this many alternative needles per rule. */
#define WARN_ANY 6

struct warn_rule {
	const char *any[WARN_ANY]; /* the text holds one of these */
	bool (*match)(const char *m, size_t n); /* instead of any */
	enum hd_signal_cat cat;
	enum hd_signal_type type;
	enum nl_rx rx; /* with cap */
	enum warn_cap cap;
	/* what else the rule reads; NULL none */
	void (*then)(struct nl_ctx *c, const char *m, size_t n,
		     struct hd_signal *sig, struct nl_proc *p);
	/* advice only (HD_SIGT_ADVISORY): phrases of its own that hold an
	   error word ("cannot open shared object"); one outside them is
	   an error the line also names */
	const char *own[WARN_ANY];
	enum hd_advice advice; /* advice only: what it reports (its code) */
};

static bool is_config_warn(const char *m, size_t n)
{
	return has(m, n, "socketFinalizeAccept") ||
	       has(m, n, "no socket interface found") ||
	       has(m, n, "no interface found") ||
	       has(m, n, "no device found matching") ||
	       has(m, n, "Error : ring") ||
	       has(m, n, "Mismatched NCCL version") ||
	       has(m, n, "NCCL version mismatch") ||
	       /* "Net : Socket creation failed : Address family ..." */
	       has(m, n, "Socket creation failed") ||
	       /* NCCL_SOCKET_IFNAME names an interface with no address */
	       (has(m, n, "ncclSocketInit: connecting to address") &&
		has(m, n, "AF_INET")) ||
	       /* graph/xml.h: a topology XML without a required attribute */
	       (starts(m, n, "Attribute ") && has(m, n, " of node ") &&
		has(m, n, " not found")) ||
	       has(m, n, "cannot be captured in a graph") ||
	       has(m, n, "Invalid config blocking attribute") ||
	       has(m, n, "Invalid config ");
}

/* "NET/OFI Request ... completed with error", "NET/OFI ... cq error" */
static bool is_ofi_completion(const char *m, size_t n)
{
	return has(m, n, "NET/OFI") && (has(m, n, "completed with error") ||
					has(m, n, "Error reading from CQ") ||
					has(m, n, "Unable to read completion"));
}

/*
 * The CUDA driver could not be loaded or used.  NCCL's misc/cudawrap.cc
 * says so when it loads libcuda itself ("Failed to find CUDA library
 * libcuda.so (NCCL_CUDA_PATH='') : <dlerror>", "Failed to load CUDA
 * missing symbol cuInit", "cuDriverGetVersion failed with 34", "CUDA
 * Driver version found is 11020. Minimum requirement is 11030"); a
 * "Cuda failure" says so with the runtime's text for a driver that is
 * missing, too old, a stub or not ready (cudaErrorInitializationError,
 * InsufficientDriver, StubLibrary, NoDevice, SystemNotReady,
 * SystemDriverMismatch, CompatNotSupportedOnDevice).  A kernel's fault
 * (an illegal address) is none of these.
 */
static bool is_cuda_driver(const char *m, size_t n)
{
	static const char *const loads[] = {
		"Failed to find CUDA library",
		"Failed to load CUDA missing symbol",
		"cuDriverGetVersion failed",
		"CUDA Driver version found is",
	};
	static const char *const errors[] = {
		"'initialization error'",
		"driver version is insufficient",
		"CUDA driver is a stub library",
		"no CUDA-capable device",
		"system not yet initialized",
		"unsupported display driver / cuda driver combination",
		"forward compatibility was attempted on non supported HW",
		"cudaErrorInitializationError",
		"cudaErrorInsufficientDriver",
		"cudaErrorStubLibrary",
		"cudaErrorNoDevice",
		"cudaErrorSystemNotReady",
		"cudaErrorSystemDriverMismatch",
		"cudaErrorCompatNotSupportedOnDevice",
	};

	for (size_t i = 0; i < G_N_ELEMENTS(loads); i++)
		if (has(m, n, loads[i]))
			return true;
	if (!has(m, n, "Cuda failure") && !has(m, n, "CUDA error") &&
	    !has(m, n, "cudaError"))
		return false;
	for (size_t i = 0; i < G_N_ELEMENTS(errors); i++)
		if (has(m, n, errors[i]))
			return true;
	return false;
}

/*
 * "Connect to ADDR failed", and socket connects that gave up: before
 * 2.19 in socketStartConnect, since in socketPollConnect ("poll()
 * failed, ... connect to ADDR", "no POLLOUT events").
 */
static bool is_connect_failure(const char *m, size_t n)
{
	return (has(m, n, "Connect to ") && has(m, n, "failed")) ||
	       has(m, n, "socketStartConnect") ||
	       has(m, n, "socketPollConnect") ||
	       has(m, n, "exceeded error retry count");
}

/* "Got completion from peer P with status=S": peer, status, format. */
static void ib_completion(struct nl_ctx *c, const char *m, size_t n,
			  struct hd_signal *sig, struct nl_proc *p)
{
	int64_t v;

	if (rx(c, RX_IB_COMPL, m, n)) {
		sig->peer = cap_intern(c, m, 1);
		if (cap_int(c, m, 2, &v))
			sig->code = (int32_t)clamp_int(v, 0, INT32_MAX);
	}
	if (has(m, n, "status=IBV_WC_"))
		fmt_min(p, 2028);
	if (has(m, n, "hca mlx5"))
		fmt_min(p, 2022);
}

/*
 * aws-ofi-nccl: "NET/OFI Request 0x.. completed with error. RC: N": the
 * libfabric completion failed, the counterpart of NET/IB's "Got completion
 * ... status=N".  The code is the provider's errno.
 */
static void ofi_completion(struct nl_ctx *c, const char *m, size_t n,
			   struct hd_signal *sig, struct nl_proc *p)
{
	const char *at = find(m, n, "RC: ");
	int64_t v;

	(void)c;
	(void)p;
	if (!at)
		return;
	at += 4;
	if (scan_int(&at, m + n, &v))
		sig->code = (int32_t)clamp_int(v, 0, INT32_MAX);
}

static void config_socket(struct nl_ctx *c, const char *m, size_t n,
			  struct hd_signal *sig, struct nl_proc *p)
{
	(void)c;
	(void)p;
	if (has(m, n, "socket") || has(m, n, "Socket"))
		sig->type = HD_SIGT_SOCKET;
}

static void cuda_oom(struct nl_ctx *c, const char *m, size_t n,
		     struct hd_signal *sig, struct nl_proc *p)
{
	(void)c;
	(void)p;
	if (has(m, n, "out of memory") || has(m, n, "Failed to CUDA"))
		sig->type = HD_SIGT_OOM;
}

/*
 * WARNs that report the environment, not a failure: tried after every
 * error rule, so a WARN that also names an error is that error.  RCCL's
 * kernel command line and NUMA balancing checks, a network plugin that
 * was not found (NCCL then uses its own), and an NVML query the GPU or
 * driver does not support.  Advice stands only while the line names no
 * error outside the advice's own phrases (nl_classify_warn() asks).
 */
static bool is_plugin_absent(const char *m, size_t n)
{
	return has(m, n, "NET/Plugin") &&
	       (has(m, n, "returned") || has(m, n, "No plugin found") ||
		has(m, n, "Could not find") || has(m, n, "Failed to find") ||
		has(m, n, "cannot open shared object"));
}

static bool is_nvml_unsupported(const char *m, size_t n)
{
	return (has(m, n, "nvml") || has(m, n, "NVML")) &&
	       has(m, n, "Not Supported");
}

/*
 * An IB port's event that is no failure (net_ib's async thread): the
 * port came up, its GID table, LID, P_Key or subnet manager changed, a
 * client re-registered, a queue drained.  NCCL 2.2x says "GID table
 * changed" and "Got non-fatal async event: port active(9)"; before,
 * "Got async event : port active" for every event.  A port error, a
 * failed path migration and every fatal event stay network faults.
 */
static bool is_ib_event_benign(const char *m, size_t n)
{
	static const char *const benign[] = {
		"port active",		 "LID change",
		"P_Key change",		 "SM change",
		"client reregistration", "GID table change",
		"send queue drained",	 "SRQ limit reached",
		"last WQE reached",	 "communication established",
		"path migrated",
	};

	if (has(m, n, "fatal event") && !has(m, n, "non-fatal async event"))
		return false;
	if (!has(m, n, "async event") && !has(m, n, "async error event") &&
	    !has(m, n, "GID table changed"))
		return false;
	return any_of(m, n, benign, G_N_ELEMENTS(benign));
}

/* The error words NCCL uses for its results and failures. */
static const char *const error_words[] = {
	"error",     "Error",	  "ERROR",     "fail",	  "Fail",
	"FAIL",	     "abort",	  "Abort",     "timeout", "Timeout",
	"timed out", "unhandled", "Unhandled", "invalid", "Invalid",
	"refused",   "cannot",	  "Cannot",    "unable",  "Unable",
	"could not", "Could not", "corrupt",   "fatal",	  "Fatal",
	"mismatch",  "Mismatch",  "exited",    "died",
};

/* Whether the k bytes at at lie inside an occurrence of one of own. */
static bool inside_own(const char *m, const char *e, const char *at, size_t k,
		       const char *const *own)
{
	for (size_t i = 0; i < WARN_ANY && own[i]; i++) {
		size_t l = strlen(own[i]);
		const char *q;

		if (l < k)
			continue;
		/* the phrase starts at most l - k bytes before the word */
		q = (size_t)(at - m) > l - k ? at - (l - k) : m;
		for (; q <= at && (size_t)(e - q) >= l; q++)
			if (same(q, own[i], l))
				return true;
	}
	return false;
}

/*
 * Whether the text says an error or a failure ("unhandled system error",
 * "... failed", "invalid ...") in a word that is not inside one of own,
 * the phrases of an advice of its own (NULL-ended, or all WARN_ANY set).
 * Every occurrence is asked: advice can say "Could not find" once and
 * an error "Could not connect" later.
 */
static bool names_error(const char *m, size_t n, const char *const *own)
{
	const char *e = m + n;

	for (size_t i = 0; i < G_N_ELEMENTS(error_words); i++) {
		size_t k = strlen(error_words[i]);

		for (const char *at = find(m, n, error_words[i]); at;
		     at = find(at + 1, e - at - 1, error_words[i]))
			if (!inside_own(m, e, at, k, own))
				return true;
	}
	return false;
}

/*
 * A WARN no other rule knows that still says an error or a failure: of
 * no known kind, but never one a clean end makes benign
 * (HD_SIGT_WARN_ERROR).
 */
static bool is_error_words(const char *m, size_t n)
{
	static const char *const none[WARN_ANY];

	return names_error(m, n, none);
}

/*
 * A network transport's own WARN that says an error no rule above knows
 * ("NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument", "NET/IB
 * : Unable to ..."): a fault of the network or its plugin.  NET/Plugin,
 * the loader of plugins, is not one of them.
 */
static bool is_net_error(const char *m, size_t n)
{
	return (has(m, n, "NET/OFI") || has(m, n, "NET/IB") ||
		has(m, n, "NET/Socket") || has(m, n, "NET/GDRDMA")) &&
	       is_error_words(m, n);
}

/*
 * "Proxy Call to rank 7 failed (Connect)": a call to a proxy thread
 * (proxy.cc) failed while the connections were being set up, of the
 * kinds NCCL sends then; the rank named is whose proxy was called, not
 * one shown at fault.
 */
static bool is_proxy_setup_failure(const char *m, size_t n)
{
	return has(m, n, "Proxy Call to rank") &&
	       (has(m, n, "failed (Connect)") || has(m, n, "failed (Setup)") ||
		has(m, n, "failed (Init)") || has(m, n, "failed (SharedInit)"));
}

static const struct warn_rule warn_rules[] = {
	/* CUDA's "driver shutting down" (cudaErrorCudartUnloading): the
	   runtime is unloading because the process exits; never a cause,
	   before the CUDA rule (its own words are no error) */
	{ .any = { "driver shutting down" },
	  .cat = HD_SIG_INFO,
	  .type = HD_SIGT_ADVISORY,
	  .advice = HD_ADVICE_EXIT,
	  .own = { "Cuda failure", "CUDA failure", "CUDA error",
		   "cudaError" } },
	/* NET/IB: the receiver posted another size than was sent */
	{ .any = { "collective mismatch error" },
	  .cat = HD_SIG_MISMATCH,
	  .type = HD_SIGT_SIZE_MISMATCH,
	  .rx = RX_PEER,
	  .cap = CAP_PEER },
	{ .any = { "Got completion" },
	  .cat = HD_SIG_NETWORK,
	  .type = HD_SIGT_IB_COMPLETION,
	  .then = ib_completion },
	/* aws-ofi-nccl's completion error, the same class over libfabric */
	{ .match = is_ofi_completion,
	  .cat = HD_SIG_NETWORK,
	  .type = HD_SIGT_IB_COMPLETION,
	  .then = ofi_completion },
	/* an event of a port that works: a note, tried before the rule
	   after it, which every other async event matches */
	{ .match = is_ib_event_benign,
	  .cat = HD_SIG_INFO,
	  .type = HD_SIGT_ADVISORY,
	  .advice = HD_ADVICE_PORT_EVENT,
	  .own = { "non-fatal", "async error event" } },
	{ .any = { "async fatal event", "Got async event", "async error event",
		   "non-fatal async event", "GID table changed",
		   "encountered a fatal error" },
	  .cat = HD_SIG_NETWORK,
	  .type = HD_SIGT_IB_ASYNC },
	{ .any = { "posted incorrect receive info", "message truncated" },
	  .cat = HD_SIG_MISMATCH,
	  .type = HD_SIGT_SIZE_MISMATCH,
	  .rx = RX_PEER,
	  .cap = CAP_PEER },
	/* 2.4: "... at and around rank N": a hint, not a culprit */
	{ .any = { "Mismatched collective detected" },
	  .cat = HD_SIG_MISMATCH,
	  .type = HD_SIGT_NCCL_COLL_MISMATCH,
	  .rx = RX_HINT_RANK,
	  .cap = CAP_PEER_RANK },
	{ .any = { "Message truncated" },
	  .cat = HD_SIG_INIT,
	  .type = HD_SIGT_BOOTSTRAP },
	{ .any = { "Connection closed by remote peer" },
	  .cat = HD_SIG_CRASH,
	  .type = HD_SIGT_PEER_CLOSED,
	  .rx = RX_REMOTE_PEER,
	  .cap = CAP_PEER },
	/* a fallback to sockets; wrong only if other hosts use IB */
	{ .any = { "Failed to open libibverbs" },
	  .cat = HD_SIG_INFO,
	  .type = HD_SIGT_TRANSPORT },
	{ .any = { "Call to ibv_" }, .cat = HD_SIG_NETWORK },
	{ .any = { "Socket recv failed while polling" },
	  .cat = HD_SIG_CRASH,
	  .type = HD_SIGT_PROXY_DIED },
	/* the port or address this host binds to is not usable */
	{ .any = { "Call to bind failed" },
	  .cat = HD_SIG_INIT,
	  .type = HD_SIGT_SOCKET },
	{ .any = { "Call to recv", "Call to send", "socketProgressOpt",
		   "socket progress error", "Socket recv failed",
		   "Socket send failed" },
	  .cat = HD_SIG_NETWORK,
	  .type = HD_SIGT_SOCKET,
	  .rx = RX_SOCK_PEER,
	  .cap = CAP_PEER },
	{ .match = is_config_warn,
	  .cat = HD_SIG_CONFIG,
	  .then = config_socket },
	{ .match = is_proxy_setup_failure, .cat = HD_SIG_INIT },
	{ .match = is_connect_failure,
	  .cat = HD_SIG_INIT,
	  .type = HD_SIGT_SOCKET,
	  .rx = RX_CONNECT_PEER,
	  .cap = CAP_PEER },
	/* "[Proxy Service N] ... from rank R": R's request failed */
	{ .any = { "Failed to execute operation",
		   "Error encountered progressing operation" },
	  .cat = HD_SIG_NETWORK,
	  .type = HD_SIGT_SOCKET,
	  .rx = RX_FROM_RANK,
	  .cap = CAP_PEER_RANK },
	{ .any = { "mismatch in rank count", "has already checked in" },
	  .cat = HD_SIG_INIT,
	  .type = HD_SIGT_BOOTSTRAP },
	/* before the CUDA errors: a driver-class one names the cause */
	{ .match = is_cuda_driver,
	  .cat = HD_SIG_CUDA,
	  .type = HD_SIGT_CUDA_DRIVER,
	  .rx = RX_CUDA_CODE,
	  .cap = CAP_CODE },
	{ .any = { "Cuda failure", "Failed to CUDA", "CUDA error" },
	  .cat = HD_SIG_CUDA,
	  .type = HD_SIGT_CUDA_ERROR,
	  .rx = RX_CUDA_CODE,
	  .cap = CAP_CODE,
	  .then = cuda_oom },
	{ .any = { "Duplicate GPU detected" },
	  .cat = HD_SIG_INIT,
	  .type = HD_SIGT_DUPLICATE_GPU },
	{ .any = { "shared memory segment", "failed to extend",
		   "posix_fallocate" },
	  .cat = HD_SIG_CONFIG,
	  .type = HD_SIGT_SHM },
	{ .any = { "commReclaim", "in abort state", "was revoked" },
	  .cat = HD_SIG_NCCL_INTERNAL,
	  .type = HD_SIGT_COMM_ABORTED },
	/* last: only a WARN no error rule knows is advice, and only while
	   it names no error but in the advice's own words (the walk asks) */
	{ .any = { "\"iommu=pt\"", "NUMA auto balancing" },
	  .cat = HD_SIG_INFO,
	  .type = HD_SIGT_ADVISORY },
	/* dlerror()'s text and NCCL's words for a plugin it did not find */
	{ .match = is_plugin_absent,
	  .cat = HD_SIG_INFO,
	  .type = HD_SIGT_ADVISORY,
	  .own = { "cannot open shared object", "Could not find",
		   "Failed to find" } },
	/* the failed call is the one NVML does not support */
	{ .match = is_nvml_unsupported,
	  .cat = HD_SIG_INFO,
	  .type = HD_SIGT_ADVISORY,
	  .own = { "failed: Not Supported", "FAILURE Not Supported",
		   "failure: Not Supported" } },
	{ .match = is_net_error, .cat = HD_SIG_NETWORK },
	{ .match = is_error_words,
	  .cat = HD_SIG_NCCL_INTERNAL,
	  .type = HD_SIGT_WARN_ERROR },
};

static bool rule_matches(const struct warn_rule *r, const char *m, size_t n)
{
	if (r->match)
		return r->match(m, n);
	for (size_t i = 0; i < WARN_ANY && r->any[i]; i++)
		if (has(m, n, r->any[i]))
			return true;
	return false;
}

static void rule_capture(struct nl_ctx *c, const struct warn_rule *r,
			 const char *m, size_t n, struct hd_signal *sig)
{
	int64_t v;

	if (r->cap == CAP_NONE || !rx(c, r->rx, m, n))
		return;
	switch (r->cap) {
	case CAP_PEER:
		sig->peer = cap_intern(c, m, 1);
		break;
	case CAP_PEER_RANK:
		if (cap_int(c, m, 1, &v))
			sig->peer_rank = (int32_t)clamp_int(v, 0, INT32_MAX);
		break;
	case CAP_CODE:
		if (cap_int(c, m, 1, &v))
			sig->code = (int32_t)clamp_int(v, 0, INT32_MAX);
		break;
	case CAP_NONE:
		break;
	}
}

void nl_classify_warn(struct nl_ctx *c, const char *m, size_t n,
		      struct hd_signal *sig, struct nl_proc *p)
{
	sig->cat = HD_SIG_NCCL_INTERNAL;
	sig->type = HD_SIGT_OTHER;
	for (size_t i = 0; i < G_N_ELEMENTS(warn_rules); i++) {
		const struct warn_rule *r = &warn_rules[i];

		if (!rule_matches(r, m, n))
			continue;
		/*
		 * Advice with an error on the same line ("... hang!
		 * ncclCommInitRank failed: ...") is not advice: the walk
		 * goes on, and the line is what it is without the advice.
		 */
		if (r->type == HD_SIGT_ADVISORY && names_error(m, n, r->own))
			continue;
		sig->cat = r->cat;
		sig->type = r->type;
		if (r->type == HD_SIGT_ADVISORY)
			sig->code = (int32_t)r->advice;
		rule_capture(c, r, m, n, sig);
		if (r->then)
			r->then(c, m, n, sig, p);
		return;
	}
}
