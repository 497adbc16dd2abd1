// The CUDA driver, loaded at run time.
//
// libcuabi has no link-time dependency on libcuda: `driver()` dlopens libcuda.so.1 on first use
// (or the file named by CUABI_LIBCUDA_PATH), resolves every entry point below through
// cuGetProcAddress at the CUDA version cuabi was built against, and calls cuInit(0). The outcome,
// success or the failure with its message, is computed once and cached.
//
// Entry points are listed once, in the X-macro lists below; the struct member of each has the
// exact prototype from cuda.h. Required ones must resolve or loading fails with
// CUABI_ERROR_DRIVER_TOO_OLD; optional ones are NULL when the installed driver is older than the
// feature, and the feature then reports CUABI_ERROR_UNSUPPORTED.
#pragma once

#include <cuda.h>

#include <string>

#include "core/error.hpp"

// X(name, minimum driver version that has it)
#define CUABI_DRIVER_REQUIRED_ENTRY_POINTS(X) \
    X(cuInit)                                 \
    X(cuDriverGetVersion)                     \
    X(cuGetErrorName)                         \
    X(cuGetErrorString)                       \
    X(cuDeviceGet)                            \
    X(cuDeviceGetCount)                       \
    X(cuDeviceGetName)                        \
    X(cuDeviceGetUuid)                        \
    X(cuDeviceGetAttribute)                   \
    X(cuDeviceTotalMem)                       \
    X(cuDevicePrimaryCtxRetain)               \
    X(cuDevicePrimaryCtxRelease)              \
    X(cuCtxGetCurrent)                        \
    X(cuCtxSetCurrent)                        \
    X(cuCtxPushCurrent)                       \
    X(cuCtxPopCurrent)                        \
    X(cuCtxSynchronize)                       \
    X(cuCtxGetStreamPriorityRange)            \
    X(cuStreamCreateWithPriority)             \
    X(cuStreamDestroy)                        \
    X(cuStreamSynchronize)                    \
    X(cuStreamQuery)                          \
    X(cuStreamWaitEvent)                      \
    X(cuStreamGetCtx)                         \
    X(cuEventCreate)                          \
    X(cuEventDestroy)                         \
    X(cuEventRecord)                          \
    X(cuEventSynchronize)                     \
    X(cuEventQuery)                           \
    X(cuEventElapsedTime)                     \
    X(cuMemAlloc)                             \
    X(cuMemFree)                              \
    X(cuMemGetAddressRange)                   \
    X(cuMemAllocManaged)                      \
    X(cuMemAllocAsync)                        \
    X(cuMemAllocFromPoolAsync)                \
    X(cuMemFreeAsync)                         \
    X(cuMemPoolCreate)                        \
    X(cuMemPoolDestroy)                       \
    X(cuMemPoolSetAttribute)                  \
    X(cuMemPoolGetAttribute)                  \
    X(cuMemPoolTrimTo)                        \
    X(cuDeviceGetDefaultMemPool)              \
    X(cuMemHostAlloc)                         \
    X(cuMemFreeHost)                          \
    X(cuMemHostRegister)                      \
    X(cuMemHostUnregister)                    \
    X(cuMemHostGetDevicePointer)              \
    X(cuPointerGetAttribute)                  \
    X(cuMemcpyHtoDAsync)                      \
    X(cuMemcpyDtoHAsync)                      \
    X(cuMemcpyDtoDAsync)                      \
    X(cuDeviceCanAccessPeer)                  \
    X(cuCtxEnablePeerAccess)                  \
    X(cuCtxDisablePeerAccess)                 \
    X(cuMemsetD8Async)                        \
    X(cuMemsetD16Async)                       \
    X(cuMemsetD32Async)                       \
    X(cuModuleLoadDataEx)                     \
    X(cuModuleUnload)                         \
    X(cuModuleGetFunction)                    \
    X(cuModuleGetGlobal)                      \
    X(cuKernelGetFunction)                    \
    X(cuLaunchKernel)                         \
    X(cuLaunchKernelEx)                       \
    X(cuFuncGetAttribute)                     \
    X(cuFuncSetAttribute)                     \
    X(cuFuncSetCacheConfig)                   \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor) \
    X(cuOccupancyMaxPotentialBlockSize)       \
    X(cuOccupancyMaxPotentialClusterSize)     \
    X(cuOccupancyMaxActiveClusters)           \
    X(cuStreamBeginCapture)                   \
    X(cuStreamEndCapture)                     \
    X(cuStreamIsCapturing)                    \
    X(cuStreamGetCaptureInfo)                 \
    X(cuUserObjectCreate)                     \
    X(cuUserObjectRelease)                    \
    X(cuGraphRetainUserObject)                \
    X(cuGraphInstantiateWithFlags)            \
    X(cuGraphLaunch)                          \
    X(cuGraphUpload)                          \
    X(cuGraphGetNodes)                        \
    X(cuGraphNodeGetType)                     \
    X(cuGraphKernelNodeGetParams)             \
    X(cuGraphMemsetNodeGetParams)             \
    X(cuGraphExecKernelNodeSetParams)         \
    X(cuGraphExecMemsetNodeSetParams)         \
    X(cuGraphMemcpyNodeGetParams)             \
    X(cuGraphExecMemcpyNodeSetParams)         \
    X(cuGraphNodeSetEnabled)                  \
    X(cuGraphNodeGetEnabled)                  \
    X(cuGraphDebugDotPrint)                   \
    X(cuGraphExecUpdate)                      \
    X(cuGraphDestroy)                         \
    X(cuGraphExecDestroy)

