// Events on a real device: record / query / synchronize, fork and join across two streams (the
// join is what makes the result right), elapsed time, and the refusals around timing.
#include <string>
#include <vector>

#include "gpu_test_support.hpp"

namespace {

class EventTest : public GpuTest {
protected:
    cuabi_event* make_event(uint32_t flags = CUABI_EVENT_DEFAULT) {
        cuabi_event_options options = CUABI_EVENT_OPTIONS_INIT;
        options.flags = flags;
        cuabi_event* event = nullptr;
        cuabi_status status = cuabi_event_create(context, &options, &event);
        EXPECT_EQ(status, CUABI_SUCCESS) << cuabi_failure_text(status);
        events_.push_back(event);
        return event;
    }
    cuabi_stream* make_stream() {
        cuabi_stream* stream = nullptr;
        cuabi_status status = cuabi_stream_create(context, nullptr, &stream);
        EXPECT_EQ(status, CUABI_SUCCESS) << cuabi_failure_text(status);
        streams_.push_back(stream);
        return stream;
    }
    cuabi_buffer* make_buffer(size_t size) {
        cuabi_buffer* buffer = nullptr;
        cuabi_status status = cuabi_buffer_create(context, size, nullptr, &buffer);
        EXPECT_EQ(status, CUABI_SUCCESS) << cuabi_failure_text(status);
        buffers_.push_back(buffer);
        return buffer;
    }
    // Milliseconds of fills on `stream`: long enough that nothing after it has completed yet.
    void enqueue_long_work(cuabi_stream* stream) {
        const size_t bytes = size_t{256} << 20;
        cuabi_buffer* big = make_buffer(bytes);
        for (int i = 0; i < 40; ++i) ASSERT_OK(cuabi_buffer_fill(big, 0, i, 4, bytes / 4, stream));
    }
    void TearDown() override {
        for (cuabi_event* event : events_) cuabi_event_destroy(event);
        for (cuabi_buffer* buffer : buffers_) cuabi_buffer_destroy(buffer);
        for (cuabi_stream* stream : streams_) cuabi_stream_destroy(stream);
        GpuTest::TearDown();
    }
    std::vector<cuabi_event*> events_;
    std::vector<cuabi_stream*> streams_;
    std::vector<cuabi_buffer*> buffers_;
};

TEST_F(EventTest, RecordedEventCompletesAfterTheWorkBeforeIt) {
    cuabi_stream* stream = make_stream();
    cuabi_event* event = make_event();
    EXPECT_OK(cuabi_event_query(event)) << "an event never recorded counts as complete, as in CUDA";
    enqueue_long_work(stream);
    ASSERT_OK(cuabi_event_record(event, stream));
    std::string message_before = cuabi_last_error_message();
    EXPECT_EQ(cuabi_event_query(event), CUABI_ERROR_NOT_READY);
    EXPECT_EQ(message_before, cuabi_last_error_message()) << "NOT_READY sets no message";
    ASSERT_OK(cuabi_event_synchronize(event));
    EXPECT_OK(cuabi_event_query(event));
    EXPECT_OK(cuabi_stream_query(stream));
}

TEST_F(EventTest, ForkAndJoinAcrossTwoStreamsOrdersTheWork) {
    // producer: long work, then write data into `a`; consumer (after waiting) copies a -> b;
    // producer (after waiting on the consumer) reads b. Without the waits the copy would run
    // while `a` still holds the poison.
    const size_t size = size_t{16} << 20;
    std::vector<uint8_t> data = random_bytes(size, 21), back = poisoned(size);
    cuabi_stream* producer = make_stream();
    cuabi_stream* consumer = make_stream();
    cuabi_buffer* a = make_buffer(size);
    cuabi_buffer* b = make_buffer(size);
    ASSERT_OK(cuabi_buffer_fill(a, 0, 0xA5, 1, size, nullptr));
    ASSERT_OK(cuabi_buffer_fill(b, 0, 0x5A, 1, size, nullptr));
    cuabi_event* written = make_event(CUABI_EVENT_DISABLE_TIMING);
    cuabi_event* copied = make_event(CUABI_EVENT_DISABLE_TIMING);

    enqueue_long_work(producer);
    ASSERT_OK(cuabi_buffer_write(a, 0, data.data(), size, producer));
    ASSERT_OK(cuabi_event_record(written, producer));
    ASSERT_OK(cuabi_stream_wait_event(consumer, written));  // fork
    ASSERT_OK(cuabi_buffer_copy(b, 0, a, 0, size, consumer));
    ASSERT_OK(cuabi_event_record(copied, consumer));
    ASSERT_OK(cuabi_stream_wait_event(producer, copied));  // join
    ASSERT_OK(cuabi_buffer_read(b, 0, back.data(), size, producer));
    ASSERT_OK(cuabi_stream_synchronize(producer));
    EXPECT_TRUE(back == data) << "the copy did not wait for the write, or the read did not wait for the copy";
}

TEST_F(EventTest, ElapsedTimeBetweenTwoEventsIsPositive) {
    cuabi_stream* stream = make_stream();
    cuabi_event* start = make_event();
    cuabi_event* end = make_event();
    ASSERT_OK(cuabi_event_record(start, stream));
    enqueue_long_work(stream);
    ASSERT_OK(cuabi_event_record(end, stream));
    float ms = -1.0f;
    EXPECT_STATUS_WITH_FIX(cuabi_event_get_elapsed_ms(start, end, &ms), CUABI_ERROR_NOT_READY);
    EXPECT_EQ(ms, -1.0f) << "out_ms is written only on success";
    ASSERT_OK(cuabi_event_synchronize(end));
    ASSERT_OK(cuabi_event_get_elapsed_ms(start, end, &ms));
    EXPECT_GT(ms, 0.0f);
    EXPECT_LT(ms, 60000.0f);
}

TEST_F(EventTest, EventsRecordedWithoutAStreamTimeSynchronousCalls) {
    cuabi_event* start = make_event();
    cuabi_event* end = make_event();
    cuabi_buffer* buffer = make_buffer(size_t{64} << 20);
    ASSERT_OK(cuabi_event_record(start, nullptr));
    ASSERT_OK(cuabi_buffer_fill(buffer, 0, 3, 4, (size_t{64} << 20) / 4, nullptr));
    ASSERT_OK(cuabi_event_record(end, nullptr));
    ASSERT_OK(cuabi_event_synchronize(end));
    float ms = 0;
    ASSERT_OK(cuabi_event_get_elapsed_ms(start, end, &ms));
    EXPECT_GT(ms, 0.0f);
}

TEST_F(EventTest, ElapsedTimeIsRefusedForEventsWithoutTiming) {
    cuabi_stream* stream = make_stream();
    cuabi_event* start = make_event(CUABI_EVENT_DISABLE_TIMING);
    cuabi_event* end = make_event();
    ASSERT_OK(cuabi_event_record(start, stream));
    ASSERT_OK(cuabi_event_record(end, stream));
    ASSERT_OK(cuabi_stream_synchronize(stream));
    float ms = 0;
    EXPECT_STATUS_WITH_FIX(cuabi_event_get_elapsed_ms(start, end, &ms), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("CUABI_EVENT_DISABLE_TIMING"), std::string::npos)
        << cuabi_last_error_message();
}

TEST_F(EventTest, ElapsedTimeIsRefusedForAnEventNeverRecorded) {
    cuabi_stream* stream = make_stream();
    cuabi_event* start = make_event();
    cuabi_event* end = make_event();
    ASSERT_OK(cuabi_event_record(start, stream));
    ASSERT_OK(cuabi_stream_synchronize(stream));
    float ms = 0;
    EXPECT_STATUS_WITH_FIX(cuabi_event_get_elapsed_ms(start, end, &ms), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("end event was never recorded"), std::string::npos)
        << cuabi_last_error_message();
}

TEST_F(EventTest, BlockingSyncEventsWaitToo) {
    cuabi_stream* stream = make_stream();
    cuabi_event* event = make_event(CUABI_EVENT_BLOCKING_SYNC);
    enqueue_long_work(stream);
    ASSERT_OK(cuabi_event_record(event, stream));
    ASSERT_OK(cuabi_event_synchronize(event));
    EXPECT_OK(cuabi_event_query(event));
}

TEST_F(EventTest, EventOutlivesItsContextHandle) {
    cuabi_stream* stream = make_stream();
    cuabi_event* event = make_event();
    cuabi_context_destroy(context);
    context = nullptr;
    ASSERT_OK(cuabi_event_record(event, stream));
    EXPECT_OK(cuabi_event_synchronize(event));
}

}  // namespace
