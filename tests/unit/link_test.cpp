// Linking with nvJitLink, for real and without a GPU: two sources compiled to LTO-IR by NVRTC and
// a device library built by nvcc at test time, linked into a CUBIN whose kernels are listed; link
// errors with nvJitLink's log; the checks of every input and option; the worker that isolates
// nvJitLink; and cached links served to processes that can load neither NVRTC nor nvJitLink.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "cache_support/process.hpp"
#include "compile/link_job.hpp"
#include "compile/worker_protocol.hpp"
#include "cuabi/cuabi.h"
#include "expect_status.hpp"
#include "image/check.hpp"
#include "image/entries.hpp"
#include "link_support/link_sources.hpp"

namespace {

std::string read_text(cuabi_status (*get)(cuabi_module*, char*, size_t, size_t*), cuabi_module* module) {
    size_t size = 0;
    if (get(module, nullptr, 0, &size) != CUABI_SUCCESS) return "<error: " + std::string(cuabi_last_error_message()) + ">";
    std::string text(size, '\0');
    EXPECT_EQ(get(module, &text[0], size, &size), CUABI_SUCCESS);
    text.resize(size - 1);
    return text;
}

std::string last_log() {
    size_t size = 0;
    EXPECT_EQ(cuabi_last_compile_log(nullptr, 0, &size), CUABI_SUCCESS);
    std::string text(size, '\0');
    EXPECT_EQ(cuabi_last_compile_log(&text[0], size, &size), CUABI_SUCCESS);
    text.resize(size - 1);
    return text;
}

std::vector<uint8_t> file_bytes(const char* path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class Link : public ::testing::Test {
protected:
    void SetUp() override {
        cuabi_link_options_init(sizeof options, &options);
        options.target = "sm_90";
        options.flags = CUABI_LINK_LTO | CUABI_LINK_NO_CACHE;
    }
    void TearDown() override {
        for (cuabi_module* module : modules) cuabi_module_destroy(module);
    }

    cuabi_module* compile(const char* source, uint32_t flags = CUABI_COMPILE_LTO_IR) {
        cuabi_compile_options compile_options;
        cuabi_compile_options_init(sizeof compile_options, &compile_options);
        compile_options.target = "sm_90";
        compile_options.flags = flags | CUABI_COMPILE_NO_CACHE;
        cuabi_module* module = nullptr;
        cuabi_status status = cuabi_module_compile_offline(source, &compile_options, &module);
        EXPECT_EQ(status, CUABI_SUCCESS) << cuabi_last_error_message();
        if (module != nullptr) modules.push_back(module);
        return module;
    }
    cuabi_link_input module_input(cuabi_module* module) {
        cuabi_link_input input = {};
        input.module = module;
        return input;
    }
    cuabi_link_input file_input(int32_t kind, const char* path) {
        cuabi_link_input input = {};
        input.kind = kind;
        input.path = path;
        return input;
    }
    cuabi_status link(const std::vector<cuabi_link_input>& inputs, cuabi_module** out) {
        cuabi_status status = cuabi_module_link_offline(inputs.data(), inputs.size(), &options, out);
        if (status == CUABI_SUCCESS) modules.push_back(*out);
        return status;
    }
    // The two LTO-IR objects and the library as a fatbin.
    std::vector<cuabi_link_input> all_inputs() {
        return {module_input(compile(link_test::kKernelSource)), module_input(compile(link_test::kTwiceSource)),
                file_input(CUABI_LINK_INPUT_FATBIN, CUABI_TEST_LINK_FATBIN)};
    }

    cuabi_link_options options;
    std::vector<cuabi_module*> modules;
};

}  // namespace

TEST_F(Link, CompilesToLtoIrModulesThatAreNotLoaded) {
    cuabi_module* object = compile(link_test::kKernelSource);
    cuabi_module_info info = CUABI_MODULE_INFO_INIT;
    ASSERT_EQ(cuabi_module_get_info(object, &info), CUABI_SUCCESS);
    EXPECT_EQ(info.image_kind, CUABI_IMAGE_LTOIR);
    EXPECT_EQ(info.loaded, 0u);
    EXPECT_STREQ(info.target, "sm_90");
    cuabi_kernel* kernel = nullptr;
    EXPECT_FAILS_WITH(cuabi_module_get_kernel(object, "scale", &kernel), CUABI_ERROR_INVALID_ARGUMENT,
                      "LTO-IR link input");
    EXPECT_FAILS_WITH(cuabi_module_get_kernel_names(object, nullptr, 0, &info.image_size), CUABI_ERROR_UNSUPPORTED,
                      "LTO-IR for sm_90");
}

TEST_F(Link, LtoIrWithPtxOutputIsRefusedAtCompile) {
    cuabi_compile_options compile_options;
    cuabi_compile_options_init(sizeof compile_options, &compile_options);
    compile_options.target = "sm_90";
    compile_options.flags = CUABI_COMPILE_LTO_IR | CUABI_COMPILE_PTX;
    cuabi_module* module = nullptr;
    EXPECT_FAILS_WITH(cuabi_module_compile_offline(link_test::kTwiceSource, &compile_options, &module),
                      CUABI_ERROR_INVALID_ARGUMENT, "CUABI_COMPILE_LTO_IR and CUABI_COMPILE_PTX");
    EXPECT_EQ(module, nullptr);
}

TEST_F(Link, LinksTwoLtoIrObjectsAndAFatbinLibraryIntoACubinAndListsItsKernels) {
    cuabi_module* linked = nullptr;
    ASSERT_EQ(link(all_inputs(), &linked), CUABI_SUCCESS) << cuabi_last_error_message();
    cuabi_module_info info = CUABI_MODULE_INFO_INIT;
    ASSERT_EQ(cuabi_module_get_info(linked, &info), CUABI_SUCCESS);
    EXPECT_EQ(info.image_kind, CUABI_IMAGE_CUBIN);
    EXPECT_STREQ(info.target, "sm_90");
    EXPECT_EQ(info.origin, CUABI_MODULE_ORIGIN_COMPILED);
    EXPECT_EQ(std::strlen(info.cache_key), 32u);
    EXPECT_EQ(read_text(cuabi_module_get_kernel_names, linked), "scale\n") << "device functions are no kernels";
}

TEST_F(Link, LinksAStaticLibraryAndAHostObjectOfLtoIrGivenAsBytes) {
    for (auto [kind, path] : {std::pair<int32_t, const char*>{CUABI_LINK_INPUT_LIBRARY, CUABI_TEST_LINK_ARCHIVE},
                              {CUABI_LINK_INPUT_OBJECT, CUABI_TEST_LINK_OBJECT}}) {
        SCOPED_TRACE(path);
        std::vector<uint8_t> bytes = file_bytes(path);
        ASSERT_GT(bytes.size(), 8u);
        cuabi_link_input library = {};
        library.kind = kind;
        library.data = bytes.data();
        library.size = bytes.size();
        library.name = "thrice";
        cuabi_module* linked = nullptr;
        ASSERT_EQ(link({module_input(compile(link_test::kKernelSource)), module_input(compile(link_test::kTwiceSource)),
                        library},
                       &linked),
                  CUABI_SUCCESS)
            << cuabi_last_error_message();
        EXPECT_EQ(read_text(cuabi_module_get_kernel_names, linked), "scale\n");
    }
}

TEST_F(Link, RelocatableCubinsLinkWithoutLto) {
    options.flags = CUABI_LINK_NO_CACHE;
    cuabi_module* linked = nullptr;
    const std::string library = std::string("extern \"C\" __device__ float thrice(float x) { return 3.0f * x; }\n");
    ASSERT_EQ(link({module_input(compile(link_test::kKernelSource, CUABI_COMPILE_RELOCATABLE)),
                    module_input(compile(link_test::kTwiceSource, CUABI_COMPILE_RELOCATABLE)),
                    module_input(compile(library.c_str(), CUABI_COMPILE_RELOCATABLE))},
                   &linked),
              CUABI_SUCCESS)
        << cuabi_last_error_message();
    EXPECT_EQ(read_text(cuabi_module_get_kernel_names, linked), "scale\n");
}

TEST_F(Link, AnUndefinedSymbolFailsWithTheLinkLogNamingIt) {
    cuabi_module* linked = nullptr;
    EXPECT_FAILS_WITH(link({module_input(compile(link_test::kKernelSource)), module_input(compile(link_test::kTwiceSource))},
                           &linked),
                      CUABI_ERROR_LINK, "thrice");
    EXPECT_EQ(linked, nullptr);
    EXPECT_NE(last_log().find(link_test::kLibraryFunction), std::string::npos) << last_log();
}

// On a machine with a driver, nvJitLink serves a link it made before from the driver's JIT cache
// (CUDA_CACHE_PATH, default ~/.nv/ComputeCache) without linking again, and then writes no info
// log (seen on the H100: a second run of this test had none). A source no run has linked before
// makes it link.
TEST_F(Link, TheLinkLogIsTheModulesLogAndTheThreadsLastCompileLog) {
    const char* verbose[] = {"-verbose"};
    options.extra_options = verbose;
    options.extra_option_count = 1;
    const std::string unique_twice =
        std::string(link_test::kTwiceSource) + "__device__ int link_nonce_" + std::to_string(getpid()) + "_" +
        std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) + ";\n";
    cuabi_module* linked = nullptr;
    ASSERT_EQ(link({module_input(compile(link_test::kKernelSource)), module_input(compile(unique_twice.c_str())),
                    file_input(CUABI_LINK_INPUT_FATBIN, CUABI_TEST_LINK_FATBIN)},
                   &linked),
              CUABI_SUCCESS)
        << cuabi_last_error_message();
    std::string log = read_text(cuabi_module_get_log, linked);
    EXPECT_FALSE(log.empty()) << "nvJitLink -verbose writes an info log";
    EXPECT_EQ(last_log(), log);
}

