// Versioned options and output structs: a too small struct_size is refused, a
// larger struct is accepted only when its unknown tail is zero, an older release's smaller struct
// gets defaults for the fields it lacks, and the _init() functions equal the _INIT macros.
// (struct_size_test.cpp tries every size of every struct.)
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <vector>

#include "api/versioned_struct.hpp"
#include "cuabi/cuabi.h"
#include "expect_status.hpp"

namespace cuabi {
namespace {

// Statuses a call may return on a machine without a usable GPU once its arguments were accepted.
bool environment_status(cuabi_status status) {
    return status == CUABI_ERROR_DRIVER_NOT_FOUND || status == CUABI_ERROR_DRIVER_TOO_OLD ||
           status == CUABI_ERROR_NO_DEVICE;
}

// An options struct of `T` placed in a bigger zeroed block, as a newer header would lay it out.
template <typename T>
struct Oversized {
    explicit Oversized(const T& value, size_t extra) : bytes(sizeof(T) + extra, 0) {
        std::memcpy(bytes.data(), &value, sizeof(T));
        as()->struct_size = static_cast<uint32_t>(bytes.size());
    }
    T* as() { return reinterpret_cast<T*>(bytes.data()); }
    std::vector<unsigned char> bytes;
};

TEST(OptionsStructs, InitFunctionsEqualTheInitMacros) {
    cuabi_context_options context = {}, context_macro = CUABI_CONTEXT_OPTIONS_INIT;
    cuabi_context_options_init(sizeof context, &context);
    EXPECT_EQ(std::memcmp(&context, &context_macro, sizeof context), 0);
    cuabi_stream_options stream = {}, stream_macro = CUABI_STREAM_OPTIONS_INIT;
    cuabi_stream_options_init(sizeof stream, &stream);
    EXPECT_EQ(std::memcmp(&stream, &stream_macro, sizeof stream), 0);
    cuabi_event_options event = {}, event_macro = CUABI_EVENT_OPTIONS_INIT;
    cuabi_event_options_init(sizeof event, &event);
    EXPECT_EQ(std::memcmp(&event, &event_macro, sizeof event), 0);
    cuabi_buffer_options buffer = {}, buffer_macro = CUABI_BUFFER_OPTIONS_INIT;
    cuabi_buffer_options_init(sizeof buffer, &buffer);
    EXPECT_EQ(std::memcmp(&buffer, &buffer_macro, sizeof buffer), 0);
    EXPECT_EQ(stream.struct_size, sizeof(cuabi_stream_options));
}

TEST(OptionsStructs, InitFunctionsRefuseNullAndImpossibleSizes) {
    EXPECT_FAILS_WITH(cuabi_context_options_init(sizeof(cuabi_context_options), nullptr),
                      CUABI_ERROR_INVALID_ARGUMENT, "NULL");
    cuabi_stream_options stream;
    EXPECT_FAILS_WITH(cuabi_stream_options_init(4, &stream), CUABI_ERROR_STRUCT_SIZE, "sizeof(cuabi_stream_options)");
    EXPECT_FAILS_WITH(cuabi_stream_options_init(0xA5A5A5A5u, &stream), CUABI_ERROR_STRUCT_SIZE, "at most 4096");
}

// A program built against an older header passes its smaller struct_size: the init function must
// fill exactly that many bytes (never the library's larger struct), and a newer, larger struct gets
// zeros past what this library knows, which every call then accepts.
TEST(OptionsStructs, InitFunctionsFillExactlyTheCallersStructSize) {
    unsigned char config[sizeof(cuabi_launch_config) + 16];
    std::memset(config, 0xEE, sizeof config);
    const uint32_t older = offsetof(cuabi_launch_config, priority);  // 1.0's launch config
    ASSERT_EQ(cuabi_launch_config_init(older, reinterpret_cast<cuabi_launch_config*>(config)), CUABI_SUCCESS);
    cuabi_launch_config defaults = CUABI_LAUNCH_CONFIG_INIT;
    defaults.struct_size = older;
    EXPECT_EQ(std::memcmp(config, &defaults, older), 0);
    for (size_t i = older; i < sizeof config; ++i) ASSERT_EQ(config[i], 0xEE) << "byte " << i << " written";

    unsigned char bytes[sizeof(cuabi_compile_options) + 16];

    std::memset(bytes, 0xEE, sizeof bytes);
    const uint32_t newer = sizeof(cuabi_compile_options) + 8;
    ASSERT_EQ(cuabi_compile_options_init(newer, reinterpret_cast<cuabi_compile_options*>(bytes)), CUABI_SUCCESS);
    for (size_t i = sizeof(cuabi_compile_options); i < newer; ++i) ASSERT_EQ(bytes[i], 0) << "byte " << i;
    for (size_t i = newer; i < sizeof bytes; ++i) ASSERT_EQ(bytes[i], 0xEE) << "byte " << i << " written";
    cuabi_module* module = nullptr;
    const auto* options = reinterpret_cast<const cuabi_compile_options*>(bytes);
    EXPECT_FAILS_WITH(cuabi_module_compile_offline(nullptr, options, &module), CUABI_ERROR_INVALID_ARGUMENT, "source");
}

TEST(OptionsStructs, TooSmallStructSizeIsRefusedBeforeAnythingElse) {
    cuabi_context_options context = CUABI_CONTEXT_OPTIONS_INIT;
    context.struct_size = 4;
    cuabi_context* out_context = nullptr;
    EXPECT_FAILS_WITH(cuabi_context_create(&context, &out_context), CUABI_ERROR_STRUCT_SIZE,
                      "cuabi_context_options.struct_size is 4");
    EXPECT_EQ(out_context, nullptr);

    cuabi_stream_options stream = CUABI_STREAM_OPTIONS_INIT;
    stream.struct_size = 0;
    cuabi_stream* out_stream = nullptr;
    EXPECT_FAILS_WITH(cuabi_stream_create(nullptr, &stream, &out_stream), CUABI_ERROR_STRUCT_SIZE,
                      "cuabi_stream_options.struct_size is 0");
    cuabi_event_options event = CUABI_EVENT_OPTIONS_INIT;
    event.struct_size = 7;
    cuabi_event* out_event = nullptr;
    EXPECT_FAILS_WITH(cuabi_event_create(nullptr, &event, &out_event), CUABI_ERROR_STRUCT_SIZE,
                      "cuabi_event_options_init()");
    cuabi_buffer_options buffer = CUABI_BUFFER_OPTIONS_INIT;
    buffer.struct_size = 1;
    cuabi_buffer* out_buffer = nullptr;
    EXPECT_FAILS_WITH(cuabi_buffer_create(nullptr, 16, &buffer, &out_buffer), CUABI_ERROR_STRUCT_SIZE,
                      "cuabi_buffer_options.struct_size is 1");
}

TEST(OptionsStructs, LargerStructWithNonZeroTailIsRefusedNamingTheByte) {
    Oversized<cuabi_context_options> context(cuabi_context_options CUABI_CONTEXT_OPTIONS_INIT, 16);
    context.bytes[sizeof(cuabi_context_options) + 5] = 0x7f;
    cuabi_context* out_context = nullptr;
    std::string expected = "byte " + std::to_string(sizeof(cuabi_context_options) + 5) + " of the unknown tail is 0x7f";
    EXPECT_FAILS_WITH(cuabi_context_create(context.as(), &out_context), CUABI_ERROR_STRUCT_SIZE, expected);

    Oversized<cuabi_stream_options> stream(cuabi_stream_options CUABI_STREAM_OPTIONS_INIT, 4);
    stream.bytes.back() = 1;
    cuabi_stream* out_stream = nullptr;
    EXPECT_FAILS_WITH(cuabi_stream_create(nullptr, stream.as(), &out_stream), CUABI_ERROR_STRUCT_SIZE,
                      "upgrade libcuabi");
}

TEST(OptionsStructs, LargerStructWithZeroTailIsAccepted) {
    Oversized<cuabi_context_options> context(cuabi_context_options CUABI_CONTEXT_OPTIONS_INIT, 64);
    cuabi_context* out_context = nullptr;
    cuabi_status status = cuabi_context_create(context.as(), &out_context);
    EXPECT_TRUE(status == CUABI_SUCCESS || environment_status(status))
        << cuabi_status_name(status) << ": " << cuabi_last_error_message();
    cuabi_context_destroy(out_context);

    // With the options accepted, the next check (the NULL context) is what fails.
    Oversized<cuabi_buffer_options> buffer(cuabi_buffer_options CUABI_BUFFER_OPTIONS_INIT, 8);
    cuabi_buffer* out_buffer = nullptr;
    EXPECT_FAILS_WITH(cuabi_buffer_create(nullptr, 16, buffer.as(), &out_buffer), CUABI_ERROR_INVALID_HANDLE,
                      "context is NULL");
}

TEST(OptionsStructs, OlderSmallerStructGetsDefaultsForTheFieldsItLacks) {
    // A 1.0 launch config: it ends before priority. The bytes after it belong to the caller and
    // must not be read as priority or reserved.
    unsigned char older[sizeof(cuabi_launch_config)];
    std::memset(older, 0xEE, sizeof older);
    cuabi_launch_config fields = CUABI_LAUNCH_CONFIG_INIT;
    fields.struct_size = offsetof(cuabi_launch_config, priority);
    fields.shared_memory_bytes = 48;
    std::memcpy(older, &fields, fields.struct_size);
    cuabi_launch_config read{};
    ASSERT_EQ(read_struct(reinterpret_cast<const cuabi_launch_config*>(older), &read), CUABI_SUCCESS);
    EXPECT_EQ(read.shared_memory_bytes, 48u);
    EXPECT_EQ(read.priority, 0);  // CUABI_LAUNCH_CONFIG_INIT's
    EXPECT_EQ(read.reserved, 0u);
    EXPECT_EQ(read.struct_size, sizeof(cuabi_launch_config));
}

TEST(OptionsStructs, UnknownFlagsAndReservedFieldsAreRefused) {
    cuabi_stream_options stream = CUABI_STREAM_OPTIONS_INIT;
    stream.flags = 0x10;
    cuabi_stream* out_stream = nullptr;
    EXPECT_FAILS_WITH(cuabi_stream_create(nullptr, &stream, &out_stream), CUABI_ERROR_INVALID_ARGUMENT, "0x10");
    stream = cuabi_stream_options CUABI_STREAM_OPTIONS_INIT;
    stream.reserved = 3;
    EXPECT_FAILS_WITH(cuabi_stream_create(nullptr, &stream, &out_stream), CUABI_ERROR_INVALID_ARGUMENT,
                      "reserved is 3");
    cuabi_event_options event = CUABI_EVENT_OPTIONS_INIT;
    event.flags = CUABI_EVENT_DISABLE_TIMING | 0x80u;
    cuabi_event* out_event = nullptr;
    EXPECT_FAILS_WITH(cuabi_event_create(nullptr, &event, &out_event), CUABI_ERROR_INVALID_ARGUMENT,
                      "bits 0x80 are not defined");
    cuabi_buffer_options buffer = CUABI_BUFFER_OPTIONS_INIT;
    buffer.flags = 0x100;
    cuabi_buffer* out_buffer = nullptr;
    EXPECT_FAILS_WITH(cuabi_buffer_create(nullptr, 16, &buffer, &out_buffer), CUABI_ERROR_INVALID_ARGUMENT,
                      "cuabi_buffer_options.flags is 0x100");
    cuabi_context_options context = CUABI_CONTEXT_OPTIONS_INIT;
    context.flags = 1;
    cuabi_context* out_context = nullptr;
    EXPECT_FAILS_WITH(cuabi_context_create(&context, &out_context), CUABI_ERROR_INVALID_ARGUMENT,
                      "cuabi_context_options.flags is 0x1");
    context = cuabi_context_options CUABI_CONTEXT_OPTIONS_INIT;
    context.reserved = 9;
    EXPECT_FAILS_WITH(cuabi_context_create(&context, &out_context), CUABI_ERROR_INVALID_ARGUMENT, "reserved is 9");
}

TEST(OptionsStructs, OutputStructTooSmallForStructSizeIsRefused) {
    cuabi_device_info info = CUABI_DEVICE_INFO_INIT;
    info.struct_size = 4;
    EXPECT_FAILS_WITH(cuabi_device_get_info(0, &info), CUABI_ERROR_STRUCT_SIZE,
                      "cuabi_device_info.struct_size is 4");
    EXPECT_FAILS_WITH(cuabi_context_get_device_info(nullptr, &info), CUABI_ERROR_STRUCT_SIZE, "cuabi_device_info_init()");
    cuabi_counters counters = CUABI_COUNTERS_INIT;
    counters.struct_size = 0;
    EXPECT_FAILS_WITH(cuabi_context_get_counters(nullptr, &counters), CUABI_ERROR_STRUCT_SIZE,
                      "cuabi_counters.struct_size is 0");
}

TEST(OptionsStructs, OlderSmallerOutputStructIsFilledOnlyAsFarAsItReaches) {
    cuabi_device_info facts = CUABI_DEVICE_INFO_INIT;
    facts.ordinal = 3;
    std::memset(facts.name, 'n', sizeof facts.name - 1);
    std::vector<unsigned char> caller(sizeof(cuabi_device_info), 0xEE);
    auto* user = reinterpret_cast<cuabi_device_info*>(caller.data());
    // No output struct has grown yet: a made-up older release that ended before name.
    const uint32_t releases[] = {offsetof(cuabi_device_info, name), sizeof(cuabi_device_info)};
    const StructSizes sizes{"cuabi_device_info", releases, 2};
    user->struct_size = releases[0];
    ASSERT_EQ(write_output(facts, user, sizes), CUABI_SUCCESS);
    EXPECT_EQ(user->ordinal, 3);
    EXPECT_EQ(user->struct_size, offsetof(cuabi_device_info, name));
    for (size_t i = offsetof(cuabi_device_info, name); i < caller.size(); ++i)
        ASSERT_EQ(caller[i], 0xEE) << "byte " << i << " lies beyond the caller's struct and must stay untouched";
}

}  // namespace
}  // namespace cuabi
