// Finding what every compile keys by -- which NVRTC file would compile (its identity) and where
// the CUDA Toolkit's headers are -- and opening the kernel cache's directory, on a thread of its
// own while a context is being created, so that a process's first compile (usually a disk-cache
// hit) does not pay for the search and the directory checks.
//
// The search is a few dozen stat() calls and small reads (about 0.1 ms on a GPU host, where each
// system call costs microseconds); creating a context takes the driver tens of milliseconds, so
// the search finishes long before it. Each answer is computed once per process behind
// std::call_once, so a compile that arrives first simply does the work itself (or waits for the
// thread's call to finish): nothing is done twice and nothing is skipped. Only reads: nothing is
// created or written (a cache directory that does not exist yet is left alone), no NVRTC or
// worker is loaded or started.
#pragma once

namespace cuabi {
namespace discovery {

// Starts the search on a background thread, once per process; later calls do nothing. Quiet: if
// the thread cannot be started, the first compile does the search as it would have. Thread-safe.
void start() noexcept;

// Waits until a search start() began has finished (the library's unload waits for it too, so the
// thread never runs code that is being unmapped). Thread-safe.
void finish() noexcept;

}  // namespace discovery
}  // namespace cuabi
