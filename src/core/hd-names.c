/*
 * The names of the store's enums (hd-store.h), as reports and the JSON
 * schema spell them, and the parsing of the names sources use for op
 * kinds and dtypes.
 */
#include "config.h"

#include "hd-store.h"

#include <stdarg.h>
#include <string.h>

#include "hd-banned.h"

static const char *const op_kind_names[HD_OP_KIND_COUNT] = {
	[HD_OP_UNKNOWN] = "unknown",
	[HD_OP_ALL_REDUCE] = "all_reduce",
	[HD_OP_ALL_GATHER] = "all_gather",
	[HD_OP_REDUCE_SCATTER] = "reduce_scatter",
	[HD_OP_BROADCAST] = "broadcast",
	[HD_OP_REDUCE] = "reduce",
	[HD_OP_ALL_TO_ALL] = "all_to_all",
	[HD_OP_GATHER] = "gather",
	[HD_OP_SCATTER] = "scatter",
	[HD_OP_SEND] = "send",
	[HD_OP_RECV] = "recv",
	[HD_OP_BARRIER] = "barrier",
	[HD_OP_COALESCED] = "coalesced",
};

const char *hd_op_kind_name(enum hd_op_kind k)
{
	if ((unsigned)k >= HD_OP_KIND_COUNT)
		return "unknown";
	return op_kind_names[k];
}

const char *hd_op_state_name(enum hd_op_state st)
{
	switch (st) {
	case HD_STATE_ENQUEUED:
		return "enqueued";
	case HD_STATE_STARTED:
		return "started";
	case HD_STATE_COMPLETED:
		return "completed";
	case HD_STATE_UNKNOWN:
		break;
	}
	return "unknown";
}

static const char *const dtype_names[] = {
	[HD_DTYPE_UNKNOWN] = "unknown",
	[HD_DTYPE_INT8] = "int8",
	[HD_DTYPE_UINT8] = "uint8",
	[HD_DTYPE_INT32] = "int32",
	[HD_DTYPE_UINT32] = "uint32",
	[HD_DTYPE_INT64] = "int64",
	[HD_DTYPE_UINT64] = "uint64",
	[HD_DTYPE_FLOAT16] = "float16",
	[HD_DTYPE_FLOAT32] = "float32",
	[HD_DTYPE_FLOAT64] = "float64",
	[HD_DTYPE_BFLOAT16] = "bfloat16",
	[HD_DTYPE_FP8_E4M3] = "float8_e4m3",
	[HD_DTYPE_FP8_E5M2] = "float8_e5m2",
	[HD_DTYPE_BOOL] = "bool",
	[HD_DTYPE_INT16] = "int16",
	[HD_DTYPE_OTHER] = "other",
};

const char *hd_dtype_name(enum hd_dtype t)
{
	if ((unsigned)t >= G_N_ELEMENTS(dtype_names))
		return "unknown";
	return dtype_names[t];
}

const char *hd_redop_name(enum hd_redop r)
{
	switch (r) {
	case HD_REDOP_SUM:
		return "sum";
	case HD_REDOP_PROD:
		return "prod";
	case HD_REDOP_MAX:
		return "max";
	case HD_REDOP_MIN:
		return "min";
	case HD_REDOP_AVG:
		return "avg";
	case HD_REDOP_PREMULSUM:
		return "premulsum";
	case HD_REDOP_NONE:
		break;
	}
	return "none";
}

const char *hd_signal_cat_name(enum hd_signal_cat c)
{
	static const char *const names[HD_SIG_CAT_COUNT] = {
		[HD_SIG_NETWORK] = "network",
		[HD_SIG_CUDA] = "cuda",
		[HD_SIG_NCCL_INTERNAL] = "nccl_internal",
		[HD_SIG_TIMEOUT] = "timeout",
		[HD_SIG_CRASH] = "crash",
		[HD_SIG_INIT] = "init",
		[HD_SIG_CONFIG] = "config",
		[HD_SIG_MISMATCH] = "mismatch",
		[HD_SIG_PROGRESS] = "progress",
		[HD_SIG_INFO] = "info",
	};

	if ((unsigned)c >= HD_SIG_CAT_COUNT)
		return "unknown";
	return names[c];
}

