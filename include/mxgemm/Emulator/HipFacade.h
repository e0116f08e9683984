/*===- HipFacade.h - HIP runtime API subset served by the emulator -*- C
 *-*-===//
 *
 * libmxgemm_hip_emu.so exports, with C linkage and the real HIP signatures
 * and enum values (ROCm include/hip/hip_runtime_api.h), the part of the HIP
 * runtime API that the mxgemm runtime shim needs, executed on the gfx950
 * emulator. A program that dlopens libamdhip64.so and looks these symbols up
 * can dlopen this library instead and run unchanged, without a GPU.
 *
 * This header is for the facade's implementation and tests. It declares only
 * what is implemented; do not include it together with the real HIP headers.
 *
 * Implemented (everything else is absent from the library):
 *   hipInit, hipGetDeviceCount (1), hipSetDevice / hipGetDevice (device 0),
 *   hipDeviceGetAttribute (the attributes listed in hipDeviceAttribute_t
 *   below; others give hipErrorInvalidValue), hipDeviceGetName,
 *   hipGetDevicePropertiesR0600 (name, totalGlobalMem, sharedMemPerBlock,
 *   regsPerBlock, warpSize, maxThreadsPerBlock, maxThreadsDim, maxGridSize,
 *   clockRate, major, minor, multiProcessorCount, l2CacheSize,
 *   maxThreadsPerMultiProcessor, sharedMemPerMultiprocessor,
 *   regsPerMultiprocessor, sharedMemPerBlockOptin, gcnArchName,
 *   maxSharedMemoryPerMultiProcessor; every other byte is 0),
 *   hipMalloc, hipFree, hipMemcpy, hipMemcpyAsync, hipMemset,
 *   hipMemsetAsync, hipModuleLoadData, hipModuleUnload, hipModuleGetFunction,
 *   hipModuleLaunchKernel, hipStreamCreate, hipStreamSynchronize,
 *   hipStreamDestroy, hipDeviceSynchronize, hipGetLastError,
 *   hipPeekAtLastError, hipGetErrorString, hipGetErrorName,
 *   hipDriverGetVersion, hipRuntimeGetVersion (both 60400000 = HIP 6.4).
 *
 * Semantics:
 *   - The device is a gfx950 "AMD Instinct MI355X (mxgemm emulator)", arch
 *     name "gfx950:sramecc+:xnack-", compute capability 9.5, 256 CUs,
 *     wave64, 1024 threads and 163840 bytes of LDS per workgroup.
 *   - hipMalloc returns emulator device addresses (0x1000_0000_0000 and up,
 *     bounds-checked, 64 KiB guard gaps). They are NOT host-dereferenceable;
 *     move data with hipMemcpy. hipMemcpyDefault infers the direction from
 *     whether each pointer lies in a device allocation.
 *   - Streams are bookkeeping only: every call, including the *Async ones
 *     and hipModuleLaunchKernel, runs to completion on the calling thread
 *     before it returns, so synchronisation calls just validate the handle.
 *   - hipModuleLoadData accepts a gfx950 code object (ELF). The image comes
 *     without a size: its size is the end of the section header table as
 *     the ELF header claims it, checked for consistency from the 64 header
 *     bytes alone and at most mxgemmHipMaxImageBytes; the loader reads
 *     exactly that many bytes. The caller's buffer must hold what its header
 *     claims (nobody can check that). Not a usable AMDGPU code object:
 *     hipErrorInvalidImage; another GPU: hipErrorNoBinaryForGpu; an
 *     instruction the emulator does not model: hipErrorNotSupported. The
 *     reason goes to stderr.
 *   - hipModuleLaunchKernel: gridDim in workgroups, blockDim in work-items.
 *     Arguments come either from kernelParams (one pointer per explicit
 *     argument, copied to the offsets and sizes of the code object's `.args`
 *     metadata) or from extra = {HIP_LAUNCH_PARAM_BUFFER_POINTER, buf,
 *     HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END}; hidden
 *     arguments are filled in by the emulator. Before anything runs:
 *     blockDim must be at most the kernel's .max_flat_workgroup_size and
 *     equal to its .reqd_workgroup_size if it has one, each dimension must
 *     have at most 2^32 - 1 work-items, else hipErrorInvalidConfiguration;
 *     LDS over the workgroup's hipErrorLaunchOutOfResources; a kernarg
 *     buffer larger than the kernel's kernarg segment or short of its
 *     explicit arguments, or a non-null global_buffer argument outside every
 *     allocation, hipErrorInvalidValue. The emulator's checkers run on every
 *     launch: any finding (out-of-bounds access, unwaited load, LDS race,
 *     uninitialised data stored) is printed to stderr and the launch returns
 *     hipErrorLaunchFailure, as does an emulation error.
 *   - Any number of threads may call the facade at once: one process-wide
 *     mutex serialises every call that touches device memory, modules or
 *     streams (launches included); the last error is per thread
 *     (hipGetLastError returns and clears it).
 *
 * Environment (read at each launch):
 *   MXGEMM_EMU_WORKGROUPS=a,b,c  run only these flat workgroup ids
 *                                (x + y*gx + z*gx*gy); others are skipped.
 *   MXGEMM_EMU_SAMPLE=N          run about N workgroups: the first, the last,
 *                                the grid's "edges" and evenly spaced ids in
 *                                between. The facade knows nothing about
 *                                GEMM tiles, so an edge is a workgroup on
 *                                the border of the grid (first or last index
 *                                in some dimension); for the 1-D grids of
 *                                mxgemm kernels that is the first and last
 *                                workgroup only.
 *   MXGEMM_EMU_THREADS=T         worker threads (default: all cores).
 *   MXGEMM_EMU_CHECKS=0          turn the checkers off (faster).
 *   Workgroup selection (the first two) is for GEMM kernels, whose
 *   workgroups own output tiles. The runtime's data-movement kernels,
 *   named mxgemm_quantize_* and mxgemm_pack_panels_*, always run every
 *   workgroup: what they write is an operand that a later launch reads
 *   whole, so a test that samples a GEMM's tiles still gets its whole
 *   weight packed (or activation quantized) when it packs under the same
 *   environment.
 *
 * Facade-only entry point (not HIP; for tests, found with dlsym):
 *   unsigned long long mxgemmEmuLaunchCount(const char *kernel): how many
 *   launches of the kernel named `kernel` completed successfully in this
 *   process (0 for NULL or an unknown name). Tests use it to tell which
 *   path a runtime call took (for example mxgemm_pack_weights: a launch of
 *   mxgemm_pack_panels_32 or a host copy).
 *
 *===----------------------------------------------------------------------===*/

