// The CUDA Toolkit's own headers (cooperative_groups.h, cuda/std/*, cub/*, thrust/*, cuda_fp16.h,
// cuda_bf16.h, mma.h, ...), found as nvcc finds them so that sources including them compile
// with no include option. NVRTC gets them after the caller's include_dirs.
//
// Where: $CUABI_CUDA_INCLUDE_PATH when set (a ':'-separated list, used as given); otherwise the
// first toolkit among $CUDA_HOME, $CUDA_PATH, the toolkit NVRTC comes from, /usr/local/cuda,
// /usr/local/cuda-<version> (newest first), /opt/cuda and /usr whose include/ holds cuda_fp16.h
// -- its include/cccl (CUDA 13 keeps CUB, Thrust and libcu++ there) and include/ -- and
// otherwise pip's nvidia-* wheels (nvidia/cu13/include[/cccl] for CUDA 13; nvidia/cuda_cccl and
// nvidia/cuda_runtime for CUDA 12). One toolkit only: headers of two versions do not mix.
//
// The identity of what was found -- each directory and the size and modification time of a few
// version-bearing headers in it -- goes into the cache key, so a toolkit update or another
// toolkit changes the key. Found once per process, without loading NVRTC; costs a few stat()s.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cuabi {

struct ToolkitHeaders {
    std::vector<std::string> directories;  // in search order; empty when none were found
    std::string source;                    // where they came from, for `cuabi info` and messages
    std::string searched;                  // where cuabi looked, when none were found
    uint64_t identity = 0;                 // for the cache key (see the file comment)
};

// The process's toolkit headers (decided on first use). Thread-safe.
const ToolkitHeaders& toolkit_headers();

// Finds the toolkit headers as the file comment says; `nvrtc_path` is the NVRTC file in use ("" if
// none). Reads the environment and the file system each time (toolkit_headers() keeps the result).
ToolkitHeaders find_toolkit_headers(const std::string& nvrtc_path);

// The identity of a list of include directories (see the file comment).
uint64_t toolkit_identity(const std::vector<std::string>& directories);

}  // namespace cuabi
