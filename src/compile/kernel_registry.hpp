// Which cuabi kernel owns a CUfunction: the compile layer registers every kernel object it makes,
// and graphs look up the kernel behind each kernel node here.
//
// A captured graph only knows the CUfunction (or CUkernel) of each kernel node. To report the
// cuabi_kernel in the inventory, validate argument updates against the kernel's facts, and keep
// the kernel -- and so its module's code -- alive for as long as the graph can replay it, graphs
// look the function up here. Kernels are registered once, when their object is created; the
// registry holds weak references, so it never keeps a kernel alive by itself.
#pragma once

#include <memory>

namespace cuabi {

class Kernel;

// Registers `kernel` under its function handle. Off the hot path (once per kernel object);
// never fails: if the entry cannot be stored, graphs simply report the kernel as foreign.
void register_kernel(const std::shared_ptr<Kernel>& kernel);

// The live cuabi kernel whose function handle is `function` (a CUfunction or CUkernel value), or
// nullptr when none is registered or all registered ones are gone.
std::shared_ptr<Kernel> find_kernel(const void* function);

}  // namespace cuabi
