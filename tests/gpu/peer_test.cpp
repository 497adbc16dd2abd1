// Several GPUs on real devices: peer access queried, enabled and disabled (idempotent both ways),
// copies between devices correct with peer access, refused without it naming both devices, staged
// on request, bounds-checked on both buffers, and kept alive by a graph that captured them. The
// tests that need two devices skip with the reason on a machine with one; two contexts of one
// device need no peer access (OneDevicePeerTest, which runs on one device).
#include <cstdint>
#include <string>
#include <vector>

#include "gpu_test_support.hpp"

namespace {

class PeerTest : public GpuTest {
protected:
    void SetUp() override {
        GpuTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        int32_t devices = 0;
        ASSERT_OK(cuabi_device_get_count(&devices));
        if (devices < 2) GTEST_SKIP() << "needs two devices; this machine has " << devices;
        cuabi_context_options options = CUABI_CONTEXT_OPTIONS_INIT;
        options.device_ordinal = 1;
        ASSERT_OK(cuabi_context_create(&options, &second));
        uint32_t can = 0;
        ASSERT_OK(cuabi_context_can_access_peer(context, second, &can));
        uint32_t back = 0;
        ASSERT_OK(cuabi_context_can_access_peer(second, context, &back));
        peers = can == 1 && back == 1;
    }
    void TearDown() override {
        for (cuabi_buffer* buffer : buffers_) cuabi_buffer_destroy(buffer);
        for (cuabi_stream* stream : streams_) cuabi_stream_destroy(stream);
        if (second != nullptr) {
            cuabi_context_disable_peer_access(context, second);
            cuabi_context_disable_peer_access(second, context);
        }
        cuabi_context_destroy(second);
        GpuTest::TearDown();
    }
    cuabi_buffer* make_buffer(cuabi_context* on, size_t size) {
        cuabi_buffer* buffer = nullptr;
        EXPECT_OK(cuabi_buffer_create(on, size, nullptr, &buffer));
        buffers_.push_back(buffer);
        return buffer;
    }
    cuabi_stream* make_stream(cuabi_context* on) {
        cuabi_stream* stream = nullptr;
        EXPECT_OK(cuabi_stream_create(on, nullptr, &stream));
        streams_.push_back(stream);
        return stream;
    }
    void skip_without_peers() {
        if (!peers) GTEST_SKIP() << "devices 0 and 1 cannot be peers (cuDeviceCanAccessPeer says 0)";
    }
    static void expect_message_names_both_devices() {
        std::string message = cuabi_last_error_message();
        EXPECT_NE(message.find("device 0 ("), std::string::npos) << message;
        EXPECT_NE(message.find("device 1 ("), std::string::npos) << message;
    }

    cuabi_context* second = nullptr;
    bool peers = false;
    std::vector<cuabi_buffer*> buffers_;
    std::vector<cuabi_stream*> streams_;
};

TEST_F(PeerTest, AccessIsOffUntilEnabledAndEnablingTwiceOrDisablingTwiceSucceeds) {
    skip_without_peers();
    uint32_t enabled = 7;
    ASSERT_OK(cuabi_context_get_peer_access(context, second, &enabled));
    EXPECT_EQ(enabled, 0u);
    ASSERT_OK(cuabi_context_enable_peer_access(context, second));
    ASSERT_OK(cuabi_context_enable_peer_access(context, second));
    ASSERT_OK(cuabi_context_get_peer_access(context, second, &enabled));
    EXPECT_EQ(enabled, 1u);
    ASSERT_OK(cuabi_context_get_peer_access(second, context, &enabled));
    EXPECT_EQ(enabled, 0u) << "peer access is one direction";
    ASSERT_OK(cuabi_context_disable_peer_access(context, second));
    ASSERT_OK(cuabi_context_disable_peer_access(context, second));
    ASSERT_OK(cuabi_context_get_peer_access(context, second, &enabled));
    EXPECT_EQ(enabled, 0u);
}

// Runs on one device: two contexts of it share its memory.
using OneDevicePeerTest = GpuTest;

TEST_F(OneDevicePeerTest, TwoContextsOfOneDeviceNeedNoPeerAccess) {
    cuabi_context* again = nullptr;
    ASSERT_OK(cuabi_context_create(nullptr, &again));
    uint32_t can = 0, enabled = 0;
    EXPECT_OK(cuabi_context_can_access_peer(context, again, &can));
    EXPECT_OK(cuabi_context_get_peer_access(context, again, &enabled));
    EXPECT_OK(cuabi_context_enable_peer_access(context, again));
    EXPECT_EQ(can, 1u);
    EXPECT_EQ(enabled, 1u);
    cuabi_context_destroy(again);
}

TEST_F(PeerTest, ACopyWithPeerAccessMovesTheBytesBothWays) {
    skip_without_peers();
    const size_t size = (size_t{1} << 20) + 13;
    std::vector<uint8_t> data = random_bytes(size, 30);
    cuabi_buffer* on0 = make_buffer(context, size);
    cuabi_buffer* on1 = make_buffer(second, size + 64);
    cuabi_buffer* back = make_buffer(context, size);
    ASSERT_OK(cuabi_buffer_write(on0, 0, data.data(), size, nullptr));
    ASSERT_OK(cuabi_context_enable_peer_access(second, context));  // device 1 pulls from device 0
    ASSERT_OK(cuabi_buffer_copy_peer(on1, 64, on0, 0, size, CUABI_PEER_COPY_DEFAULT, nullptr));
    ASSERT_OK(cuabi_context_enable_peer_access(context, second));  // device 0 pulls back, on a stream
    cuabi_stream* stream = make_stream(context);
    ASSERT_OK(cuabi_buffer_copy_peer(back, 0, on1, 64, size, CUABI_PEER_COPY_DEFAULT, stream));
    ASSERT_OK(cuabi_stream_synchronize(stream));
    std::vector<uint8_t> result = poisoned(size);
    ASSERT_OK(cuabi_buffer_read(back, 0, result.data(), size, nullptr));
    EXPECT_TRUE(result == data) << "the bytes came back changed";
}

TEST_F(PeerTest, ACopyWithoutPeerAccessIsRefusedNamingBothDevices) {
    cuabi_buffer* on0 = make_buffer(context, 4096);
    cuabi_buffer* on1 = make_buffer(second, 4096);
    ASSERT_OK(cuabi_context_disable_peer_access(second, context));
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_copy_peer(on1, 0, on0, 0, 4096, CUABI_PEER_COPY_DEFAULT, nullptr),
                           CUABI_ERROR_CONTEXT_MISMATCH);
    expect_message_names_both_devices();
    EXPECT_NE(std::string(cuabi_last_error_message()).find("cuabi_context_enable_peer_access"), std::string::npos)
        << cuabi_last_error_message();
}

