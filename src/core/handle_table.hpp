// Generation-checked handle table.
//
// A handle given to users is not a pointer: it packs a type tag, a generation and a slot index,
//   bits 63..56 type (1..8), bits 55..32 generation (low 24 bits, always odd while live),
//   bits 31..0 slot index + 1.
// A destroyed, made-up or wrong-type handle therefore fails a comparison instead of touching
// freed memory. Slots live in chunks that are allocated once and never freed, so even a stale
// handle only ever reads a valid atomic word.
//
// Lookups on the hot path pin the slot (one CAS on the slot's own word, no lock) for the length
// of the call; destroy bumps the generation so new pins fail, then waits for the pins already
// taken to be released (they last one API call) before dropping the table's reference.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "core/error.hpp"

namespace cuabi {

enum class HandleType : uint8_t { Context = 1, Stream, Event, Buffer, Module, Kernel, Graph, Range };
const char* handle_type_name(HandleType type);

// Base of every object the table holds.
struct Object {
    virtual ~Object() = default;
};

class HandleTable {
public:
    // Constant-initialized and trivially destructible, so it exists before any constructor runs and
    // is never torn down (handles may be released from static destructors of other libraries), and
    // reaching it costs no initialization guard on the hot path.
    static HandleTable& instance() { return instance_; }

    // Stores `object` and returns the user-visible handle bits. Fails only when the table is full
    // (16 M live handles) or out of host memory; `out_handle` is untouched then.
    Status insert(HandleType type, std::shared_ptr<Object> object, uint64_t* out_handle);

    // Invalidates `handle` and returns the object it held (nullptr, with an error recorded, if the
    // handle was not live). The caller decides when the object dies by dropping the pointer.
    std::shared_ptr<Object> remove(uint64_t handle, HandleType type);

    // Pins a live handle: returns the slot's object or nullptr (error recorded) after checking
    // type, index and generation. Pair with unpin(); prefer the Pinned<T> guard below. With a NULL
    // `parameter_name` a handle that is not live is refused quietly: nullptr, nothing recorded (for
    // fast paths that hand anything unusual to a general path, which then reports it).
    // Inline fast path for a live handle (replay and launch pin two or three handles per call);
    // a handle that is not live goes to pin_checked, which re-checks everything and says what is
    // wrong.
    Object* pin(uint64_t handle, HandleType type, uint32_t* out_index, const char* parameter_name) {
        const uint32_t index = static_cast<uint32_t>(handle) - 1u;  // slot index + 1 in the low bits
        const uint64_t generation = (handle >> 32) & kGenerationMask;
        if (static_cast<uint8_t>(handle >> 56) == static_cast<uint8_t>(type) && (generation & 1u) != 0 &&
            index < kMaxChunks * kChunkSize) {
            Slot* slot = slot_at(index);
            if (slot != nullptr) {
                // The CAS fails if the generation or the pin count moved since the load; another
                // thread pinning the same handle only moves the count, so try again while the
                // generation still matches.
                uint64_t state = slot->state.load(std::memory_order_acquire);
                while (((state >> 32) & kGenerationMask) == generation &&
                       slot->type.load(std::memory_order_relaxed) == type) {
                    if (slot->state.compare_exchange_weak(state, state + 1, std::memory_order_acquire,
                                                          std::memory_order_acquire)) {
                        *out_index = index;
                        return slot->object.get();
                    }
                }
            }
        }
        return parameter_name != nullptr ? pin_checked(handle, type, out_index, parameter_name) : nullptr;
    }
    void unpin(uint32_t index) { slot_at(index)->state.fetch_sub(1, std::memory_order_release); }

    // A shared reference to a live handle's object (for children that keep parents alive).
    std::shared_ptr<Object> acquire(uint64_t handle, HandleType type, const char* parameter_name);

private:
    // One cache line each, so that a pin touches one line.
    struct alignas(64) Slot {
        // high 32 bits: generation (odd = live), low 32 bits: pin count.
        std::atomic<uint64_t> state{0};
        std::atomic<HandleType> type{HandleType::Context};  // atomic: read by stale-handle lookups
        std::shared_ptr<Object> object;
        uint32_t next_free = 0;
    };
    static constexpr uint32_t kChunkBits = 12;
    static constexpr uint32_t kChunkSize = 1u << kChunkBits;
    static constexpr uint32_t kMaxChunks = 4096;

    static constexpr uint64_t kGenerationMask = 0xFFFFFFu;

    constexpr HandleTable() = default;
    static HandleTable instance_;
    Slot* slot_at(uint32_t index) const {
        uint32_t chunk = index >> kChunkBits;
        if (chunk >= kMaxChunks) return nullptr;
        Slot* slots = chunks_[chunk].load(std::memory_order_acquire);
        return slots == nullptr ? nullptr : &slots[index & (kChunkSize - 1)];
    }
    [[gnu::cold]] Object* pin_checked(uint64_t handle, HandleType type, uint32_t* out_index, const char* parameter_name);
    Slot* checked_slot(uint64_t handle, HandleType type, const char* parameter_name, uint32_t* out_index,
                       uint64_t* out_generation) const;

    std::atomic<Slot*> chunks_[kMaxChunks] = {};
    std::mutex mutex_;  // guards allocation of slots and the free list, never lookups
    uint32_t slot_count_ = 0;
    uint32_t free_head_ = 0;  // index + 1 of the first free slot, 0 when empty
};

// RAII pin of a handle as object type T. `ok()` is false (and the error recorded, unless
// `parameter_name` is NULL) when the handle is not a live handle of T's type.
template <typename T>
class Pinned {
public:
    Pinned(const void* handle, const char* parameter_name)
        : object_(static_cast<T*>(HandleTable::instance().pin(reinterpret_cast<uint64_t>(handle), T::kHandleType,
                                                             &index_, parameter_name))) {}
    ~Pinned() {
        if (object_ != nullptr) HandleTable::instance().unpin(index_);
    }
    Pinned(const Pinned&) = delete;
    Pinned& operator=(const Pinned&) = delete;

    bool ok() const { return object_ != nullptr; }
    T* get() const { return object_; }
    T* operator->() const { return object_; }
    T& operator*() const { return *object_; }

private:
    uint32_t index_ = 0;
    T* object_;
};

// Registers a new object and writes its handle to *out as the public handle type.
template <typename Public, typename T>
Status publish(std::shared_ptr<T> object, Public** out) {
    uint64_t bits = 0;
    Status status = HandleTable::instance().insert(T::kHandleType, std::move(object), &bits);
    if (status == CUABI_SUCCESS) *out = reinterpret_cast<Public*>(bits);
    return status;
}

// Shared reference to a live handle's object as T (nullptr with the error recorded otherwise).
template <typename T>
std::shared_ptr<T> acquire(const void* handle, const char* parameter_name) {
    return std::static_pointer_cast<T>(
        HandleTable::instance().acquire(reinterpret_cast<uint64_t>(handle), T::kHandleType, parameter_name));
}

// Invalidates a handle (NULL accepted) and drops the table's reference to its object.
template <typename T>
void destroy_handle(const void* handle) {
    if (handle == nullptr) return;
    HandleTable::instance().remove(reinterpret_cast<uint64_t>(handle), T::kHandleType);
}

}  // namespace cuabi
