// nvJitLink in a worker process, so that an nvJitLink crash or hang costs a status instead of the
// calling process -- the isolation NVRTC has (compile_worker.hpp), with the same deadline.
//
// Each link that misses the cache starts one cuabi-compile-worker with --nvjitlink <path> (the
// file nvjitlink_location() chose), sends it the job, reads the outcome and reaps it. One process
// per link rather than a pool: a link runs only on a miss, nvJitLink's own work dwarfs the start
// (milliseconds), and a fresh process keeps no state between links of different callers.
#pragma once

#include <string>

#include "cache/cached_image.hpp"
#include "compile/compile_worker.hpp"
#include "compile/link_job.hpp"
#include "core/error.hpp"

namespace cuabi {

// Runs `job` in a link worker. As run_nvjitlink(), plus CUABI_ERROR_NVJITLINK_NOT_FOUND when the
// worker could not load nvJitLink, CUABI_ERROR_TIMEOUT past `deadline` (the worker is killed), and
// CUABI_ERROR_INTERNAL when no worker can be started or it dies (the message names the signal) or
// answers outside the protocol.
Status link_in_worker(const LinkJob& job, const Deadline& deadline, cache::CachedImage* out, std::string* out_log);

}  // namespace cuabi
