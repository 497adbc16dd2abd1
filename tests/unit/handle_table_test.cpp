// The handle table rejects destroyed, made-up and wrong-type handles without touching freed
// memory; run under AddressSanitizer this also proves no use-after-free.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "core/handle_table.hpp"

namespace cuabi {
namespace {

struct Probe final : Object {
    static constexpr HandleType kHandleType = HandleType::Buffer;
    explicit Probe(std::atomic<int>* live_count, int value) : live(live_count), payload(value) { ++*live; }
    ~Probe() override { --*live; }
    std::atomic<int>* live;
    int payload;
};

struct OtherProbe final : Object {
    static constexpr HandleType kHandleType = HandleType::Stream;
};

std::string message() { return last_error_message(); }

TEST(HandleTable, PinnedHandleReachesItsObject) {
    std::atomic<int> live{0};
    cuabi_buffer* handle = nullptr;
    ASSERT_EQ(publish(std::make_shared<Probe>(&live, 42), &handle), CUABI_SUCCESS);
    {
        Pinned<Probe> pinned(handle, "buffer");
        ASSERT_TRUE(pinned.ok());
        EXPECT_EQ(pinned->payload, 42);
    }
    destroy_handle<Probe>(handle);
    EXPECT_EQ(live.load(), 0);
}

TEST(HandleTable, DestroyedHandleIsRejectedEvenAfterSlotReuse) {
    std::atomic<int> live{0};
    cuabi_buffer* first = nullptr;
    ASSERT_EQ(publish(std::make_shared<Probe>(&live, 1), &first), CUABI_SUCCESS);
    destroy_handle<Probe>(first);
    cuabi_buffer* second = nullptr;
    ASSERT_EQ(publish(std::make_shared<Probe>(&live, 2), &second), CUABI_SUCCESS);
    EXPECT_NE(first, second) << "a reused slot must get a new generation";
    Pinned<Probe> stale(first, "buffer");
    EXPECT_FALSE(stale.ok());
    EXPECT_NE(message().find("already destroyed"), std::string::npos) << message();
    EXPECT_NE(message().find("Fix: "), std::string::npos);
    {
        Pinned<Probe> fresh(second, "buffer");
        ASSERT_TRUE(fresh.ok());
        EXPECT_EQ(fresh->payload, 2);
    }  // a pin lasts one call: destroy waits for pins to end
    destroy_handle<Probe>(second);
}

TEST(HandleTable, WrongTypeHandleNamesBothTypes) {
    std::atomic<int> live{0};
    cuabi_buffer* handle = nullptr;
    ASSERT_EQ(publish(std::make_shared<Probe>(&live, 1), &handle), CUABI_SUCCESS);
    Pinned<OtherProbe> wrong(handle, "stream");
    EXPECT_FALSE(wrong.ok());
    EXPECT_NE(message().find("is a cuabi buffer handle where a stream handle is required"), std::string::npos)
        << message();
    destroy_handle<Probe>(handle);
}

TEST(HandleTable, MadeUpAndNullHandlesAreRejected) {
    int on_stack = 0;
    const void* made_up[] = {&on_stack, reinterpret_cast<void*>(0x1234), reinterpret_cast<void*>(~0ull),
                             reinterpret_cast<void*>((uint64_t{4} << 56) | (uint64_t{1} << 32) | 0xFFFFFFu)};
    for (const void* handle : made_up) {
        Pinned<Probe> pinned(handle, "buffer");
        EXPECT_FALSE(pinned.ok()) << handle;
    }
    Pinned<Probe> null_pinned(nullptr, "buffer");
    EXPECT_FALSE(null_pinned.ok());
    EXPECT_NE(message().find("buffer is NULL"), std::string::npos) << message();
}

TEST(HandleTable, DoubleDestroyIsHarmless) {
    std::atomic<int> live{0};
    cuabi_buffer* handle = nullptr;
    ASSERT_EQ(publish(std::make_shared<Probe>(&live, 1), &handle), CUABI_SUCCESS);
    destroy_handle<Probe>(handle);
    destroy_handle<Probe>(handle);
    EXPECT_EQ(live.load(), 0);
    destroy_handle<Probe>(nullptr);
}

TEST(HandleTable, AcquiredReferenceOutlivesTheHandle) {
    std::atomic<int> live{0};
    cuabi_buffer* handle = nullptr;
    ASSERT_EQ(publish(std::make_shared<Probe>(&live, 7), &handle), CUABI_SUCCESS);
    std::shared_ptr<Probe> kept = acquire<Probe>(handle, "buffer");
    ASSERT_TRUE(kept);
    destroy_handle<Probe>(handle);
    EXPECT_EQ(live.load(), 1) << "a child's reference keeps the object alive";
    EXPECT_EQ(kept->payload, 7);
    kept.reset();
    EXPECT_EQ(live.load(), 0);
}

TEST(HandleTable, ConcurrentPinsAndDestroyNeverSeeFreedMemory) {
    std::atomic<int> live{0};
    for (int round = 0; round < 50; ++round) {
        cuabi_buffer* handle = nullptr;
        ASSERT_EQ(publish(std::make_shared<Probe>(&live, round), &handle), CUABI_SUCCESS);
        std::atomic<bool> go{false};
        std::vector<std::thread> readers;
        std::atomic<int> successes{0};
        for (int t = 0; t < 4; ++t) {
            readers.emplace_back([&] {
                while (!go.load()) {
                }
                for (int i = 0; i < 2000; ++i) {
                    Pinned<Probe> pinned(handle, "buffer");
                    if (!pinned.ok()) break;
                    if (pinned->payload == round) ++successes;
                }
            });
        }
        go = true;
        destroy_handle<Probe>(handle);
        for (std::thread& reader : readers) reader.join();
        EXPECT_EQ(live.load(), 0);
    }
}

}  // namespace
}  // namespace cuabi
