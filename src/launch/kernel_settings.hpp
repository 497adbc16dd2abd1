// Attributes a caller sets on a kernel's function (cuabi_kernel_set_attribute): the preferred
// shared memory carveout, non-portable cluster sizes and the L1/shared cache preference. Each is
// checked against the device first; a change that alters what the occupancy calculator answers
// drops the kernel's cached answers, so the next launch checks against the new limits.
#pragma once

#include <cstdint>

#include "compile/kernel.hpp"
#include "core/error.hpp"

namespace cuabi {
namespace launch {

// CUABI_KERNEL_ATTRIBUTE_* `attribute` to `value`: INVALID_ARGUMENT for an unknown attribute or a
// value outside its range, UNSUPPORTED for non-portable clusters on a device without clusters.
Status set_kernel_attribute(Kernel& kernel, int32_t attribute, int32_t value);

}  // namespace launch
}  // namespace cuabi
