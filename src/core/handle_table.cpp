#include "core/handle_table.hpp"

#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <new>
#include <type_traits>

#include "core/deferred_release.hpp"
#include "core/fork.hpp"
#include "core/wait.hpp"

namespace cuabi {
namespace {

uint8_t type_of(uint64_t handle) { return static_cast<uint8_t>(handle >> 56); }
uint32_t generation_of(uint64_t handle) { return static_cast<uint32_t>(handle >> 24); }
uint32_t index_of(uint64_t handle) { return static_cast<uint32_t>(handle & 0xFFFFFFu) - 1u; }
uint32_t generation_in(uint64_t state) { return static_cast<uint32_t>(state >> 32); }
uint32_t pins_in(uint64_t state) { return static_cast<uint32_t>(state); }

const char* const kFixHandle =
    "pass a handle returned by the matching cuabi_*_create function that has not been destroyed";

// Different in every load of the library (and every process): the kernel's random bytes, else
// the clock, the process id and where the library was loaded.
uint64_t draw_seed() {
    uint64_t seed = 0;
    if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof seed)) {
        timespec now{};
        clock_gettime(CLOCK_MONOTONIC, &now);
        seed = static_cast<uint64_t>(now.tv_nsec) ^ (static_cast<uint64_t>(now.tv_sec) << 30) ^
               (static_cast<uint64_t>(getpid()) << 48) ^ reinterpret_cast<uintptr_t>(&draw_seed);
    }
    return seed;
}

// splitmix64: spreads the seed so that neighbouring slots start at unrelated generations.
uint64_t mix(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

}  // namespace

HandleTable HandleTable::instance_;
static_assert(std::is_trivially_destructible<HandleTable>::value, "the handle table must outlive every destructor");

const char* handle_type_name(HandleType type) {
    switch (type) {
        case HandleType::Context:
            return "context";
        case HandleType::Stream:
            return "stream";
        case HandleType::Event:
            return "event";
        case HandleType::Buffer:
            return "buffer";
        case HandleType::Module:
            return "module";
        case HandleType::Kernel:
            return "kernel";
        case HandleType::Graph:
            return "graph";
        case HandleType::Range:
            return "range";
        case HandleType::HostMemory:
            return "host memory";
        case HandleType::MemoryPool:
            return "memory pool";
        case HandleType::CompileBatch:
            return "compile batch";
    }
    return "unknown";
}

uint32_t HandleTable::first_generation_of(uint32_t index) {
    if (seed_ == 0) seed_ = draw_seed() | 1u;
    return static_cast<uint32_t>(mix(seed_ ^ index)) & ~1u;  // even: a free slot
}

Status HandleTable::take_slot(uint32_t* out_index) {
    if (free_count_ > kQuarantine || (slot_count_ >= kMaxSlots && free_count_ > 0)) {
        const uint32_t index = free_head_ - 1;
        free_head_ = existing_slot(index)->next_free;
        if (free_head_ == 0) free_tail_ = 0;
        --free_count_;
        *out_index = index;
        return CUABI_SUCCESS;
    }
    if (slot_count_ >= kMaxSlots)
        return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "destroy handles that are no longer needed",
                    "the handle table is full (%u slots, live or retired after 2^31 uses each)", slot_count_);
    const uint32_t index = slot_count_;
    const uint32_t chunk = index >> kChunkBits;
    if (chunks_[chunk].load(std::memory_order_relaxed) == nullptr) {
        Slot* slots = new (std::nothrow) Slot[kChunkSize];
        if (slots == nullptr)
            return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory", "could not allocate %u handle slots",
                        kChunkSize);
        chunks_[chunk].store(slots, std::memory_order_release);
    }
    Slot* slot = existing_slot(index);
    slot->first_generation = first_generation_of(index);
    slot->state.store(uint64_t{slot->first_generation} << 32, std::memory_order_release);
    ++slot_count_;
    *out_index = index;
    return CUABI_SUCCESS;
}

Status HandleTable::insert(HandleType type, std::shared_ptr<Object> object, uint64_t* out_handle) {
    fork_state::note_use();
    std::lock_guard<std::mutex> lock(mutex_);
    uint32_t index = 0;
    Status status = take_slot(&index);
    if (status != CUABI_SUCCESS) return status;
    Slot* slot = existing_slot(index);
    slot->type.store(type, std::memory_order_relaxed);
    slot->object = std::move(object);
    // Free slots hold an even generation; the next odd one makes the slot live.
    const uint32_t generation = generation_in(slot->state.load(std::memory_order_relaxed)) + 1;
    slot->state.store(uint64_t{generation} << 32, std::memory_order_release);
    *out_handle = (static_cast<uint64_t>(type) << 56) | (uint64_t{generation} << kIndexBits) | (index + 1u);
    return CUABI_SUCCESS;
}

