/*
 * The part of the NCCL API that replay/replay-run.c calls, as the CPU test
 * double (replay-double.c) implements it.  Only for building the runner a
 * second time, for tests: never installed, never seen by the shipped
 * hangdoc.  Types, enum values, the config struct and its initializer
 * follow NCCL 2.28's header so the runner compiles unchanged and a plan's
 * calls mean the same here as there.
 */
#ifndef HD_DOUBLE_NCCL_H
#define HD_DOUBLE_NCCL_H

#include <limits.h>
#include <stddef.h>
#include <cuda_runtime_api.h>

#define NCCL_MAJOR	  2
#define NCCL_MINOR	  28
#define NCCL_PATCH	  9
#define NCCL_SUFFIX	  "-hangdoc-double"
#define NCCL_VERSION_CODE 22809
#define NCCL_VERSION(X, Y, Z)                              \
	(((X) <= 2 && (Y) <= 8) ? (X)*1000 + (Y)*100 + (Z) \
				: (X)*10000 + (Y)*100 + (Z))

typedef struct ncclComm *ncclComm_t;
#define NCCL_COMM_NULL NULL

#define NCCL_UNIQUE_ID_BYTES 128
typedef struct {
	char internal[NCCL_UNIQUE_ID_BYTES];
} ncclUniqueId;

typedef enum {
	ncclSuccess = 0,
	ncclUnhandledCudaError = 1,
	ncclSystemError = 2,
	ncclInternalError = 3,
	ncclInvalidArgument = 4,
	ncclInvalidUsage = 5,
	ncclRemoteError = 6,
	ncclInProgress = 7,
	ncclNumResults = 8
} ncclResult_t;

#define NCCL_CONFIG_UNDEF_INT INT_MIN
#define NCCL_CONFIG_UNDEF_PTR NULL

typedef struct ncclConfig_v22800 {
	size_t size;
	unsigned int magic;
	unsigned int version;
	int blocking;
	int cgaClusterSize;
	int minCTAs;
	int maxCTAs;
	const char *netName;
	int splitShare;
	int trafficClass;
	const char *commName;
	int collnetEnable;
	int CTAPolicy;
	int shrinkShare;
	int nvlsCTAs;
	int nChannelsPerNetPeer;
	int nvlinkCentricSched;
} ncclConfig_t;

#define NCCL_CONFIG_INITIALIZER                                           \
	{                                                                 \
		sizeof(ncclConfig_t), 0xcafebeef,                         \
			NCCL_VERSION(NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH), \
			NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT,     \
			NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT,     \
			NCCL_CONFIG_UNDEF_PTR, NCCL_CONFIG_UNDEF_INT,     \
			NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_PTR,     \
			NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT,     \
			NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT,     \
			NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT      \
	}

typedef enum {
	ncclSum = 0,
	ncclProd = 1,
	ncclMax = 2,
	ncclMin = 3,
	ncclAvg = 4,
	ncclNumOps = 5,
	ncclMaxRedOp = 0x7fffffff
} ncclRedOp_t;

typedef enum {
	ncclInt8 = 0,
	ncclChar = 0,
	ncclUint8 = 1,
	ncclInt32 = 2,
	ncclInt = 2,
	ncclUint32 = 3,
	ncclInt64 = 4,
	ncclUint64 = 5,
	ncclFloat16 = 6,
	ncclHalf = 6,
	ncclFloat32 = 7,
	ncclFloat = 7,
	ncclFloat64 = 8,
	ncclDouble = 8,
	ncclBfloat16 = 9,
	ncclFloat8e4m3 = 10,
	ncclFloat8e5m2 = 11,
	ncclNumTypes = 12
} ncclDataType_t;

ncclResult_t ncclGetVersion(int *version);
ncclResult_t ncclGetUniqueId(ncclUniqueId *unique_id);
ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks,
				    ncclUniqueId comm_id, int rank,
				    ncclConfig_t *config);
ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *async_error);
ncclResult_t ncclCommAbort(ncclComm_t comm);
ncclResult_t ncclCommDestroy(ncclComm_t comm);
const char *ncclGetErrorString(ncclResult_t result);
const char *ncclGetLastError(ncclComm_t comm);

ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
			   ncclDataType_t datatype, ncclRedOp_t op,
			   ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
			   ncclDataType_t datatype, int root, ncclComm_t comm,
			   cudaStream_t stream);
ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count,
			ncclDataType_t datatype, ncclRedOp_t op, int root,
			ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff,
			   size_t sendcount, ncclDataType_t datatype,
			   ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff,
			       size_t recvcount, ncclDataType_t datatype,
			       ncclRedOp_t op, ncclComm_t comm,
			       cudaStream_t stream);
ncclResult_t ncclSend(const void *sendbuff, size_t count,
		      ncclDataType_t datatype, int peer, ncclComm_t comm,
		      cudaStream_t stream);
ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype,
		      int peer, ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclGroupStart(void);
ncclResult_t ncclGroupEnd(void);

#endif
