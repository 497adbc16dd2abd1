// Name expressions: every expression is lowered by NVRTC's own nvrtcGetLoweredName,
// never echoed back (the bug of the seed this library grew from), and the map travels with the
// cached image so that a cache hit resolves expressions without running NVRTC.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "cuabi/cuabi.h"
#include "driver/nvrtc_api.hpp"
#include "expect_status.hpp"

namespace {

const char* const kTemplates = R"(
template <typename T, int BlockSize>
__global__ void reduce(const T* in, T* out) { out[0] = in[0] * BlockSize; }

__global__ void scale(float* x) { x[0] *= 2.0f; }
__global__ void scale(double* x) { x[0] *= 2.0; }

namespace ops {
template <class T> __global__ void fill(T* x, T value) { x[threadIdx.x] = value; }
}
)";

const std::vector<std::string> kExpressions = {
    "reduce<float, 256>",
    "reduce<double, 128>",
    "static_cast<void (*)(float*)>(scale)",
    "static_cast<void (*)(double*)>(scale)",
    "ops::fill<int>",
    "ops::fill<unsigned char>",
};

// NVRTC's own answer: a separate program with the same source and expressions.
std::vector<std::pair<std::string, std::string>> nvrtc_lowered_names() {
    const cuabi::NvrtcApi* nvrtc = cuabi::nvrtc(nullptr);
    EXPECT_NE(nvrtc, nullptr);
    std::vector<std::pair<std::string, std::string>> names;
    if (nvrtc == nullptr) return names;
    nvrtcProgram program = nullptr;
    EXPECT_EQ(nvrtc->nvrtcCreateProgram(&program, kTemplates, "reference.cu", 0, nullptr, nullptr), NVRTC_SUCCESS);
    for (const std::string& expression : kExpressions)
        EXPECT_EQ(nvrtc->nvrtcAddNameExpression(program, expression.c_str()), NVRTC_SUCCESS);
    const char* flags[] = {"--gpu-architecture=compute_90"};
    EXPECT_EQ(nvrtc->nvrtcCompileProgram(program, 1, flags), NVRTC_SUCCESS);
    for (const std::string& expression : kExpressions) {
        const char* lowered = nullptr;
        EXPECT_EQ(nvrtc->nvrtcGetLoweredName(program, expression.c_str(), &lowered), NVRTC_SUCCESS);
        names.emplace_back(expression, lowered != nullptr ? lowered : "");
    }
    nvrtc->nvrtcDestroyProgram(&program);
    return names;
}

std::string lowered_name(cuabi_module* module, const std::string& expression) {
    size_t size = 0;
    cuabi_status status = cuabi_module_get_lowered_name(module, expression.c_str(), nullptr, 0, &size);
    EXPECT_EQ(status, CUABI_SUCCESS) << expression << ": " << cuabi_last_error_message();
    if (status != CUABI_SUCCESS) return std::string();
    std::string name(size, '\0');
    EXPECT_EQ(cuabi_module_get_lowered_name(module, expression.c_str(), &name[0], name.size(), &size), CUABI_SUCCESS);
    name.resize(size - 1);
    return name;
}

class LoweredNames : public ::testing::Test {
protected:
    void SetUp() override {
        cuabi_compile_options_init(sizeof options, &options);
        options.target = "sm_90";
        options.flags = CUABI_COMPILE_NO_CACHE;  // tests about the cache clear it
        for (const std::string& expression : kExpressions) pointers.push_back(expression.c_str());
        options.name_expressions = pointers.data();
        options.name_expression_count = pointers.size();
        salt = "lowered-" + std::to_string(getpid()) + "-" +
               std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
        options.salt = salt.data();
        options.salt_size = salt.size();
    }
    void TearDown() override {
        for (cuabi_module* module : modules) cuabi_module_destroy(module);
    }
    cuabi_module* compile() {
        cuabi_module* module = nullptr;
        EXPECT_EQ(cuabi_module_compile_offline(kTemplates, &options, &module), CUABI_SUCCESS)
            << cuabi_last_error_message();
        if (module != nullptr) modules.push_back(module);
        return module;
    }

