// A handle value is never valid twice (core/handle_table.hpp): not after its slot has served 2^31
// handles (24-bit generations came back to life after 8,388,608 uses), not right after it was
// destroyed (the slot waits in a queue), not after the library was unloaded and loaded again.
// Destroy waits for other threads' pins asleep, and leaves the thread's last error alone.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

#include "core/handle_table.hpp"
#include "cpu_time.hpp"
#include "cuabi/cuabi.h"

namespace cuabi {

// Reaches into the table the way only a test may: to fast-forward a slot to its last use (2^31
// real uses would take minutes), and to make a second table, as a second load of the library has.
struct HandleTableTesting {
    static uint32_t slot_of(const void* handle) {
        return static_cast<uint32_t>(reinterpret_cast<uint64_t>(handle) & 0xFFFFFFu) - 1u;
    }
    // `handle` was destroyed; its slot's next use becomes the last before its generation would
    // come back to the first it ever had.
    static void make_next_use_last(const void* handle) {
        HandleTable& table = HandleTable::instance();
        std::lock_guard<std::mutex> lock(table.mutex_);
        HandleTable::Slot* slot = table.slot_at(slot_of(handle));
        slot->state.store(uint64_t{slot->first_generation - 2u} << 32);
    }
    static std::shared_ptr<HandleTable> another_load() {
        return std::shared_ptr<HandleTable>(new HandleTable(), [](HandleTable* table) {
            for (auto& chunk : table->chunks_) delete[] chunk.load();
            delete table;
        });
    }
};

namespace {

struct Probe final : Object {
    static constexpr HandleType kHandleType = HandleType::Buffer;
};

cuabi_buffer* make_probe() {
    cuabi_buffer* handle = nullptr;
    EXPECT_EQ(publish(std::make_shared<Probe>(), &handle), CUABI_SUCCESS);
    return handle;
}

bool live(const void* handle) {
    Pinned<Probe> pinned(handle, nullptr);
    return pinned.ok();
}

TEST(HandleLifetime, ASlotRetiresInsteadOfWrappingItsGeneration) {
    // More than the quarantine of free slots, so that freed slots come back in turn.
    std::vector<cuabi_buffer*> filler;
    for (int i = 0; i < 2000; ++i) filler.push_back(make_probe());
    for (cuabi_buffer* handle : filler) destroy_handle<Probe>(handle);

    cuabi_buffer* first = make_probe();
    destroy_handle<Probe>(first);
    HandleTableTesting::make_next_use_last(first);
    // Churn until the slot is handed out again: that handle is its last one.
    cuabi_buffer* last = nullptr;
    for (int i = 0; i < 200000 && last == nullptr; ++i) {
        cuabi_buffer* handle = make_probe();
        if (HandleTableTesting::slot_of(handle) == HandleTableTesting::slot_of(first))
            last = handle;
        else
            destroy_handle<Probe>(handle);
    }
    ASSERT_NE(last, nullptr) << "the freed slot never came back";
    EXPECT_NE(last, first);
    EXPECT_TRUE(live(last));
    EXPECT_FALSE(live(first));
    destroy_handle<Probe>(last);

    // Retired: however long the churn, the slot is never used again and neither value comes back.
    for (int i = 0; i < 20000; ++i) {
        cuabi_buffer* handle = make_probe();
        ASSERT_NE(HandleTableTesting::slot_of(handle), HandleTableTesting::slot_of(first)) << "after " << i;
        destroy_handle<Probe>(handle);
    }
    EXPECT_FALSE(live(first));
    EXPECT_FALSE(live(last));
}

TEST(HandleLifetime, AFreedSlotWaitsBehindAThousandOthers) {
    // A binding's finalizer destroying a handle the program already closed must not hit the
    // handle created in between: consecutive handles never share a slot.
    std::vector<uint32_t> slots;
    for (int i = 0; i < 3000; ++i) {
        cuabi_buffer* handle = make_probe();
        slots.push_back(HandleTableTesting::slot_of(handle));
        destroy_handle<Probe>(handle);
    }
    for (size_t i = 0; i < slots.size(); ++i)
        for (size_t j = i + 1; j < slots.size() && j < i + 1024; ++j)
            ASSERT_NE(slots[i], slots[j]) << "handles " << i << " and " << j << " share a slot";
}

TEST(HandleLifetime, HandlesOfAnEarlierLoadAreRefused) {
    // Two loads of the library have two tables with seeds of their own.
    std::shared_ptr<HandleTable> earlier = HandleTableTesting::another_load();
    std::shared_ptr<HandleTable> later = HandleTableTesting::another_load();
    std::set<uint64_t> earlier_handles;
    for (int i = 0; i < 100; ++i) {
        uint64_t handle = 0;
        ASSERT_EQ(earlier->insert(HandleType::Buffer, std::make_shared<Probe>(), &handle), CUABI_SUCCESS);
        earlier_handles.insert(handle);
    }
    for (int i = 0; i < 100; ++i) {
        uint64_t handle = 0;
        ASSERT_EQ(later->insert(HandleType::Buffer, std::make_shared<Probe>(), &handle), CUABI_SUCCESS);
        EXPECT_EQ(earlier_handles.count(handle), 0u) << "the later load handed out a handle of the earlier one";
    }
    for (uint64_t handle : earlier_handles) {
        uint32_t index = 0;
        EXPECT_EQ(later->pin(handle, HandleType::Buffer, &index, "buffer"), nullptr);
        EXPECT_NE(std::string(last_error_message()).find("already destroyed"), std::string::npos)
            << last_error_message();
    }
}

// The real thing: libcuabi.so.1 loaded, a handle kept, the library unloaded and loaded again.
TEST(HandleLifetime, AHandleKeptAcrossDlcloseIsRefusedAfterReopening) {
    // A fresh thread, so that no thread-local of the loaded library keeps it from unloading.
    std::thread([] {
#if defined(__SANITIZE_ADDRESS__)
        // Unloading leaves by design what the library allocated: its handle table outlives every
        // destructor, and the range kept here is never ended. The leak checker is told so.
        __lsan::ScopedDisabler unloading_leaves_the_table;
#endif
        void* library = dlopen(CUABI_TEST_LIBRARY_PATH, RTLD_NOW | RTLD_LOCAL);
        ASSERT_NE(library, nullptr) << dlerror();
        auto proc = reinterpret_cast<PFN_cuabi_get_proc_address>(dlsym(library, "cuabi_get_proc_address"));
        ASSERT_NE(proc, nullptr);
        auto start = reinterpret_cast<PFN_cuabi_range_start>(proc("cuabi_range_start"));
        Dl_info where{};
        ASSERT_NE(dladdr(reinterpret_cast<void*>(start), &where), 0);
        Dl_info library_info{};
        ASSERT_NE(dladdr(reinterpret_cast<void*>(proc), &library_info), 0);
        ASSERT_EQ(where.dli_fbase, library_info.dli_fbase) << "cuabi_range_start must come from the loaded library";
        cuabi_range* kept = nullptr;
        ASSERT_EQ(start("kept across a reload", nullptr, &kept), CUABI_SUCCESS);
        ASSERT_EQ(dlclose(library), 0);
        ASSERT_EQ(dlopen(CUABI_TEST_LIBRARY_PATH, RTLD_NOW | RTLD_NOLOAD), nullptr) << "the library did not unload";

        library = dlopen(CUABI_TEST_LIBRARY_PATH, RTLD_NOW | RTLD_LOCAL);
        ASSERT_NE(library, nullptr) << dlerror();
        proc = reinterpret_cast<PFN_cuabi_get_proc_address>(dlsym(library, "cuabi_get_proc_address"));
        start = reinterpret_cast<PFN_cuabi_range_start>(proc("cuabi_range_start"));
        auto end = reinterpret_cast<PFN_cuabi_range_end>(proc("cuabi_range_end"));
        cuabi_range* fresh = nullptr;
        ASSERT_EQ(start("after the reload", nullptr, &fresh), CUABI_SUCCESS);
        EXPECT_NE(fresh, kept) << "the reloaded library handed out the kept handle's value again";
        EXPECT_EQ(end(kept), CUABI_ERROR_INVALID_HANDLE) << "a handle of the earlier load ended something";
        EXPECT_EQ(end(fresh), CUABI_SUCCESS);
        dlclose(library);
    }).join();
}

TEST(HandleLifetime, DestroyWaitsForAPinAsleep) {
    // Another thread is inside a long call on the handle (a stream synchronize): destroy waits for
    // it without burning the CPU it waits on.
    cuabi_buffer* handle = make_probe();
    std::atomic<bool> pinned{false};
    std::thread holder([&] {
        Pinned<Probe> pin(handle, "buffer");
        ASSERT_TRUE(pin.ok());
        pinned = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(400));
    });
    while (!pinned) std::this_thread::yield();
    const auto wall_start = std::chrono::steady_clock::now();
    const auto cpu_start = test_support::thread_cpu_time();
    destroy_handle<Probe>(handle);
    const auto cpu = test_support::thread_cpu_time() - cpu_start;
    const auto wall = std::chrono::steady_clock::now() - wall_start;
    holder.join();
    EXPECT_GE(wall, std::chrono::milliseconds(300)) << "destroy returned before the pin was released";
    EXPECT_LT(cpu, std::chrono::milliseconds(40))
        << "destroy spent CPU waiting (wall " << std::chrono::duration_cast<std::chrono::milliseconds>(wall).count()
        << " ms)";
    EXPECT_FALSE(live(handle));
}

TEST(HandleLifetime, DestroysLeaveTheLastErrorAlone) {
    fail(CUABI_ERROR_COMPILE, "fix the source", "the compile failed");
    const std::string before = cuabi_last_error_message();
    cuabi_buffer* handle = make_probe();
    destroy_handle<Probe>(handle);
    destroy_handle<Probe>(handle);  // destroyed
    destroy_handle<Probe>(reinterpret_cast<void*>(0xdeadbeef));
    destroy_handle<Probe>(reinterpret_cast<void*>(1));
    cuabi_buffer_destroy(reinterpret_cast<cuabi_buffer*>(handle));
    cuabi_stream_destroy(reinterpret_cast<cuabi_stream*>(handle));  // wrong type
    cuabi_context_destroy(reinterpret_cast<cuabi_context*>(0xdeadbeef));
    cuabi_graph_destroy(nullptr);
    EXPECT_EQ(cuabi_last_error_message(), before);
}

}  // namespace
}  // namespace cuabi