#ifndef MXGEMM_EMULATOR_HIPFACADE_H
#define MXGEMM_EMULATOR_HIPFACADE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Values as in ROCm's hip_runtime_api.h (only those the facade returns). */
typedef enum hipError_t {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorOutOfMemory = 2,
  hipErrorNotInitialized = 3,
  hipErrorInvalidConfiguration = 9,
  hipErrorInvalidDevicePointer = 17,
  hipErrorInvalidMemcpyDirection = 21,
  hipErrorInvalidDeviceFunction = 98,
  hipErrorNoDevice = 100,
  hipErrorInvalidDevice = 101,
  hipErrorInvalidImage = 200,
  hipErrorNoBinaryForGpu = 209,
  hipErrorInvalidHandle = 400,
  hipErrorNotFound = 500,
  hipErrorLaunchOutOfResources = 701,
  hipErrorLaunchFailure = 719,
  hipErrorNotSupported = 801,
  hipErrorUnknown = 999
} hipError_t;

/* The attributes the facade answers, with their hip_runtime_api.h values. */
typedef enum hipDeviceAttribute_t {
  hipDeviceAttributeClockRate = 5,
  hipDeviceAttributeL2CacheSize = 19,
  hipDeviceAttributeComputeCapabilityMajor = 23,
  hipDeviceAttributeMaxBlockDimX = 26,
  hipDeviceAttributeMaxBlockDimY = 27,
  hipDeviceAttributeMaxBlockDimZ = 28,
  hipDeviceAttributeMaxGridDimX = 29,
  hipDeviceAttributeMaxGridDimY = 30,
  hipDeviceAttributeMaxGridDimZ = 31,
  hipDeviceAttributeMaxThreadsPerBlock = 56,
  hipDeviceAttributeMaxThreadsPerMultiProcessor = 57,
  hipDeviceAttributeComputeCapabilityMinor = 61,
  hipDeviceAttributeMultiprocessorCount = 63,
  hipDeviceAttributeMaxRegistersPerBlock = 71,
  hipDeviceAttributeMaxSharedMemoryPerBlock = 74,
  hipDeviceAttributeSharedMemPerBlockOptin = 75,
  hipDeviceAttributeSharedMemPerMultiprocessor = 76,
  hipDeviceAttributeWarpSize = 87,
  hipDeviceAttributeMaxSharedMemoryPerMultiprocessor = 10002,
  hipDeviceAttributePhysicalMultiProcessorCount = 10015
} hipDeviceAttribute_t;

typedef enum hipMemcpyKind {
  hipMemcpyHostToHost = 0,
  hipMemcpyHostToDevice = 1,
  hipMemcpyDeviceToHost = 2,
  hipMemcpyDeviceToDevice = 3,
  hipMemcpyDefault = 4
} hipMemcpyKind;

typedef int hipDevice_t;
typedef struct ihipStream_t *hipStream_t;
typedef struct ihipModule_t *hipModule_t;
typedef struct ihipModuleSymbol_t *hipFunction_t;

