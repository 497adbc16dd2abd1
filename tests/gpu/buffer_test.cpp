// Buffers on a real device: round trips of random data into poisoned destinations (host to
// device, device to host, device to device; synchronous and on a stream), fills of 1, 2 and 4
// bytes, wrapping foreign device memory, every out-of-bounds access refused with its values, and
// destroy order.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gpu_test_support.hpp"

namespace {

class BufferTest : public GpuTest {
protected:
    cuabi_buffer* make_buffer(size_t size, uint32_t flags = CUABI_BUFFER_DEFAULT) {
        cuabi_buffer_options options = CUABI_BUFFER_OPTIONS_INIT;
        options.flags = flags;
        cuabi_buffer* buffer = nullptr;
        cuabi_status status = cuabi_buffer_create(context, size, &options, &buffer);
        EXPECT_EQ(status, CUABI_SUCCESS) << cuabi_failure_text(status);
        buffers_.push_back(buffer);
        return buffer;
    }
    cuabi_stream* make_stream() {
        cuabi_stream* stream = nullptr;
        cuabi_status status = cuabi_stream_create(context, nullptr, &stream);
        EXPECT_EQ(status, CUABI_SUCCESS) << cuabi_failure_text(status);
        streams_.push_back(stream);
        return stream;
    }
    std::vector<uint8_t> read_all(cuabi_buffer* buffer, size_t size) {
        std::vector<uint8_t> bytes = poisoned(size);
        cuabi_status status = cuabi_buffer_read(buffer, 0, bytes.data(), size, nullptr);
        EXPECT_EQ(status, CUABI_SUCCESS) << cuabi_failure_text(status);
        return bytes;
    }
    void TearDown() override {
        for (cuabi_buffer* buffer : buffers_) cuabi_buffer_destroy(buffer);
        for (cuabi_stream* stream : streams_) cuabi_stream_destroy(stream);
        GpuTest::TearDown();
    }
    std::vector<cuabi_buffer*> buffers_;
    std::vector<cuabi_stream*> streams_;
};

const size_t kSizes[] = {1, 3, 4096, (size_t{1} << 20) + 7};

TEST_F(BufferTest, SizeAndAddressAreReported) {
    cuabi_buffer* buffer = make_buffer(1000);
    size_t size = 0;
    uint64_t address = 0;
    ASSERT_OK(cuabi_buffer_get_size(buffer, &size));
    ASSERT_OK(cuabi_buffer_get_device_address(buffer, &address));
    EXPECT_EQ(size, 1000u);
    EXPECT_NE(address, 0u);
    EXPECT_EQ(address % 256, 0u) << "cuMemAlloc aligns to at least 256 bytes";
}

TEST_F(BufferTest, SynchronousRoundTripReturnsTheRandomBytesWritten) {
    uint32_t seed = 1;
    for (size_t size : kSizes) {
        std::vector<uint8_t> data = random_bytes(size, seed++), back = poisoned(size);
        cuabi_buffer* buffer = make_buffer(size);
        ASSERT_OK(cuabi_buffer_write(buffer, 0, data.data(), size, nullptr));
        ASSERT_OK(cuabi_buffer_read(buffer, 0, back.data(), size, nullptr));
        EXPECT_TRUE(back == data) << "size " << size;
    }
}

TEST_F(BufferTest, RoundTripOnAStreamReturnsTheRandomBytesWritten) {
    cuabi_stream* stream = make_stream();
    uint32_t seed = 100;
    for (size_t size : kSizes) {
        std::vector<uint8_t> data = random_bytes(size, seed++), back = poisoned(size);
        cuabi_buffer* buffer = make_buffer(size);
        ASSERT_OK(cuabi_buffer_write(buffer, 0, data.data(), size, stream));
        ASSERT_OK(cuabi_buffer_read(buffer, 0, back.data(), size, stream));
        ASSERT_OK(cuabi_stream_synchronize(stream));
        EXPECT_TRUE(back == data) << "size " << size;
    }
}

TEST_F(BufferTest, WritesAndReadsAtOffsetsTouchOnlyTheirRange) {
    const size_t size = 10000;
    std::vector<uint8_t> model = random_bytes(size, 7);
    cuabi_buffer* buffer = make_buffer(size);
    ASSERT_OK(cuabi_buffer_write(buffer, 0, model.data(), size, nullptr));
    std::vector<uint8_t> patch = random_bytes(1234, 8);
    ASSERT_OK(cuabi_buffer_write(buffer, 4321, patch.data(), patch.size(), nullptr));
    std::memcpy(model.data() + 4321, patch.data(), patch.size());
    EXPECT_TRUE(read_all(buffer, size) == model);
    std::vector<uint8_t> middle = poisoned(500);
    ASSERT_OK(cuabi_buffer_read(buffer, 9500, middle.data(), 500, nullptr));
    EXPECT_TRUE(std::equal(middle.begin(), middle.end(), model.begin() + 9500));
}

TEST_F(BufferTest, DeviceToDeviceCopiesSynchronousAndOnAStream) {
    cuabi_stream* stream = make_stream();
    for (cuabi_stream* on : {static_cast<cuabi_stream*>(nullptr), stream}) {
        const size_t size = (size_t{1} << 20) + 13;
        std::vector<uint8_t> data = random_bytes(size, on == nullptr ? 31 : 32);
        cuabi_buffer* src = make_buffer(size);
        cuabi_buffer* dst = make_buffer(size + 100);
        ASSERT_OK(cuabi_buffer_write(src, 0, data.data(), size, nullptr));
        ASSERT_OK(cuabi_buffer_fill(dst, 0, 0xA5, 1, size + 100, nullptr));
        // whole copy at offset 50 of dst, then a sub-range back over the start
        ASSERT_OK(cuabi_buffer_copy(dst, 50, src, 0, size, on));
        ASSERT_OK(cuabi_buffer_copy(dst, 0, src, 1000, 10, on));
        if (on != nullptr) ASSERT_OK(cuabi_stream_synchronize(on));
        std::vector<uint8_t> expected(size + 100, 0xA5);
        std::memcpy(expected.data() + 50, data.data(), size);
        std::memcpy(expected.data(), data.data() + 1000, 10);
        EXPECT_TRUE(read_all(dst, size + 100) == expected) << (on == nullptr ? "synchronous" : "on a stream");
    }
}

TEST_F(BufferTest, FillsOfOneTwoAndFourByteElementsSetOnlyTheirRange) {
    const size_t size = 4096;
    cuabi_stream* stream = make_stream();
    for (uint32_t element : {1u, 2u, 4u}) {
        cuabi_buffer* buffer = make_buffer(size);
        std::vector<uint8_t> data = random_bytes(size, 40 + element);
        ASSERT_OK(cuabi_buffer_write(buffer, 0, data.data(), size, nullptr));
        const uint32_t value = 0xC3B2A190u;
        const size_t offset = 8 * element, count = 100;
        ASSERT_OK(cuabi_buffer_fill(buffer, offset, value, element, count, element == 2 ? stream : nullptr));
        if (element == 2) ASSERT_OK(cuabi_stream_synchronize(stream));
        std::vector<uint8_t> expected = data;
        for (size_t i = 0; i < count; ++i)
            std::memcpy(expected.data() + offset + i * element, &value, element);  // low bytes (little endian)
        EXPECT_TRUE(read_all(buffer, size) == expected) << "element size " << element;
    }
}

TEST_F(BufferTest, ZeroFlagGivesAZeroedBuffer) {
    const size_t size = (size_t{4} << 20) + 3;
    cuabi_buffer* dirty = make_buffer(size);
    ASSERT_OK(cuabi_buffer_fill(dirty, 0, 0xFF, 1, size, nullptr));
    cuabi_buffer* zeroed = make_buffer(size, CUABI_BUFFER_ZERO);
    EXPECT_TRUE(read_all(zeroed, size) == std::vector<uint8_t>(size, 0));
}

TEST_F(BufferTest, OutOfBoundsAccessesAreRefusedNamingOffsetSizeAndBufferSize) {
    cuabi_buffer* buffer = make_buffer(100);
    cuabi_buffer* other = make_buffer(50);
    std::vector<uint8_t> host = poisoned(200);
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_write(buffer, 99, host.data(), 2, nullptr), CUABI_ERROR_OUT_OF_BOUNDS);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("write of 2 bytes at offset 99 exceeds the destination "
                                                            "buffer of 100 bytes"),
              std::string::npos)
        << cuabi_last_error_message();
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_read(buffer, 0, host.data(), 101, nullptr), CUABI_ERROR_OUT_OF_BOUNDS);
    EXPECT_TRUE(host == poisoned(200)) << "a refused read must not write the destination";
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_read(buffer, SIZE_MAX, host.data(), 2, nullptr), CUABI_ERROR_OUT_OF_BOUNDS);
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_write(buffer, 2, host.data(), SIZE_MAX - 1, nullptr),
                           CUABI_ERROR_OUT_OF_BOUNDS);
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_copy(other, 0, buffer, 0, 51, nullptr), CUABI_ERROR_OUT_OF_BOUNDS);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("destination buffer of 50 bytes"), std::string::npos);
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_copy(other, 0, buffer, 60, 41, nullptr), CUABI_ERROR_OUT_OF_BOUNDS);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("source buffer of 100 bytes"), std::string::npos);
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_fill(buffer, 96, 0, 4, 2, nullptr), CUABI_ERROR_OUT_OF_BOUNDS);
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_fill(buffer, 0, 0, 4, SIZE_MAX / 2, nullptr), CUABI_ERROR_OUT_OF_BOUNDS);
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_fill(buffer, 1, 0, 2, 1, nullptr), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_fill(buffer, 0, 0, 8, 1, nullptr), CUABI_ERROR_INVALID_ARGUMENT);
}

