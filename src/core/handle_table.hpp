// Generation-checked handle table.
//
// A handle given to users is not a pointer: it packs a type tag, a generation and a slot index,
//   bits 63..56 type (1..10), bits 55..24 generation (32 bits, odd while live),
//   bits 23..0 slot index + 1.
// A destroyed, made-up or wrong-type handle therefore fails a comparison instead of touching
// freed memory. Slots live in chunks that are allocated once and never freed, so even a stale
// handle only ever reads a valid atomic word.
//
// A handle value is never valid twice:
//   - a slot's generation advances by two per use (odd: live, even: free) and the slot is retired
//     for good when the next use would bring it back to its first generation, after 2^31 uses;
//   - a freed slot waits in a first-in, first-out queue behind at least kQuarantine others before it
//     is used again, so the handle just destroyed is not followed by one in the same slot;
//   - each slot's first generation comes from a seed drawn when the library is loaded, so after
//     dlclose and a new load (or in another copy of the library) the handles of the earlier load
//     are refused, except with a chance of 2^-31 per handle kept across the reload.
//
// Lookups on the hot path pin the slot (one CAS on the slot's own cache line, no lock) for the
// length of the call; destroy bumps the generation so new pins fail, then waits for the pins
// already taken to be released (they last one API call; a synchronize can take seconds, so the
// wait spins briefly and then sleeps until the last pin wakes it) before dropping the table's
// reference.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "core/error.hpp"
#include "core/fork.hpp"

namespace cuabi {

enum class HandleType : uint8_t {
    Context = 1, Stream, Event, Buffer, Module, Kernel, Graph, Range, HostMemory, MemoryPool, CompileBatch
};
constexpr HandleType kLastHandleType = HandleType::CompileBatch;
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
    // (16 M slots, live or retired) or out of host memory; `out_handle` is untouched then.
    Status insert(HandleType type, std::shared_ptr<Object> object, uint64_t* out_handle);

    // Invalidates `handle` and returns the object it held; nullptr if the handle was not live, with
    // an error recorded unless `parameter_name` is NULL (destroys report nothing). The caller
    // decides when the object dies by dropping the pointer.
    std::shared_ptr<Object> remove(uint64_t handle, HandleType type, const char* parameter_name);

