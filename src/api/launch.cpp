// Entry points of the "Launch" group of cuabi.h: launches, parameter layout, occupancy.
#include <cstddef>

#include "api/arguments.hpp"
#include "api/enqueue.hpp"
#include "api/guard.hpp"
#include "api/plain_launch.hpp"
#include "api/versioned_struct.hpp"
#include "compile/kernel.hpp"
#include "cuabi/cuabi.h"
#include "device/stream.hpp"
#include "launch/kernel_facts.hpp"
#include "launch/launcher.hpp"
#include "launch/occupancy.hpp"

using namespace cuabi;

namespace {

constexpr uint32_t kKnownLaunchFlags = CUABI_LAUNCH_COOPERATIVE | CUABI_LAUNCH_SYNCHRONIZE | CUABI_LAUNCH_PRIORITY |
                                      CUABI_LAUNCH_PROGRAMMATIC_DEPENDENT;

// The launch layer's copy of a config read whole by read_struct (which fills what a smaller,
// older struct lacks with the defaults).
launch::LaunchConfig translate(const cuabi_launch_config& config) {
    launch::LaunchConfig out;
    out.flags = config.flags;
    for (int i = 0; i < 3; ++i) {
        out.grid[i] = config.grid[i];
        out.block[i] = config.block[i];
        out.cluster[i] = config.cluster[i];
    }
    out.shared_memory_bytes = config.shared_memory_bytes;
    out.stream = config.stream;
    out.priority = config.priority;
    return out;
}

// The general path: every launch the fast path does not take, and every invalid one.
Status launch_with(cuabi_kernel* kernel, const cuabi_launch_config* config, const launch::Arguments& arguments) {
    cuabi_launch_config read;
    Status status = read_struct(config, &read);
    if (status != CUABI_SUCCESS) return status;
    if ((status = require_known_flags(read.flags, kKnownLaunchFlags, "cuabi_launch_config.flags", "CUABI_LAUNCH_*")) !=
        CUABI_SUCCESS)
        return status;
    if (read.reserved != 0)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "leave cuabi_launch_config.reserved 0 (cuabi_launch_config_init does)",
                    "cuabi_launch_config.reserved is %u", read.reserved);
    Pinned<Kernel> pinned(kernel, "kernel");
    if (!pinned.ok()) return refused_handle();
    OptionalPinned<Stream> stream(read.stream, "cuabi_launch_config.stream");
    if (!stream.ok()) return refused_handle();
    // A refused launch on a capturing stream ends cuabi's capture, so the stream never stays capturing.
    const launch::LaunchConfig translated = translate(read);
    return enqueue_on(stream.get(), "cuabi_launch",
                      [&] { return launch::launch(*pinned, translated, stream.get(), arguments); });
}

// The kernel's parameter layout, or UNSUPPORTED when the driver cannot tell it.
Status layout_of(Kernel& kernel, const launch::ParamLayout** out) {
    Status status = kernel.context().make_current();
    if (status != CUABI_SUCCESS) return status;
    launch::KernelFacts* facts = nullptr;
    if ((status = launch::kernel_facts(kernel, &facts)) != CUABI_SUCCESS) return status;
    if (!facts->layout.known)
        return fail(CUABI_ERROR_UNSUPPORTED, "install an NVIDIA driver for CUDA 12.4 or newer",
                    "the CUDA driver (version %d.%d) has no cuFuncGetParamInfo, so kernel '%s' cannot report its "
                    "parameter layout",
                    kernel.context().api().version / 1000, (kernel.context().api().version % 1000) / 10,
                    kernel.name().c_str());
    *out = &facts->layout;
    return CUABI_SUCCESS;
}

// Runs `read` on the pinned kernel and its parameter layout.
template <typename Read>
Status with_layout(cuabi_kernel* kernel, Read&& read) {
    return with_pinned<Kernel>(kernel, "kernel", [&](Kernel& pinned) {
        const launch::ParamLayout* layout = nullptr;
        Status status = layout_of(pinned, &layout);
        return status == CUABI_SUCCESS ? read(pinned, *layout) : status;
    });
}

}  // namespace