TEST_F(Link, TheCacheKeyCoversOptionsAndInputs) {
    std::vector<cuabi_link_input> inputs = all_inputs();
    auto key_of = [&](const std::vector<cuabi_link_input>& given) {
        cuabi_module* linked = nullptr;
        EXPECT_EQ(link(given, &linked), CUABI_SUCCESS) << cuabi_last_error_message();
        cuabi_module_info info = CUABI_MODULE_INFO_INIT;
        if (linked != nullptr) cuabi_module_get_info(linked, &info);
        return std::string(info.cache_key);
    };
    const std::string plain = key_of(inputs);
    EXPECT_EQ(key_of(inputs), plain) << "the same link, the same key";
    options.optimization_level = 0;
    EXPECT_NE(key_of(inputs), plain) << "an option";
    options.optimization_level = -1;
    inputs[2].name = "renamed.fatbin";
    EXPECT_NE(key_of(inputs), plain) << "an input's name";
    inputs[2].name = nullptr;
    std::swap(inputs[0], inputs[1]);
    EXPECT_NE(key_of(inputs), plain) << "the order of the inputs";
}

TEST_F(Link, ArgumentsAreChecked) {
    std::vector<cuabi_link_input> inputs = all_inputs();
    cuabi_module* linked = nullptr;
    EXPECT_FAILS_WITH(cuabi_module_link_offline(inputs.data(), inputs.size(), &options, nullptr),
                      CUABI_ERROR_INVALID_ARGUMENT, "out_module");
    EXPECT_FAILS_WITH(cuabi_module_link_offline(nullptr, 2, &options, &linked), CUABI_ERROR_INVALID_ARGUMENT,
                      "inputs is NULL");
    EXPECT_FAILS_WITH(cuabi_module_link_offline(inputs.data(), 0, &options, &linked), CUABI_ERROR_INVALID_ARGUMENT,
                      "no inputs");
    EXPECT_FAILS_WITH(cuabi_module_link_offline(inputs.data(), CUABI_LINK_MAX_INPUTS + 1, &options, &linked),
                      CUABI_ERROR_INVALID_ARGUMENT, "input_count is 4097");
    EXPECT_FAILS_WITH(cuabi_module_link_offline(inputs.data(), inputs.size(), nullptr, &linked),
                      CUABI_ERROR_INVALID_ARGUMENT, "needs an explicit target");
    cuabi_link_options wrong = options;
    wrong.struct_size = 3;
    EXPECT_FAILS_WITH(cuabi_module_link_offline(inputs.data(), inputs.size(), &wrong, &linked),
                      CUABI_ERROR_STRUCT_SIZE, "cuabi_link_options");
    wrong = options;
    wrong.flags |= 0x100;
    EXPECT_FAILS_WITH(cuabi_module_link_offline(inputs.data(), inputs.size(), &wrong, &linked),
                      CUABI_ERROR_INVALID_ARGUMENT, "bits 0x100");
    wrong = options;
    wrong.flags = CUABI_LINK_PTX;
    EXPECT_FAILS_WITH(cuabi_module_link_offline(inputs.data(), inputs.size(), &wrong, &linked),
                      CUABI_ERROR_INVALID_ARGUMENT, "CUABI_LINK_PTX without CUABI_LINK_LTO");
    wrong = options;
    wrong.flags = CUABI_LINK_NO_CACHE;
    EXPECT_FAILS_WITH(cuabi_module_link_offline(inputs.data(), inputs.size(), &wrong, &linked),
                      CUABI_ERROR_INVALID_ARGUMENT, "is LTO-IR");
    wrong = options;
    wrong.optimization_level = 7;
    EXPECT_FAILS_WITH(cuabi_module_link_offline(inputs.data(), inputs.size(), &wrong, &linked),
                      CUABI_ERROR_INVALID_ARGUMENT, "optimization_level is 7");
    wrong = options;
    wrong.target = "compute_90";
    EXPECT_FAILS_WITH(cuabi_module_link_offline(inputs.data(), inputs.size(), &wrong, &linked),
                      CUABI_ERROR_INVALID_ARGUMENT, "compute_90");
    wrong = options;
    wrong.extra_option_count = 1;
    EXPECT_FAILS_WITH(cuabi_module_link_offline(inputs.data(), inputs.size(), &wrong, &linked),
                      CUABI_ERROR_INVALID_ARGUMENT, "extra_options is NULL");
    const char* bad_option[] = {"-no-such-option"};
    wrong.extra_options = bad_option;
    EXPECT_FAILS_WITH(cuabi_module_link_offline(inputs.data(), inputs.size(), &wrong, &linked), CUABI_ERROR_LINK,
                      "-no-such-option");
    EXPECT_EQ(linked, nullptr);
}

