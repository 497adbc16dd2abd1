// cuabi ends only the captures it began (graph/capture.hpp). The repro: another library
// begins a capture on a stream cuabi wraps; a cuabi launch refused by validation ended and
// discarded that library's capture, whose own cuStreamEndCapture then failed with CUDA error 401.
#include "graph_test_support.hpp"
#include "raw_driver.hpp"

namespace {

class CaptureOwnership : public GraphTest {
protected:
    void SetUp() override {
        GraphTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        ASSERT_TRUE(driver.ok()) << "libcuda.so.1 lacks an entry point these tests use";
        void* native = nullptr;
        ASSERT_OK(cuabi_stream_get_native(capturing, &native));
        stream = static_cast<CUstream>(native);
        out = buffer(kN * sizeof(uint32_t), &out_address);
    }

    int32_t capture_status(cuabi_stream* of) {
        int32_t status = -1;
        EXPECT_OK(cuabi_graph_capture_get_status(of, &status));
        return status;
    }
    // A launch refused by validation (2048 threads per block), on the capturing stream.
    cuabi_status refused_launch() {
        uint32_t n = kN;
        cuabi_kernel_arg args[] = {{&out_address, sizeof out_address}, {&n, sizeof n}};
        cuabi_launch_config launch = config(1, 2048);
        launch.stream = capturing;
        return cuabi_launch(write_index, &launch, args, 2);
    }
    // The other library ends its capture: it must still be there, and whole.
    void other_library_ends_its_capture() {
        CUgraph graph = nullptr;
        EXPECT_EQ(driver.stream_end_capture(stream, &graph), CUDA_SUCCESS) << "the other library's capture was lost";
        if (graph != nullptr) driver.graph_destroy(graph);
    }

    static constexpr uint32_t kN = 256;
    RawDriver driver;
    CUstream stream = nullptr;
    cuabi_buffer* out = nullptr;
    uint64_t out_address = 0;
};

TEST_F(CaptureOwnership, ARefusedLaunchLeavesACaptureOtherCodeBegan) {
    ASSERT_EQ(driver.stream_begin_capture(stream, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
    EXPECT_STATUS_WITH_FIX(refused_launch(), CUABI_ERROR_LAUNCH_BLOCK);
    const std::string message = cuabi_last_error_message();
    EXPECT_NE(message.find("other code began"), std::string::npos) << message;
    EXPECT_NE(message.find("still captures"), std::string::npos) << message;
    EXPECT_EQ(capture_status(capturing), CUABI_CAPTURE_STATUS_ACTIVE);
    other_library_ends_its_capture();
}

TEST_F(CaptureOwnership, CaptureEndAndAbortLeaveACaptureOtherCodeBegan) {
    ASSERT_EQ(driver.stream_begin_capture(stream, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
    cuabi_graph* graph = nullptr;
    EXPECT_STATUS_WITH_FIX(cuabi_graph_capture_end(capturing, nullptr, &graph), CUABI_ERROR_CAPTURE);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("other code began"), std::string::npos)
        << cuabi_last_error_message();
    EXPECT_EQ(graph, nullptr);
    EXPECT_EQ(capture_status(capturing), CUABI_CAPTURE_STATUS_ACTIVE);
    EXPECT_STATUS_WITH_FIX(cuabi_graph_capture_abort(capturing), CUABI_ERROR_CAPTURE);
    EXPECT_EQ(capture_status(capturing), CUABI_CAPTURE_STATUS_ACTIVE);
    // A bad argument to capture_end does not end it either.
    cuabi_graph_options bad = CUABI_GRAPH_OPTIONS_INIT;
    bad.flags = 0x80u;
    EXPECT_STATUS_WITH_FIX(cuabi_graph_capture_end(capturing, &bad, &graph), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(capture_status(capturing), CUABI_CAPTURE_STATUS_ACTIVE);
    other_library_ends_its_capture();
}

TEST_F(CaptureOwnership, ARefusedLaunchEndsCuabisOwnCapture) {
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    EXPECT_STATUS_WITH_FIX(refused_launch(), CUABI_ERROR_LAUNCH_BLOCK);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("cuabi ended the capture and discarded it"),
              std::string::npos)
        << cuabi_last_error_message();
    EXPECT_EQ(capture_status(capturing), CUABI_CAPTURE_STATUS_NONE);
    // The stream is usable: a new capture begins and ends.
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_buffer_fill(out, 0, 1, 4, kN, capturing));
    EXPECT_NE(end_capture(capturing), nullptr);
}

TEST_F(CaptureOwnership, DestroyingAWrappedStreamEndsOnlyCuabisCapture) {
    CUstream raw = nullptr;
    ASSERT_EQ(driver.stream_create(&raw, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;

    // The other library's capture survives destroying cuabi's handle of the stream.
    cuabi_stream* wrapped = nullptr;
    ASSERT_OK(cuabi_stream_wrap(context, raw, &wrapped));
    ASSERT_EQ(driver.stream_begin_capture(raw, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
    cuabi_stream_destroy(wrapped);
    ASSERT_EQ(driver.stream_is_capturing(raw, &status), CUDA_SUCCESS);
    EXPECT_EQ(status, CU_STREAM_CAPTURE_STATUS_ACTIVE);
    CUgraph graph = nullptr;
    EXPECT_EQ(driver.stream_end_capture(raw, &graph), CUDA_SUCCESS);
    if (graph != nullptr) driver.graph_destroy(graph);

    // cuabi's capture ends with the handle, so the stream is not left capturing.
    ASSERT_OK(cuabi_stream_wrap(context, raw, &wrapped));
    ASSERT_OK(cuabi_graph_capture_begin(wrapped, CUABI_CAPTURE_MODE_RELAXED));
    ASSERT_OK(cuabi_buffer_fill(out, 0, 1, 4, kN, wrapped));
    cuabi_stream_destroy(wrapped);
    ASSERT_EQ(driver.stream_is_capturing(raw, &status), CUDA_SUCCESS);
    EXPECT_EQ(status, CU_STREAM_CAPTURE_STATUS_NONE);
    driver.stream_destroy(raw);
}

}  // namespace