TEST_F(BufferTest, ZeroByteTransfersSucceedWithoutTouchingAnything) {
    cuabi_buffer* buffer = make_buffer(16);
    EXPECT_OK(cuabi_buffer_write(buffer, 16, nullptr, 0, nullptr));
    EXPECT_OK(cuabi_buffer_read(buffer, 0, nullptr, 0, nullptr));
    EXPECT_OK(cuabi_buffer_copy(buffer, 0, buffer, 8, 0, nullptr));
    EXPECT_OK(cuabi_buffer_fill(buffer, 4, 0, 4, 0, nullptr));
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_write(buffer, 17, nullptr, 0, nullptr), CUABI_ERROR_OUT_OF_BOUNDS);
}

TEST_F(BufferTest, OverlappingCopyIsRefusedAndDisjointCopyWithinOneBufferWorks) {
    std::vector<uint8_t> data = random_bytes(256, 50);
    cuabi_buffer* buffer = make_buffer(256);
    ASSERT_OK(cuabi_buffer_write(buffer, 0, data.data(), 256, nullptr));
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_copy(buffer, 10, buffer, 0, 100, nullptr), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("overlap"), std::string::npos);
    ASSERT_OK(cuabi_buffer_copy(buffer, 128, buffer, 0, 128, nullptr));
    std::vector<uint8_t> expected = data;
    std::memcpy(expected.data() + 128, data.data(), 128);
    EXPECT_TRUE(read_all(buffer, 256) == expected);
}

