// The CUDA driver itself, for GPU tests that act as another library using the same streams or
// that ask the driver what cuabi did (free memory). Loaded at run time as cuabi loads it: the test
// binaries do not link libcuda. Entry points are resolved with cuGetProcAddress at the version
// the toolkit headers describe, so each has exactly the prototype named here.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>

#include <cstddef>
#include <type_traits>

struct RawDriver {
    PFN_cuStreamBeginCapture_v10010 stream_begin_capture = nullptr;
    PFN_cuStreamEndCapture_v10000 stream_end_capture = nullptr;
    PFN_cuStreamIsCapturing_v10000 stream_is_capturing = nullptr;
    PFN_cuStreamCreate_v2000 stream_create = nullptr;
    PFN_cuStreamDestroy_v4000 stream_destroy = nullptr;
    PFN_cuStreamSynchronize_v2000 stream_synchronize = nullptr;
    PFN_cuGraphInstantiateWithFlags_v11040 graph_instantiate = nullptr;
    PFN_cuGraphLaunch_v10000 graph_launch = nullptr;
    PFN_cuGraphExecDestroy_v10000 graph_exec_destroy = nullptr;
    PFN_cuGraphDestroy_v10000 graph_destroy = nullptr;
    PFN_cuMemGetInfo_v3020 mem_get_info = nullptr;
    PFN_cuCtxSetCurrent_v4000 ctx_set_current = nullptr;
    PFN_cuCtxGetCurrent_v4000 ctx_get_current = nullptr;
    PFN_cuCtxPushCurrent_v4000 ctx_push_current = nullptr;
    PFN_cuCtxPopCurrent_v4000 ctx_pop_current = nullptr;
    PFN_cuCtxCreate_v12050 ctx_create = nullptr;
    PFN_cuCtxDestroy_v4000 ctx_destroy = nullptr;
    PFN_cuDeviceGet_v2000 device_get = nullptr;

    RawDriver() {
        void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        auto get_proc =
            library ? reinterpret_cast<PFN_cuGetProcAddress_v12000>(dlsym(library, "cuGetProcAddress_v2")) : nullptr;
        if (get_proc == nullptr) return;
        auto resolve = [&](const char* name, auto* slot) {
            void* function = nullptr;
            CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
            if (get_proc(name, &function, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &found) == CUDA_SUCCESS &&
                found == CU_GET_PROC_ADDRESS_SUCCESS)
                *slot = reinterpret_cast<std::remove_pointer_t<decltype(slot)>>(function);
        };
        resolve("cuStreamBeginCapture", &stream_begin_capture);
        resolve("cuStreamEndCapture", &stream_end_capture);
        resolve("cuStreamIsCapturing", &stream_is_capturing);
        resolve("cuStreamCreate", &stream_create);
        resolve("cuStreamDestroy", &stream_destroy);
        resolve("cuStreamSynchronize", &stream_synchronize);
        resolve("cuGraphInstantiateWithFlags", &graph_instantiate);
        resolve("cuGraphLaunch", &graph_launch);
        resolve("cuGraphExecDestroy", &graph_exec_destroy);
        resolve("cuGraphDestroy", &graph_destroy);
        resolve("cuMemGetInfo", &mem_get_info);
        resolve("cuCtxSetCurrent", &ctx_set_current);
        resolve("cuCtxGetCurrent", &ctx_get_current);
        resolve("cuCtxPushCurrent", &ctx_push_current);
        resolve("cuCtxPopCurrent", &ctx_pop_current);
        resolve("cuCtxCreate", &ctx_create);
        resolve("cuCtxDestroy", &ctx_destroy);
        resolve("cuDeviceGet", &device_get);
    }

    bool ok() const {
        return stream_begin_capture && stream_end_capture && stream_is_capturing && stream_create && stream_destroy &&
               stream_synchronize && graph_instantiate && graph_launch && graph_exec_destroy && graph_destroy &&
               mem_get_info && ctx_set_current && ctx_get_current && ctx_push_current && ctx_pop_current && ctx_create && ctx_destroy && device_get;
    }
};
