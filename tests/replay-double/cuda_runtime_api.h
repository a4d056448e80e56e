/*
 * The part of the CUDA runtime API that replay/replay-run.c calls, as the
 * CPU test double (replay-double.c) implements it.  Only for building the
 * runner a second time, for tests: never installed, never seen by the
 * shipped hangdoc.  Names, values and signatures follow CUDA's own header
 * so the runner compiles unchanged; what each call does on the CPU is
 * described in replay-double.c.
 */
#ifndef HD_DOUBLE_CUDA_RUNTIME_API_H
#define HD_DOUBLE_CUDA_RUNTIME_API_H

#include <stddef.h>

/* Lets code (and tests) tell the double from the real runtime. */
#define HD_REPLAY_DOUBLE 1
#define CUDART_VERSION	 13000

enum cudaError {
	cudaSuccess = 0,
	cudaErrorInvalidValue = 1,
	cudaErrorMemoryAllocation = 2,
	cudaErrorNoDevice = 100,
	cudaErrorInvalidDevice = 101,
	cudaErrorInvalidResourceHandle = 400,
	cudaErrorNotReady = 600,
};
typedef enum cudaError cudaError_t;

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;

#define cudaStreamDefault      0x00
#define cudaStreamNonBlocking  0x01
#define cudaEventDefault       0x00
#define cudaEventBlockingSync  0x01
#define cudaEventDisableTiming 0x02

cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaMemGetInfo(size_t *free, size_t *total);
cudaError_t cudaMalloc(void **dev_ptr, size_t size);
cudaError_t cudaFree(void *dev_ptr);
cudaError_t cudaMemset(void *dev_ptr, int value, size_t count);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventDestroy(cudaEvent_t event);
const char *cudaGetErrorString(cudaError_t error);

#endif
