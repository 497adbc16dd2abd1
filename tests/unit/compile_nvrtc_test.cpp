// Compiling with the real NVRTC, without a GPU (cuabi_module_compile_offline): what each target
// produces, what each option visibly changes in the output, how a failed compile reports itself,
// and that an identical second request is served from memory without NVRTC.
#include <gtest/gtest.h>

#include <elf.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cuabi/cuabi.h"
#include "expect_status.hpp"

namespace {

const char* const kSaxpy = R"(
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
)";

// Many live values: needs more than 32 registers unless told otherwise.
const char* const kRegisterHungry = R"(
extern "C" __global__ void heavy(float* x) {
    float a[24];
    for (int i = 0; i < 24; ++i) a[i] = x[i * threadIdx.x];
    float s = 0;
    for (int i = 0; i < 24; ++i)
        for (int j = 0; j < 24; ++j) s += a[i] * a[j] * x[i + j];
    x[threadIdx.x] = s;
}
)";

// A salt unique to this process and call, so that a test's first compile is never a cache hit
// left by an earlier run. Tests that are not about the cache also pass CUABI_COMPILE_NO_CACHE,
// so that they leave no entries in the user's disk cache.
std::string unique_salt() {
    static int counter = 0;
    return "test-" + std::to_string(getpid()) + "-" +
           std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) + "-" + std::to_string(++counter);
}

class OfflineCompile : public ::testing::Test {
protected:
    void SetUp() override {
        cuabi_compile_options_init(sizeof options, &options);
        options.target = "sm_90";
        options.flags = CUABI_COMPILE_NO_CACHE;
        salt = unique_salt();
        options.salt = salt.data();
        options.salt_size = salt.size();
    }
    void TearDown() override {
        for (cuabi_module* module : modules) cuabi_module_destroy(module);
    }

    cuabi_module* compile(const char* source) {
        cuabi_module* module = nullptr;
        cuabi_status status = cuabi_module_compile_offline(source, &options, &module);
        EXPECT_EQ(status, CUABI_SUCCESS) << cuabi_status_name(status) << ": " << cuabi_last_error_message();
        if (module != nullptr) modules.push_back(module);
        return module;
    }

    static std::vector<uint8_t> image_of(cuabi_module* module) {
        size_t size = 0;
        EXPECT_EQ(cuabi_module_get_image(module, nullptr, 0, &size), CUABI_SUCCESS);
        std::vector<uint8_t> image(size);
        EXPECT_EQ(cuabi_module_get_image(module, image.data(), image.size(), &size), CUABI_SUCCESS);
        return image;
    }

    static std::string ptx_of(cuabi_module* module) {
        std::vector<uint8_t> image = image_of(module);
        return std::string(image.begin(), image.end());
    }

    static cuabi_module_info info_of(cuabi_module* module) {
        cuabi_module_info info = CUABI_MODULE_INFO_INIT;
        EXPECT_EQ(cuabi_module_get_info(module, &info), CUABI_SUCCESS) << cuabi_last_error_message();
        return info;
    }

    cuabi_compile_options options;
    std::string salt;
    std::vector<cuabi_module*> modules;
};

std::string last_compile_log() {
    size_t size = 0;
    EXPECT_EQ(cuabi_last_compile_log(nullptr, 0, &size), CUABI_SUCCESS);
    std::string log(size, '\0');
    EXPECT_EQ(cuabi_last_compile_log(&log[0], log.size(), &size), CUABI_SUCCESS);
    log.resize(size - 1);
    return log;
}

