// The live buffers that own their memory, by device address: so that a value a kernel receives as
// an argument can be traced to the cuabi buffer it points into (launch/capture_retention.hpp).
// Owned buffers never overlap (each is its own cuMemAlloc); wrapped memory and module variables
// are not listed -- cuabi never frees them, so there is nothing for a graph to keep.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <memory>

namespace cuabi {

class Buffer;

namespace buffer_directory {

// Lists `buffer` (owned, just allocated). Throws std::bad_alloc when the host cannot.
void add(const std::shared_ptr<const Buffer>& buffer);
// Unlists `buffer` (from its destructor, before its memory is freed).
void remove(const Buffer* buffer) noexcept;
// The live buffer of CUDA context `context` whose bytes hold `address`, or nullptr.
std::shared_ptr<const Buffer> find(CUcontext context, uint64_t address);

}  // namespace buffer_directory
}  // namespace cuabi