TEST_F(Link, InputsAreCheckedBeforeNvJitLinkSeesThem) {
    cuabi_module* linked = nullptr;
    cuabi_link_input input = {};
    EXPECT_FAILS_WITH(link({input}, &linked), CUABI_ERROR_INVALID_ARGUMENT, "sets 0 of module, data and path");
    cuabi_module* object = compile(link_test::kTwiceSource);
    input.module = object;
    input.path = CUABI_TEST_LINK_FATBIN;
    EXPECT_FAILS_WITH(link({input}, &linked), CUABI_ERROR_INVALID_ARGUMENT, "sets 2 of module, data and path");
    input = module_input(object);
    input.kind = CUABI_LINK_INPUT_LTOIR;
    EXPECT_FAILS_WITH(link({input}, &linked), CUABI_ERROR_INVALID_ARGUMENT, "leave kind 0");

    const uint8_t garbage[64] = {0x13, 0x37, 0xde, 0xad};
    input = {};
    input.data = garbage;
    input.size = sizeof garbage;
    input.kind = 99;
    EXPECT_FAILS_WITH(link({input}, &linked), CUABI_ERROR_INVALID_ARGUMENT, "kind 99");
    input.kind = 0;
    EXPECT_FAILS_WITH(link({input}, &linked), CUABI_ERROR_INVALID_ARGUMENT, "kind 0");
    input.reserved = 5;
    EXPECT_FAILS_WITH(link({input}, &linked), CUABI_ERROR_INVALID_ARGUMENT, "inputs[0].reserved is 5");
    input.reserved = 0;
    for (int32_t kind : {CUABI_LINK_INPUT_CUBIN, CUABI_LINK_INPUT_FATBIN, CUABI_LINK_INPUT_PTX}) {
        input.kind = kind;
        EXPECT_FAILS_WITH(link({input}, &linked), CUABI_ERROR_INVALID_IMAGE, "64-byte");
    }
    for (int32_t kind : {CUABI_LINK_INPUT_LTOIR, CUABI_LINK_INPUT_OBJECT, CUABI_LINK_INPUT_LIBRARY}) {
        input.kind = kind;
        EXPECT_FAILS_WITH(link({input}, &linked), CUABI_ERROR_INVALID_IMAGE, "link input 0 is 64 bytes");
    }
    input.size = 0;
    EXPECT_FAILS_WITH(link({input}, &linked), CUABI_ERROR_INVALID_ARGUMENT, "size of 0");

    // A damaged fatbin: the real library with its header's size claiming more than there is.
    std::vector<uint8_t> fatbin = file_bytes(CUABI_TEST_LINK_FATBIN);
    ASSERT_GT(fatbin.size(), 16u);
    fatbin[8] = 0xff;
    fatbin[9] = 0xff;
    input.kind = CUABI_LINK_INPUT_FATBIN;
    input.data = fatbin.data();
    input.size = fatbin.size();
    EXPECT_FAILS_WITH(link({input}, &linked), CUABI_ERROR_INVALID_IMAGE, "fatbin");
    // The library's sound bytes under the wrong kind.
    fatbin = file_bytes(CUABI_TEST_LINK_FATBIN);
    input.data = fatbin.data();
    input.kind = CUABI_LINK_INPUT_CUBIN;
    EXPECT_FAILS_WITH(link({input}, &linked), CUABI_ERROR_INVALID_ARGUMENT, "sound fatbin");

    input = file_input(CUABI_LINK_INPUT_FATBIN, "/nonexistent/thrice.fatbin");
    EXPECT_FAILS_WITH(link({input}, &linked), CUABI_ERROR_NOT_FOUND, "/nonexistent/thrice.fatbin");
    input.path = "/tmp";
    EXPECT_FAILS_WITH(link({input}, &linked), CUABI_ERROR_NOT_FOUND, "no regular file");
    EXPECT_EQ(linked, nullptr);
}

