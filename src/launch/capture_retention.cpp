#include "launch/capture_retention.hpp"

#include <cstring>

namespace cuabi {
namespace launch {
namespace {

std::atomic<ArgumentRetainer> retainer{nullptr};

}  // namespace

std::atomic<uint32_t> captures_in_progress{0};

void install_argument_retainer(ArgumentRetainer installed) noexcept {
    retainer.store(installed, std::memory_order_release);
}

size_t pointer_sized_values(const ParamLayout& layout, const cuabi_kernel_arg* table, size_t count,
                            const void* packed, uint64_t* out, size_t capacity) {
    size_t found = 0;
    if (table != nullptr) {
        for (size_t i = 0; i < count && found < capacity; ++i)
            if (table[i].size == sizeof(uint64_t) && table[i].value != nullptr)
                std::memcpy(&out[found++], table[i].value, sizeof(uint64_t));
    } else if (packed != nullptr && layout.known) {
        const unsigned char* base = static_cast<const unsigned char*>(packed);
        for (uint32_t i = 0; i < layout.count && found < capacity; ++i)
            if (layout.slots[i].size == sizeof(uint64_t))
                std::memcpy(&out[found++], base + layout.slots[i].offset, sizeof(uint64_t));
    }
    return found;
}

Status retain_captured_arguments(const Stream& stream, const ParamLayout& layout, const cuabi_kernel_arg* table,
                                 size_t count, const void* packed) {
    ArgumentRetainer retain = retainer.load(std::memory_order_acquire);
    if (retain == nullptr) return CUABI_SUCCESS;
    uint64_t values[kMaxTableArguments];
    const size_t found = pointer_sized_values(layout, table, count, packed, values, kMaxTableArguments);
    return found == 0 ? CUABI_SUCCESS : retain(stream, values, found);
}

}  // namespace launch
}  // namespace cuabi
