// A kernel's attributes on its context's device (cuFuncGetAttribute), for
// cuabi_kernel_get_attributes().
#pragma once

#include "compile/kernel.hpp"
#include "cuabi/cuabi.h"

namespace cuabi {

Status read_kernel_attributes(const Kernel& kernel, cuabi_kernel_attributes* out);

}  // namespace cuabi