// EIATTR_REGCOUNT from a CUBIN's .nv.info section: (format 0x04, attribute 0x2f, size 8,
// symbol index, register count). The largest count, i.e. the only kernel's here.
int cubin_register_count(const std::vector<uint8_t>& cubin) {
    Elf64_Ehdr header;
    std::memcpy(&header, cubin.data(), sizeof header);
    auto section = [&](int index) {
        Elf64_Shdr entry;
        std::memcpy(&entry, cubin.data() + header.e_shoff + static_cast<size_t>(index) * header.e_shentsize,
                    sizeof entry);
        return entry;
    };
    Elf64_Shdr names = section(header.e_shstrndx);
    int registers = -1;
    for (int i = 0; i < header.e_shnum; ++i) {
        Elf64_Shdr entry = section(i);
        if (std::strcmp(reinterpret_cast<const char*>(cubin.data() + names.sh_offset + entry.sh_name), ".nv.info") != 0)
            continue;
        const uint8_t* at = cubin.data() + entry.sh_offset;
        const uint8_t* end = at + entry.sh_size;
        while (at + 4 <= end) {
            uint8_t format = at[0], attribute = at[1];
            uint16_t size = static_cast<uint16_t>(at[2] | (at[3] << 8));
            if (format != 0x04) {  // fixed-size entries: 4 bytes
                at += 4;
                continue;
            }
            if (attribute == 0x2f && size == 8) {
                uint32_t count = 0;
                std::memcpy(&count, at + 8, sizeof count);
                registers = std::max(registers, static_cast<int>(count));
            }
            at += 4 + size;
        }
    }
    return registers;
}

TEST_F(OfflineCompile, SmTargetProducesAnElfCubinForThatArchitecture) {
    cuabi_module* module = compile(kSaxpy);
    ASSERT_NE(module, nullptr);
    std::vector<uint8_t> image = image_of(module);
    ASSERT_GE(image.size(), 64u);
    EXPECT_EQ(std::memcmp(image.data(), "\x7f" "ELF", 4), 0);
    cuabi_module_info info = info_of(module);
    EXPECT_EQ(info.image_kind, CUABI_IMAGE_CUBIN);
    EXPECT_STREQ(info.target, "sm_90");
    EXPECT_EQ(info.loaded, 0u);
    EXPECT_EQ(info.ptx_fallback, 0u);
    EXPECT_EQ(info.origin, CUABI_MODULE_ORIGIN_COMPILED);
    EXPECT_EQ(info.image_size, image.size());
    EXPECT_EQ(std::strlen(info.cache_key), 32u);
}

TEST_F(OfflineCompile, ComputeTargetProducesNulTerminatedPtx) {
    options.target = "compute_90";
    cuabi_module* module = compile(kSaxpy);
    ASSERT_NE(module, nullptr);
    std::string ptx = ptx_of(module);
    ASSERT_FALSE(ptx.empty());
    EXPECT_EQ(ptx.back(), '\0');
    EXPECT_NE(ptx.find(".target sm_90"), std::string::npos);
    EXPECT_NE(ptx.find(".entry saxpy"), std::string::npos);
    cuabi_module_info info = info_of(module);
    EXPECT_EQ(info.image_kind, CUABI_IMAGE_PTX);
    EXPECT_STREQ(info.target, "compute_90");
}

TEST_F(OfflineCompile, PtxFlagTurnsAnSmTargetIntoItsComputePtx) {
    options.flags |= CUABI_COMPILE_PTX;
    cuabi_module* module = compile(kSaxpy);
    ASSERT_NE(module, nullptr);
    EXPECT_STREQ(info_of(module).target, "compute_90");
    EXPECT_NE(ptx_of(module).find(".version"), std::string::npos);
}

TEST_F(OfflineCompile, RequiresAnExplicitTarget) {
    options.target = nullptr;
    cuabi_module* module = nullptr;
    EXPECT_FAILS_WITH(cuabi_module_compile_offline(kSaxpy, &options, &module), CUABI_ERROR_INVALID_ARGUMENT,
                      "explicit target");
    EXPECT_EQ(module, nullptr);
}

TEST_F(OfflineCompile, RefusesAnArchitectureNvrtcDoesNotSupportListingWhatItDoes) {
    options.target = "sm_35";
    cuabi_module* module = nullptr;
    EXPECT_FAILS_WITH(cuabi_module_compile_offline(kSaxpy, &options, &module), CUABI_ERROR_INVALID_ARGUMENT,
                      "compiles for architectures");
}

