// What the launch path knows about a kernel, computed once (on its first launch or layout query)
// and then only read: parameter layout, attributes, the device's limits, and small caches of
// occupancy answers and of the dynamic shared memory the kernel has been opted in to.
//
// The facts hang off Kernel::launch_facts_, created under Kernel::facts_once_, so after the first
// call reaching them costs one acquire load; the kernel frees them with the function stored beside
// them (Kernel::release_facts_), so the compile layer never calls up into this one.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "compile/kernel.hpp"
#include "launch/arguments.hpp"
#include "launch/fast_path.hpp"
#include "launch/limits.hpp"
#include "launch/occupancy_cache.hpp"

namespace cuabi {
namespace launch {

struct KernelFacts {
    // CUABI_SUCCESS, or the failure that kept the facts from being read; it is replayed, message
    // and all, on every later use rather than retried on the launch path.
    Status status = CUABI_SUCCESS;
    std::string error_message;
    int32_t error_cu_result = 0;

    DeviceLimits device;
    KernelLimits limits;
    std::unique_ptr<ParamSlot[]> params;
    ParamLayout layout;  // views `params`

    OccupancyCache blocks_per_multiprocessor;  // cuOccupancyMaxActiveBlocksPerMultiprocessor
    OccupancyCache max_cluster_blocks;         // cuOccupancyMaxPotentialClusterSize
};

// The kernel's facts in *out. The kernel's context must be current on the first call (the launch
// path makes it so). A failure to read them is recorded once and returned on every call.
Status kernel_facts(Kernel& kernel, KernelFacts** out);

// Makes sure the kernel may use `shared_bytes` of dynamic shared memory: above what it is opted in
// to (48 KiB minus its static shared memory at first) it raises
// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES. check_shared_memory must have passed.
Status ensure_dynamic_shared(const Kernel& kernel, KernelFacts& facts, uint32_t shared_bytes);

}  // namespace launch
}  // namespace cuabi