    // Pins a live handle: returns the slot's object or nullptr (error recorded) after checking
    // type, index and generation. Pair with unpin(); prefer the Pinned<T> guard below. With a NULL
    // `parameter_name` a handle that is not live is refused quietly: nullptr, nothing recorded (for
    // fast paths that hand anything unusual to a general path, which then reports it).
    // Inline fast path for a live handle (replay and launch pin two or three handles per call);
    // a handle that is not live goes to pin_checked, which re-checks everything and says what is
    // wrong.
    Object* pin(uint64_t handle, HandleType type, uint32_t* out_index, const char* parameter_name) {
        const uint32_t index = static_cast<uint32_t>(handle & kIndexMask) - 1u;  // slot index + 1 in the low bits
        const uint32_t generation = static_cast<uint32_t>(handle >> kIndexBits);
        if (static_cast<uint8_t>(handle >> 56) == static_cast<uint8_t>(type) && (generation & 1u) != 0 &&
            index < kMaxSlots) {
            Slot* slot = slot_at(index);
            if (slot != nullptr) {
                // The CAS fails if the generation or the pin count moved since the load; another
                // thread pinning the same handle only moves the count, so try again while the
                // generation still matches.
                uint64_t state = slot->state.load(std::memory_order_acquire);
                while (static_cast<uint32_t>(state >> 32) == generation &&
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
    void unpin(uint32_t index) {
        Slot* slot = existing_slot(index);
        const uint64_t previous = slot->state.fetch_sub(1, std::memory_order_release);
        // An even generation: the handle was destroyed while pinned and its destroy may be waiting.
        if ((previous & (uint64_t{1} << 32)) == 0) unpinned_destroyed(slot, previous);
    }

    // A shared reference to a live handle's object (for children that keep parents alive).
    std::shared_ptr<Object> acquire(uint64_t handle, HandleType type, const char* parameter_name);

    // fork() support (core/fork.cpp): the table's lock is held across fork(); in the child every
    // handle of the parent is disowned -- no longer live, never freed, never reused -- so that
    // nothing in the child touches the parent's CUDA objects or waits for a pin held by a thread
    // that did not survive the fork.
    void lock_for_fork() { mutex_.lock(); }
    void unlock_after_fork() { mutex_.unlock(); }
    void disown_after_fork();

private:
    friend struct HandleTableTesting;

    // One cache line each, so that a pin touches one line.
    struct alignas(64) Slot {
        // high 32 bits: generation (odd = live), low 32 bits: pin count.
        std::atomic<uint64_t> state{0};
        std::atomic<HandleType> type{HandleType::Context};  // atomic: read by stale-handle lookups
        // Bumped by the last unpin of a destroyed handle; a waiting destroy sleeps on it.
        std::atomic<uint32_t> unpinned{0};
        uint32_t first_generation = 0;  // even; the slot retires before coming back to it
        uint32_t next_free = 0;         // index + 1 of the next slot in the free queue, 0 at its end
        std::shared_ptr<Object> object;
    };
    static constexpr uint32_t kIndexBits = 24;
    static constexpr uint64_t kIndexMask = (uint64_t{1} << kIndexBits) - 1;
    // 64 slots (one 4 KiB page) a chunk: a process's first handle costs one page fault, not the
    // 64 that 4096 slots did (about 0.1 ms inside its first compile or context call). The chunk
    // table is 2 MiB of address space, of which only the pages of used entries are ever touched.
    static constexpr uint32_t kChunkBits = 6;
    static constexpr uint32_t kChunkSize = 1u << kChunkBits;
    static constexpr uint32_t kMaxChunks = 1u << (kIndexBits - kChunkBits);
    static constexpr uint32_t kMaxSlots = (1u << kIndexBits) - 1;  // index + 1 must fit the index bits
    // Freed slots wait behind this many others before reuse (64 KiB of slots).
    static constexpr uint32_t kQuarantine = 1024;

    constexpr HandleTable() = default;
    static HandleTable instance_;
    Slot* slot_at(uint32_t index) const {
        uint32_t chunk = index >> kChunkBits;
        if (chunk >= kMaxChunks) return nullptr;
        Slot* slots = chunks_[chunk].load(std::memory_order_acquire);
        return slots == nullptr ? nullptr : &slots[index & (kChunkSize - 1)];
    }
    // A slot the table has handed out (index < slot_count_), so its chunk exists.
    Slot* existing_slot(uint32_t index) const {
        return &chunks_[index >> kChunkBits].load(std::memory_order_acquire)[index & (kChunkSize - 1)];
    }
    [[gnu::cold]] Object* pin_checked(uint64_t handle, HandleType type, uint32_t* out_index,
                                      const char* parameter_name);
    [[gnu::cold]] static void unpinned_destroyed(Slot* slot, uint64_t previous);
    Slot* checked_slot(uint64_t handle, HandleType type, const char* parameter_name, uint32_t* out_index,
                       uint32_t* out_generation) const;
    // Under mutex_: a slot for a new handle (a new one, or the oldest free one past the quarantine).
    Status take_slot(uint32_t* out_index);
    void wait_for_pins(Slot* slot) const;
    uint32_t first_generation_of(uint32_t index);

    std::atomic<Slot*> chunks_[kMaxChunks] = {};
    std::mutex mutex_;   // guards allocation of slots and the free queue, never lookups
    uint64_t seed_ = 0;  // drawn at the first insert; 0 until then
    uint32_t slot_count_ = 0;
    uint32_t free_head_ = 0;  // index + 1 of the oldest free slot, 0 when none
    uint32_t free_tail_ = 0;  // index + 1 of the newest free slot
    uint32_t free_count_ = 0;
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

// The status of a handle that did not pin (its message is already recorded): in a fork() child
// every handle is refused as FORKED, since no handle of the parent can be used there; otherwise
// the handle was not a live handle of its type.
[[gnu::cold]] inline Status refused_handle() noexcept {
    return fork_state::forked_child() ? CUABI_ERROR_FORKED : CUABI_ERROR_INVALID_HANDLE;
}

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

// Every destroy: invalidates a handle (anything accepted: NULL, stale, made-up, wrong type) and
// drops the table's reference to its object, reporting nothing and leaving the thread's last
// error as it was, whatever the object's destructor records.
void destroy_any_handle(const void* handle, HandleType type) noexcept;
template <typename T>
void destroy_handle(const void* handle) noexcept {
    destroy_any_handle(handle, T::kHandleType);
}

}  // namespace cuabi