TEST_F(OfflineCompile, SourceErrorQuotesTheFirstErrorLineAndKeepsTheWholeLog) {
    options.program_name = "broken.cu";
    const char* source = "extern \"C\" __global__ void k(float* x) {\n  x[0] = undefined_thing;\n  x[1] = also_missing;\n}\n";
    cuabi_module* module = nullptr;
    EXPECT_FAILS_WITH(cuabi_module_compile_offline(source, &options, &module), CUABI_ERROR_COMPILE,
                      "broken.cu(2): error: identifier \"undefined_thing\" is undefined");
    EXPECT_EQ(module, nullptr);
    EXPECT_EQ(cuabi_last_nvrtc_result(), 6) << "NVRTC_ERROR_COMPILATION";
    std::string message = cuabi_last_error_message();
    EXPECT_EQ(message.find("also_missing"), std::string::npos) << "only the first error is quoted: " << message;
    std::string log = last_compile_log();
    EXPECT_NE(log.find("undefined_thing"), std::string::npos) << log;
    EXPECT_NE(log.find("also_missing"), std::string::npos) << log;
}

TEST_F(OfflineCompile, LastCompileLogFollowsTheLatestCompile) {
    cuabi_module* module = nullptr;
    EXPECT_EQ(cuabi_module_compile_offline("garbage(", &options, &module), CUABI_ERROR_COMPILE);
    EXPECT_FALSE(last_compile_log().empty());
    ASSERT_NE(compile(kSaxpy), nullptr);
    EXPECT_EQ(last_compile_log(), "") << "a clean compile has an empty log";
}

TEST_F(OfflineCompile, WarningsReachTheModuleLogOnSuccess) {
    const char* source = "extern \"C\" __global__ void k(float* x) { int unused_variable = 3; x[0] = 1; }";
    cuabi_module* module = compile(source);
    ASSERT_NE(module, nullptr);
    size_t size = 0;
    ASSERT_EQ(cuabi_module_get_log(module, nullptr, 0, &size), CUABI_SUCCESS);
    std::string log(size, '\0');
    char small[4];
    EXPECT_EQ(cuabi_module_get_log(module, small, sizeof small, &size), CUABI_ERROR_BUFFER_TOO_SMALL);
    EXPECT_EQ(size, log.size()) << "a too small buffer still reports the size";
    ASSERT_EQ(cuabi_module_get_log(module, &log[0], log.size(), &size), CUABI_SUCCESS);
    log.resize(size - 1);
    EXPECT_NE(log.find("unused_variable"), std::string::npos) << log;
    EXPECT_EQ(last_compile_log(), log);
}

TEST_F(OfflineCompile, MaxRegistersLimitsTheCubinsRegisterCount) {
    std::vector<uint8_t> unlimited = image_of(compile(kRegisterHungry));
    options.max_registers = 32;
    std::vector<uint8_t> limited = image_of(compile(kRegisterHungry));
    int unlimited_registers = cubin_register_count(unlimited);
    int limited_registers = cubin_register_count(limited);
    EXPECT_GT(unlimited_registers, 32);
    EXPECT_GT(limited_registers, 0);
    EXPECT_LE(limited_registers, 32);
}

TEST_F(OfflineCompile, LineInfoAddsLocDirectivesToPtx) {
    options.target = "compute_90";
    std::string plain = ptx_of(compile(kSaxpy));
    options.line_info = 1;
    std::string with_lines = ptx_of(compile(kSaxpy));
    EXPECT_EQ(plain.find(".loc"), std::string::npos);
    EXPECT_NE(with_lines.find(".loc"), std::string::npos);
}

TEST_F(OfflineCompile, DefinesAndInMemoryHeadersReachTheCode) {
    options.target = "compute_90";
    const char* source = "#include \"params.h\"\nextern \"C\" __global__ void k(int* x) { x[0] = VALUE + OFFSET; }";
    const char* header_names[] = {"params.h"};
    const char* header_sources[] = {"#define OFFSET 1000000"};
    options.header_names = header_names;
    options.header_sources = header_sources;
    options.header_count = 1;
    const char* first[] = {"VALUE=234567"};
    options.defines = first;
    options.define_count = 1;
    std::string one = ptx_of(compile(source));
    const char* second[] = {"VALUE=765432"};
    options.defines = second;
    std::string other = ptx_of(compile(source));
    EXPECT_NE(one.find("1234567"), std::string::npos) << one;
    EXPECT_NE(other.find("1765432"), std::string::npos) << other;
}

