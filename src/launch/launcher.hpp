// The validated launch: every check of launch/geometry and launch/arguments, the
// shared memory opt-in, the occupancy checks of cooperative and cluster launches, then one driver
// call, the counters and, for synchronous launches, the wait. The common launch goes a fast path
// with the same checks first (launch/fast_path.hpp).
//
// Neither path allocates or takes a lock after a kernel's first launch: kernel facts are read
// once, the argument pointer table lives on the stack, counters are relaxed atomics.
#pragma once

#include <cstddef>

#include "compile/kernel.hpp"
#include "cuabi/cuabi.h"
#include "device/stream.hpp"
#include "launch/limits.hpp"

namespace cuabi {
namespace launch {

// The arguments in one of the two forms the ABI takes.
struct Arguments {
    bool packed_form = false;
    const cuabi_kernel_arg* table = nullptr;  // table form: one entry per parameter
    size_t count = 0;
    const void* packed = nullptr;  // packed form: one buffer at the parameter offsets
    size_t packed_size = 0;
};

// The fast path (launch/fast_path.hpp), straight from the public arguments: returns true when it
// launched (and counted) the launch. Returns false having recorded nothing for anything else -- a
// launch it does not take, an invalid one, a driver refusal -- and the caller then takes the
// general path (launch() below), which checks everything again and reports.
bool launch_fast(cuabi_kernel* kernel, const PlainLaunch& launch, const cuabi_kernel_arg* args, size_t count);
bool launch_fast_packed(cuabi_kernel* kernel, const PlainLaunch& launch, const void* packed, size_t packed_size);

// The fast path for a run of batch items (cuabi_launch_batch) that share the first item's kernel
// handle, config pointer and argument form, with the kernel and stream pinned and the shape
// admitted once: items[0..n) are launched and counted exactly as n launch_fast or
// launch_fast_packed calls would, and n is returned. It stops, having recorded nothing, at the
// first item it does not take (another kernel, config or form, arguments the fast path does not
// admit, a capture begun meanwhile, a driver refusal); 0 when the first item is not for it.
// `config` is items[0].config as a PlainLaunch.
size_t launch_fast_run(const cuabi_launch_item* items, size_t count, const PlainLaunch& config);

// Launches `kernel` on `stream` (NULL: the per-thread stream, then waits). `config` has been read
// by src/api, its struct_size and flags checked.
Status launch(Kernel& kernel, const LaunchConfig& config, const Stream* stream, const Arguments& arguments);

}  // namespace launch
}  // namespace cuabi