HandleTable::Slot* HandleTable::checked_slot(uint64_t handle, HandleType type, const char* parameter_name,
                                             uint32_t* out_index, uint32_t* out_generation) const {
    const bool report = parameter_name != nullptr;
    if (handle == 0) {
        if (report)
            fail(CUABI_ERROR_INVALID_HANDLE, kFixHandle, "%s is NULL; a cuabi %s handle is required", parameter_name,
                 handle_type_name(type));
        return nullptr;
    }
    uint8_t tag = type_of(handle);
    if (tag != static_cast<uint8_t>(type)) {
        if (!report) return nullptr;
        if (tag >= static_cast<uint8_t>(HandleType::Context) && tag <= static_cast<uint8_t>(kLastHandleType))
            fail(CUABI_ERROR_INVALID_HANDLE, kFixHandle, "%s is a cuabi %s handle where a %s handle is required",
                 parameter_name, handle_type_name(static_cast<HandleType>(tag)), handle_type_name(type));
        else
            fail(CUABI_ERROR_INVALID_HANDLE, kFixHandle, "%s (0x%llx) is not a cuabi handle (expected a %s)",
                 parameter_name, static_cast<unsigned long long>(handle), handle_type_name(type));
        return nullptr;
    }
    uint32_t index = index_of(handle);
    Slot* slot = (index < kMaxSlots) ? slot_at(index) : nullptr;
    uint32_t generation = generation_of(handle);
    if (slot == nullptr || (generation & 1u) == 0) {
        if (report)
            fail(CUABI_ERROR_INVALID_HANDLE, kFixHandle, "%s (0x%llx) is not a live cuabi %s handle", parameter_name,
                 static_cast<unsigned long long>(handle), handle_type_name(type));
        return nullptr;
    }
    *out_index = index;
    *out_generation = generation;
    return slot;
}

Object* HandleTable::pin_checked(uint64_t handle, HandleType type, uint32_t* out_index, const char* parameter_name) {
    if (fork_state::forked_child()) {
        char subject[96];
        std::snprintf(subject, sizeof subject, "%s (a cuabi %s handle)", parameter_name, handle_type_name(type));
        fork_state::refuse(subject);
        return nullptr;
    }
    uint32_t generation = 0;
    Slot* slot = checked_slot(handle, type, parameter_name, out_index, &generation);
    if (slot == nullptr) return nullptr;
    uint64_t state = slot->state.load(std::memory_order_acquire);
    for (;;) {
        if (generation_in(state) != generation || slot->type.load(std::memory_order_relaxed) != type) {
            fail(CUABI_ERROR_INVALID_HANDLE, kFixHandle,
                 "%s (0x%llx) is a %s handle that was already destroyed (or one of an earlier load of libcuabi)",
                 parameter_name, static_cast<unsigned long long>(handle), handle_type_name(type));
            return nullptr;
        }
        if (slot->state.compare_exchange_weak(state, state + 1, std::memory_order_acquire, std::memory_order_acquire))
            return slot->object.get();
    }
}

void HandleTable::unpinned_destroyed(Slot* slot, uint64_t previous) {
    if (pins_in(previous) != 1) return;  // not the last pin
    slot->unpinned.fetch_add(1, std::memory_order_release);
    wake_all(slot->unpinned);
}

std::shared_ptr<Object> HandleTable::acquire(uint64_t handle, HandleType type, const char* parameter_name) {
    uint32_t index = 0;
    if (pin(handle, type, &index, parameter_name) == nullptr) return nullptr;
    std::shared_ptr<Object> object = existing_slot(index)->object;
    unpin(index);
    return object;
}

void HandleTable::wait_for_pins(Slot* slot) const {
    SpinBudget budget;
    for (;;) {
        const uint32_t seen = slot->unpinned.load(std::memory_order_acquire);
        if (pins_in(slot->state.load(std::memory_order_acquire)) == 0) return;
        if (!budget.spin()) wait_while_equal(slot->unpinned, seen);
    }
}

std::shared_ptr<Object> HandleTable::remove(uint64_t handle, HandleType type, const char* parameter_name) {
    uint32_t index = 0;
    uint32_t generation = 0;
    Slot* slot = checked_slot(handle, type, parameter_name, &index, &generation);
    if (slot == nullptr) return nullptr;
    uint64_t state = slot->state.load(std::memory_order_acquire);
    for (;;) {
        if (generation_in(state) != generation || slot->type.load(std::memory_order_relaxed) != type) {
            if (parameter_name != nullptr && fork_state::forked_child())
                fork_state::refuse(parameter_name);
            else if (parameter_name != nullptr)
                fail(CUABI_ERROR_INVALID_HANDLE, kFixHandle, "the %s handle 0x%llx was already destroyed",
                     handle_type_name(type), static_cast<unsigned long long>(handle));
            return nullptr;
        }
        const uint64_t retired = (uint64_t{generation + 1} << 32) | pins_in(state);  // even: no new pins
        if (slot->state.compare_exchange_weak(state, retired, std::memory_order_acq_rel, std::memory_order_acquire))
            break;
    }
    // Pins taken before the generation changed last one API call; wait for them to end.
    wait_for_pins(slot);
    std::shared_ptr<Object> object = std::move(slot->object);
    std::lock_guard<std::mutex> lock(mutex_);
    // After 2^31 uses the next generation would be the slot's first again: retire it for good.
    if (generation + 1 == slot->first_generation) return object;
    slot->next_free = 0;
    if (free_tail_ != 0)
        existing_slot(free_tail_ - 1)->next_free = index + 1;
    else
        free_head_ = index + 1;
    free_tail_ = index + 1;
    ++free_count_;
    return object;
}

void HandleTable::disown_after_fork() {
    for (uint32_t index = 0; index < slot_count_; ++index) {
        Slot* slot = existing_slot(index);
        const uint64_t state = slot->state.load(std::memory_order_relaxed);
        const uint32_t generation = generation_in(state);
        // Live: make it not live. The slot never joins the free queue, so it is never reused and
        // its object (and anything it would do in the driver when destroyed) is left alone.
        if ((generation & 1u) != 0) slot->state.store((uint64_t{generation + 1} << 32) | pins_in(state));
    }
}

void destroy_any_handle(const void* handle, HandleType type) noexcept {
    if (handle == nullptr) return;
    PreserveLastError keep;
    HandleTable::instance().remove(reinterpret_cast<uint64_t>(handle), type, nullptr);
    DeferredRelease::release_queued();
}

}  // namespace cuabi
