// NVRTC in a worker process, so that an NVRTC crash or hang costs a status instead of the
// calling process.
//
// The worker is the small executable cuabi-compile-worker, installed next to the library in
// <libdir>/cuabi/ (found relative to the library's own file; $CUABI_COMPILE_WORKER overrides).
// cuabi starts one on the first compile that misses the cache and keeps it; concurrent compiles
// of different sources start more, up to a small pool ($CUABI_COMPILE_WORKERS, default 2 to 4 by
// core count). Each worker loads the NVRTC this process chose (nvrtc_location()) and then
// compiles one job at a time over a private socket pair. A worker that crashes, or that runs past
// the compile's deadline (and is then killed), is reaped and replaced by the next compile; the
// compile reports CUABI_ERROR_NVRTC (with the signal) or CUABI_ERROR_TIMEOUT.
//
// The pool belongs to the process that started it: after fork() the child starts its own (its
// copies of the parent's sockets are never used). A worker ends with its parent (its socket reads
// end of file; not PR_SET_PDEATHSIG, which fires when the starting thread ends), closes every descriptor it inherited but its socket, and starts
// with default signal dispositions and an empty signal mask.
#pragma once

#include <cstdint>
#include <string>

#include "cache/cached_image.hpp"
#include "compile/nvrtc_program.hpp"
#include "core/error.hpp"
#include "driver/nvrtc_api.hpp"

namespace cuabi {

// The worker executable, or "" with *why saying what was looked for and why it was refused (it
// must be a regular, executable file that only its owner -- root or this user -- may change).
std::string compile_worker_path(std::string* why);

// Facts of the NVRTC the workers load, starting a worker when none has reported yet. Fails with
// CUABI_ERROR_NVRTC_NOT_FOUND when the worker could not load NVRTC, CUABI_ERROR_NVRTC when no
// worker could be started, CUABI_ERROR_TIMEOUT past `deadline_ms` (worker::now_ms() clock).
Status worker_nvrtc_facts(int64_t deadline_ms, NvrtcFacts* out);

// Runs `job` in a worker. As run_nvrtc(), plus CUABI_ERROR_TIMEOUT past `deadline_ms` (the
// worker is killed) and CUABI_ERROR_NVRTC when the worker dies (the message names the signal).
Status compile_in_worker(const NvrtcJob& job, int64_t deadline_ms, cache::CachedImage* out, std::string* out_log);

// How many workers this process runs now (idle or busy), for tests and `cuabi info`.
int compile_workers_running();

}  // namespace cuabi