TEST_F(BufferTest, AllocationLargerThanTheDeviceIsRefusedAsOutOfMemory) {
    cuabi_device_info info = CUABI_DEVICE_INFO_INIT;
    ASSERT_OK(cuabi_context_get_device_info(context, &info));
    cuabi_buffer* buffer = nullptr;
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_create(context, static_cast<size_t>(info.total_memory_bytes) + 1, nullptr,
                                               &buffer),
                           CUABI_ERROR_DEVICE_OUT_OF_MEMORY);
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_create(context, SIZE_MAX, nullptr, &buffer), CUABI_ERROR_DEVICE_OUT_OF_MEMORY);
    EXPECT_EQ(buffer, nullptr);
}

TEST_F(BufferTest, WrappedDeviceMemoryIsUsedButNotFreed) {
    const size_t size = 4096;
    std::vector<uint8_t> data = random_bytes(size, 60);
    cuabi_buffer* owner = make_buffer(size);
    ASSERT_OK(cuabi_buffer_write(owner, 0, data.data(), size, nullptr));
    uint64_t address = 0;
    ASSERT_OK(cuabi_buffer_get_device_address(owner, &address));

    cuabi_buffer* wrapped = nullptr;
    ASSERT_OK(cuabi_buffer_wrap(context, address + 1024, 2048, &wrapped));
    size_t wrapped_size = 0;
    ASSERT_OK(cuabi_buffer_get_size(wrapped, &wrapped_size));
    EXPECT_EQ(wrapped_size, 2048u);
    std::vector<uint8_t> through_wrapper = poisoned(2048);
    ASSERT_OK(cuabi_buffer_read(wrapped, 0, through_wrapper.data(), 2048, nullptr));
    EXPECT_TRUE(std::equal(through_wrapper.begin(), through_wrapper.end(), data.begin() + 1024));
    ASSERT_OK(cuabi_buffer_fill(wrapped, 0, 0x11, 1, 16, nullptr));
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_read(wrapped, 2040, through_wrapper.data(), 16, nullptr),
                           CUABI_ERROR_OUT_OF_BOUNDS);
    cuabi_buffer_destroy(wrapped);

    // The owner's memory is still there, with the wrapper's fill in it.
    std::vector<uint8_t> expected = data;
    std::memset(expected.data() + 1024, 0x11, 16);
    EXPECT_TRUE(read_all(owner, size) == expected);
}

