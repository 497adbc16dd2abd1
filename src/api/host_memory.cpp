// Entry points of the "Host memory" group of cuabi.h.
#include <cstdint>

#include "api/arguments.hpp"
#include "api/guard.hpp"
#include "api/versioned_struct.hpp"
#include "cuabi/cuabi.h"
#include "device/host_memory.hpp"

using namespace cuabi;

namespace {

// The options' flags, checked against those `known` for the call.
Status read_host_memory_flags(const cuabi_host_memory_options* options, uint32_t known, uint32_t* out_flags) {
    cuabi_host_memory_options read;
    Status status = read_struct(options, &read);
    if (status != CUABI_SUCCESS) return status;
    if ((read.flags & ~known) == CUABI_HOST_MEMORY_WRITE_COMBINED)
        return fail(CUABI_ERROR_INVALID_ARGUMENT,
                    "register without CUABI_HOST_MEMORY_WRITE_COMBINED, or allocate write-combined memory with "
                    "cuabi_host_memory_create()",
                    "cuabi_host_memory_options.flags 0x%x asks for write-combined memory, which only an allocation "
                    "can be; memory that already exists cannot change its caching",
                    read.flags);
    status = require_known_flags(read.flags, known, "cuabi_host_memory_options.flags", "CUABI_HOST_MEMORY_*");
    if (status == CUABI_SUCCESS) *out_flags = read.flags;
    return status;
}

constexpr uint32_t kAllocationFlags =
    CUABI_HOST_MEMORY_PORTABLE | CUABI_HOST_MEMORY_DEVICE_MAPPED | CUABI_HOST_MEMORY_WRITE_COMBINED;
constexpr uint32_t kRegistrationFlags = CUABI_HOST_MEMORY_PORTABLE | CUABI_HOST_MEMORY_DEVICE_MAPPED;

}  // namespace

extern "C" {

CUABI_API cuabi_status cuabi_host_memory_create(cuabi_context* context, size_t size,
                                                const cuabi_host_memory_options* options,
                                                cuabi_host_memory** out_memory) try {
    Status status = require_pointer(out_memory, "out_memory");
    if (status != CUABI_SUCCESS) return status;
    if (size == 0)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass a size of at least 1 byte", "host memory size is 0");
    uint32_t flags = 0;
    if ((status = read_host_memory_flags(options, kAllocationFlags, &flags)) != CUABI_SUCCESS) return status;
    std::shared_ptr<Context> parent = acquire<Context>(context, "context");
    if (!parent) return refused_handle();
    std::shared_ptr<HostMemory> memory;
    status = HostMemory::allocate(std::move(parent), size, flags, &memory);
    return publish_created(status, std::move(memory), out_memory);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_host_memory_register(cuabi_context* context, void* pointer, size_t size,
                                                  const cuabi_host_memory_options* options,
                                                  cuabi_host_memory** out_memory) try {
    Status status = require_pointer(out_memory, "out_memory");
    if (status == CUABI_SUCCESS) status = require_pointer(pointer, "pointer");
    if (status != CUABI_SUCCESS) return status;
    if (size == 0)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass the number of bytes to register (at least 1)", "size is 0");
    if (size > UINTPTR_MAX - reinterpret_cast<uintptr_t>(pointer))
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass the size of the memory at pointer",
                    "%zu bytes at %p run past the end of the address space", size, pointer);
    uint32_t flags = 0;
    if ((status = read_host_memory_flags(options, kRegistrationFlags, &flags)) != CUABI_SUCCESS) return status;
    std::shared_ptr<Context> parent = acquire<Context>(context, "context");
    if (!parent) return refused_handle();
    std::shared_ptr<HostMemory> memory;
    status = HostMemory::register_range(std::move(parent), pointer, size, flags, &memory);
    return publish_created(status, std::move(memory), out_memory);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_host_memory_get_pointer(cuabi_host_memory* memory, void** out_pointer) try {
    return get_value<HostMemory>(memory, "memory", out_pointer, "out_pointer",
                                 [](HostMemory& read) { return read.pointer(); });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_host_memory_get_size(cuabi_host_memory* memory, size_t* out_size) try {
    return get_value<HostMemory>(memory, "memory", out_size, "out_size", [](HostMemory& read) { return read.size(); });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_host_memory_get_device_address(cuabi_host_memory* memory, uint64_t* out_address) try {
    if (Status status = require_pointer(out_address, "out_address")) return status;
    return with_pinned<HostMemory>(memory, "memory",
                                   [&](HostMemory& read) { return read.device_address(out_address); });
} catch (...) {
    return guard::failed(__func__);
}

}  // extern "C"