    cuabi_compile_options options;
    std::vector<const char*> pointers;
    std::string salt;
    std::vector<cuabi_module*> modules;
};

TEST_F(LoweredNames, TemplatesAndOverloadsMatchNvrtcsOwnAnswer) {
    cuabi_module* module = compile();
    ASSERT_NE(module, nullptr);
    for (const auto& reference : nvrtc_lowered_names()) {
        std::string lowered = lowered_name(module, reference.first);
        EXPECT_EQ(lowered, reference.second) << reference.first;
        EXPECT_NE(lowered, reference.first) << "the expression must be lowered, not echoed";
        EXPECT_EQ(lowered.rfind("_Z", 0), 0u) << reference.first << " -> " << lowered;
    }
    cuabi_module_info info = CUABI_MODULE_INFO_INIT;
    ASSERT_EQ(cuabi_module_get_info(module, &info), CUABI_SUCCESS);
    EXPECT_EQ(info.name_expression_count, kExpressions.size());
}

TEST_F(LoweredNames, OverloadsLowerToDistinctSymbols) {
    cuabi_module* module = compile();
    EXPECT_NE(lowered_name(module, "static_cast<void (*)(float*)>(scale)"),
              lowered_name(module, "static_cast<void (*)(double*)>(scale)"));
}

TEST_F(LoweredNames, MapSurvivesAMemoryCacheHit) {
    options.flags = CUABI_COMPILE_DEFAULT;
    cuabi_module* compiled = compile();
    cuabi_module* cached = compile();
    cuabi_module_info info = CUABI_MODULE_INFO_INIT;
    ASSERT_EQ(cuabi_module_get_info(cached, &info), CUABI_SUCCESS);
    EXPECT_EQ(info.origin, CUABI_MODULE_ORIGIN_MEMORY_CACHE);
    for (const std::string& expression : kExpressions)
        EXPECT_EQ(lowered_name(cached, expression), lowered_name(compiled, expression)) << expression;
}

TEST_F(LoweredNames, ReorderedExpressionsShareTheCacheEntry) {
    options.flags = CUABI_COMPILE_DEFAULT;
    cuabi_module* first = compile();
    std::vector<const char*> reversed(pointers.rbegin(), pointers.rend());
    options.name_expressions = reversed.data();
    cuabi_module* second = compile();
    cuabi_module_info a = CUABI_MODULE_INFO_INIT, b = CUABI_MODULE_INFO_INIT;
    ASSERT_EQ(cuabi_module_get_info(first, &a), CUABI_SUCCESS);
    ASSERT_EQ(cuabi_module_get_info(second, &b), CUABI_SUCCESS);
    EXPECT_STREQ(a.cache_key, b.cache_key);
    EXPECT_EQ(b.origin, CUABI_MODULE_ORIGIN_MEMORY_CACHE);
}

TEST_F(LoweredNames, UnknownExpressionIsKernelNotFound) {
    cuabi_module* module = compile();
    size_t size = 0;
    EXPECT_FAILS_WITH(cuabi_module_get_lowered_name(module, "reduce<int, 64>", nullptr, 0, &size),
                      CUABI_ERROR_KERNEL_NOT_FOUND, "\"reduce<int, 64>\" was not compiled");
}

TEST_F(LoweredNames, ExpressionNamingNoKernelFailsTheCompile) {
    const char* bad[] = {"reduce<float>"};  // missing the BlockSize argument
    options.name_expressions = bad;
    options.name_expression_count = 1;
    cuabi_module* module = nullptr;
    cuabi_status status = cuabi_module_compile_offline(kTemplates, &options, &module);
    EXPECT_EQ(status, CUABI_ERROR_COMPILE) << cuabi_last_error_message();
    EXPECT_NE(std::string(cuabi_last_error_message()).find("Fix: "), std::string::npos);
    EXPECT_EQ(module, nullptr);
}

}  // namespace