TEST_F(BufferTest, WrapChecksTheAddressWithTheDriver) {
    cuabi_buffer* owner = make_buffer(4096);
    uint64_t address = 0;
    ASSERT_OK(cuabi_buffer_get_device_address(owner, &address));
    cuabi_buffer* wrapped = nullptr;
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_wrap(context, address + 4000, 200, &wrapped), CUABI_ERROR_OUT_OF_BOUNDS);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("exceeds its allocation of"), std::string::npos)
        << cuabi_last_error_message();
    int on_host = 0;
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_wrap(context, reinterpret_cast<uintptr_t>(&on_host), sizeof on_host,
                                             &wrapped),
                           CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(wrapped, nullptr);
}

TEST_F(BufferTest, FillOfAWrappedBufferAtAMisalignedAddressIsRefused) {
    cuabi_buffer* owner = make_buffer(64);
    uint64_t address = 0;
    ASSERT_OK(cuabi_buffer_get_device_address(owner, &address));
    cuabi_buffer* wrapped = nullptr;
    ASSERT_OK(cuabi_buffer_wrap(context, address + 1, 32, &wrapped));
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_fill(wrapped, 0, 0, 2, 4, nullptr), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_OK(cuabi_buffer_fill(wrapped, 0, 0, 1, 4, nullptr));
    cuabi_buffer_destroy(wrapped);
}

TEST_F(BufferTest, SynchronousCallsAreCounted) {
    cuabi_buffer* buffer = make_buffer(64);
    cuabi_counters before = CUABI_COUNTERS_INIT, after = CUABI_COUNTERS_INIT;
    ASSERT_OK(cuabi_context_get_counters(context, &before));
    uint8_t byte = 1;
    ASSERT_OK(cuabi_buffer_write(buffer, 0, &byte, 1, nullptr));
    ASSERT_OK(cuabi_buffer_read(buffer, 0, &byte, 1, nullptr));
    ASSERT_OK(cuabi_context_get_counters(context, &after));
    EXPECT_EQ(after.synchronizations, before.synchronizations + 2);
}

TEST_F(BufferTest, ContextDestroyedFirstChildrenStillWorkThenDestroyInAnyOrder) {
    std::vector<uint8_t> data = random_bytes(1024, 70), back = poisoned(1024);
    cuabi_buffer* buffer = nullptr;
    cuabi_stream* stream = nullptr;
    cuabi_event* event = nullptr;
    ASSERT_OK(cuabi_buffer_create(context, 1024, nullptr, &buffer));
    ASSERT_OK(cuabi_stream_create(context, nullptr, &stream));
    ASSERT_OK(cuabi_event_create(context, nullptr, &event));
    cuabi_context_destroy(context);
    context = nullptr;

    ASSERT_OK(cuabi_buffer_write(buffer, 0, data.data(), data.size(), stream));
    ASSERT_OK(cuabi_buffer_read(buffer, 0, back.data(), back.size(), stream));
    ASSERT_OK(cuabi_event_record(event, stream));
    ASSERT_OK(cuabi_event_synchronize(event));
    EXPECT_TRUE(back == data);
    cuabi_stream_destroy(stream);
    ASSERT_OK(cuabi_buffer_fill(buffer, 0, 0, 4, 256, nullptr)) << "the buffer keeps the context alive";
    cuabi_buffer_destroy(buffer);
    cuabi_event_destroy(event);
}

}  // namespace
