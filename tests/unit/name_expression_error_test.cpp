// A name expression NVRTC cannot resolve is the caller's mistake in
// cuabi_compile_options.name_expressions, not in the source: the message names the entry (index
// and text) and the kernels the source declares. Real NVRTC, no GPU. Plus the declared-kernel
// scan on its own, and the other option values that name the field, the value and what is accepted.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/compile_options.hpp"
#include "compile/name_expression_error.hpp"
#include "cuabi/cuabi.h"
#include "expect_status.hpp"

namespace {

const char* const kSource = R"(
template <typename T> __global__ void scale(T* x, T a) { x[threadIdx.x] *= a; }
extern "C" __global__ void negate(int* x) { x[0] = -x[0]; }
__device__ int helper(int x) { return x; }
)";

// An offline compile for sm_90 of `source` with these name expressions; the cache is not used.
cuabi_status compile(const char* source, std::vector<const char*> expressions) {
    cuabi_compile_options options;
    cuabi_compile_options_init(sizeof options, &options);
    options.target = "sm_90";
    options.program_name = "scale.cu";
    options.flags = CUABI_COMPILE_NO_CACHE;
    options.name_expressions = expressions.data();
    options.name_expression_count = expressions.size();
    cuabi_module* module = nullptr;
    cuabi_status status = cuabi_module_compile_offline(source, &options, &module);
    cuabi_module_destroy(module);
    return status;
}

std::string message() { return cuabi_last_error_message(); }

TEST(NameExpressionError, AMistypedTemplateArgumentNamesTheEntryAndTheDeclaredKernels) {
    ASSERT_EQ(compile(kSource, {"scale<float>", "scale<flaot>"}), CUABI_ERROR_COMPILE) << message();
    EXPECT_NE(message().find("cuabi_compile_options.name_expressions[1] \"scale<flaot>\""), std::string::npos) << message();
    EXPECT_NE(message().find("'scale.cu'"), std::string::npos) << message();
    EXPECT_NE(message().find("\"flaot\""), std::string::npos) << "NVRTC's own words: " << message();
    EXPECT_NE(message().find("the source declares the kernels scale<...>, negate"), std::string::npos) << message();
    EXPECT_NE(message().find(". Fix: write the name expression"), std::string::npos) << message();
    EXPECT_EQ(message().find("__nv_name_map"), std::string::npos) << "NVRTC's internal file is not the user's: " << message();
    EXPECT_EQ(cuabi_last_nvrtc_result(), 6) << "NVRTC_ERROR_COMPILATION";
}

TEST(NameExpressionError, AKernelThatDoesNotExistIsNamedByItsIndex) {
    ASSERT_EQ(compile(kSource, {"scal<float>", "negate"}), CUABI_ERROR_COMPILE) << message();
    EXPECT_NE(message().find("name_expressions[0] \"scal<float>\""), std::string::npos) << message();
    EXPECT_NE(message().find("scale<...>, negate"), std::string::npos) << message();
}

TEST(NameExpressionError, ADeviceFunctionIsNotAKernel) {
    ASSERT_EQ(compile(kSource, {"negate", "helper"}), CUABI_ERROR_COMPILE) << message();
    EXPECT_NE(message().find("name_expressions[1] \"helper\""), std::string::npos) << message();
    EXPECT_NE(message().find("non-__global__"), std::string::npos) << message();
}

TEST(NameExpressionError, AnErrorInTheSourceIsStillReportedAsTheSources) {
    // Planted: the source is wrong too; its error comes first and must not be blamed on the
    // name expression.
    ASSERT_EQ(compile("__global__ void k() { undefined_thing(); }\n", {"k"}), CUABI_ERROR_COMPILE) << message();
    EXPECT_NE(message().find("undefined_thing"), std::string::npos) << message();
    EXPECT_EQ(message().find("name_expressions"), std::string::npos) << message();
}

TEST(NameExpressionError, CorrectExpressionsStillCompile) {
    EXPECT_EQ(compile(kSource, {"scale<float>", "scale<int>", "negate"}), CUABI_SUCCESS) << message();
}

