// Bad arguments to the host memory, device attribute and module global entry points are refused
// with the right status and a message naming the value and the fix -- before the GPU is reached,
// so these hold on any machine. (Pinning, mapping and overlap are in tests/gpu/host_memory_test.)
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "core/handle_table.hpp"
#include "cuabi/cuabi.h"
#include "expect_status.hpp"

namespace cuabi {
namespace {

struct ContextPlaceholder final : Object {
    static constexpr HandleType kHandleType = HandleType::Context;
};
struct BufferPlaceholder final : Object {
    static constexpr HandleType kHandleType = HandleType::Buffer;
};

cuabi_context* const kNoContext = nullptr;
cuabi_host_memory* const kNoMemory = nullptr;

TEST(HostMemoryApiArguments, NullOutParametersAreRefused) {
    EXPECT_FAILS_WITH(cuabi_host_memory_options_init(sizeof(cuabi_host_memory_options), nullptr),
                      CUABI_ERROR_INVALID_ARGUMENT, "");
    EXPECT_FAILS_WITH(cuabi_host_memory_create(kNoContext, 64, nullptr, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_memory is NULL");
    int byte = 0;
    EXPECT_FAILS_WITH(cuabi_host_memory_register(kNoContext, &byte, sizeof byte, nullptr, nullptr),
                      CUABI_ERROR_INVALID_ARGUMENT, "out_memory is NULL");
    EXPECT_FAILS_WITH(cuabi_host_memory_get_pointer(kNoMemory, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_pointer is NULL");
    EXPECT_FAILS_WITH(cuabi_host_memory_get_size(kNoMemory, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_size is NULL");
    EXPECT_FAILS_WITH(cuabi_host_memory_get_device_address(kNoMemory, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_address is NULL");
}

TEST(HostMemoryApiArguments, OptionsInitFillsDefaultsForTheCallersSize) {
    cuabi_host_memory_options options;
    options.flags = 0xdead;
    ASSERT_EQ(cuabi_host_memory_options_init(sizeof options, &options), CUABI_SUCCESS);
    EXPECT_EQ(options.struct_size, sizeof options);
    EXPECT_EQ(options.flags, CUABI_HOST_MEMORY_DEFAULT);
    EXPECT_FAILS_WITH(cuabi_host_memory_options_init(3, &options), CUABI_ERROR_STRUCT_SIZE, "struct_size 3");
}

TEST(HostMemoryApiArguments, SizesAndRangesAreChecked) {
    cuabi_host_memory* memory = nullptr;
    EXPECT_FAILS_WITH(cuabi_host_memory_create(kNoContext, 0, nullptr, &memory), CUABI_ERROR_INVALID_ARGUMENT,
                      "size is 0");
    int byte = 0;
    EXPECT_FAILS_WITH(cuabi_host_memory_register(kNoContext, &byte, 0, nullptr, &memory),
                      CUABI_ERROR_INVALID_ARGUMENT, "size is 0");
    EXPECT_FAILS_WITH(cuabi_host_memory_register(kNoContext, nullptr, 64, nullptr, &memory),
                      CUABI_ERROR_INVALID_ARGUMENT, "pointer is NULL");
    // A range that wraps around the end of the address space never reaches the driver.
    EXPECT_FAILS_WITH(cuabi_host_memory_register(kNoContext, &byte, SIZE_MAX, nullptr, &memory),
                      CUABI_ERROR_INVALID_ARGUMENT, "past the end of the address space");
    EXPECT_EQ(memory, nullptr);
}

TEST(HostMemoryApiArguments, FlagsAreChecked) {
    cuabi_host_memory* memory = nullptr;
    cuabi_host_memory_options options = CUABI_HOST_MEMORY_OPTIONS_INIT;
    options.flags = 0x80;
    EXPECT_FAILS_WITH(cuabi_host_memory_create(kNoContext, 64, &options, &memory), CUABI_ERROR_INVALID_ARGUMENT,
                      "0x80");
    // Memory that exists cannot become write-combined.
    int byte = 0;
    options.flags = CUABI_HOST_MEMORY_WRITE_COMBINED;
    EXPECT_FAILS_WITH(cuabi_host_memory_register(kNoContext, &byte, sizeof byte, &options, &memory),
                      CUABI_ERROR_INVALID_ARGUMENT, "write-combined");
    // An options struct the caller never initialized is refused by its struct_size.
    cuabi_host_memory_options garbage;
    garbage.struct_size = 0xFFFFFFFFu;
    garbage.flags = 0;
    EXPECT_FAILS_WITH(cuabi_host_memory_create(kNoContext, 64, &garbage, &memory), CUABI_ERROR_STRUCT_SIZE,
                      "struct_size");
    EXPECT_EQ(memory, nullptr);
}

TEST(HostMemoryApiArguments, WrongTypeAndStaleHandlesAreRefused) {
    cuabi_host_memory* memory = nullptr;
    cuabi_context* not_a_context = nullptr;
    ASSERT_EQ(publish(std::make_shared<BufferPlaceholder>(), &not_a_context), CUABI_SUCCESS);
    EXPECT_FAILS_WITH(cuabi_host_memory_create(not_a_context, 64, nullptr, &memory), CUABI_ERROR_INVALID_HANDLE,
                      "buffer handle where a context handle is required");
    cuabi_host_memory* not_memory = reinterpret_cast<cuabi_host_memory*>(not_a_context);
    void* pointer = nullptr;
    EXPECT_FAILS_WITH(cuabi_host_memory_get_pointer(not_memory, &pointer), CUABI_ERROR_INVALID_HANDLE,
                      "where a host memory handle is required");
    destroy_handle<BufferPlaceholder>(not_a_context);

    cuabi_context* stale = nullptr;
    ASSERT_EQ(publish(std::make_shared<ContextPlaceholder>(), &stale), CUABI_SUCCESS);
    destroy_handle<ContextPlaceholder>(stale);
    EXPECT_FAILS_WITH(cuabi_host_memory_create(stale, 64, nullptr, &memory), CUABI_ERROR_INVALID_HANDLE, "");
    size_t size = 0;
    EXPECT_FAILS_WITH(cuabi_host_memory_get_size(reinterpret_cast<cuabi_host_memory*>(uintptr_t{0x0900000100000001}),
                                                 &size),
                      CUABI_ERROR_INVALID_HANDLE, "");
    cuabi_host_memory_destroy(kNoMemory);  // destroying NULL is a no-op
    EXPECT_EQ(memory, nullptr);
}

TEST(DeviceAttributeArguments, ValuesAreCheckedBeforeTheDriver) {
    EXPECT_FAILS_WITH(cuabi_device_get_attribute(0, 1, nullptr), CUABI_ERROR_INVALID_ARGUMENT, "out_value is NULL");
    int32_t value = 7;
    EXPECT_FAILS_WITH(cuabi_device_get_attribute(-1, 1, &value), CUABI_ERROR_INVALID_DEVICE, "-1");
    EXPECT_FAILS_WITH(cuabi_device_get_attribute(0, 0, &value), CUABI_ERROR_INVALID_ARGUMENT, "attribute 0");
    EXPECT_FAILS_WITH(cuabi_device_get_attribute(0, INT32_MIN, &value), CUABI_ERROR_INVALID_ARGUMENT, "");
    EXPECT_EQ(value, 7);
}

TEST(ModuleGlobalArguments, BadNamesAndOfflineModulesAreRefused) {
    cuabi_buffer* global = nullptr;
    cuabi_module* no_module = nullptr;
    EXPECT_FAILS_WITH(cuabi_module_get_global(no_module, nullptr, &global), CUABI_ERROR_INVALID_ARGUMENT,
                      "name_or_expression is NULL");
    EXPECT_FAILS_WITH(cuabi_module_get_global(no_module, "scale", nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_buffer is NULL");
    EXPECT_FAILS_WITH(cuabi_module_get_global(no_module, "", &global), CUABI_ERROR_INVALID_ARGUMENT, "empty");
    EXPECT_FAILS_WITH(cuabi_module_get_global(no_module, "scale", &global), CUABI_ERROR_INVALID_HANDLE, "");

    // NVRTC runs on the CPU: a module compiled offline exists here, but is not on any device.
    cuabi_compile_options options = CUABI_COMPILE_OPTIONS_INIT;
    options.target = "sm_90";
    cuabi_module* offline = nullptr;
    ASSERT_EQ(cuabi_module_compile_offline("__constant__ float scale = 2.0f;\n"
                                           "extern \"C\" __global__ void k(float* x) { x[0] *= scale; }\n",
                                           &options, &offline),
              CUABI_SUCCESS)
        << cuabi_last_error_message();
    EXPECT_FAILS_WITH(cuabi_module_get_global(offline, "scale", &global), CUABI_ERROR_UNSUPPORTED,
                      "compiled offline for sm_90");
    EXPECT_EQ(global, nullptr);
    cuabi_module_destroy(offline);
}

}  // namespace
}  // namespace cuabi