extern "C" {

CUABI_API cuabi_status cuabi_launch(cuabi_kernel* kernel, const cuabi_launch_config* config,
                                    const cuabi_kernel_arg* args, size_t arg_count) try {
    launch::PlainLaunch plain;
    if (plain_launch(config, &plain) && launch::launch_fast(kernel, plain, args, arg_count)) return CUABI_SUCCESS;
    launch::Arguments arguments;
    arguments.table = args;
    arguments.count = arg_count;
    return launch_with(kernel, config, arguments);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_launch_packed(cuabi_kernel* kernel, const cuabi_launch_config* config,
                                           const void* packed, size_t packed_size) try {
    launch::PlainLaunch plain;
    if (plain_launch(config, &plain) && launch::launch_fast_packed(kernel, plain, packed, packed_size))
        return CUABI_SUCCESS;
    launch::Arguments arguments;
    arguments.packed_form = true;
    arguments.packed = packed;
    arguments.packed_size = packed_size;
    return launch_with(kernel, config, arguments);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_kernel_get_param_count(cuabi_kernel* kernel, size_t* out_count) try {
    if (Status status = require_pointer(out_count, "out_count")) return status;
    return with_layout(kernel, [&](Kernel&, const launch::ParamLayout& layout) {
        *out_count = layout.count;
        return CUABI_SUCCESS;
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_kernel_get_param_info(cuabi_kernel* kernel, size_t index, size_t* out_offset,
                                               size_t* out_size) try {
    Status status = require_pointer(out_offset, "out_offset");
    if (status == CUABI_SUCCESS) status = require_pointer(out_size, "out_size");
    if (status != CUABI_SUCCESS) return status;
    return with_layout(kernel, [&](Kernel& read, const launch::ParamLayout& layout) {
        if (index >= layout.count)
            return fail(CUABI_ERROR_OUT_OF_BOUNDS, "pass an index below cuabi_kernel_get_param_count()",
                        "parameter index %zu is out of range; kernel '%s' has %u parameter%s", index,
                        read.name().c_str(), layout.count, layout.count == 1 ? "" : "s");
        *out_offset = layout.slots[index].offset;
        *out_size = layout.slots[index].size;
        return CUABI_SUCCESS;
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_kernel_get_max_active_blocks_per_sm(cuabi_kernel* kernel, uint32_t block_threads,
                                                             uint32_t shared_memory_bytes, uint32_t* out_blocks) try {
    if (Status status = require_pointer(out_blocks, "out_blocks")) return status;
    return with_pinned<Kernel>(kernel, "kernel", [&](Kernel& pinned) {
        return launch::max_active_blocks(pinned, block_threads, shared_memory_bytes, out_blocks);
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_kernel_get_max_active_clusters(cuabi_kernel* kernel, const cuabi_launch_config* config,
                                                            uint32_t* out_clusters) try {
    Status status = require_pointer(out_clusters, "out_clusters");
    if (status == CUABI_SUCCESS) status = require_pointer(config, "config");
    if (status != CUABI_SUCCESS) return status;
    cuabi_launch_config read;
    if ((status = read_struct(config, &read)) != CUABI_SUCCESS) return status;
    launch::Shape shape;
    for (int i = 0; i < 3; ++i) {
        shape.block[i] = read.block[i];
        shape.cluster[i] = read.cluster[i];
    }
    shape.dynamic_shared_bytes = read.shared_memory_bytes;
    return with_pinned<Kernel>(kernel, "kernel",
                               [&](Kernel& pinned) { return launch::max_active_clusters(pinned, shape, out_clusters); });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_kernel_suggest_block_size(cuabi_kernel* kernel, uint32_t shared_memory_bytes,
                                                       uint32_t* out_block_threads, uint32_t* out_min_grid_blocks) try {
    Status status = require_pointer(out_block_threads, "out_block_threads");
    if (status == CUABI_SUCCESS) status = require_pointer(out_min_grid_blocks, "out_min_grid_blocks");
    if (status != CUABI_SUCCESS) return status;
    return with_pinned<Kernel>(kernel, "kernel", [&](Kernel& pinned) {
        return launch::suggest_block_size(pinned, shared_memory_bytes, out_block_threads, out_min_grid_blocks);
    });
} catch (...) {
    return guard::failed(__func__);
}

}  // extern "C"
