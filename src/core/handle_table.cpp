#include "core/handle_table.hpp"

#include <thread>
#include <type_traits>

namespace cuabi {
namespace {

uint8_t type_of(uint64_t handle) { return static_cast<uint8_t>(handle >> 56); }
uint64_t generation_of(uint64_t handle) { return (handle >> 32) & 0xFFFFFFu; }
uint32_t index_of(uint64_t handle) { return static_cast<uint32_t>(handle & 0xFFFFFFFFu) - 1u; }

const char* const kFixHandle =
    "pass a handle returned by the matching cuabi_*_create function that has not been destroyed";

}  // namespace

HandleTable HandleTable::instance_;
static_assert(std::is_trivially_destructible<HandleTable>::value, "the handle table must outlive every destructor");

const char* handle_type_name(HandleType type) {
    switch (type) {
        case HandleType::Context: return "context";
        case HandleType::Stream: return "stream";
        case HandleType::Event: return "event";
        case HandleType::Buffer: return "buffer";
        case HandleType::Module: return "module";
        case HandleType::Kernel: return "kernel";
        case HandleType::Graph: return "graph";
        case HandleType::Range: return "range";
    }
    return "unknown";
}

Status HandleTable::insert(HandleType type, std::shared_ptr<Object> object, uint64_t* out_handle) {
    std::lock_guard<std::mutex> lock(mutex_);
    uint32_t index;
    if (free_head_ != 0) {
        index = free_head_ - 1;
        free_head_ = slot_at(index)->next_free;
    } else {
        if (slot_count_ >= kMaxChunks * kChunkSize)
            return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "destroy handles that are no longer needed",
                        "the handle table is full (%u live handles)", slot_count_);
        index = slot_count_;
        uint32_t chunk = index >> kChunkBits;
        if (chunks_[chunk].load(std::memory_order_relaxed) == nullptr) {
            Slot* slots = new (std::nothrow) Slot[kChunkSize];
            if (slots == nullptr)
                return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory",
                            "could not allocate %u handle slots", kChunkSize);
            chunks_[chunk].store(slots, std::memory_order_release);
        }
        ++slot_count_;
    }
    Slot* slot = &chunks_[index >> kChunkBits].load(std::memory_order_relaxed)[index & (kChunkSize - 1)];
    slot->type.store(type, std::memory_order_relaxed);
    slot->object = std::move(object);
    // Free slots hold an even generation; the next odd one makes the slot live.
    uint64_t generation = (slot->state.load(std::memory_order_relaxed) >> 32) + 1;
    slot->state.store(generation << 32, std::memory_order_release);
    *out_handle = (static_cast<uint64_t>(type) << 56) | ((generation & kGenerationMask) << 32) | (index + 1u);
    return CUABI_SUCCESS;
}

HandleTable::Slot* HandleTable::checked_slot(uint64_t handle, HandleType type, const char* parameter_name,
                                             uint32_t* out_index, uint64_t* out_generation) const {
    if (handle == 0) {
        fail(CUABI_ERROR_INVALID_HANDLE, kFixHandle, "%s is NULL; a cuabi %s handle is required", parameter_name,
             handle_type_name(type));
        return nullptr;
    }
    uint8_t tag = type_of(handle);
    if (tag != static_cast<uint8_t>(type)) {
        if (tag >= static_cast<uint8_t>(HandleType::Context) && tag <= static_cast<uint8_t>(HandleType::Range))
            fail(CUABI_ERROR_INVALID_HANDLE, kFixHandle, "%s is a cuabi %s handle where a %s handle is required",
                 parameter_name, handle_type_name(static_cast<HandleType>(tag)), handle_type_name(type));
        else
            fail(CUABI_ERROR_INVALID_HANDLE, kFixHandle, "%s (0x%llx) is not a cuabi handle (expected a %s)",
                 parameter_name, static_cast<unsigned long long>(handle), handle_type_name(type));
        return nullptr;
    }
    uint32_t index = index_of(handle);
    Slot* slot = (index < kMaxChunks * kChunkSize) ? slot_at(index) : nullptr;
    uint64_t generation = generation_of(handle);
    if (slot == nullptr || (generation & 1u) == 0) {
        fail(CUABI_ERROR_INVALID_HANDLE, kFixHandle, "%s (0x%llx) is not a live cuabi %s handle", parameter_name,
             static_cast<unsigned long long>(handle), handle_type_name(type));
        return nullptr;
    }
    *out_index = index;
    *out_generation = generation;
    return slot;
}

Object* HandleTable::pin_checked(uint64_t handle, HandleType type, uint32_t* out_index,
                                 const char* parameter_name) {
    uint64_t generation = 0;
    Slot* slot = checked_slot(handle, type, parameter_name, out_index, &generation);
    if (slot == nullptr) return nullptr;
    uint64_t state = slot->state.load(std::memory_order_acquire);
    for (;;) {
        if (((state >> 32) & kGenerationMask) != generation || slot->type.load(std::memory_order_relaxed) != type) {
            fail(CUABI_ERROR_INVALID_HANDLE, kFixHandle,
                 "%s (0x%llx) is a %s handle that was already destroyed", parameter_name,
                 static_cast<unsigned long long>(handle), handle_type_name(type));
            return nullptr;
        }
        if (slot->state.compare_exchange_weak(state, state + 1, std::memory_order_acquire,
                                              std::memory_order_acquire))
            return slot->object.get();
    }
}

std::shared_ptr<Object> HandleTable::acquire(uint64_t handle, HandleType type, const char* parameter_name) {
    uint32_t index = 0;
    if (pin(handle, type, &index, parameter_name) == nullptr) return nullptr;
    std::shared_ptr<Object> object = slot_at(index)->object;
    unpin(index);
    return object;
}

std::shared_ptr<Object> HandleTable::remove(uint64_t handle, HandleType type) {
    uint32_t index = 0;
    uint64_t generation = 0;
    Slot* slot = checked_slot(handle, type, "handle", &index, &generation);
    if (slot == nullptr) return nullptr;
    uint64_t state = slot->state.load(std::memory_order_acquire);
    for (;;) {
        if (((state >> 32) & kGenerationMask) != generation || slot->type.load(std::memory_order_relaxed) != type) {
            fail(CUABI_ERROR_INVALID_HANDLE, kFixHandle, "the %s handle 0x%llx was already destroyed",
                 handle_type_name(type), static_cast<unsigned long long>(handle));
            return nullptr;
        }
        uint64_t retired = (((state >> 32) + 1) << 32) | (state & 0xFFFFFFFFu);  // even: no new pins
        if (slot->state.compare_exchange_weak(state, retired, std::memory_order_acq_rel, std::memory_order_acquire))
            break;
    }
    // Pins taken before the generation changed last one API call; wait for them to end.
    while ((slot->state.load(std::memory_order_acquire) & 0xFFFFFFFFu) != 0) std::this_thread::yield();
    std::shared_ptr<Object> object = std::move(slot->object);
    std::lock_guard<std::mutex> lock(mutex_);
    slot->next_free = free_head_;
    free_head_ = index + 1;
    return object;
}

}  // namespace cuabi
