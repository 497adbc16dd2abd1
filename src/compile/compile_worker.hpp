// NVRTC in a worker process, so that an NVRTC crash or hang costs a status instead of the
// calling process.
//
// The worker is the small executable cuabi-compile-worker, installed next to the library in
// <libdir>/cuabi/ (found relative to the library's own file; $CUABI_COMPILE_WORKER overrides).
// Its path is resolved (realpath) and checked once; every worker is started from that path.
// cuabi starts one on the first compile that misses the cache and keeps it; concurrent compiles
// of different sources start more, up to a pool of $CUABI_COMPILE_WORKERS (default: the cores
// this process may run on, at least 2). Each worker loads the NVRTC this process chose (nvrtc_location()) and then
// compiles one job at a time over a private socket pair (core/child_process.hpp starts and ends it).
//
// Faults cost one compile at most, never the pool: a slot is held by a Lease from the moment it
// is taken until its worker is idle again or has ended, whatever is thrown or cancelled on the
// way. A worker that crashes, or runs past the compile's deadline (and is then killed), is
// reaped and replaced by the next compile, which reports CUABI_ERROR_NVRTC (with the signal) or
// CUABI_ERROR_TIMEOUT. An idle worker that died or was stopped meanwhile is noticed before use
// and replaced, and a job that its worker hung up on before taking it is sent once more to
// another. An answer that is not the protocol's (a length too large, a status the worker cannot
// produce) stops the worker and costs CUABI_ERROR_NVRTC.
//
// The pool belongs to the process that started it: after fork() the child starts its own (its
// copies of the parent's sockets are never used). A worker ends with its parent -- also in the
// middle of a compile (core/parent_watchdog.hpp) -- and once past its job's deadline, closes every
// descriptor it inherited but its socket, has /dev/null for its standard streams, and starts
// with default signal dispositions and an empty signal mask.
#pragma once

#include <cstdint>
#include <string>

#include "cache/cached_image.hpp"
#include "compile/compile_cancel.hpp"
#include "compile/nvrtc_program.hpp"
#include "compile/pch_worker.hpp"
#include "core/error.hpp"
#include "driver/nvrtc_api.hpp"

namespace cuabi {

// When a compile must be done, and where that came from, for messages.
struct Deadline {
    int64_t at_ms = -1;        // frames::now_ms() clock; -1 (frames::kNoDeadline): none
    uint32_t ms = 0;           // as asked for
    const char* source = "";   // "cuabi_compile_options.timeout_ms", "CUABI_COMPILE_TIMEOUT_MS", "the default"
    // Or when this token is cancelled (NULL: never): a compile in the worker ends at once.
    CompileCancel* cancel = nullptr;
    // "the compile's deadline (800 ms, cuabi_compile_options.timeout_ms)", or "no deadline".
    std::string describe() const;
};

// The worker executable, or "" with *why saying what was looked for and why it was refused (it
// must be a regular, executable file that only its owner -- root or this user -- may change).
std::string compile_worker_path(std::string* why);

// Facts of the NVRTC the workers load, starting a worker when none has reported yet. Fails with
// CUABI_ERROR_NVRTC_NOT_FOUND when the worker could not load NVRTC, CUABI_ERROR_NVRTC when no
// worker could be started, CUABI_ERROR_TIMEOUT past `deadline`, and once with
// CUABI_ERROR_INVALID_ARGUMENT for a malformed $CUABI_COMPILE_WORKERS.
Status worker_nvrtc_facts(const Deadline& deadline, NvrtcFacts* out);

// Reads CUABI_COMPILE_WORKERS now, so that environment_problems() lists a value it refuses.
void read_worker_environment();

// Runs `job` in a worker. As run_nvrtc(), plus CUABI_ERROR_TIMEOUT past `deadline` (the worker
// is killed), CUABI_ERROR_CANCELLED when deadline.cancel is cancelled (the worker is killed too)
// and CUABI_ERROR_NVRTC when the worker dies (the message names the signal and, for
// SIGKILL, that it came from outside) or answers outside the protocol.
// With a `pch_key` (compile/pch_policy.hpp), the worker uses or creates that precompiled header
// in the store of `pch_cache_directory` when it can, and *pch_report says what came of it.
Status compile_in_worker(const NvrtcJob& job, const Deadline& deadline, cache::CachedImage* out, std::string* out_log,
                         const std::string& pch_key = "", const std::string& pch_cache_directory = "",
                         PchReport* pch_report = nullptr);

// Why the workers cannot use precompiled headers ("" when they can), once a worker has said;
// false while none has.
bool worker_pch_problem(std::string* out);

// The most workers this process runs at once ($CUABI_COMPILE_WORKERS, else the cores it may run
// on, at least 2). Fails once, with CUABI_ERROR_INVALID_ARGUMENT naming the value, when the
// variable is set to anything but a number from 1 to 64 (then *out is the default).
Status compile_workers_limit(uint32_t* out);

// How many workers this process runs now (idle or busy), for tests and `cuabi info`.
int compile_workers_running();

}  // namespace cuabi
