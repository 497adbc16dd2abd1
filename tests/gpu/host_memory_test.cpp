// Page-locked host memory (cuabi_host_memory_*): allocation and registration, mapping into the
// device's address space, and the point of it all -- a stream copy from pinned memory overlaps
// with a kernel on another stream.
#include <cuda.h>
#include <sys/mman.h>

#include <cstring>
#include <vector>

#include "busy_stream_support.hpp"

namespace {

class HostMemoryTest : public LaunchTest {
protected:
    void TearDown() override {
        for (cuabi_host_memory* memory : memories_) cuabi_host_memory_destroy(memory);
        for (cuabi_event* event : events_) cuabi_event_destroy(event);
        LaunchTest::TearDown();
    }

    cuabi_host_memory* allocate(size_t size, uint32_t flags = CUABI_HOST_MEMORY_DEFAULT) {
        cuabi_host_memory_options options = CUABI_HOST_MEMORY_OPTIONS_INIT;
        options.flags = flags;
        cuabi_host_memory* memory = nullptr;
        cuabi_status status = cuabi_host_memory_create(context, size, &options, &memory);
        EXPECT_EQ(status, CUABI_SUCCESS) << cuabi_failure_text(status);
        if (memory != nullptr) memories_.push_back(memory);
        return memory;
    }

    cuabi_event* event() {
        cuabi_event* made = nullptr;
        EXPECT_OK(cuabi_event_create(context, nullptr, &made));
        if (made != nullptr) events_.push_back(made);
        return made;
    }