TEST_F(OfflineCompile, AnOptionNvrtcRefusesIsAnInvalidArgumentQuotingNvrtc) {
    const char* extra[] = {"--no-such-nvrtc-option"};
    options.extra_flags = extra;
    options.extra_flag_count = 1;
    cuabi_module* module = nullptr;
    EXPECT_FAILS_WITH(cuabi_module_compile_offline(kSaxpy, &options, &module), CUABI_ERROR_INVALID_ARGUMENT,
                      "no-such-nvrtc-option");
}

TEST_F(OfflineCompile, SecondIdenticalCompileIsAMemoryHitWithTheSameImage) {
    options.flags = CUABI_COMPILE_DEFAULT;
    cuabi_module* first = compile(kSaxpy);
    cuabi_module* second = compile(kSaxpy);
    ASSERT_NE(first, nullptr);
    ASSERT_NE(second, nullptr);
    cuabi_module_info first_info = info_of(first), second_info = info_of(second);
    EXPECT_EQ(first_info.origin, CUABI_MODULE_ORIGIN_COMPILED);
    EXPECT_EQ(second_info.origin, CUABI_MODULE_ORIGIN_MEMORY_CACHE);
    EXPECT_STREQ(first_info.cache_key, second_info.cache_key);
    EXPECT_EQ(image_of(first), image_of(second));
}

TEST_F(OfflineCompile, NoCacheFlagRunsNvrtcEveryTime) {
    cuabi_module* first = compile(kSaxpy);
    cuabi_module* second = compile(kSaxpy);
    EXPECT_EQ(info_of(first).origin, CUABI_MODULE_ORIGIN_COMPILED);
    EXPECT_EQ(info_of(second).origin, CUABI_MODULE_ORIGIN_COMPILED);
}

TEST_F(OfflineCompile, ModuleCompiledOfflineRefusesKernelLookup) {
    cuabi_module* module = compile(kSaxpy);
    cuabi_kernel* kernel = nullptr;
    EXPECT_FAILS_WITH(cuabi_module_get_kernel(module, "saxpy", &kernel), CUABI_ERROR_INVALID_ARGUMENT,
                      "compiled offline for sm_90");
    EXPECT_EQ(kernel, nullptr);
}

TEST_F(OfflineCompile, ImageReadBackFollowsTheTwoCallPattern) {
    cuabi_module* module = compile(kSaxpy);
    size_t size = 0;
    ASSERT_EQ(cuabi_module_get_image(module, nullptr, 0, &size), CUABI_SUCCESS);
    std::vector<uint8_t> small(size - 1);
    size_t reported = 0;
    EXPECT_FAILS_WITH(cuabi_module_get_image(module, small.data(), small.size(), &reported),
                      CUABI_ERROR_BUFFER_TOO_SMALL, std::to_string(size));
    EXPECT_EQ(reported, size);
    EXPECT_FAILS_WITH(cuabi_module_get_image(module, small.data(), small.size(), nullptr),
                      CUABI_ERROR_INVALID_ARGUMENT, "out_size");
}

TEST(CompileArguments, NullSourceOutputOrHandleAreRefused) {
    cuabi_module* module = nullptr;
    EXPECT_FAILS_WITH(cuabi_module_compile_offline(nullptr, nullptr, &module), CUABI_ERROR_INVALID_ARGUMENT, "source");
    EXPECT_FAILS_WITH(cuabi_module_compile_offline("", nullptr, nullptr), CUABI_ERROR_INVALID_ARGUMENT, "out_module");
    EXPECT_FAILS_WITH(cuabi_module_compile(nullptr, "", nullptr, &module), CUABI_ERROR_INVALID_HANDLE, "context");
    cuabi_module_info info = CUABI_MODULE_INFO_INIT;
    EXPECT_FAILS_WITH(cuabi_module_get_info(nullptr, &info), CUABI_ERROR_INVALID_HANDLE, "module");
    cuabi_module_destroy(nullptr);
}

}  // namespace
