#include "launch/launcher.hpp"

#include "launch/capture_retention.hpp"
#include "launch/fast_path.hpp"
#include "launch/geometry.hpp"
#include "launch/kernel_facts.hpp"
#include "launch/occupancy.hpp"
#include "range/ranges.hpp"

namespace cuabi {
namespace launch {
namespace {

Shape shape_of(const LaunchConfig& config) {
    Shape shape;
    for (int i = 0; i < 3; ++i) {
        shape.grid[i] = config.grid[i];
        shape.block[i] = config.block[i];
        shape.cluster[i] = config.cluster[i];
    }
    shape.dynamic_shared_bytes = config.shared_memory_bytes;
    shape.cooperative = (config.flags & CUABI_LAUNCH_COOPERATIVE) != 0;
    shape.prioritized = (config.flags & CUABI_LAUNCH_PRIORITY) != 0;
    shape.programmatic = (config.flags & CUABI_LAUNCH_PROGRAMMATIC_DEPENDENT) != 0;
    shape.priority = config.priority;
    return shape;
}

// Every check that needs no driver call, cheapest first.
Status check_request(const char* name, const KernelFacts& facts, const Shape& shape, const Arguments& arguments,
                     Geometry* geometry) {
    Status status = check_geometry(name, facts.device, facts.limits, shape, geometry);
    if (status == CUABI_SUCCESS) status = check_shared_memory(name, facts.device, facts.limits, shape.dynamic_shared_bytes);
    if (status == CUABI_SUCCESS) status = check_cluster_shape(name, facts.device, facts.limits, shape);
    if (status == CUABI_SUCCESS && shape.cooperative) status = check_cooperative_support(name, facts.device);
    if (status == CUABI_SUCCESS && shape.cooperative) status = check_cooperative_threads(name, facts.device, shape, *geometry);
    if (status == CUABI_SUCCESS && shape.programmatic) status = check_programmatic(name, facts.device);
    if (status != CUABI_SUCCESS) return status;
    return arguments.packed_form ? check_packed(name, facts.layout, arguments.packed, arguments.packed_size)
                                 : check_arguments(name, facts.layout, arguments.table, arguments.count);
}

// The checks that ask the driver (answers cached per kernel): opt-in to large shared memory, and
// residency of cooperative and cluster launches.
Status prepare_kernel(const Kernel& kernel, KernelFacts& facts, const Shape& shape, const Geometry& geometry) {
    const char* name = kernel.name().c_str();
    Status status = ensure_dynamic_shared(kernel, facts, shape.dynamic_shared_bytes);
    if (status == CUABI_SUCCESS && shape.cooperative) {
        uint32_t blocks = 0;
        status = blocks_per_multiprocessor(kernel, facts, geometry.threads_per_block, shape.dynamic_shared_bytes, &blocks);
        if (status == CUABI_SUCCESS) status = check_cooperative_occupancy(name, facts.device, shape, geometry, blocks);
    }
    if (status == CUABI_SUCCESS && shape.has_cluster()) {
        uint32_t blocks = 0;
        status = max_cluster_blocks(kernel, facts, shape, &blocks);
        if (status == CUABI_SUCCESS) status = check_cluster_size(name, facts.device, shape, blocks);
    }
    return status;
}

// The driver call. Plain launches use cuLaunchKernel; launches with attributes (cooperative,
// cluster, priority, programmatic dependent) need cuLaunchKernelEx.
CUresult submit(const Kernel& kernel, const DeviceLimits& device, const Shape& shape, CUstream stream, void** params,
                void** extra) {
    const DriverApi& api = kernel.context().api();
    if (!shape.needs_attributes())
        return api.cuLaunchKernel(kernel.function(), shape.grid[0], shape.grid[1], shape.grid[2], shape.block[0],
                                  shape.block[1], shape.block[2], shape.dynamic_shared_bytes, stream, params, extra);
    CUlaunchAttribute attributes[4] = {};
    unsigned count = 0;
    if (shape.cooperative) {
        attributes[count].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
        attributes[count].value.cooperative = 1;
        ++count;
    }
    if (shape.has_cluster()) {
        attributes[count].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attributes[count].value.clusterDim.x = shape.cluster[0];
        attributes[count].value.clusterDim.y = shape.cluster[1];
        attributes[count].value.clusterDim.z = shape.cluster[2];
        ++count;
    }
    if (shape.prioritized) {
        attributes[count].id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
        attributes[count].value.priority = clamp_priority(device, shape.priority);
        ++count;
    }
    if (shape.programmatic) {
        attributes[count].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        attributes[count].value.programmaticStreamSerializationAllowed = 1;
        ++count;
    }
    CUlaunchConfig config = driver_config(shape, stream);
    config.attrs = attributes;
    config.numAttrs = count;
    return api.cuLaunchKernelEx(&config, kernel.function(), params, extra);
}

Status launch_failed(const Kernel& kernel, const Shape& shape, CUresult result) {
    const uint32_t* g = shape.grid;
    const uint32_t* b = shape.block;
    return fail_with_cu_result(
        CUABI_ERROR_LAUNCH_FAILED, static_cast<int32_t>(result),
        "if the error is CUDA_ERROR_ILLEGAL_ADDRESS, CUDA_ERROR_LAUNCH_FAILED or another sticky error, an earlier "
        "kernel faulted and the process must recreate its CUDA context; otherwise check the arguments against the "
        "kernel's parameters",
        "%s failed with %s for kernel '%s': grid (%u,%u,%u), block (%u,%u,%u), %u bytes of dynamic shared "
        "memory%s%s%s%s",
        shape.needs_attributes() ? "cuLaunchKernelEx" : "cuLaunchKernel", cu_result_text(result).c_str(),
        kernel.name().c_str(), g[0], g[1], g[2], b[0], b[1], b[2], shape.dynamic_shared_bytes,
        shape.cooperative ? ", cooperative" : "", shape.has_cluster() ? ", cluster" : "",
        shape.prioritized ? format(", priority %d", shape.priority).c_str() : "",
        shape.programmatic ? ", programmatic dependent" : "");
}

// The driver's pointer table from arguments the fast path admits (false for any it does not):
// addresses inside a packed buffer, or the values of an argument table.
[[gnu::always_inline]] inline bool fill_from_packed(const FastPath& fast, const void* packed, size_t size,
                                                    void** table) {
    if (!admits_packed(fast, packed, size)) return false;
    char* base = static_cast<char*>(const_cast<void*>(packed));
    for (uint32_t i = 0; i < fast.param_count; ++i) table[i] = base + fast.params[i].offset;
    return true;
}

[[gnu::always_inline]] inline bool fill_from_table(const FastPath& fast, const cuabi_kernel_arg* args, size_t count,
                                                   void** table) {
    if (!admits_table(fast, args, count)) return false;
    for (size_t i = 0; i < count; ++i) table[i] = const_cast<void*>(args[i].value);
    return true;
}

// Whether the fast path takes a launch of `config` for this kernel: it has launched before and the
// shape is within its limits.
[[gnu::always_inline]] inline bool admits_launch(const FastPath& fast, const PlainLaunch& config) {
    return fast.eligible.load(std::memory_order_acquire) &&
           admits_shape(fast, config, fast.opted_in_shared.load(std::memory_order_acquire));
}

// The driver call of a fast launch; false when the driver refused (nothing was enqueued).
[[gnu::always_inline]] inline bool submit_fast(const FastPath& fast, const PlainLaunch& config, CUstream stream,
                                               void** table) {
    return fast.launch_kernel(fast.function, config.grid[0], config.grid[1], config.grid[2], config.block[0],
                              config.block[1], config.block[2], config.shared_memory_bytes, stream, table,
                              nullptr) == CUDA_SUCCESS;
}

// The whole fast path for both argument forms, inlined into the two entry points below so that
// each is one compact function whose instructions all sit together.
//
// It does not make the kernel's context current: with a stream, the driver takes the context from
// the stream (documented for CUkernel launches; verified on an H100 with driver 580 for the
// context-bound CUfunction cuabi launches, with another context or none current), so asking the
// driver which context is current would cost a call for nothing. Should a driver still refuse, the
// general path makes the context current and tries once more, then reports.
template <bool kPacked>
[[gnu::always_inline]] inline bool launch_fast(cuabi_kernel* kernel_handle, const PlainLaunch& config,
                                               const void* arguments, size_t size) {
    // During a capture cuabi began, the general path makes the graph keep the buffers the
    // arguments point into (capture_retention.hpp); outside captures this branch is never taken.
    if (capturing_anywhere()) return false;
    Pinned<Kernel> kernel(kernel_handle, nullptr);  // quiet: the general path reports a bad handle
    if (!kernel.ok()) return false;
    const FastPath& fast = kernel->fast_path_;
    if (!admits_launch(fast, config)) return false;
    void* table[kFastParams];
    if (!(kPacked ? fill_from_packed(fast, arguments, size, table)
                  : fill_from_table(fast, static_cast<const cuabi_kernel_arg*>(arguments), size, table)))
        return false;
    Pinned<Stream> stream(config.stream, nullptr);
    if (!stream.ok() || stream->cu_context() != fast.context) return false;
    if (!submit_fast(fast, config, stream->cu_stream(), table))
        return false;  // nothing was enqueued; the general path retries and reports
    Counters::bump(fast.counters->launches);
    if (kPacked) Counters::bump(fast.counters->launches_packed);
    return true;
}

// The items of a batch that launch_fast_run takes together: the kernel handle, config pointer and
// argument form (packed or table) of the run's first item.
inline bool same_launch(const cuabi_launch_item& item, const cuabi_launch_item& first) {
    return item.kernel == first.kernel && item.config == first.config &&
           (item.packed != nullptr) == (first.packed != nullptr);
}

// The driver's pointer table for one batch item the fast path admits, or false.
inline bool fill_item_table(const FastPath& fast, const cuabi_launch_item& item, void** table) {
    if (item.packed == nullptr) return fill_from_table(fast, item.args, item.arg_count, table);
    return item.args == nullptr && item.arg_count == 0 && fill_from_packed(fast, item.packed, item.packed_size, table);
}

void count_launch(const Context& context, const Shape& shape, bool packed) {
    Counters& counters = context.counters();
    Counters::bump(counters.launches);
    if (packed) Counters::bump(counters.launches_packed);
    if (shape.cooperative) Counters::bump(counters.launches_cooperative);
    if (shape.has_cluster()) Counters::bump(counters.launches_cluster);
}

}  // namespace

bool launch_fast(cuabi_kernel* kernel, const PlainLaunch& config, const cuabi_kernel_arg* args, size_t count) {
    return launch_fast<false>(kernel, config, args, count);
}

bool launch_fast_packed(cuabi_kernel* kernel, const PlainLaunch& config, const void* packed, size_t packed_size) {
    return launch_fast<true>(kernel, config, packed, packed_size);
}

size_t launch_fast_run(const cuabi_launch_item* items, size_t count, const PlainLaunch& config) {
    if (count == 0 || capturing_anywhere()) return 0;
    const cuabi_launch_item& first = items[0];
    Pinned<Kernel> kernel(first.kernel, nullptr);
    if (!kernel.ok()) return 0;
    const FastPath& fast = kernel->fast_path_;
    if (!admits_launch(fast, config)) return 0;
    Pinned<Stream> stream(config.stream, nullptr);
    if (!stream.ok() || stream->cu_context() != fast.context) return 0;
    const CUstream cu_stream = stream->cu_stream();
    size_t launched = 0, packed = 0;
    // Per item, what a single launch checks that may differ between the items: the arguments, and
    // whether a capture began meanwhile (then the general path makes the graph retain them).
    for (; launched < count; ++launched) {
        const cuabi_launch_item& item = items[launched];
        void* table[kFastParams];
        if (!same_launch(item, first) || capturing_anywhere() || !fill_item_table(fast, item, table)) break;
        if (!submit_fast(fast, config, cu_stream, table))
            break;  // nothing was enqueued for this item; the general path retries and reports
        packed += item.packed != nullptr;
    }
    Counters::bump(fast.counters->launches, launched);
    Counters::bump(fast.counters->launches_packed, packed);
    return launched;
}

Status launch(Kernel& kernel, const LaunchConfig& config, const Stream* stream, const Arguments& arguments) {
    range::Scope scope(range::Phase::Launch);
    const Context& context = kernel.context();
    const char* name = kernel.name().c_str();
    Status status = context.make_current();
    if (status != CUABI_SUCCESS) return status;
    KernelFacts* facts = nullptr;
    if ((status = kernel_facts(kernel, &facts)) != CUABI_SUCCESS) return status;
    if (stream != nullptr && stream->context().cu_context() != context.cu_context())
        return check_stream_context(context, stream, format("kernel '%s'", name).c_str());

    const Shape shape = shape_of(config);
    Geometry geometry;
    if ((status = check_request(name, *facts, shape, arguments, &geometry)) != CUABI_SUCCESS) return status;
    if ((status = prepare_kernel(kernel, *facts, shape, geometry)) != CUABI_SUCCESS) return status;
    if (capturing_anywhere() && stream != nullptr &&
        (status = retain_captured_arguments(*stream, facts->layout, arguments.packed_form ? nullptr : arguments.table,
                                            arguments.count, arguments.packed)) != CUABI_SUCCESS)
        return status;

    // The pointer table cuLaunchKernel reads: the caller's values, or addresses inside the packed
    // buffer. Without a known layout (or beyond the table's size) the packed buffer goes to the
    // driver whole instead.
    void* table[kMaxTableArguments];
    void** params = table;
    size_t packed_size = arguments.packed_size;
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, const_cast<void*>(arguments.packed), CU_LAUNCH_PARAM_BUFFER_SIZE,
                     &packed_size, CU_LAUNCH_PARAM_END};
    void** extra_or_null = nullptr;
    const ParamLayout& layout = facts->layout;
    if (!arguments.packed_form) {
        for (size_t i = 0; i < arguments.count; ++i) table[i] = const_cast<void*>(arguments.table[i].value);
    } else if (layout.known && layout.count <= kMaxTableArguments) {
        char* base = static_cast<char*>(const_cast<void*>(arguments.packed));
        for (uint32_t i = 0; i < layout.count; ++i) table[i] = base + layout.slots[i].offset;
    } else {
        params = nullptr;
        if (packed_size > 0) extra_or_null = extra;
    }

    CUresult result = submit(kernel, facts->device, shape, submission_stream(stream), params, extra_or_null);
    if (result != CUDA_SUCCESS) return launch_failed(kernel, shape, result);
    count_launch(context, shape, arguments.packed_form);

    if (stream == nullptr) return complete_if_synchronous(context, nullptr, name);
    if ((config.flags & CUABI_LAUNCH_SYNCHRONIZE) != 0) return stream->synchronize();
    return CUABI_SUCCESS;
}

}  // namespace launch
}  // namespace cuabi
