// The kernels (__global__ entry points) of a CUBIN, read from its symbol table without a GPU:
// function symbols that the CUDA ELF marks as entries (st_other bit STO_CUDA_ENTRY). Device
// functions and undefined externals are not kernels.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace cuabi {
namespace image {

constexpr unsigned kStoCudaEntry = 0x10;

// The kernel names of `size` bytes that check() found a sound CUBIN, in symbol-table order.
// Reads only within [data, data + size) whatever the bytes say.
std::vector<std::string> cubin_kernel_names(const void* data, size_t size);

}  // namespace image
}  // namespace cuabi