TEST(DeclaredKernels, FindsKernelsAsWrittenSkippingCommentsStringsAndAttributes) {
    const char* text = R"source(
// __global__ void in_a_comment(int*);
/* __global__ void in_a_block_comment(int*); */
const char* s = "__global__ void in_a_string(int*)";
template <int B>
__global__ void __launch_bounds__(B) reduce(const float* in) {}
extern "C" __global__ void __attribute__((used)) plain(int* x) {}
namespace ns { __global__ void inner(float*); }
__global__ void inner(float*) {}
#define not_global_ __global__
int my__global__thing;
)source";
    std::vector<std::string> expected = {"reduce<...>", "plain", "inner"};
    EXPECT_EQ(cuabi::declared_kernels(text), expected);
    EXPECT_TRUE(cuabi::declared_kernels("").empty());
    EXPECT_TRUE(cuabi::declared_kernels("__global__").empty()) << "a truncated declaration names nothing";
}

cuabi_status read(const cuabi_compile_options& options) {
    cuabi::CompileOptions out;
    return cuabi::read_compile_options(&options, &out);
}

TEST(OptionValues, AnUnknownCppStandardNamesTheFieldTheValueAndTheAcceptedOnes) {
    cuabi_compile_options options;
    cuabi_compile_options_init(sizeof options, &options);
    options.cpp_standard = "c++18";
    EXPECT_FAILS_WITH(read(options), CUABI_ERROR_INVALID_ARGUMENT, "cuabi_compile_options.cpp_standard is \"c++18\"");
    for (const char* accepted : {"\"c++03\"", "\"c++11\"", "\"c++14\"", "\"c++17\"", "\"c++20\""})
        EXPECT_NE(message().find(accepted), std::string::npos) << message();
    EXPECT_EQ(message().find("extra_flags"), std::string::npos) << "the fault is not in extra_flags: " << message();
    for (const char* good : {"c++03", "c++11", "c++14", "c++17", "c++20", "17", "20"}) {
        options.cpp_standard = good;
        EXPECT_EQ(read(options), CUABI_SUCCESS) << good << ": " << message();
    }
    for (const char* bad : {"c++19", "18", "c++2a", "gnu++17", ""}) {
        options.cpp_standard = bad;
        EXPECT_FAILS_WITH(read(options), CUABI_ERROR_INVALID_ARGUMENT, std::string("\"") + bad + "\"");
    }
}

TEST(OptionValues, UnknownFlagBitsListTheFlagsThatExist) {
    cuabi_compile_options options;
    cuabi_compile_options_init(sizeof options, &options);
    options.flags = 0x100;
    EXPECT_FAILS_WITH(read(options), CUABI_ERROR_INVALID_ARGUMENT, "flags is 0x100");
    for (const char* flag : {"CUABI_COMPILE_NO_CACHE (0x1)", "CUABI_COMPILE_PTX (0x2)",
                             "CUABI_COMPILE_NO_TOOLKIT_INCLUDES (0x4)", "CUABI_COMPILE_IN_PROCESS (0x8)",
                             "CUABI_COMPILE_ISOLATED (0x10)", "CUABI_COMPILE_NO_PCH (0x20)",
                             "CUABI_COMPILE_LTO_IR (0x40)", "CUABI_COMPILE_RELOCATABLE (0x80)"})
        EXPECT_NE(message().find(flag), std::string::npos) << message();
}

TEST(OptionValues, ARegisterLimitAboveWhatAThreadHasIsRefused) {
    // ptxas would ignore it with a warning in the log only.
    cuabi_compile_options options;
    cuabi_compile_options_init(sizeof options, &options);
    options.max_registers = 100000;
    EXPECT_FAILS_WITH(read(options), CUABI_ERROR_INVALID_ARGUMENT, "max_registers is 100000");
    EXPECT_NE(message().find("from 1 to 255"), std::string::npos) << message();
    options.max_registers = 255;
    EXPECT_EQ(read(options), CUABI_SUCCESS) << message();
}

TEST(OptionValues, AnUnknownStandardFailsBeforeNvrtcRuns) {
    // Through the whole compile: the refusal is cuabi's, with no NVRTC log blaming extra_flags.
    cuabi_compile_options options;
    cuabi_compile_options_init(sizeof options, &options);
    options.target = "sm_90";
    options.cpp_standard = "c++18";
    cuabi_module* module = nullptr;
    EXPECT_FAILS_WITH(cuabi_module_compile_offline(kSource, &options, &module), CUABI_ERROR_INVALID_ARGUMENT,
                      "cpp_standard is \"c++18\"");
    EXPECT_EQ(module, nullptr);
    EXPECT_EQ(message().find("extra_flags"), std::string::npos) << message();
}

}  // namespace