TEST_F(Link, ForgedStaleAndWrongTypeHandlesAreRefused) {
    cuabi_module* linked = nullptr;
    cuabi_link_input input = {};
    input.module = reinterpret_cast<cuabi_module*>(uintptr_t{0x123456789});
    EXPECT_FAILS_WITH(link({input}, &linked), CUABI_ERROR_INVALID_HANDLE, "inputs[0].module");
    cuabi_module* stale = compile(link_test::kTwiceSource);
    modules.pop_back();
    cuabi_module_destroy(stale);
    input.module = stale;
    EXPECT_FAILS_WITH(link({input}, &linked), CUABI_ERROR_INVALID_HANDLE, "inputs[0].module");
    cuabi_module* object = compile(link_test::kTwiceSource);
    std::vector<cuabi_link_input> inputs = {module_input(object)};
    EXPECT_FAILS_WITH(cuabi_module_link(reinterpret_cast<cuabi_context*>(object), inputs.data(), 1, &options, &linked),
                      CUABI_ERROR_INVALID_HANDLE, "context");
    size_t size = 0;
    EXPECT_FAILS_WITH(cuabi_module_get_kernel_names(nullptr, nullptr, 0, &size), CUABI_ERROR_INVALID_HANDLE, "module");
    EXPECT_EQ(linked, nullptr);
}

