// Streams on a real device: creation with clamped priorities, query and synchronize, wrapping a
// foreign CUstream without owning it, and refusing the legacy default stream.
#include <string>
#include <vector>

#include "gpu_test_support.hpp"

namespace {

class StreamTest : public GpuTest {
protected:
    // Enough asynchronous work (several GB of fills, milliseconds on any GPU) that it cannot
    // have finished by the next API call.
    void enqueue_long_work(cuabi_stream* stream) {
        if (big_ == nullptr) ASSERT_OK(cuabi_buffer_create(context, kBigBytes, nullptr, &big_));
        for (int i = 0; i < 40; ++i) ASSERT_OK(cuabi_buffer_fill(big_, 0, i, 4, kBigBytes / 4, stream));
    }
    void TearDown() override {
        cuabi_buffer_destroy(big_);
        GpuTest::TearDown();
    }
    static constexpr size_t kBigBytes = size_t{256} << 20;
    cuabi_buffer* big_ = nullptr;
};

TEST_F(StreamTest, CreatedStreamsWithAnyPriorityWork) {
    for (int32_t priority : {0, -1, -1000, 1000}) {
        cuabi_stream_options options = CUABI_STREAM_OPTIONS_INIT;
        options.priority = priority;
        cuabi_stream* stream = nullptr;
        ASSERT_OK(cuabi_stream_create(context, &options, &stream));
        EXPECT_OK(cuabi_stream_query(stream));
        EXPECT_OK(cuabi_stream_synchronize(stream));
        void* native = nullptr;
        EXPECT_OK(cuabi_stream_get_native(stream, &native));
        EXPECT_NE(native, nullptr);
        EXPECT_NE(native, reinterpret_cast<void*>(1)) << "never the legacy stream";
        cuabi_stream_destroy(stream);
    }
}

TEST_F(StreamTest, QueryReportsNotReadyWithoutAnErrorMessageThenSuccess) {
    cuabi_stream* stream = nullptr;
    ASSERT_OK(cuabi_stream_create(context, nullptr, &stream));
    enqueue_long_work(stream);
    std::string message_before = cuabi_last_error_message();
    EXPECT_EQ(cuabi_stream_query(stream), CUABI_ERROR_NOT_READY);
    EXPECT_EQ(message_before, cuabi_last_error_message()) << "NOT_READY is an answer, not a failure";
    ASSERT_OK(cuabi_stream_synchronize(stream));
    EXPECT_OK(cuabi_stream_query(stream));
    cuabi_stream_destroy(stream);
}

TEST_F(StreamTest, StreamSynchronizationsAreCounted) {
    cuabi_stream* stream = nullptr;
    ASSERT_OK(cuabi_stream_create(context, nullptr, &stream));
    cuabi_counters before = CUABI_COUNTERS_INIT, after = CUABI_COUNTERS_INIT;
    ASSERT_OK(cuabi_context_get_counters(context, &before));
    ASSERT_OK(cuabi_stream_synchronize(stream));
    ASSERT_OK(cuabi_context_get_counters(context, &after));
    EXPECT_EQ(after.synchronizations, before.synchronizations + 1);
    cuabi_stream_destroy(stream);
}

TEST_F(StreamTest, WrappedForeignStreamIsUsedButNotDestroyed) {
    cuabi_stream* owner = nullptr;
    ASSERT_OK(cuabi_stream_create(context, nullptr, &owner));
    void* foreign = nullptr;
    ASSERT_OK(cuabi_stream_get_native(owner, &foreign));

    cuabi_stream* wrapped = nullptr;
    ASSERT_OK(cuabi_stream_wrap(context, foreign, &wrapped));
    void* wrapped_native = nullptr;
    ASSERT_OK(cuabi_stream_get_native(wrapped, &wrapped_native));
    EXPECT_EQ(wrapped_native, foreign);

    // Work on the wrapped stream lands in the foreign stream.
    std::vector<uint8_t> data = random_bytes(4096, 11), back = poisoned(4096);
    cuabi_buffer* buffer = nullptr;
    ASSERT_OK(cuabi_buffer_create(context, data.size(), nullptr, &buffer));
    ASSERT_OK(cuabi_buffer_write(buffer, 0, data.data(), data.size(), wrapped));
    ASSERT_OK(cuabi_buffer_read(buffer, 0, back.data(), back.size(), wrapped));
    ASSERT_OK(cuabi_stream_synchronize(owner));
    EXPECT_EQ(back, data);

    // Destroying the wrapper leaves the CUstream alive for its owner.
    cuabi_stream_destroy(wrapped);
    EXPECT_OK(cuabi_buffer_fill(buffer, 0, 1, 1, data.size(), owner));
    EXPECT_OK(cuabi_stream_synchronize(owner));
    cuabi_buffer_destroy(buffer);
    cuabi_stream_destroy(owner);
}

TEST_F(StreamTest, WrapRefusesTheLegacyAndPerThreadDefaultStreams) {
    cuabi_stream* wrapped = nullptr;
    EXPECT_STATUS_WITH_FIX(cuabi_stream_wrap(context, nullptr, &wrapped), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("legacy default stream"), std::string::npos);
    EXPECT_STATUS_WITH_FIX(cuabi_stream_wrap(context, reinterpret_cast<void*>(1), &wrapped),
                           CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("CU_STREAM_LEGACY"), std::string::npos);
    EXPECT_STATUS_WITH_FIX(cuabi_stream_wrap(context, reinterpret_cast<void*>(2), &wrapped),
                           CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("CU_STREAM_PER_THREAD"), std::string::npos);
    EXPECT_EQ(wrapped, nullptr);
}

TEST_F(StreamTest, WrapRefusesAStreamOfAnotherDevice) {
    int32_t count = 0;
    ASSERT_OK(cuabi_device_get_count(&count));
    if (count < 2) GTEST_SKIP() << "needs two CUDA devices (streams of one device share its primary context)";
    cuabi_context_options options = CUABI_CONTEXT_OPTIONS_INIT;
    options.device_ordinal = 1;
    cuabi_context* second = nullptr;
    ASSERT_OK(cuabi_context_create(&options, &second));
    cuabi_stream* other = nullptr;
    ASSERT_OK(cuabi_stream_create(second, nullptr, &other));
    void* foreign = nullptr;
    ASSERT_OK(cuabi_stream_get_native(other, &foreign));
    cuabi_stream* wrapped = nullptr;
    EXPECT_STATUS_WITH_FIX(cuabi_stream_wrap(context, foreign, &wrapped), CUABI_ERROR_CONTEXT_MISMATCH);
    // And a stream of device 1 cannot carry a copy into a buffer of device 0.
    cuabi_buffer* buffer = nullptr;
    ASSERT_OK(cuabi_buffer_create(context, 16, nullptr, &buffer));
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_fill(buffer, 0, 0, 1, 16, other), CUABI_ERROR_CONTEXT_MISMATCH);
    cuabi_buffer_destroy(buffer);
    cuabi_stream_destroy(other);
    cuabi_context_destroy(second);
}

TEST_F(StreamTest, StreamOutlivesItsContextHandle) {
    cuabi_stream* stream = nullptr;
    ASSERT_OK(cuabi_stream_create(context, nullptr, &stream));
    cuabi_context_destroy(context);
    context = nullptr;
    EXPECT_OK(cuabi_stream_query(stream));
    EXPECT_OK(cuabi_stream_synchronize(stream));
    cuabi_stream_destroy(stream);
}

}  // namespace
