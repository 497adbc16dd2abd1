// Reading cuabi_compile_options: every malformed field is refused with a message that names the
// field and the value and ends in a fix; targets parse as NVRTC spells them; the canonical NVRTC
// flag list is what docs/compile.md promises.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "api/compile_options.hpp"
#include "compile/compile_options.hpp"
#include "compile/target.hpp"
#include "expect_status.hpp"

namespace {

using cuabi::CompileRequest;
using cuabi::Target;

cuabi_compile_options defaults() {
    cuabi_compile_options options;
    cuabi_compile_options_init(sizeof options, &options);
    return options;
}

cuabi_status read(const cuabi_compile_options& options) {
    cuabi::CompileOptions out;
    return cuabi::read_compile_options(&options, &out);
}

std::vector<std::string> flags_for(const cuabi_compile_options& options, const char* target = "sm_90") {
    cuabi::CompileOptions read;
    CompileRequest request;
    request.source = "";
    request.options = &read;
    EXPECT_EQ(cuabi::read_compile_options(&options, &read), CUABI_SUCCESS) << cuabi_last_error_message();
    EXPECT_EQ(cuabi::parse_target(target, "target", &request.target), CUABI_SUCCESS);
    return cuabi::nvrtc_flags(request);
}

TEST(CompileOptions, InitFillsDocumentedDefaults) {
    cuabi_compile_options options = defaults();
    EXPECT_EQ(options.struct_size, sizeof(cuabi_compile_options));
    EXPECT_EQ(options.ftz, CUABI_TRISTATE_DEFAULT);
    EXPECT_EQ(options.prec_div, CUABI_TRISTATE_DEFAULT);
    EXPECT_EQ(options.prec_sqrt, CUABI_TRISTATE_DEFAULT);
    EXPECT_EQ(options.fmad, CUABI_TRISTATE_DEFAULT);
    EXPECT_EQ(options.target, nullptr);
    EXPECT_EQ(options.name_expression_count, 0u);
    cuabi_compile_options from_macro = CUABI_COMPILE_OPTIONS_INIT;
    EXPECT_EQ(std::memcmp(&options, &from_macro, sizeof options), 0);
}

TEST(CompileOptions, NullOptionsMeanDefaults) {
    cuabi::CompileOptions out;
    ASSERT_EQ(cuabi::read_compile_options(nullptr, &out), CUABI_SUCCESS);
    EXPECT_EQ(out.ftz, CUABI_TRISTATE_DEFAULT);
}

TEST(CompileOptions, StructSizeNoReleaseHadIsRefusedNotReadInPart) {
    // No header ever ended before `fast_math`: such a size is a wrong sizeof or garbage, and reading
    // that far would mix the caller's fields with the defaults.
    cuabi_compile_options options = defaults();
    options.struct_size = offsetof(cuabi_compile_options, fast_math);
    cuabi::CompileOptions out;
    EXPECT_FAILS_WITH(cuabi::read_compile_options(&options, &out), CUABI_ERROR_STRUCT_SIZE,
                      "which no release of cuabi_compile_options has (its sizes: " +
                          std::to_string(sizeof(cuabi_compile_options)) + " bytes");
}

TEST(CompileOptions, RefusesUnknownFlagBits) {
    cuabi_compile_options options = defaults();
    options.flags = 0x100;
    EXPECT_FAILS_WITH(read(options), CUABI_ERROR_INVALID_ARGUMENT, "0x100");
}

TEST(CompileOptions, RefusesTristateOutOfRange) {
    cuabi_compile_options options = defaults();
    options.prec_sqrt = 2;
    EXPECT_FAILS_WITH(read(options), CUABI_ERROR_INVALID_ARGUMENT, "prec_sqrt is 2");
}

TEST(CompileOptions, RefusesMalformedCppStandard) {
    cuabi_compile_options options = defaults();
    options.cpp_standard = "--std=c++17";
    EXPECT_FAILS_WITH(read(options), CUABI_ERROR_INVALID_ARGUMENT, "\"--std=c++17\"");
}

TEST(CompileOptions, RefusesNullArrayWithCount) {
    cuabi_compile_options options = defaults();
    options.define_count = 2;
    EXPECT_FAILS_WITH(read(options), CUABI_ERROR_INVALID_ARGUMENT, "defines is NULL but its count is 2");
}

TEST(CompileOptions, RefusesNullEntryNamingItsIndex) {
    cuabi_compile_options options = defaults();
    const char* expressions[] = {"k<1>", nullptr};
    options.name_expressions = expressions;
    options.name_expression_count = 2;
    EXPECT_FAILS_WITH(read(options), CUABI_ERROR_INVALID_ARGUMENT, "name_expressions[1] is NULL");
}

TEST(CompileOptions, RefusesDefineWithDashDOrBadName) {
    cuabi_compile_options options = defaults();
    const char* defines[] = {"-DN=4"};
    options.defines = defines;
    options.define_count = 1;
    EXPECT_FAILS_WITH(read(options), CUABI_ERROR_INVALID_ARGUMENT, "\"-DN=4\"");
    const char* numeric[] = {"4N=1"};
    options.defines = numeric;
    EXPECT_FAILS_WITH(read(options), CUABI_ERROR_INVALID_ARGUMENT, "\"4N\" is not a macro name");
}

TEST(CompileOptions, AcceptsFunctionLikeMacroDefines) {
    cuabi_compile_options options = defaults();
    const char* defines[] = {"SQUARE(x)=((x)*(x))"};
    options.defines = defines;
    options.define_count = 1;
    EXPECT_EQ(read(options), CUABI_SUCCESS) << cuabi_last_error_message();
}

TEST(CompileOptions, RefusesDuplicateHeaderNames) {
    cuabi_compile_options options = defaults();
    const char* names[] = {"a.h", "b.h", "a.h"};
    const char* sources[] = {"", "", ""};
    options.header_names = names;
    options.header_sources = sources;
    options.header_count = 3;
    EXPECT_FAILS_WITH(read(options), CUABI_ERROR_INVALID_ARGUMENT, "are both \"a.h\"");
}

TEST(CompileOptions, RefusesExtraFlagsThatChangeTargetOrImageKind) {
    cuabi_compile_options options = defaults();
    for (const char* flag : {"-arch=sm_80", "--gpu-architecture=compute_80", "-dlto"}) {
        options.extra_flags = &flag;
        options.extra_flag_count = 1;
        EXPECT_FAILS_WITH(read(options), CUABI_ERROR_INVALID_ARGUMENT, flag);
    }
    const char* fine = "--extra-device-vectorization";
    options.extra_flags = &fine;
    EXPECT_EQ(read(options), CUABI_SUCCESS) << cuabi_last_error_message();
}

TEST(CompileOptions, RefusesSaltPointerMissing) {
    cuabi_compile_options options = defaults();
    options.salt_size = 8;
    EXPECT_FAILS_WITH(read(options), CUABI_ERROR_INVALID_ARGUMENT, "salt is NULL");
}

TEST(CompileTarget, ParsesSmComputeAndSuffixes) {
    Target target;
    ASSERT_EQ(cuabi::parse_target("sm_90", "t", &target), CUABI_SUCCESS);
    EXPECT_EQ(target.arch, 90);
    EXPECT_FALSE(target.ptx);
    EXPECT_STREQ(target.name, "sm_90");
    ASSERT_EQ(cuabi::parse_target("compute_100f", "t", &target), CUABI_SUCCESS);
    EXPECT_EQ(target.arch, 100);
    EXPECT_TRUE(target.ptx);
    EXPECT_EQ(target.suffix, 'f');
    EXPECT_STREQ(target.name, "compute_100f");
    ASSERT_EQ(cuabi::parse_target("sm_90a", "t", &target), CUABI_SUCCESS);
    EXPECT_STREQ(target.name, "sm_90a");
}

TEST(CompileTarget, RefusesMisspelledTargetsNamingTheField) {
    Target target;
    for (const char* bad : {"90", "sm90", "SM_90", "sm_", "sm_90x", "compute_09", "sm_90aa", "sm_123456"})
        EXPECT_FAILS_WITH(cuabi::parse_target(bad, "cuabi_compile_options.target", &target),
                          CUABI_ERROR_INVALID_ARGUMENT, std::string("target is \"") + bad + "\"");
}

TEST(CompileTarget, DefaultIsDeviceCubinOrNewestPtxWhenNvrtcIsOlder) {
    cuabi::NvrtcApi nvrtc;
    nvrtc.major = 12;
    nvrtc.minor = 0;
    nvrtc.supported_archs = {50, 60, 70, 75, 80, 86, 89, 90};
    Target target;
    ASSERT_EQ(cuabi::default_target(nvrtc, 9, 0, &target), CUABI_SUCCESS);
    EXPECT_STREQ(target.name, "sm_90");
    EXPECT_FALSE(target.fallback);
    // A Blackwell device that this NVRTC does not know: PTX for the newest architecture it knows.
    ASSERT_EQ(cuabi::default_target(nvrtc, 10, 0, &target), CUABI_SUCCESS);
    EXPECT_STREQ(target.name, "compute_90");
    EXPECT_TRUE(target.fallback);
    // An sm_87 device between two supported architectures runs compute_86 PTX.
    ASSERT_EQ(cuabi::default_target(nvrtc, 8, 7, &target), CUABI_SUCCESS);
    EXPECT_STREQ(target.name, "compute_86");
    // A device older than anything NVRTC supports cannot be served.
    EXPECT_FAILS_WITH(cuabi::default_target(nvrtc, 3, 5, &target), CUABI_ERROR_UNSUPPORTED, "sm_35");
}

TEST(CompileFlags, DefaultsResolveToExplicitNvrtcDefaults) {
    std::vector<std::string> flags = flags_for(defaults());
    std::vector<std::string> expected = {"--gpu-architecture=sm_90", "--ftz=false", "--prec-div=true",
                                         "--prec-sqrt=true", "--fmad=true"};
    EXPECT_EQ(flags, expected);
}

TEST(CompileFlags, FastMathChangesTheResolvedDefaultsButNotExplicitValues) {
    cuabi_compile_options options = defaults();
    options.fast_math = 1;
    options.prec_div = CUABI_TRISTATE_ON;
    std::vector<std::string> expected = {"--gpu-architecture=sm_90", "--use_fast_math", "--ftz=true",
                                         "--prec-div=true", "--prec-sqrt=false", "--fmad=true"};
    EXPECT_EQ(flags_for(options), expected);
}

TEST(CompileFlags, EveryOptionHasItsFlagInCanonicalOrder) {
    cuabi_compile_options options = defaults();
    options.cpp_standard = "20";
    options.max_registers = 32;
    options.line_info = 1;
    options.device_debug = 1;
    const char* defines[] = {"ZETA=2", "ALPHA", "ZETA=3"};
    options.defines = defines;
    options.define_count = 3;
    const char* dirs[] = {"/z", "/a"};
    options.include_dirs = dirs;
    options.include_dir_count = 2;
    const char* extra[] = {"--extra-device-vectorization"};
    options.extra_flags = extra;
    options.extra_flag_count = 1;
    std::vector<std::string> expected = {
        "--gpu-architecture=compute_90", "--std=c++20", "--ftz=false", "--prec-div=true", "--prec-sqrt=true",
        "--fmad=true", "--maxrregcount=32", "--generate-line-info", "--device-debug",
        // by name; ZETA=2 stays before ZETA=3, so the last definition still wins
        "-DALPHA=1", "-DZETA=2", "-DZETA=3",
        // search order is meaning: kept
        "--include-path=/z", "--include-path=/a", "--extra-device-vectorization"};
    EXPECT_EQ(flags_for(options, "compute_90"), expected);
}

}  // namespace