TEST(LinkJob, AnNvJitLinkOlderThanTheInputsNeedIsRefusedBeforeLinking) {
    cuabi::Status status = CUABI_SUCCESS;
    const cuabi::NvJitLinkApi* api = cuabi::nvjitlink(&status);
    ASSERT_NE(api, nullptr) << cuabi_last_error_message();
    cuabi::LinkJob job;
    job.options = {"-arch=sm_90", "-lto"};
    job.target = "sm_90";
    job.min_version = api->version() + 1000;  // LTO-IR from a release newer than this nvJitLink
    cuabi::cache::CachedImage image;
    std::string log;
    EXPECT_FAILS_WITH(cuabi::run_nvjitlink(*api, job, &image, &log), CUABI_ERROR_NVJITLINK_NOT_FOUND,
                      "is older than the NVRTC");
}

TEST(LinkJob, TheWorkerProtocolCarriesAJobAndRefusesATruncatedOne) {
    cuabi::worker::LinkRequest request;
    request.job.options = {"-arch=sm_90", "-lto"};
    request.job.inputs.push_back({CUABI_LINK_INPUT_LTOIR, "a.ltoir", {1, 2, 3}});
    request.job.target = "sm_90";
    request.job.min_version = 13000;
    request.budget_ms = 5;
    std::vector<uint8_t> bytes = cuabi::worker::encode(request);
    cuabi::worker::LinkRequest decoded;
    ASSERT_TRUE(cuabi::worker::decode(bytes, &decoded));
    EXPECT_EQ(decoded.job.options, request.job.options);
    ASSERT_EQ(decoded.job.inputs.size(), 1u);
    EXPECT_EQ(decoded.job.inputs[0].bytes, request.job.inputs[0].bytes);
    EXPECT_EQ(decoded.job.min_version, 13000u);
    bytes.pop_back();
    cuabi::worker::LinkRequest truncated;
    EXPECT_FALSE(cuabi::worker::decode(bytes, &truncated));
}