// Entry points that newer features need; NULL when the driver lacks them.
//   cuFuncGetParamInfo (CUDA 12.4): kernel parameter layout; without it launch arguments are
//   checked less (launch/arguments.hpp says how).
//   cuFuncGetName (CUDA 12.3): names of graph kernel nodes that did not come from cuabi.
//   cuModuleGetFunctionCount, cuModuleEnumerateFunctions (CUDA 12.4), with cuFuncGetName: the
//   kernel names listed when a module lookup finds no kernel of the name asked for.
//   cuLogsCurrent, cuLogsDumpToMemory (CUDA 12.9): the driver's error log quoted in messages
//   (driver/driver_log.hpp); without them messages carry only the CUresult.
//   cuMemPrefetchAsync, cuMemAdvise: their CUmemLocation ABI came with CUDA 12.2; an older driver
//   hands out the CUdevice ABI under the same name, so callers check the version first
//   (kManagedLocationDriver).
//   cuTensorMapEncodeTiled (CUDA 12.0): tensor maps (device/tensor_map.hpp).
//   cuGraphConditionalHandleCreate, cuGraphAddNode (its CUDA 12.3 form, with edge data),
//   cuStreamBeginCaptureToGraph (CUDA 12.3): conditional graph nodes (graph/conditional.hpp).
#define CUABI_DRIVER_OPTIONAL_ENTRY_POINTS(X) \
    X(cuTensorMapEncodeTiled)                 \
    X(cuModuleGetFunctionCount)               \
    X(cuModuleEnumerateFunctions)             \
    X(cuFuncGetParamInfo)                     \
    X(cuFuncGetName)                          \
    X(cuLogsCurrent)                          \
    X(cuLogsDumpToMemory)                     \
    X(cuMemPrefetchAsync)                     \
    X(cuMemAdvise)                            \
    X(cuGraphConditionalHandleCreate)         \
    X(cuGraphAddNode)                         \
    X(cuStreamBeginCaptureToGraph)

namespace cuabi {

// The driver version whose cuMemPrefetchAsync and cuMemAdvise take a CUmemLocation (CUDA 12.2).
constexpr int kManagedLocationDriver = 12020;

// The prototype of the function cuGetProcAddress returns for an entry point at CUDA_VERSION: its
// newest ABI. cuda.h declares that ABI under the plain name for almost every entry point
// (#define cuMemAlloc cuMemAlloc_v2), but keeps the old prototype under the plain name for the
// ones specialized below, declaring the newest only as _v2. Calling the newest ABI through the
// old prototype passes garbage for the new trailing parameters. A driver older than the _v2
// returns the old ABI, which ignores the extra trailing argument cuabi passes.
template <auto Declared>
struct NewestAbi {
    using type = decltype(Declared);
};
template <>
struct NewestAbi<&::cuCtxSynchronize> {  // v13000: (CUcontext ctx); NULL = the current context
    using type = decltype(&::cuCtxSynchronize_v2);
};
template <>
struct NewestAbi<&::cuStreamGetCtx> {  // v12050: (CUstream, CUcontext*, CUgreenCtx*)
    using type = decltype(&::cuStreamGetCtx_v2);
};

struct DriverApi {
#define CUABI_DRIVER_MEMBER(name) NewestAbi<&::name>::type name = nullptr;
    CUABI_DRIVER_REQUIRED_ENTRY_POINTS(CUABI_DRIVER_MEMBER)
    CUABI_DRIVER_OPTIONAL_ENTRY_POINTS(CUABI_DRIVER_MEMBER)
#undef CUABI_DRIVER_MEMBER
    int version = 0;       // cuDriverGetVersion, e.g. 13000
    std::string path;      // what was dlopened
};

// The loaded driver, or nullptr with the (cached) failure recorded as the thread's last error:
// CUABI_ERROR_DRIVER_NOT_FOUND, CUABI_ERROR_DRIVER_TOO_OLD or CUABI_ERROR_NO_DEVICE.
// `*out_status` receives the status when non-NULL. Thread-safe; the first call does the work.
const DriverApi* driver(Status* out_status);

// Whether the CUDA driver is initialized in this process -- by cuabi or by anyone else (e.g. the
// CUDA runtime) -- found out without loading or initializing it.
bool driver_started_in_process();

// The installed driver's CUDA version (13000 for 13.0) without initializing it: cuabi's loaded
// driver's, or that of libcuda.so.1 (or CUABI_LIBCUDA_PATH) opened and asked, since
// cuDriverGetVersion answers before cuInit. 0 when there is no driver. Thread-safe.
int installed_driver_version();

// The CUDA version of the driver cuabi has ALREADY loaded and initialized in this process (13000),
// else 0 -- never loading or initializing anything, so callers may ask it on any path. Thread-safe.
int loaded_driver_version();

// Records a failed driver call: status CUABI_ERROR_CUDA (or CUABI_ERROR_DEVICE_OUT_OF_MEMORY for
// CUDA_ERROR_OUT_OF_MEMORY), a message "<call> failed: CUDA_ERROR_X (<text>) <context>" and the
// given fix, and the CUresult for cuabi_last_cu_result().
Status fail_cu(CUresult result, const char* call, const char* fix, const char* context_format, ...)
    __attribute__((cold, format(printf, 4, 5)));

// "CUDA_ERROR_INVALID_VALUE (invalid argument)" for messages; works before the driver loads.
std::string cu_result_text(CUresult result);

}  // namespace cuabi
