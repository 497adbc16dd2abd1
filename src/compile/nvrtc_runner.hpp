// Where the NVRTC that compiles cache misses runs, and what the cache keys know of it.
//
// By default NVRTC runs in the compile worker (compile_worker.hpp); CUABI_COMPILE_IN_PROCESS runs
// it here for one compile, CUABI_COMPILE_ISOLATED in the worker even where the process default
// says otherwise. The process default is $CUABI_COMPILE_ISOLATION ("worker", the default, or
// "in-process"); without a usable worker executable it is in-process, and `cuabi info` says why.
//
// Keys carry the identity of the NVRTC that would compile: the file nvrtc_location() chose, until
// a loaded NVRTC (here or in a worker) reports its own -- they differ only when the file changed
// in between, e.g. during an upgrade, and then the loaded one counts from that moment on. When no
// NVRTC can be loaded, keys carry cache::kAnyNvrtc, so entries of any NVRTC are served.
#pragma once

#include <cstdint>
#include <string>

#include "cache/cached_image.hpp"
#include "compile/compile_worker.hpp"
#include "compile/nvrtc_program.hpp"
#include "core/error.hpp"
#include "driver/nvrtc_api.hpp"

namespace cuabi {

enum class Isolation { InProcess, Worker };

// The isolation for a compile with CUABI_COMPILE_* `flags` (validated: not both). Fails with
// CUABI_ERROR_NVRTC when CUABI_COMPILE_ISOLATED asks for a worker that cannot be found.
Status choose_isolation(uint32_t flags, Isolation* out);

// The process default and, when it is in-process for want of a worker, why ("" otherwise).
// A CUABI_COMPILE_ISOLATION that is neither "worker" nor "in-process" (or 0), and a
// CUABI_COMPILE_WORKER that is refused, are reported once: choose_isolation() fails with them
// the first time.
Isolation default_isolation(std::string* why);

// The NVRTC part of cache keys now (see the file comment). Cheap: one atomic load once known.
uint64_t key_nvrtc_identity();

// Facts about the NVRTC already loaded here or in a worker, or NULL when none is yet. Loads nothing.
const NvrtcFacts* loaded_nvrtc_facts();

// Facts about the NVRTC that compiles misses, loading it (here or in a worker) when needed. Fails
// with CUABI_ERROR_NVRTC_NOT_FOUND when it cannot be loaded (and from then on keys carry
// kAnyNvrtc), or as worker_nvrtc_facts(). `deadline` bounds starting a worker.
Status nvrtc_facts(Isolation isolation, const Deadline& deadline, const NvrtcFacts** out);

// Runs `job` with that NVRTC: run_nvrtc() here, or compile_in_worker() -- there with the
// precompiled header `pch_key` when not "" (compile/pch_policy.hpp; counted in pch_stats()).
Status run_job(Isolation isolation, const NvrtcJob& job, const Deadline& deadline, cache::CachedImage* out,
               std::string* out_log, const std::string& pch_key = "", const std::string& pch_cache_directory = "");

// The default deadline: long enough for a heavy compile (a 1 MiB source takes over 100 s on a
// busy machine) that a deadline never turns a legitimate compile into a failure by default; a
// hung compile is still ended, and a worker never outlives its host.
constexpr uint32_t kDefaultCompileTimeoutMs = 600000;

// Reads every compile setting of the environment now (timeout, isolation, workers, image
// verification), so that environment_problems() lists each value they refuse.
void read_compile_environment();

// The deadline of a compile whose options ask for `timeout_ms` (0: $CUABI_COMPILE_TIMEOUT_MS,
// else kDefaultCompileTimeoutMs). In-process compiles have none. A malformed
// $CUABI_COMPILE_TIMEOUT_MS is reported once (the first compile that uses it fails).
Status compile_deadline(Isolation isolation, uint32_t timeout_ms, Deadline* out);

// CUABI_NVRTC_STATE_NOT_LOADED, _LOADED (here or in a worker) or _UNAVAILABLE.
int32_t nvrtc_state();

}  // namespace cuabi