#define HIP_LAUNCH_PARAM_BUFFER_POINTER ((void *)0x01)
#define HIP_LAUNCH_PARAM_BUFFER_SIZE ((void *)0x02)
#define HIP_LAUNCH_PARAM_END ((void *)0x03)

/* hipDeviceProp_tR0600 is 1472 bytes; the facade writes these fields (byte
 * offsets checked against ROCm's hip_runtime_api.h on LP64). */
enum {
  mxgemmHipPropSize = 1472,
  mxgemmHipPropName = 0,                /* char[256] */
  mxgemmHipPropTotalGlobalMem = 288,    /* size_t */
  mxgemmHipPropSharedMemPerBlock = 296, /* size_t */
  mxgemmHipPropRegsPerBlock = 304,      /* int */
  mxgemmHipPropWarpSize = 308,          /* int */
  mxgemmHipPropMaxThreadsPerBlock = 320,
  mxgemmHipPropMaxThreadsDim = 324, /* int[3] */
  mxgemmHipPropMaxGridSize = 336,   /* int[3] */
  mxgemmHipPropClockRate = 348,
  mxgemmHipPropMajor = 360,
  mxgemmHipPropMinor = 364,
  mxgemmHipPropMultiProcessorCount = 388,
  mxgemmHipPropL2CacheSize = 616,
  mxgemmHipPropMaxThreadsPerMultiProcessor = 624,
  mxgemmHipPropSharedMemPerMultiprocessor = 640, /* size_t */
  mxgemmHipPropRegsPerMultiprocessor = 648,
  mxgemmHipPropSharedMemPerBlockOptin = 696,           /* size_t */
  mxgemmHipPropGcnArchName = 1160,                     /* char[256] */
  mxgemmHipPropMaxSharedMemoryPerMultiProcessor = 1416 /* size_t */
};
/* The largest code object hipModuleLoadData accepts: the size an image's
 * ELF header claims (docs/Emulator.md, "Images without a size"). The
 * runtime shim's kernels are tens of KiB. */
enum { mxgemmHipMaxImageBytes = 64 << 20 };

/* Opaque here; pass a real hipDeviceProp_tR0600 (or 1472 bytes). */
typedef struct hipDeviceProp_tR0600 hipDeviceProp_tR0600;

hipError_t hipInit(unsigned int flags);
hipError_t hipGetDeviceCount(int *count);
hipError_t hipSetDevice(int deviceId);
hipError_t hipGetDevice(int *deviceId);
hipError_t hipDeviceGetAttribute(int *pi, hipDeviceAttribute_t attr,
                                 int deviceId);
hipError_t hipDeviceGetName(char *name, int len, hipDevice_t device);
hipError_t hipGetDevicePropertiesR0600(hipDeviceProp_tR0600 *prop,
                                       int deviceId);
hipError_t hipMalloc(void **ptr, size_t size);
hipError_t hipFree(void *ptr);
hipError_t hipMemcpy(void *dst, const void *src, size_t sizeBytes,
                     hipMemcpyKind kind);
hipError_t hipMemcpyAsync(void *dst, const void *src, size_t sizeBytes,
                          hipMemcpyKind kind, hipStream_t stream);
hipError_t hipMemset(void *dst, int value, size_t sizeBytes);
hipError_t hipMemsetAsync(void *dst, int value, size_t sizeBytes,
                          hipStream_t stream);
hipError_t hipModuleLoadData(hipModule_t *module, const void *image);
hipError_t hipModuleUnload(hipModule_t module);
hipError_t hipModuleGetFunction(hipFunction_t *function, hipModule_t module,
                                const char *kname);
hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gridDimX,
                                 unsigned int gridDimY, unsigned int gridDimZ,
                                 unsigned int blockDimX, unsigned int blockDimY,
                                 unsigned int blockDimZ,
                                 unsigned int sharedMemBytes,
                                 hipStream_t stream, void **kernelParams,
                                 void **extra);
hipError_t hipStreamCreate(hipStream_t *stream);
hipError_t hipStreamSynchronize(hipStream_t stream);
hipError_t hipStreamDestroy(hipStream_t stream);
hipError_t hipDeviceSynchronize(void);
hipError_t hipGetLastError(void);
hipError_t hipPeekAtLastError(void);
const char *hipGetErrorString(hipError_t error);
const char *hipGetErrorName(hipError_t error);
hipError_t hipDriverGetVersion(int *driverVersion);
hipError_t hipRuntimeGetVersion(int *runtimeVersion);
unsigned long long mxgemmEmuLaunchCount(const char *kernel);

#ifdef __cplusplus
}
#endif

#endif /* MXGEMM_EMULATOR_HIPFACADE_H */
