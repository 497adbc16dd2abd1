// Managed buffers: written by the host, prefetched to the device, computed on, prefetched back and
// read by the host through the same address; advice accepted where it applies and refused where it
// cannot.
#include <cstdint>
#include <cstring>
#include <vector>

#include "graph_test_support.hpp"

namespace {

constexpr unsigned kCount = 1 << 16;
constexpr size_t kBytes = kCount * sizeof(float);

class ManagedMemory : public GraphTest {
protected:
    void SetUp() override {
        GraphTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        int32_t managed = 0, concurrent = 0;
        ASSERT_OK(cuabi_device_get_attribute(0, 83 /* CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY */, &managed));
        ASSERT_OK(cuabi_device_get_attribute(0, 89 /* CONCURRENT_MANAGED_ACCESS */, &concurrent));
        if (managed == 0 || concurrent == 0) GTEST_SKIP() << "device 0 lacks (concurrent) managed memory";
    }
    void TearDown() override {
        for (cuabi_buffer* made : managed_) cuabi_buffer_destroy(made);
        GraphTest::TearDown();
    }
    cuabi_buffer* managed(size_t bytes, uint32_t flags = CUABI_MANAGED_DEFAULT) {
        cuabi_buffer* made = nullptr;
        EXPECT_OK(cuabi_buffer_create_managed(context, bytes, flags, &made));
        if (made != nullptr) managed_.push_back(made);
        return made;
    }

private:
    std::vector<cuabi_buffer*> managed_;
};

TEST_F(ManagedMemory, HostWritesDeviceComputesHostReadsThroughPrefetches) {
    cuabi_buffer* data = managed(kBytes);
    ASSERT_NE(data, nullptr);
    void* host = nullptr;
    ASSERT_OK(cuabi_buffer_get_host_pointer(data, &host));
    uint64_t address = 0;
    ASSERT_OK(cuabi_buffer_get_device_address(data, &address));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(host), address) << "one address for host and device";
    std::vector<float> values = random_floats(kCount, 21);
    std::memcpy(host, values.data(), kBytes);

    ASSERT_OK(cuabi_buffer_prefetch(data, 0, kBytes, 0, capturing));
    float b = 5.0f;
    unsigned n = kCount;
    cuabi_kernel_arg args[] = {{&address, 8}, {&b, 4}, {&n, 4}};
    cuabi_launch_config launch = config(kCount / 256, 256);
    launch.stream = capturing;
    ASSERT_OK(cuabi_launch(add_in_place, &launch, args, 3));
    ASSERT_OK(cuabi_buffer_prefetch(data, 0, kBytes, CUABI_LOCATION_HOST, capturing));
    ASSERT_OK(cuabi_stream_synchronize(capturing));
    const float* result = static_cast<const float*>(host);
    for (unsigned i = 0; i < kCount; ++i) ASSERT_EQ(result[i], values[i] + 5.0f) << "element " << i;
    // Managed buffers are ordinary buffers for the other calls.
    std::vector<float> copy = read<float>(data, kCount);
    EXPECT_EQ(std::memcmp(copy.data(), result, kBytes), 0);
    // A synchronous prefetch of a part, and the empty one.
    EXPECT_OK(cuabi_buffer_prefetch(data, 4096, 4096, 0, nullptr));
    EXPECT_OK(cuabi_buffer_prefetch(data, kBytes, 0, 0, nullptr));
}

TEST_F(ManagedMemory, HostAttachedMemoryIsReachableFromTheHost) {
    cuabi_buffer* data = managed(4096, CUABI_MANAGED_ATTACH_HOST);
    ASSERT_NE(data, nullptr);
    void* host = nullptr;
    ASSERT_OK(cuabi_buffer_get_host_pointer(data, &host));
    std::memset(host, 0x3c, 4096);
    std::vector<uint8_t> bytes = poisoned(4096);
    ASSERT_OK(cuabi_buffer_read(data, 0, bytes.data(), bytes.size(), nullptr));
    EXPECT_EQ(bytes, std::vector<uint8_t>(4096, 0x3c));
}

TEST_F(ManagedMemory, AdviceIsAcceptedWhereItApplies) {
    cuabi_buffer* data = managed(kBytes);
    ASSERT_NE(data, nullptr);
    EXPECT_OK(cuabi_buffer_advise(data, 0, kBytes, CUABI_ADVICE_SET_READ_MOSTLY, 0));
    EXPECT_OK(cuabi_buffer_advise(data, 0, kBytes, CUABI_ADVICE_UNSET_READ_MOSTLY, 0));
    EXPECT_OK(cuabi_buffer_advise(data, 0, kBytes, CUABI_ADVICE_SET_PREFERRED_LOCATION, 0));
    EXPECT_OK(cuabi_buffer_advise(data, 0, kBytes, CUABI_ADVICE_SET_PREFERRED_LOCATION, CUABI_LOCATION_HOST));
    EXPECT_OK(cuabi_buffer_advise(data, 0, kBytes, CUABI_ADVICE_UNSET_PREFERRED_LOCATION, 0));
    EXPECT_OK(cuabi_buffer_advise(data, 0, 4096, CUABI_ADVICE_SET_ACCESSED_BY, 0));
    EXPECT_OK(cuabi_buffer_advise(data, 0, 4096, CUABI_ADVICE_UNSET_ACCESSED_BY, 0));
    EXPECT_OK(cuabi_buffer_advise(data, 0, 0, CUABI_ADVICE_SET_ACCESSED_BY, 0));
}

TEST_F(ManagedMemory, BadRangesLocationsAndMemoryAreRefused) {
    cuabi_buffer* data = managed(kBytes);
    ASSERT_NE(data, nullptr);
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_prefetch(data, kBytes - 4, 8, 0, nullptr), CUABI_ERROR_OUT_OF_BOUNDS);
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_advise(data, SIZE_MAX, 8, CUABI_ADVICE_SET_READ_MOSTLY, 0),
                           CUABI_ERROR_OUT_OF_BOUNDS);
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_prefetch(data, 0, kBytes, 4096, nullptr), CUABI_ERROR_INVALID_DEVICE);
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_advise(data, 0, kBytes, CUABI_ADVICE_SET_ACCESSED_BY, 4096),
                           CUABI_ERROR_INVALID_DEVICE);
    // Device memory is not managed: no host address, no migration, no advice.
    uint64_t unused = 0;
    cuabi_buffer* device = buffer(4096, &unused);
    void* host = nullptr;
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_get_host_pointer(device, &host), CUABI_ERROR_UNSUPPORTED);
    EXPECT_EQ(host, nullptr);
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_prefetch(device, 0, 4096, 0, nullptr), CUABI_ERROR_UNSUPPORTED);
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_advise(device, 0, 4096, CUABI_ADVICE_SET_READ_MOSTLY, 0),
                           CUABI_ERROR_UNSUPPORTED);
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_free_async(data, nullptr), CUABI_ERROR_INVALID_ARGUMENT);
    cuabi_buffer* none = nullptr;
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_create_managed(context, SIZE_MAX, 0, &none), CUABI_ERROR_DEVICE_OUT_OF_MEMORY);
    EXPECT_EQ(none, nullptr);
}

}  // namespace
