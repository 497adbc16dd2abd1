// Bad arguments to the context, stream, event and buffer entry points are refused with the
// right status and a message that names the values and the fix -- before the GPU is reached, so
// these hold on any machine. (Checks that need a live buffer or stream are in tests/gpu/.)
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>

#include "core/handle_table.hpp"
#include "cuabi/cuabi.h"
#include "device/buffer.hpp"
#include "expect_status.hpp"

namespace cuabi {
namespace {

// Objects that occupy handle-table slots of a given type without any CUDA behind them. They are
// only ever passed where their pin must fail (wrong type, or destroyed), never dereferenced.
template <HandleType Type>
struct Placeholder final : Object {
    static constexpr HandleType kHandleType = Type;
};

template <typename Public, HandleType Type>
Public* destroyed_handle() {
    Public* handle = nullptr;
    EXPECT_EQ(publish(std::make_shared<Placeholder<Type>>(), &handle), CUABI_SUCCESS);
    destroy_handle<Placeholder<Type>>(handle);
    return handle;
}

cuabi_context* const kNoContext = nullptr;
cuabi_stream* const kNoStream = nullptr;
cuabi_event* const kNoEvent = nullptr;
cuabi_buffer* const kNoBuffer = nullptr;

TEST(DeviceApiArguments, NullOutParametersAreRefused) {
    EXPECT_FAILS_WITH(cuabi_driver_get_version(nullptr), CUABI_ERROR_INVALID_ARGUMENT, "out_version is NULL");
    EXPECT_FAILS_WITH(cuabi_device_get_count(nullptr), CUABI_ERROR_INVALID_ARGUMENT, "out_count is NULL");
    EXPECT_FAILS_WITH(cuabi_device_get_info(0, nullptr), CUABI_ERROR_INVALID_ARGUMENT, "info is NULL");
    EXPECT_FAILS_WITH(cuabi_context_create(nullptr, nullptr), CUABI_ERROR_INVALID_ARGUMENT, "out_context is NULL");
    EXPECT_FAILS_WITH(cuabi_context_get_device_info(kNoContext, nullptr), CUABI_ERROR_INVALID_ARGUMENT, "info is NULL");
    EXPECT_FAILS_WITH(cuabi_context_get_native(kNoContext, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_cu_context is NULL");
    EXPECT_FAILS_WITH(cuabi_context_get_counters(kNoContext, nullptr), CUABI_ERROR_INVALID_ARGUMENT, "counters is NULL");
    EXPECT_FAILS_WITH(cuabi_stream_create(kNoContext, nullptr, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_stream is NULL");
    EXPECT_FAILS_WITH(cuabi_stream_wrap(kNoContext, nullptr, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_stream is NULL");
    EXPECT_FAILS_WITH(cuabi_stream_get_native(kNoStream, nullptr), CUABI_ERROR_INVALID_ARGUMENT, "out_cu_stream is NULL");
    EXPECT_FAILS_WITH(cuabi_event_create(kNoContext, nullptr, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_event is NULL");
    EXPECT_FAILS_WITH(cuabi_event_get_elapsed_ms(kNoEvent, kNoEvent, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_ms is NULL");
    EXPECT_FAILS_WITH(cuabi_buffer_create(kNoContext, 16, nullptr, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_buffer is NULL");
    EXPECT_FAILS_WITH(cuabi_buffer_wrap(kNoContext, 0x1000, 16, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_buffer is NULL");
    EXPECT_FAILS_WITH(cuabi_buffer_get_size(kNoBuffer, nullptr), CUABI_ERROR_INVALID_ARGUMENT, "out_size is NULL");
    EXPECT_FAILS_WITH(cuabi_buffer_get_device_address(kNoBuffer, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_address is NULL");
}

TEST(DeviceApiArguments, NullHostPointersForNonEmptyTransfersAreRefused) {
    EXPECT_FAILS_WITH(cuabi_buffer_write(kNoBuffer, 0, nullptr, 4, kNoStream), CUABI_ERROR_INVALID_ARGUMENT,
                      "src is NULL");
    EXPECT_FAILS_WITH(cuabi_buffer_read(kNoBuffer, 0, nullptr, 4, kNoStream), CUABI_ERROR_INVALID_ARGUMENT,
                      "dst is NULL");
}

TEST(DeviceApiArguments, NullHandlesAreRefusedNamingTheParameter) {
    size_t size = 0;
    uint64_t address = 0;
    void* native = nullptr;
    float ms = 0;
    int byte = 0;
    cuabi_stream* stream = nullptr;
    cuabi_event* event = nullptr;
    cuabi_buffer* buffer = nullptr;
    cuabi_device_info info = CUABI_DEVICE_INFO_INIT;
    cuabi_counters counters = CUABI_COUNTERS_INIT;
    EXPECT_FAILS_WITH(cuabi_context_get_device_info(kNoContext, &info), CUABI_ERROR_INVALID_HANDLE, "context is NULL");
    EXPECT_FAILS_WITH(cuabi_context_synchronize(kNoContext), CUABI_ERROR_INVALID_HANDLE, "context is NULL");
    EXPECT_FAILS_WITH(cuabi_context_get_native(kNoContext, &native), CUABI_ERROR_INVALID_HANDLE, "context is NULL");
    EXPECT_FAILS_WITH(cuabi_context_get_counters(kNoContext, &counters), CUABI_ERROR_INVALID_HANDLE, "context is NULL");
    EXPECT_FAILS_WITH(cuabi_stream_create(kNoContext, nullptr, &stream), CUABI_ERROR_INVALID_HANDLE,
                      "context is NULL");
    EXPECT_FAILS_WITH(cuabi_stream_wrap(kNoContext, reinterpret_cast<void*>(0x10), &stream),
                      CUABI_ERROR_INVALID_HANDLE, "context is NULL");
    EXPECT_FAILS_WITH(cuabi_stream_synchronize(kNoStream), CUABI_ERROR_INVALID_HANDLE, "stream is NULL");
    EXPECT_FAILS_WITH(cuabi_stream_query(kNoStream), CUABI_ERROR_INVALID_HANDLE, "stream is NULL");
    EXPECT_FAILS_WITH(cuabi_stream_wait_event(kNoStream, kNoEvent), CUABI_ERROR_INVALID_HANDLE, "stream is NULL");
    EXPECT_FAILS_WITH(cuabi_stream_get_native(kNoStream, &native), CUABI_ERROR_INVALID_HANDLE, "stream is NULL");
    EXPECT_FAILS_WITH(cuabi_event_create(kNoContext, nullptr, &event), CUABI_ERROR_INVALID_HANDLE, "context is NULL");
    EXPECT_FAILS_WITH(cuabi_event_record(kNoEvent, kNoStream), CUABI_ERROR_INVALID_HANDLE, "event is NULL");
    EXPECT_FAILS_WITH(cuabi_event_synchronize(kNoEvent), CUABI_ERROR_INVALID_HANDLE, "event is NULL");
    EXPECT_FAILS_WITH(cuabi_event_query(kNoEvent), CUABI_ERROR_INVALID_HANDLE, "event is NULL");
    EXPECT_FAILS_WITH(cuabi_event_get_elapsed_ms(kNoEvent, kNoEvent, &ms), CUABI_ERROR_INVALID_HANDLE, "start is NULL");
    EXPECT_FAILS_WITH(cuabi_buffer_create(kNoContext, 16, nullptr, &buffer), CUABI_ERROR_INVALID_HANDLE,
                      "context is NULL");
    EXPECT_FAILS_WITH(cuabi_buffer_wrap(kNoContext, 0x1000, 16, &buffer), CUABI_ERROR_INVALID_HANDLE,
                      "context is NULL");
    EXPECT_FAILS_WITH(cuabi_buffer_get_size(kNoBuffer, &size), CUABI_ERROR_INVALID_HANDLE, "buffer is NULL");
    EXPECT_FAILS_WITH(cuabi_buffer_get_device_address(kNoBuffer, &address), CUABI_ERROR_INVALID_HANDLE,
                      "buffer is NULL");
    EXPECT_FAILS_WITH(cuabi_buffer_write(kNoBuffer, 0, &byte, 1, kNoStream), CUABI_ERROR_INVALID_HANDLE,
                      "buffer is NULL");
    EXPECT_FAILS_WITH(cuabi_buffer_read(kNoBuffer, 0, &byte, 1, kNoStream), CUABI_ERROR_INVALID_HANDLE,
                      "buffer is NULL");
    EXPECT_FAILS_WITH(cuabi_buffer_copy(kNoBuffer, 0, kNoBuffer, 0, 1, kNoStream), CUABI_ERROR_INVALID_HANDLE,
                      "dst is NULL");
    EXPECT_FAILS_WITH(cuabi_buffer_fill(kNoBuffer, 0, 0, 1, 1, kNoStream), CUABI_ERROR_INVALID_HANDLE,
                      "buffer is NULL");
}

TEST(DeviceApiArguments, DestroyedHandlesAreRefusedWithoutTouchingFreedMemory) {
    cuabi_context* context = destroyed_handle<cuabi_context, HandleType::Context>();
    cuabi_stream* stream = destroyed_handle<cuabi_stream, HandleType::Stream>();
    cuabi_event* event = destroyed_handle<cuabi_event, HandleType::Event>();
    cuabi_buffer* buffer = destroyed_handle<cuabi_buffer, HandleType::Buffer>();
    size_t size = 0;
    cuabi_stream* out_stream = nullptr;
    EXPECT_FAILS_WITH(cuabi_context_synchronize(context), CUABI_ERROR_INVALID_HANDLE, "already destroyed");
    EXPECT_FAILS_WITH(cuabi_stream_create(context, nullptr, &out_stream), CUABI_ERROR_INVALID_HANDLE,
                      "already destroyed");
    EXPECT_FAILS_WITH(cuabi_stream_query(stream), CUABI_ERROR_INVALID_HANDLE, "already destroyed");
    EXPECT_FAILS_WITH(cuabi_event_query(event), CUABI_ERROR_INVALID_HANDLE, "already destroyed");
    EXPECT_FAILS_WITH(cuabi_buffer_get_size(buffer, &size), CUABI_ERROR_INVALID_HANDLE, "already destroyed");
    // Destroying again is harmless.
    cuabi_context_destroy(context);
    cuabi_stream_destroy(stream);
    cuabi_event_destroy(event);
    cuabi_buffer_destroy(buffer);
}

TEST(DeviceApiArguments, WrongTypeHandlesAreRefusedNamingBothTypes) {
    cuabi_stream* stream_handle = nullptr;
    auto placeholder = std::make_shared<Placeholder<HandleType::Stream>>();
    ASSERT_EQ(publish(placeholder, &stream_handle), CUABI_SUCCESS);
    auto* as_context = reinterpret_cast<cuabi_context*>(stream_handle);
    auto* as_buffer = reinterpret_cast<cuabi_buffer*>(stream_handle);
    auto* as_event = reinterpret_cast<cuabi_event*>(stream_handle);
    size_t size = 0;
    EXPECT_FAILS_WITH(cuabi_context_synchronize(as_context), CUABI_ERROR_INVALID_HANDLE,
                      "context is a cuabi stream handle where a context handle is required");
    EXPECT_FAILS_WITH(cuabi_buffer_get_size(as_buffer, &size), CUABI_ERROR_INVALID_HANDLE,
                      "buffer is a cuabi stream handle where a buffer handle is required");
    EXPECT_FAILS_WITH(cuabi_event_query(as_event), CUABI_ERROR_INVALID_HANDLE,
                      "event is a cuabi stream handle where a");
    // Destroying through the wrong type leaves the handle alive.
    cuabi_buffer_destroy(as_buffer);
    cuabi_context_destroy(as_context);
    EXPECT_EQ(placeholder.use_count(), 2) << "the table must still hold the object";
    destroy_handle<Placeholder<HandleType::Stream>>(stream_handle);
    EXPECT_EQ(placeholder.use_count(), 1);
}

TEST(DeviceApiArguments, MadeUpHandlesAreRefused) {
    int on_stack = 0;
    size_t size = 0;
    EXPECT_FAILS_WITH(cuabi_buffer_get_size(reinterpret_cast<cuabi_buffer*>(&on_stack), &size),
                      CUABI_ERROR_INVALID_HANDLE, "is not a cuabi handle");
    EXPECT_FAILS_WITH(cuabi_stream_query(reinterpret_cast<cuabi_stream*>(uintptr_t{0x1234})),
                      CUABI_ERROR_INVALID_HANDLE, "is not a cuabi handle");
    // A well-formed stream handle pointing at a slot that was never handed out.
    auto* never = reinterpret_cast<cuabi_stream*>((uint64_t{2} << 56) | (uint64_t{1} << 32) | 0xFFFFFFF0u);
    EXPECT_FAILS_WITH(cuabi_stream_synchronize(never), CUABI_ERROR_INVALID_HANDLE, "stream");
    cuabi_stream_destroy(never);
    cuabi_buffer_destroy(reinterpret_cast<cuabi_buffer*>(&on_stack));
}

TEST(DeviceApiArguments, NegativeDeviceOrdinalsAreRefused) {
    cuabi_context_options options = CUABI_CONTEXT_OPTIONS_INIT;
    options.device_ordinal = -1;
    cuabi_context* context = nullptr;
    EXPECT_FAILS_WITH(cuabi_context_create(&options, &context), CUABI_ERROR_INVALID_DEVICE,
                      "device ordinal -1 is negative");
    cuabi_device_info info = CUABI_DEVICE_INFO_INIT;
    EXPECT_FAILS_WITH(cuabi_device_get_info(-7, &info), CUABI_ERROR_INVALID_DEVICE, "device ordinal -7");
}

TEST(DeviceApiArguments, ZeroAndOverflowingBufferSizesAreRefused) {
    cuabi_buffer* buffer = nullptr;
    EXPECT_FAILS_WITH(cuabi_buffer_create(kNoContext, 0, nullptr, &buffer), CUABI_ERROR_INVALID_ARGUMENT,
                      "buffer size is 0");
    EXPECT_FAILS_WITH(cuabi_buffer_wrap(kNoContext, 0x1000, 0, &buffer), CUABI_ERROR_INVALID_ARGUMENT, "size is 0");
    EXPECT_FAILS_WITH(cuabi_buffer_wrap(kNoContext, 0, 16, &buffer), CUABI_ERROR_INVALID_ARGUMENT,
                      "device_address is 0");
    EXPECT_FAILS_WITH(cuabi_buffer_wrap(kNoContext, UINT64_MAX - 15, 64, &buffer), CUABI_ERROR_OUT_OF_BOUNDS,
                      "64 bytes at device address 0xfffffffffffffff0");
    EXPECT_EQ(buffer, nullptr);
}

// The bounds arithmetic itself, for every edge, without a GPU.
TEST(BufferBounds, RangesInsideTheBufferPass) {
    EXPECT_EQ(check_range(0, 100, 100, "write", "destination"), CUABI_SUCCESS);
    EXPECT_EQ(check_range(100, 0, 100, "write", "destination"), CUABI_SUCCESS);
    EXPECT_EQ(check_range(99, 1, 100, "write", "destination"), CUABI_SUCCESS);
}

TEST(BufferBounds, RangesPastTheEndAreRefusedNamingOffsetSizeAndBufferSize) {
    EXPECT_FAILS_WITH(check_range(96, 8, 100, "write", "destination"), CUABI_ERROR_OUT_OF_BOUNDS,
                      "write of 8 bytes at offset 96 exceeds the destination buffer of 100 bytes");
    EXPECT_FAILS_WITH(check_range(101, 0, 100, "read", "source"), CUABI_ERROR_OUT_OF_BOUNDS,
                      "read of 0 bytes at offset 101 exceeds the source buffer of 100 bytes");
}

TEST(BufferBounds, OverflowingOffsetPlusSizeIsRefusedNotWrapped) {
    // offset + size wraps to a small number in size_t; the check must not be fooled.
    EXPECT_FAILS_WITH(check_range(SIZE_MAX, 2, 100, "write", "destination"), CUABI_ERROR_OUT_OF_BOUNDS,
                      "at offset 18446744073709551615");
    EXPECT_FAILS_WITH(check_range(8, SIZE_MAX - 4, 100, "copy", "source"), CUABI_ERROR_OUT_OF_BOUNDS,
                      "copy of 18446744073709551611 bytes at offset 8");
}

TEST(BufferBounds, FillChecksElementSizeAlignmentAndOverflow) {
    EXPECT_EQ(check_fill(0, 4, 25, 100), CUABI_SUCCESS);
    EXPECT_EQ(check_fill(98, 2, 1, 100), CUABI_SUCCESS);
    EXPECT_FAILS_WITH(check_fill(0, 3, 1, 100), CUABI_ERROR_INVALID_ARGUMENT, "element_size is 3");
    EXPECT_FAILS_WITH(check_fill(0, 0, 1, 100), CUABI_ERROR_INVALID_ARGUMENT, "element_size is 0");
    EXPECT_FAILS_WITH(check_fill(2, 4, 1, 100), CUABI_ERROR_INVALID_ARGUMENT,
                      "offset 2 is not a multiple of element_size 4");
    EXPECT_FAILS_WITH(check_fill(0, 4, 26, 100), CUABI_ERROR_OUT_OF_BOUNDS,
                      "fill of 26 elements of 4 bytes at offset 0 exceeds the buffer of 100 bytes");
    // count * element_size overflows size_t.
    EXPECT_FAILS_WITH(check_fill(0, 4, SIZE_MAX / 2, 100), CUABI_ERROR_OUT_OF_BOUNDS, "exceeds the buffer");
    EXPECT_FAILS_WITH(check_fill(104, 4, 0, 100), CUABI_ERROR_OUT_OF_BOUNDS, "at offset 104");
}

}  // namespace
}  // namespace cuabi
