// Graphs keep alive the buffers their kernels reach through pointer-sized arguments.
//
// A kernel captured with buffer B's address as an argument writes B at every replay; destroy B,
// allocate C of the same size (the allocator hands out B's address again) and the replay writes C.
// So while a capture that cuabi began (cuabi_graph_capture_begin) is in progress anywhere in the
// process, every validated launch hands the values of its 8-byte arguments to the graph layer,
// which makes the graph being captured on the launch's stream retain each live cuabi buffer of the
// stream's context such a value points into (graph/retention.hpp).
//
// Plain launches pay one relaxed load and a branch that is never taken outside captures: the fast
// path (launcher.cpp) declines while a capture is in progress, and the general path does the work.
// The graph layer installs the retainer (the launch layer may not call upward).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "core/error.hpp"
#include "device/stream.hpp"
#include "launch/arguments.hpp"

namespace cuabi {
namespace launch {

// How many captures cuabi began and has not ended, in the whole process.
extern std::atomic<uint32_t> captures_in_progress;
inline bool capturing_anywhere() { return captures_in_progress.load(std::memory_order_relaxed) != 0; }

// Makes the graph being captured on `stream` (if it captures) keep the live cuabi buffers that
// `values` point into.
using ArgumentRetainer = Status (*)(const Stream& stream, const uint64_t* values, size_t count);
void install_argument_retainer(ArgumentRetainer retainer) noexcept;

// The values of the 8-byte arguments -- each may be a device address -- of a table (sizes as given)
// or a packed buffer (at the layout's offsets; none when the layout is unknown). Returns how many
// were written to `out` (at most `capacity`).
size_t pointer_sized_values(const ParamLayout& layout, const cuabi_kernel_arg* table, size_t count,
                            const void* packed, uint64_t* out, size_t capacity);

// During a capture: hands the launch's pointer-sized argument values to the retainer.
Status retain_captured_arguments(const Stream& stream, const ParamLayout& layout, const cuabi_kernel_arg* table,
                                 size_t count, const void* packed);

}  // namespace launch
}  // namespace cuabi
