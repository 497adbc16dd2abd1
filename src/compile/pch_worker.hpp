// Precompiled headers in the compile worker: NVRTC's side of compile/pch_policy.hpp.
//
// NVRTC (12.8+) builds a PCH as a copy of its PCH heap, and accepts a PCH only in a process whose
// heap lies at the address the PCH was made at -- otherwise it warns and compiles without it. So
// that a PCH one worker made serves the workers of every later process, a worker that is to use
// PCH (started with "--pch on") runs with address-space randomization off (it re-executes itself
// once with ADDR_NO_RANDOMIZE, as setarch -R does) and, right after loading NVRTC, sizes the heap
// (kPchHeapBytes) and makes NVRTC allocate it with a compile of an empty program: at that point
// every worker of the same cuabi and NVRTC has the same address-space layout, so the heap lands at
// the same address. The heap is never resized afterwards (that moves it, and every stored PCH
// would be refused): a header prefix that needs more than kPchHeapBytes is compiled without PCH.
//
// The worker compiles one job at a time, which is what NVRTC asks of PCH heap changes; in-process
// compiles (many threads, the host's randomized layout) never use PCH.
#pragma once

#include <cstdint>
#include <string>

#include "cache/cached_image.hpp"
#include "compile/nvrtc_program.hpp"
#include "core/error.hpp"
#include "driver/nvrtc_api.hpp"

namespace cuabi {

constexpr uint64_t kPchHeapBytes = uint64_t(512) << 20;

// The worker's argument that asks for PCH, and its value.
constexpr char kPchArgument[] = "--pch";
constexpr char kPchOn[] = "on";

// When `argv` asks for PCH and this process runs with a randomized address space: turns
// randomization off and re-executes this program with the same arguments (returns only when that
// could not be done; pch_readiness() then says why). Call first thing in main().
void reexecute_with_fixed_layout(int argc, char** argv);

// Whether this worker can create and use PCH: "" when it can, else why not. Sizes and allocates
// the PCH heap the first time (see the file comment). Not thread-safe: the worker's main thread.
std::string prepare_pch(const NvrtcApi& nvrtc);

// What became of the PCH in one compile.
enum class PchEvent : uint32_t {
    None = 0,        // no PCH was asked for, or the compile failed
    Reused = 1,      // a stored PCH was used
    Created = 2,     // none was stored; this compile made one and stored it
    Rejected = 3,    // NVRTC refused the stored PCH (another NVRTC or process layout): removed
    NotCreated = 4,  // none was stored and none could be made (note says why)
};

struct PchReport {
    PchEvent event = PchEvent::None;
    uint64_t refused = 0;  // damaged or foreign files found under the key and removed
    std::string note;      // why no PCH was made or stored, when one was not
};

// run_nvrtc() with the PCH stored under `key_hex` in the store of `cache_directory`, or creating
// it. The result is the one run_nvrtc() gives without PCH; the log is NVRTC's without its PCH
// messages. A store that cannot be opened costs the PCH (report->note), never the compile.
Status run_nvrtc_with_pch(const NvrtcApi& nvrtc, const NvrtcJob& job, const std::string& key_hex,
                          const std::string& cache_directory, cache::CachedImage* out, std::string* out_log,
                          PchReport* report);

// `log` without the lines NVRTC wrote about the PCH in `pch_directory` (and its "the warnings
// can be suppressed" remark when no other warning remains). Sets *used / *refused when NVRTC
// said it used the PCH / could not use it.
std::string strip_pch_messages(const std::string& log, const std::string& pch_directory, bool* used, bool* refused);

}  // namespace cuabi