static const struct {
	const char *name, *words;
	unsigned flags;
} input_kinds[] = {
#define HD_INPUT_KIND_ROW(id, name, words, flags) \
	[HD_INPUT_##id] = { name, words, flags },
	HD_INPUT_KINDS(HD_INPUT_KIND_ROW)
#undef HD_INPUT_KIND_ROW
};

const char *hd_input_kind_name(enum hd_input_kind k)
{
	if ((unsigned)k >= HD_INPUT_KIND_COUNT)
		k = HD_INPUT_UNKNOWN;
	return input_kinds[k].name;
}

const char *hd_input_kind_words(enum hd_input_kind k)
{
	if ((unsigned)k >= HD_INPUT_KIND_COUNT)
		k = HD_INPUT_UNKNOWN;
	return input_kinds[k].words;
}

char *hd_input_kinds_text(void)
{
	GString *t = g_string_new(NULL);

	/* UNKNOWN (0) is no kind an input is read as */
	for (int k = 1; k < HD_INPUT_KIND_COUNT; k++)
		g_string_append_printf(t, "%s%s",
				       k == 1			      ? ""
				       : k + 1 == HD_INPUT_KIND_COUNT ? " and "
								      : ", ",
				       input_kinds[k].words);
	return g_string_free(t, FALSE);
}

unsigned hd_input_kind_flags(enum hd_input_kind k)
{
	return (unsigned)k < HD_INPUT_KIND_COUNT ? input_kinds[k].flags
						 : HD_KIND_NONE;
}

const char *hd_signal_type_name(enum hd_signal_type t)
{
	static const char *const names[] = {
#define HD_SIGNAL_TYPE_ROW(id, name) [HD_SIGT_##id] = name,
		HD_SIGNAL_TYPES(HD_SIGNAL_TYPE_ROW)
#undef HD_SIGNAL_TYPE_ROW
	};

	return (unsigned)t < HD_SIGT_COUNT ? names[t] : "other";
}

/* Lowercases s without '_', so "all_reduce", "AllReduce", "ALLREDUCE" meet. */
static void squash(const char *s, char *out, size_t size)
{
	size_t n = 0;

	for (; *s && n + 1 < size; s++) {
		if (*s == '_' || *s == ' ' || *s == '-')
			continue;
		out[n++] = g_ascii_tolower(*s);
	}
	out[n] = '\0';
}

const char *hd_op_display_name(const char *s)
{
	enum hd_op_kind k = s ? hd_op_kind_parse(s) : HD_OP_UNKNOWN;

	return k == HD_OP_UNKNOWN ? s : hd_op_kind_name(k);
}

enum hd_op_kind hd_op_kind_parse(const char *s)
{
	static const struct {
		const char *name;
		enum hd_op_kind kind;
	} table[] = {
		{ "allreduce", HD_OP_ALL_REDUCE },
		{ "allreducecoalesced", HD_OP_ALL_REDUCE },
		{ "allreducesparse", HD_OP_ALL_REDUCE },
		{ "allgather", HD_OP_ALL_GATHER },
		{ "allgatherbase", HD_OP_ALL_GATHER },
		{ "allgathercoalesced", HD_OP_ALL_GATHER },
		{ "allgatherintotensorcoalesced", HD_OP_ALL_GATHER },
		{ "allgatherintotensor", HD_OP_ALL_GATHER },
		{ "reducescatter", HD_OP_REDUCE_SCATTER },
		{ "reducescatterbase", HD_OP_REDUCE_SCATTER },
		{ "reducescattertensor", HD_OP_REDUCE_SCATTER },
		{ "reducescattertensorcoalesced", HD_OP_REDUCE_SCATTER },
		{ "broadcast", HD_OP_BROADCAST },
		{ "broadcastoop", HD_OP_BROADCAST },
		{ "reduce", HD_OP_REDUCE },
		{ "reduceoop", HD_OP_REDUCE },
		{ "alltoall", HD_OP_ALL_TO_ALL },
		{ "alltoallbase", HD_OP_ALL_TO_ALL },
		{ "alltoallsingle", HD_OP_ALL_TO_ALL },
		{ "alltoallv", HD_OP_ALL_TO_ALL },
		{ "gather", HD_OP_GATHER },
		{ "scatter", HD_OP_SCATTER },
		{ "send", HD_OP_SEND },
		{ "recv", HD_OP_RECV },
		{ "recvanysource", HD_OP_RECV },
		{ "barrier", HD_OP_BARRIER },
		{ "allreducebarrier", HD_OP_BARRIER },
		{ "coalesced", HD_OP_COALESCED },
		{ "allgathercoalesced", HD_OP_ALL_GATHER },
	};
	char buf[64];

	if (!s)
		return HD_OP_UNKNOWN;
	squash(s, buf, sizeof(buf));
	for (size_t i = 0; i < G_N_ELEMENTS(table); i++)
		if (strcmp(buf, table[i].name) == 0)
			return table[i].kind;
	return HD_OP_UNKNOWN;
}

enum hd_dtype hd_dtype_parse(const char *s)
{
	static const struct {
		const char *name;
		enum hd_dtype t;
	} table[] = {
		{ "float", HD_DTYPE_FLOAT32 },
		{ "float32", HD_DTYPE_FLOAT32 },
		{ "f32", HD_DTYPE_FLOAT32 },
		{ "half", HD_DTYPE_FLOAT16 },
		{ "float16", HD_DTYPE_FLOAT16 },
		{ "f16", HD_DTYPE_FLOAT16 },
		{ "bfloat16", HD_DTYPE_BFLOAT16 },
		{ "bf16", HD_DTYPE_BFLOAT16 },
		{ "double", HD_DTYPE_FLOAT64 },
		{ "float64", HD_DTYPE_FLOAT64 },
		{ "f64", HD_DTYPE_FLOAT64 },
		{ "int", HD_DTYPE_INT32 },
		{ "int32", HD_DTYPE_INT32 },
		{ "i32", HD_DTYPE_INT32 },
		{ "long", HD_DTYPE_INT64 },
		{ "int64", HD_DTYPE_INT64 },
		{ "i64", HD_DTYPE_INT64 },
		{ "byte", HD_DTYPE_UINT8 },
		{ "uint8", HD_DTYPE_UINT8 },
		{ "u8", HD_DTYPE_UINT8 },
		{ "char", HD_DTYPE_INT8 },
		{ "int8", HD_DTYPE_INT8 },
		{ "i8", HD_DTYPE_INT8 },
		{ "short", HD_DTYPE_INT16 },
		{ "int16", HD_DTYPE_INT16 },
		{ "bool", HD_DTYPE_BOOL },
		{ "uint32", HD_DTYPE_UINT32 },
		{ "u32", HD_DTYPE_UINT32 },
		{ "uint64", HD_DTYPE_UINT64 },
		{ "u64", HD_DTYPE_UINT64 },
		{ "float8e4m3fn", HD_DTYPE_FP8_E4M3 },
		{ "float8e4m3", HD_DTYPE_FP8_E4M3 },
		{ "f8e4m3", HD_DTYPE_FP8_E4M3 },
		{ "float8e5m2", HD_DTYPE_FP8_E5M2 },
		{ "f8e5m2", HD_DTYPE_FP8_E5M2 },
		{ "ncclfloat32", HD_DTYPE_FLOAT32 },
		{ "ncclfloat16", HD_DTYPE_FLOAT16 },
		{ "ncclbfloat16", HD_DTYPE_BFLOAT16 },
		{ "ncclfloat64", HD_DTYPE_FLOAT64 },
		{ "ncclint32", HD_DTYPE_INT32 },
		{ "ncclint64", HD_DTYPE_INT64 },
	};
	char buf[64];

	if (!s || !*s)
		return HD_DTYPE_UNKNOWN;
	squash(s, buf, sizeof(buf));
	for (size_t i = 0; i < G_N_ELEMENTS(table); i++)
		if (strcmp(buf, table[i].name) == 0)
			return table[i].t;
	return HD_DTYPE_OTHER;
}

const char *hd_seq_kind_name(enum hd_seq_kind k)
{
	static const char *const names[] = {
		[HD_SEQ_COLLECTIVE] = "collective",
		[HD_SEQ_P2P] = "p2p",
		[HD_SEQ_ORDINAL] = "ordinal",
	};

	if ((unsigned)k >= G_N_ELEMENTS(names))
		return "unknown";
	return names[k];
}