    // Milliseconds from `from` to `to` (both completed).
    float between(cuabi_event* from, cuabi_event* to) {
        float ms = 0;
        EXPECT_OK(cuabi_event_get_elapsed_ms(from, to, &ms));
        return ms;
    }

private:
    std::vector<cuabi_host_memory*> memories_;
    std::vector<cuabi_event*> events_;
};

TEST_F(HostMemoryTest, AllocatedMemoryRoundTripsThroughABufferOnAStream) {
    constexpr size_t kSize = 1 << 20;
    cuabi_host_memory* source = allocate(kSize);
    cuabi_host_memory* target = allocate(kSize, CUABI_HOST_MEMORY_PORTABLE);
    ASSERT_NE(source, nullptr);
    ASSERT_NE(target, nullptr);
    void* from = nullptr;
    void* to = nullptr;
    size_t size = 0;
    ASSERT_OK(cuabi_host_memory_get_pointer(source, &from));
    ASSERT_OK(cuabi_host_memory_get_pointer(target, &to));
    ASSERT_OK(cuabi_host_memory_get_size(source, &size));
    EXPECT_EQ(size, kSize);
    const std::vector<uint8_t> bytes = random_bytes(kSize, 18);
    std::memcpy(from, bytes.data(), kSize);
    std::memset(to, 0xA5, kSize);

    uint64_t address = 0;
    cuabi_buffer* device = buffer(kSize, &address);
    cuabi_stream* on = stream();
    ASSERT_OK(cuabi_buffer_write(device, 0, from, kSize, on));
    ASSERT_OK(cuabi_buffer_read(device, 0, to, kSize, on));
    ASSERT_OK(cuabi_stream_synchronize(on));
    EXPECT_EQ(std::memcmp(to, bytes.data(), kSize), 0);
}

TEST_F(HostMemoryTest, MappedMemoryIsWrittenByAKernel) {
    cuabi_host_memory* memory = allocate(256 * sizeof(unsigned), CUABI_HOST_MEMORY_DEVICE_MAPPED);
    ASSERT_NE(memory, nullptr);
    uint64_t address = 0;
    ASSERT_OK(cuabi_host_memory_get_device_address(memory, &address));
    EXPECT_NE(address, 0u);
    cuabi_kernel* fill = kernel(kFillSource, "fill");
    ASSERT_NE(fill, nullptr);
    unsigned value = 1000;
    cuabi_kernel_arg args[] = {{&address, sizeof address}, {&value, sizeof value}};
    cuabi_launch_config launch = config(2, 128);
    ASSERT_OK(cuabi_launch(fill, &launch, args, 2));
    ASSERT_OK(cuabi_context_synchronize(context));
    void* pointer = nullptr;
    ASSERT_OK(cuabi_host_memory_get_pointer(memory, &pointer));
    const unsigned* written = static_cast<const unsigned*>(pointer);
    for (unsigned i = 0; i < 256; ++i) ASSERT_EQ(written[i], 1000 + i) << "at " << i;

    // Memory that is not mapped has no device address, and says how to get one.
    cuabi_host_memory* unmapped = allocate(64);
    ASSERT_NE(unmapped, nullptr);
    EXPECT_STATUS_WITH_FIX(cuabi_host_memory_get_device_address(unmapped, &address), CUABI_ERROR_UNSUPPORTED);
}

TEST_F(HostMemoryTest, RegisteredCallerMemoryIsPinnedUntilDestroyed) {
    constexpr size_t kSize = 4 << 20;
    void* mapping = mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(mapping, MAP_FAILED);
    const std::vector<uint8_t> bytes = random_bytes(kSize, 7);
    std::memcpy(mapping, bytes.data(), kSize);

    cuabi_host_memory_options options = CUABI_HOST_MEMORY_OPTIONS_INIT;
    options.flags = CUABI_HOST_MEMORY_DEVICE_MAPPED;
    cuabi_host_memory* registered = nullptr;
    ASSERT_OK(cuabi_host_memory_register(context, mapping, kSize, &options, &registered));
    void* pointer = nullptr;
    ASSERT_OK(cuabi_host_memory_get_pointer(registered, &pointer));
    EXPECT_EQ(pointer, mapping);
    uint64_t mapped = 0;
    EXPECT_OK(cuabi_host_memory_get_device_address(registered, &mapped));
    EXPECT_NE(mapped, 0u);

    // The same range twice is refused while the first registration lives.
    cuabi_host_memory* again = nullptr;
    EXPECT_STATUS_WITH_FIX(cuabi_host_memory_register(context, mapping, kSize, nullptr, &again),
                           CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(again, nullptr);

    uint64_t address = 0;
    cuabi_buffer* device = buffer(kSize, &address);
    cuabi_stream* on = stream();
    ASSERT_OK(cuabi_buffer_write(device, 0, mapping, kSize, on));
    std::vector<uint8_t> back(kSize);
    ASSERT_OK(cuabi_stream_synchronize(on));
    ASSERT_OK(cuabi_buffer_read(device, 0, back.data(), kSize, nullptr));
    EXPECT_EQ(back, bytes);

    // Destroying unregisters but never frees: the caller's memory stays usable, and can be
    // registered again.
    cuabi_host_memory_destroy(registered);
    EXPECT_EQ(std::memcmp(mapping, bytes.data(), kSize), 0);
    ASSERT_OK(cuabi_host_memory_register(context, mapping, kSize, nullptr, &again));
    cuabi_host_memory_destroy(again);
    EXPECT_EQ(munmap(mapping, kSize), 0);
}

TEST_F(HostMemoryTest, ACopyFromPinnedMemoryOverlapsAKernelOnAnotherStream) {
    // Stream A runs a kernel that spins for 100 ms; stream B copies 256 MiB from pinned memory
    // (~5-10 ms on PCIe 5). Events bracket both: the copy's interval must lie inside the kernel's.
    constexpr size_t kSize = size_t{256} << 20;
    cuabi_host_memory* pinned = allocate(kSize);
    ASSERT_NE(pinned, nullptr);
    void* from = nullptr;
    ASSERT_OK(cuabi_host_memory_get_pointer(pinned, &from));
    std::memset(from, 0x5A, kSize);
    uint64_t address = 0;
    cuabi_buffer* device = buffer(kSize, &address);
    ASSERT_NE(device, nullptr);
    cuabi_kernel* spin = kernel(kSpinSource, "spin");
    ASSERT_NE(spin, nullptr);
    cuabi_stream* kernels = stream();
    cuabi_stream* copies = stream();
    ASSERT_OK(cuabi_context_synchronize(context));

    cuabi_event* origin = event();
    cuabi_event* kernel_start = event();
    cuabi_event* kernel_end = event();
    cuabi_event* copy_start = event();
    cuabi_event* copy_end = event();
    ASSERT_OK(cuabi_event_record(origin, kernels));
    ASSERT_OK(cuabi_event_record(kernel_start, kernels));
    long long cycles = static_cast<long long>(info.clock_rate_khz) * 100;
    cuabi_kernel_arg args[] = {{&cycles, sizeof cycles}};
    cuabi_launch_config one = config(1, 1);
    one.stream = kernels;
    ASSERT_OK(cuabi_launch(spin, &one, args, 1));
    ASSERT_OK(cuabi_event_record(kernel_end, kernels));
    // Start the copy once the kernel runs, so both are in flight together.
    ASSERT_OK(cuabi_stream_wait_event(copies, kernel_start));
    ASSERT_OK(cuabi_event_record(copy_start, copies));
    ASSERT_OK(cuabi_buffer_write(device, 0, from, kSize, copies));
    ASSERT_OK(cuabi_event_record(copy_end, copies));
    ASSERT_OK(cuabi_context_synchronize(context));

    const float kernel_begins = between(origin, kernel_start), kernel_ends = between(origin, kernel_end);
    const float copy_begins = between(origin, copy_start), copy_ends = between(origin, copy_end);
    EXPECT_GT(kernel_ends - kernel_begins, 50.0f) << "the kernel did not spin";
    EXPECT_GT(copy_ends, copy_begins);
    EXPECT_LT(copy_begins, kernel_ends) << "the copy began only after the kernel ended: no overlap";
    EXPECT_LT(copy_ends, kernel_ends) << "kernel [" << kernel_begins << ", " << kernel_ends << "] ms, copy ["
                                      << copy_begins << ", " << copy_ends << "] ms";
    std::vector<uint8_t> sample(4096);
    ASSERT_OK(cuabi_buffer_read(device, kSize - sample.size(), sample.data(), sample.size(), nullptr));
    EXPECT_EQ(sample, std::vector<uint8_t>(sample.size(), 0x5A));
}

TEST_F(HostMemoryTest, MemoryOutlivesItsContextHandle) {
    cuabi_host_memory* memory = allocate(4096);
    ASSERT_NE(memory, nullptr);
    void* pointer = nullptr;
    ASSERT_OK(cuabi_host_memory_get_pointer(memory, &pointer));
    cuabi_context_destroy(context);  // the memory keeps the context alive
    context = nullptr;
    std::memset(pointer, 1, 4096);
    size_t size = 0;
    EXPECT_OK(cuabi_host_memory_get_size(memory, &size));
    EXPECT_EQ(size, 4096u);
}

TEST_F(HostMemoryTest, DeviceAttributesMatchTheDeviceInfo) {
    int32_t major = 0, minor = 0, sms = 0;
    ASSERT_OK(cuabi_device_get_attribute(0, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &major));
    ASSERT_OK(cuabi_device_get_attribute(0, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &minor));
    ASSERT_OK(cuabi_device_get_attribute(0, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &sms));
    EXPECT_EQ(major, info.compute_capability_major);
    EXPECT_EQ(minor, info.compute_capability_minor);
    EXPECT_EQ(sms, info.multiprocessor_count);
    int32_t value = 0;
    int32_t count = 0;
    ASSERT_OK(cuabi_device_get_count(&count));
    EXPECT_STATUS_WITH_FIX(cuabi_device_get_attribute(count, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &value),
                           CUABI_ERROR_INVALID_DEVICE);
    EXPECT_STATUS_WITH_FIX(cuabi_device_get_attribute(0, 100000, &value), CUABI_ERROR_INVALID_ARGUMENT);
}

}  // namespace
