// Caller text in messages is bounded (core/error.hpp: bounded()): a megabyte option string
// quoted in full made the message -- and its allocation -- a megabyte too, the road by which an
// allocation failure once ended the host. Each message quotes at most 200 bytes and says how long
// the text was.
#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "cuabi/cuabi.h"

namespace {

const std::string kLong(100000, 'q');
const char* const kSource = R"(extern "C" __global__ void k(int* x) { x[0] = 1; })";

void expect_bounded(cuabi_status status, const char* what) {
    const std::string message = cuabi_last_error_message();
    EXPECT_NE(status, CUABI_SUCCESS) << what;
    EXPECT_LT(message.size(), 1500u) << what << ": " << message.substr(0, 300);
    EXPECT_NE(message.find("\xe2\x80\xa6(100000 bytes)"), std::string::npos) << what << ": " << message.substr(0, 600);
    EXPECT_NE(message.find(" Fix: "), std::string::npos) << what;
}

// Defaults, for sm_90 (an offline compile needs a target; no device is asked).
cuabi_compile_options sm90_options() {
    cuabi_compile_options options;
    cuabi_compile_options_init(sizeof options, &options);
    options.target = "sm_90";
    return options;
}

cuabi_status compile(cuabi_compile_options options) {
    cuabi_module* module = nullptr;
    const cuabi_status status = cuabi_module_compile_offline(kSource, &options, &module);
    cuabi_module_destroy(module);
    return status;
}

TEST(CallerTextBounds, BoundedCutsAtACharacterAndSaysHowLongTheTextWas) {
    EXPECT_EQ(cuabi::bounded("short"), "short");
    EXPECT_EQ(cuabi::bounded(nullptr), "(null)");
    std::string text = std::string(199, 'a') + "\xc3\xa9" + "tail";  // a 2-byte character across byte 200
    EXPECT_EQ(cuabi::bounded(text.c_str()), std::string(199, 'a') + "\xe2\x80\xa6(205 bytes)");
}

TEST(CallerTextBounds, CompileOptionsAreQuotedBounded) {
    cuabi_compile_options options = sm90_options();
    options.target = kLong.c_str();
    expect_bounded(compile(options), "target");

    options = sm90_options();
    options.cpp_standard = kLong.c_str();
    expect_bounded(compile(options), "cpp_standard");

    options = sm90_options();
    const std::string bad_define = "-D" + kLong.substr(2);
    const char* defines[] = {bad_define.c_str()};
    options.defines = defines;
    options.define_count = 1;
    expect_bounded(compile(options), "defines");

    options = sm90_options();
    const std::string flag = "--gpu-architecture=" + kLong.substr(19);
    const char* flags[] = {flag.c_str()};
    options.extra_flags = flags;
    options.extra_flag_count = 1;
    expect_bounded(compile(options), "extra_flags");

    options = sm90_options();
    const char* names[] = {kLong.c_str(), kLong.c_str()};
    const char* sources[] = {"", ""};
    options.header_names = names;
    options.header_sources = sources;
    options.header_count = 2;
    expect_bounded(compile(options), "header_names");
}

TEST(CallerTextBounds, NamesLookedUpInAModuleAreQuotedBounded) {
    cuabi_compile_options options = sm90_options();
    cuabi_module* module = nullptr;
    ASSERT_EQ(cuabi_module_compile_offline(kSource, &options, &module), CUABI_SUCCESS) << cuabi_last_error_message();
    size_t size = 0;
    expect_bounded(cuabi_module_get_lowered_name(module, kLong.c_str(), nullptr, 0, &size), "expression");
    cuabi_kernel* kernel = nullptr;
    expect_bounded(cuabi_module_get_kernel(module, kLong.c_str(), &kernel), "kernel name");
    cuabi_module_destroy(module);
}

}  // namespace