TEST(LinkKernelNames, DamagedBytesGiveNoNamesAndNoCrash) {
    std::vector<uint8_t> fatbin = file_bytes(CUABI_TEST_LINK_FATBIN);
    EXPECT_TRUE(cuabi::image::cubin_kernel_names(fatbin.data(), fatbin.size()).empty());
    uint8_t elf[80] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    elf[0x28] = 0xff;  // a section table far past the end
    EXPECT_TRUE(cuabi::image::cubin_kernel_names(elf, sizeof elf).empty());
}

// nvcc's LTO-IR entries carry the zstd flag over a payload that is no zstd frame: such a fatbin is
// sound, and its entries are still held to their bounds.
TEST(LinkFatbinCheck, NvccLtoIrFatbinsPassTheImageChecksWithinTheirBounds) {
    std::vector<uint8_t> fatbin = file_bytes(CUABI_TEST_LINK_FATBIN);
    cuabi::image::Verdict verdict = cuabi::image::check(fatbin.data(), fatbin.size());
    EXPECT_TRUE(verdict.sound()) << verdict.defect;
    // The last entry's compressed size: one byte more than its payload holds.
    size_t at = 16, last = 0;
    while (at + 16 <= fatbin.size() && at < 16 + fatbin[8] + (size_t{fatbin[9]} << 8)) {
        last = at;
        uint32_t header = 0;
        uint64_t payload = 0;
        std::memcpy(&header, &fatbin[at + 4], 4);
        std::memcpy(&payload, &fatbin[at + 8], 8);
        at += header + payload;
    }
    uint64_t payload = 0;
    std::memcpy(&payload, &fatbin[last + 8], 8);
    const uint32_t claimed = static_cast<uint32_t>(payload + 1);
    std::memcpy(&fatbin[last + 16], &claimed, 4);
    verdict = cuabi::image::check(fatbin.data(), fatbin.size());
    EXPECT_FALSE(verdict.sound());
    EXPECT_NE(std::string(verdict.defect).find("compressed bytes"), std::string::npos) << verdict.defect;
}

// Each process is a real one (the cache helper), sharing one cache directory.
class LinkCache : public ::testing::Test {
protected:
    std::vector<std::string> env(std::vector<std::string> more = {}) const {
        more.push_back("CUABI_CACHE_DIR=" + (dir_ / "cache"));
        more.push_back("CUABI_CACHE_DISABLE=");
        return more;
    }
    cache_test::HelperResult link(const std::vector<std::string>& environment) const {
        return cache_test::run_helper({"link", CUABI_TEST_LINK_FATBIN}, environment);
    }
    cache_test::TempDir dir_;
};