TEST_F(PeerTest, AStagedCopyNeedsNoPeerAccess) {
    const size_t size = 70000;
    std::vector<uint8_t> data = random_bytes(size, 31);
    cuabi_buffer* on0 = make_buffer(context, size);
    cuabi_buffer* on1 = make_buffer(second, size);
    ASSERT_OK(cuabi_buffer_write(on0, 0, data.data(), size, nullptr));
    ASSERT_OK(cuabi_context_disable_peer_access(second, context));
    ASSERT_OK(cuabi_buffer_copy_peer(on1, 0, on0, 0, size, CUABI_PEER_COPY_STAGED, nullptr));
    std::vector<uint8_t> result = poisoned(size);
    ASSERT_OK(cuabi_buffer_read(on1, 0, result.data(), size, nullptr));
    EXPECT_TRUE(result == data);
}

TEST_F(PeerTest, BothRangesAreBoundsChecked) {
    cuabi_buffer* on0 = make_buffer(context, 100);
    cuabi_buffer* on1 = make_buffer(second, 200);
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_copy_peer(on1, 150, on0, 0, 60, CUABI_PEER_COPY_STAGED, nullptr),
                           CUABI_ERROR_OUT_OF_BOUNDS);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("copy of 60 bytes at offset 150 exceeds the destination "
                                                           "buffer of 200 bytes"),
              std::string::npos)
        << cuabi_last_error_message();
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_copy_peer(on1, 0, on0, 50, 60, CUABI_PEER_COPY_STAGED, nullptr),
                           CUABI_ERROR_OUT_OF_BOUNDS);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("exceeds the source buffer of 100 bytes"),
              std::string::npos)
        << cuabi_last_error_message();
}

TEST_F(PeerTest, AStreamOfAThirdDeviceIsRefused) {
    int32_t devices = 0;
    ASSERT_OK(cuabi_device_get_count(&devices));
    if (devices < 3) GTEST_SKIP() << "needs three devices; this machine has " << devices;
    cuabi_context_options options = CUABI_CONTEXT_OPTIONS_INIT;
    options.device_ordinal = 2;
    cuabi_context* third = nullptr;
    ASSERT_OK(cuabi_context_create(&options, &third));
    cuabi_stream* stream = make_stream(third);
    cuabi_buffer* on0 = make_buffer(context, 64);
    cuabi_buffer* on1 = make_buffer(second, 64);
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_copy_peer(on1, 0, on0, 0, 64, CUABI_PEER_COPY_STAGED, stream),
                           CUABI_ERROR_CONTEXT_MISMATCH);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("the stream belongs to device 2"), std::string::npos)
        << cuabi_last_error_message();
    cuabi_context_destroy(third);
}

TEST_F(PeerTest, AGraphThatCapturedCopiesKeepsTheirBuffersAlive) {
    skip_without_peers();
    const size_t size = 4096;
    std::vector<uint8_t> data = random_bytes(size, 32);
    cuabi_buffer* on0 = nullptr;
    cuabi_buffer* on1 = nullptr;
    ASSERT_OK(cuabi_buffer_create(context, size, nullptr, &on0));
    ASSERT_OK(cuabi_buffer_create(second, size, nullptr, &on1));
    ASSERT_OK(cuabi_buffer_write(on0, 0, data.data(), size, nullptr));
    cuabi_buffer* result = make_buffer(context, size);
    ASSERT_OK(cuabi_context_enable_peer_access(context, second));  // device 0 issues both copies
    cuabi_stream* stream = make_stream(context);
    ASSERT_OK(cuabi_graph_capture_begin(stream, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_buffer_copy_peer(on1, 0, on0, 0, size, CUABI_PEER_COPY_DEFAULT, stream));
    ASSERT_OK(cuabi_buffer_copy_peer(result, 0, on1, 0, size, CUABI_PEER_COPY_DEFAULT, stream));
    cuabi_graph* graph = nullptr;
    ASSERT_OK(cuabi_graph_capture_end(stream, nullptr, &graph));
    cuabi_buffer_destroy(on0);  // the graph keeps both alive for its replays
    cuabi_buffer_destroy(on1);
    ASSERT_OK(cuabi_buffer_fill(result, 0, 0xA5, 1, size, nullptr));
    ASSERT_OK(cuabi_graph_launch(graph, stream));
    ASSERT_OK(cuabi_stream_synchronize(stream));
    std::vector<uint8_t> copied = poisoned(size);
    ASSERT_OK(cuabi_buffer_read(result, 0, copied.data(), size, nullptr));
    EXPECT_TRUE(copied == data) << "the replay through both devices lost the bytes";
    cuabi_graph_destroy(graph);
}

}  // namespace
