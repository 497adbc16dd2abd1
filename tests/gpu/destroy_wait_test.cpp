// Destroys wait without burning a core and report nothing. The repros:
// cuabi_stream_destroy while another thread synchronized the same stream burned 288 ms of CPU
// spinning for the synchronizing thread's pin; a destroy overwrote the thread's last error, so a
// binding that cleaned up before reading it (Go defer, Rust Drop) reported the wrong message.
#include <chrono>

#include "../unit/cpu_time.hpp"
#include "busy_stream_support.hpp"

namespace {

class DestroyWait : public BusyStreamTest {};

TEST_F(DestroyWait, DestroyingAStreamAnotherThreadSynchronizesSleeps) {
    cuabi_stream* shared = nullptr;
    ASSERT_OK(cuabi_stream_create(context, nullptr, &shared));
    ASSERT_NO_FATAL_FAILURE(keep_busy_and_wait_on(shared, 500));
    const auto wall_start = std::chrono::steady_clock::now();
    const auto cpu_start = test_support::thread_cpu_time();
    cuabi_stream_destroy(shared);
    const auto cpu = test_support::thread_cpu_time() - cpu_start;
    const auto wall = std::chrono::steady_clock::now() - wall_start;
    join_waiter();
    EXPECT_GT(wall, std::chrono::milliseconds(100)) << "destroy did not wait for the synchronizing thread";
    EXPECT_LT(cpu, std::chrono::milliseconds(30))
        << "destroy burned CPU while waiting " << std::chrono::duration_cast<std::chrono::milliseconds>(wall).count()
        << " ms";
}

TEST_F(DestroyWait, DestroysOfRealObjectsLeaveTheLastErrorAlone) {
    // Every kind of object, made for real, then a failure, then the destroys.
    cuabi_stream* stream = nullptr;
    ASSERT_OK(cuabi_stream_create(context, nullptr, &stream));
    cuabi_event* event = nullptr;
    ASSERT_OK(cuabi_event_create(context, nullptr, &event));
    cuabi_buffer* buffer = nullptr;
    ASSERT_OK(cuabi_buffer_create(context, 1024, nullptr, &buffer));
    cuabi_module* module = nullptr;
    ASSERT_OK(cuabi_module_compile(context, kSpinSource, nullptr, &module));
    cuabi_kernel* spin = nullptr;
    ASSERT_OK(cuabi_module_get_kernel(module, "spin", &spin));
    ASSERT_OK(cuabi_graph_capture_begin(stream, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_buffer_fill(buffer, 0, 0, 1, 1024, stream));
    cuabi_graph* graph = nullptr;
    ASSERT_OK(cuabi_graph_capture_end(stream, nullptr, &graph));
    cuabi_context* second = nullptr;
    ASSERT_OK(cuabi_context_create(nullptr, &second));
    cuabi_range* range = nullptr;
    ASSERT_OK(cuabi_range_start("destroys", nullptr, &range));
    ASSERT_OK(cuabi_range_end(range));

    EXPECT_EQ(cuabi_buffer_write(buffer, 4096, "x", 1, nullptr), CUABI_ERROR_OUT_OF_BOUNDS);
    const std::string before = cuabi_last_error_message();
    cuabi_graph_destroy(graph);
    cuabi_kernel_destroy(spin);
    cuabi_module_destroy(module);
    cuabi_buffer_destroy(buffer);
    cuabi_event_destroy(event);
    cuabi_stream_destroy(stream);
    cuabi_context_destroy(second);
    // ... and destroyed, made-up and wrong-type handles.
    cuabi_stream_destroy(stream);
    cuabi_buffer_destroy(reinterpret_cast<cuabi_buffer*>(stream));
    cuabi_graph_destroy(reinterpret_cast<cuabi_graph*>(0xdeadbeef));
    EXPECT_EQ(cuabi_last_error_message(), before);
}

}  // namespace