TEST_F(LinkCache, ALinkRunsNvJitLinkInAWorkerAndAFreshProcessIsServedFromDisk) {
    cache_test::HelperResult cold = link(env());
    ASSERT_EQ(cold.number("status"), 0u) << cold.output;
    EXPECT_EQ(cold.number("origin"), static_cast<uint64_t>(CUABI_MODULE_ORIGIN_COMPILED));
    EXPECT_EQ(cold.values["kernels"], "scale,");
    EXPECT_EQ(cold.number("nvjitlink_loaded"), 0u) << "nvJitLink was loaded into the calling process";

    cache_test::HelperResult warm = link(env());
    ASSERT_EQ(warm.number("status"), 0u) << warm.output;
    EXPECT_EQ(warm.number("origin"), static_cast<uint64_t>(CUABI_MODULE_ORIGIN_DISK_CACHE)) << warm.output;
    EXPECT_EQ(warm.number("compiles"), 0u);
}

TEST_F(LinkCache, AProcessWithoutNvrtcOrNvJitLinkIsServedACachedLink) {
    ASSERT_EQ(link(env()).number("status"), 0u);
    std::vector<std::string> neither = env({"CUABI_NVRTC_PATH=/nonexistent/libnvrtc.so.13",
                                            "CUABI_NVJITLINK_PATH=/nonexistent/libnvJitLink.so.13"});
    cache_test::HelperResult served = link(neither);
    ASSERT_EQ(served.number("status"), 0u) << served.output;
    EXPECT_EQ(served.number("origin"), static_cast<uint64_t>(CUABI_MODULE_ORIGIN_DISK_CACHE));
    EXPECT_EQ(served.values["kernels"], "scale,");
    EXPECT_EQ(served.values["target"], "sm_90");
    EXPECT_EQ(served.number("nvrtc_state"), static_cast<uint64_t>(CUABI_NVRTC_STATE_UNAVAILABLE));
    EXPECT_EQ(served.number("nvjitlink_loaded"), 0u);
}

TEST_F(LinkCache, AMissWithoutNvJitLinkSaysWhereItLooked) {
    cache_test::HelperResult missing = link(env({"CUABI_NVJITLINK_PATH=/nonexistent/libnvJitLink.so.13"}));
    EXPECT_EQ(missing.number("status"), static_cast<uint64_t>(CUABI_ERROR_NVJITLINK_NOT_FOUND)) << missing.output;
    const std::string& message = missing.values["message"];
    EXPECT_NE(message.find("has no entry"), std::string::npos) << message;
    EXPECT_NE(message.find("/nonexistent/libnvJitLink.so.13"), std::string::npos) << message;
    EXPECT_NE(message.find("Fix: "), std::string::npos) << message;
}

TEST_F(LinkCache, AnNvJitLinkOlderThanTheNvrtcThatMadeTheInputsIsRefused) {
    cache_test::HelperResult old = link(env({"CUABI_NVJITLINK_PATH=" CUABI_TEST_STAND_IN_NVJITLINK,
                                             "CUABI_STAND_IN_NVJITLINK=old"}));
    EXPECT_EQ(old.number("status"), static_cast<uint64_t>(CUABI_ERROR_NVJITLINK_NOT_FOUND)) << old.output;
    const std::string& message = old.values["message"];
    EXPECT_NE(message.find("nvJitLink 12.0"), std::string::npos) << message;
    EXPECT_NE(message.find("older than the NVRTC 13"), std::string::npos) << message;
    EXPECT_NE(message.find("Fix: "), std::string::npos) << message;
}

TEST_F(LinkCache, AnNvJitLinkCrashCostsAStatusNotTheProcess) {
    cache_test::HelperResult crashed = link(env({"CUABI_NVJITLINK_PATH=" CUABI_TEST_STAND_IN_NVJITLINK,
                                                 "CUABI_STAND_IN_NVJITLINK=crash"}));
    EXPECT_EQ(crashed.number("status"), static_cast<uint64_t>(CUABI_ERROR_INTERNAL)) << crashed.output;
    const std::string& message = crashed.values["message"];
    EXPECT_NE(message.find("signal 6"), std::string::npos) << message;
    EXPECT_NE(message.find("this process is unharmed"), std::string::npos) << message;
    EXPECT_NE(message.find("Fix: "), std::string::npos) << message;
    EXPECT_EQ(crashed.number("nvjitlink_loaded"), 0u);
}
