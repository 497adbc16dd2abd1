// The CUDA Toolkit's own headers compile with no include option, as with nvcc; which ones were
// used is part of the cache key; and a header that is still not found is reported with every
// place it was looked for and the option or variable that adds one.
#include <gtest/gtest.h>

#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "cache_support/process.hpp"
#include "compile/toolkit_headers.hpp"
#include "cuabi/cuabi.h"
#include "driver/nvrtc_api_files.hpp"

namespace {

std::vector<std::string> include_dirs() {
    size_t size = 0;
    EXPECT_EQ(cuabi_nvrtc_get_include_dirs(nullptr, 0, &size), CUABI_SUCCESS);
    std::string text(size, '\0');
    EXPECT_EQ(cuabi_nvrtc_get_include_dirs(&text[0], size, &size), CUABI_SUCCESS);
    text.resize(size - 1);
    std::vector<std::string> lines;
    for (size_t start = 0; start < text.size();) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

cuabi_status compile(const char* source, uint32_t flags = 0, std::vector<const char*> dirs = {}) {
    cuabi_compile_options options = CUABI_COMPILE_OPTIONS_INIT;
    options.target = "sm_90";
    options.flags = flags;
    options.include_dirs = dirs.data();
    options.include_dir_count = dirs.size();
    options.cpp_standard = "c++17";
    cuabi_module* module = nullptr;
    cuabi_status status = cuabi_module_compile_offline(source, &options, &module);
    cuabi_module_destroy(module);
    return status;
}

bool exists(const std::string& path) {
    struct stat info;
    return stat(path.c_str(), &info) == 0;
}

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// Sets an environment variable for one test and restores it afterwards (the test's own process:
// cuabi reads these once per call of find_toolkit_headers, which these tests make directly).
class ScopedEnv {
public:
    ScopedEnv(const char* name, const std::string& value) : name_(name) {
        const char* old = getenv(name);
        had_ = old != nullptr;
        if (had_) old_ = old;
        setenv(name, value.c_str(), 1);
    }
    ~ScopedEnv() {
        if (had_) setenv(name_, old_.c_str(), 1);
        else unsetenv(name_);
    }

private:
    const char* name_;
    bool had_ = false;
    std::string old_;
};

}  // namespace

TEST(CompileToolkit, IncludeDirectoriesAreFoundWithoutAnyOption) {
    std::vector<std::string> dirs = include_dirs();
    ASSERT_FALSE(dirs.empty()) << "no CUDA Toolkit headers found on a machine with the toolkit";
    bool found_cooperative_groups = false, found_cub = false;
    for (const std::string& dir : dirs) {
        EXPECT_TRUE(exists(dir)) << dir;
        found_cooperative_groups |= exists(dir + "/cooperative_groups.h");
        found_cub |= exists(dir + "/cub/block/block_reduce.cuh");
    }
    EXPECT_TRUE(found_cooperative_groups);
    EXPECT_TRUE(found_cub);
}

class ToolkitHeader : public ::testing::TestWithParam<const char*> {};
const char* const kHeaderNames[] = {"cooperative_groups", "cub", "libcudacxx", "thrust", "cuda_fp16", "cuda_bf16", "mma"};

TEST_P(ToolkitHeader, CompilesWithNoIncludeOption) {
    // NVRTC really runs: a cached image would only show that an earlier compile found the headers.
    EXPECT_EQ(compile(GetParam(), CUABI_COMPILE_NO_CACHE), CUABI_SUCCESS) << cuabi_last_error_message();
}

INSTANTIATE_TEST_SUITE_P(
    Headers, ToolkitHeader,
    ::testing::Values(
        "#include <cooperative_groups.h>\n"
        "namespace cg = cooperative_groups;\n"
        "__global__ void k(int* p) { cg::thread_block b = cg::this_thread_block(); p[b.thread_rank()] = 1; }\n",
        "#include <cub/block/block_reduce.cuh>\n"
        "__global__ void k(const int* in, int* out) {\n"
        "  using R = cub::BlockReduce<int, 128>; __shared__ R::TempStorage t;\n"
        "  int s = R(t).Sum(in[threadIdx.x]); if (threadIdx.x == 0) *out = s; }\n",
        "#include <cuda/std/type_traits>\n#include <cuda/std/limits>\n"
        "__global__ void k(int* p) { static_assert(cuda::std::is_integral<int>::value, \"\");\n"
        "  p[0] = cuda::std::numeric_limits<int>::max(); }\n",
        "#include <thrust/functional.h>\n#include <thrust/tuple.h>\n#include <thrust/iterator/counting_iterator.h>\n"
        "__global__ void k(int* p) { thrust::counting_iterator<int> it(5); thrust::tuple<int, int> t(it[2], 3);\n"
        "  p[0] = thrust::plus<int>()(thrust::get<0>(t), thrust::get<1>(t)); }\n",
        "#include <cuda_fp16.h>\n__global__ void k(__half* p) { p[0] = __hadd(p[1], __float2half(1.0f)); }\n",
        "#include <cuda_bf16.h>\n"
        "__global__ void k(__nv_bfloat16* p) { p[0] = __hmul(p[1], __float2bfloat16(2.0f)); }\n",
        "#include <mma.h>\nusing namespace nvcuda;\n"
        "__global__ void k(const half* a, const half* b, float* c) {\n"
        "  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;\n"
        "  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;\n"
        "  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;\n"
        "  wmma::fill_fragment(fc, 0.0f); wmma::load_matrix_sync(fa, a, 16); wmma::load_matrix_sync(fb, b, 16);\n"
        "  wmma::mma_sync(fc, fa, fb, fc); wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major); }\n"),
    [](const ::testing::TestParamInfo<const char*>& info) { return std::string(kHeaderNames[info.index]); });

TEST(CompileToolkit, WithoutToolkitIncludesAMissingHeaderSaysSoAndHowToAddIt) {
    EXPECT_EQ(compile("#include <cooperative_groups.h>\n__global__ void k() {}\n", CUABI_COMPILE_NO_TOOLKIT_INCLUDES),
              CUABI_ERROR_COMPILE);
    std::string message = cuabi_last_error_message();
    EXPECT_NE(message.find("\"cooperative_groups.h\" was not found"), std::string::npos) << message;
    EXPECT_NE(message.find("CUABI_COMPILE_NO_TOOLKIT_INCLUDES"), std::string::npos) << message;
    EXPECT_NE(message.find("Fix: "), std::string::npos) << message;
    EXPECT_NE(message.find("include_dirs"), std::string::npos) << message;
    EXPECT_NE(message.find("CUABI_CUDA_INCLUDE_PATH"), std::string::npos) << message;
    EXPECT_EQ(message.find("correct the source"), std::string::npos) << "the source was correct: " << message;
}

TEST(CompileToolkit, AMissingHeaderNamesEveryDirectorySearched) {
    EXPECT_EQ(compile("#include \"nowhere.h\"\n__global__ void k() {}\n", 0, {"/tmp/cuabi-a", "/tmp/cuabi-b"}),
              CUABI_ERROR_COMPILE);
    std::string message = cuabi_last_error_message();
    EXPECT_NE(message.find("\"nowhere.h\""), std::string::npos) << message;
    std::vector<std::string> searched = {"/tmp/cuabi-a", "/tmp/cuabi-b"};
    for (const std::string& dir : include_dirs()) searched.push_back(dir);
    for (const std::string& dir : searched) EXPECT_NE(message.find(dir), std::string::npos) << dir << ": " << message;
    EXPECT_NE(message.find("header_names"), std::string::npos) << message;
    EXPECT_NE(message.find("CUDA_HOME"), std::string::npos) << message;
}

TEST(CompileToolkit, TheIdentityChangesWithTheHeadersVersionAndLocation) {
    cache_test::TempDir dir;
    ASSERT_EQ(mkdir((dir / "include").c_str(), 0700), 0);
    write(dir / "include/cuda_fp16.h", "// version 1\n");
    std::vector<std::string> dirs = {dir / "include"};
    uint64_t first = cuabi::toolkit_identity(dirs);
    EXPECT_EQ(cuabi::toolkit_identity(dirs), first) << "stable while nothing changes";
    write(dir / "include/cuda_fp16.h", "// version 2, longer\n");
    uint64_t rewritten = cuabi::toolkit_identity(dirs);
    EXPECT_NE(rewritten, first);
    struct timespec times[2] = {{1000000000, 0}, {1000000000, 0}};
    ASSERT_EQ(utimensat(AT_FDCWD, (dir / "include/cuda_fp16.h").c_str(), times, 0), 0);
    EXPECT_NE(cuabi::toolkit_identity(dirs), rewritten) << "a reinstall with the same size, another time";
    EXPECT_NE(cuabi::toolkit_identity({dir / "include", "/elsewhere"}), cuabi::toolkit_identity(dirs));
}

TEST(CompileToolkit, FoundThroughCudaHomeAndTheOverrideVariable) {
    cache_test::TempDir dir;
    ASSERT_EQ(mkdir((dir / "include").c_str(), 0700), 0);
    ASSERT_EQ(mkdir((dir / "include/cccl").c_str(), 0700), 0);
    write(dir / "include/cuda_fp16.h", "//\n");
    {
        ScopedEnv home("CUDA_HOME", dir.path());
        cuabi::ToolkitHeaders found = cuabi::find_toolkit_headers("");
        ASSERT_EQ(found.directories.size(), 2u);
        EXPECT_EQ(found.directories[0], dir / "include/cccl");
        EXPECT_EQ(found.directories[1], dir / "include");
        EXPECT_EQ(found.source, "$CUDA_HOME");
        ScopedEnv list("CUABI_CUDA_INCLUDE_PATH", "/first:/second");
        found = cuabi::find_toolkit_headers("");
        EXPECT_EQ(found.directories, (std::vector<std::string>{"/first", "/second"}));
        EXPECT_EQ(found.source, "CUABI_CUDA_INCLUDE_PATH");
    }
}

TEST(CompileToolkit, SitePackagesEnclosingALibraryIsFound) {
    EXPECT_EQ(cuabi::enclosing_site_packages("/venv/lib/python3.12/site-packages/cuabi/lib/libcuabi.so.1"),
              "/venv/lib/python3.12/site-packages");
    EXPECT_EQ(cuabi::enclosing_site_packages("/usr/lib/python3/dist-packages/cuabi/lib/libcuabi.so.1"),
              "/usr/lib/python3/dist-packages");
    EXPECT_EQ(cuabi::enclosing_site_packages("/a/site-packages/b/site-packages/c.so"), "/a/site-packages/b/site-packages");
    EXPECT_EQ(cuabi::enclosing_site_packages("/usr/lib/x86_64-linux-gnu/libcuabi.so.1"), "");
    EXPECT_EQ(cuabi::enclosing_site_packages("/site-packages-old/libcuabi.so.1"), "");
    EXPECT_EQ(cuabi::enclosing_site_packages("libcuabi.so.1"), "");
}

TEST(CompileToolkit, PipWheelDirectoriesAreLookedFor) {
    cache_test::TempDir dir;
    std::string nvidia = dir / "lib/python3.12/site-packages/nvidia";
    for (const std::string& level : {dir / "lib", dir / "lib/python3.12", dir / "lib/python3.12/site-packages", nvidia})
        ASSERT_EQ(mkdir(level.c_str(), 0700), 0) << level;
    ScopedEnv venv("VIRTUAL_ENV", dir.path());
    std::vector<std::string> found = cuabi::pip_nvidia_directories();
    ASSERT_FALSE(found.empty());
    EXPECT_EQ(found[0], nvidia);
}
