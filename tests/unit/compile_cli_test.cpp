// `cuabi compile`: the real CLI binary in a child process, with its own cache directory. It
// compiles without a GPU when given --arch, writes the image, prints lowered names, warms the
// disk cache (a second run is a disk hit), and fails with the compiler's message and exit 1.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "child_process.hpp"

namespace {

namespace fs = std::filesystem;

std::string cli_path() { return std::string(CUABI_TEST_BINARY_DIR) + "/../src/cli/cuabi"; }

class CompileCli : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_EQ(access(cli_path().c_str(), X_OK), 0)
            << "the cuabi CLI is not built at " << cli_path() << "; build the cuabi_cli target";
        char pattern[] = "/tmp/cuabi-compile-cli-XXXXXX";
        ASSERT_NE(mkdtemp(pattern), nullptr);
        dir = pattern;
        fs::create_directory(dir / "include");
        std::ofstream(dir / "include" / "params.h") << "#define OFFSET 1000000\n";
        std::ofstream(dir / "k.cu") << "#include \"params.h\"\n"
                                       "template <int K> __global__ void add_k(int* x) { x[0] += K + OFFSET + EXTRA; }\n"
                                       "extern \"C\" __global__ void negate(int* x) { x[0] = -x[0]; }\n";
        std::ofstream(dir / "broken.cu") << "__global__ void k() { undefined_thing(); }\n";
    }
    void TearDown() override { fs::remove_all(dir); }

    // Runs `cuabi compile args...` with stderr joined to stdout; no driver, a private cache.
    test_support::ChildResult run(const std::string& args) {
        std::string command = cli_path() + " compile " + args + " 2>&1";
        return test_support::run_child({"/bin/sh", "-c", command},
                                       {{"CUABI_LIBCUDA_PATH", "/nonexistent/libcuda.so.1"},
                                        {"CUABI_CACHE_DIR", (dir / "cache").string()}});
    }

    std::string path(const char* name) const { return (dir / name).string(); }

    fs::path dir;
};

TEST_F(CompileCli, CompilesForAnArchitectureWithoutAGpuAndWritesTheCubin) {
    test_support::ChildResult result =
        run(path("k.cu") + " --arch sm_90 -I " + path("include") + " -D EXTRA=2 --name-expr 'add_k<3>' -o " +
            path("k.cubin"));
    ASSERT_EQ(result.exit_status, 0) << result.output;
    EXPECT_NE(result.output.find("CUBIN for sm_90"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("compiled by NVRTC"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("add_k<3> -> _Z5add_kILi3EEvPi"), std::string::npos) << result.output;
    std::ifstream written(path("k.cubin"), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(written)), std::istreambuf_iterator<char>());
    ASSERT_GE(bytes.size(), 4u);
    EXPECT_EQ(bytes.substr(0, 4), "\x7f" "ELF");
}

TEST_F(CompileCli, PtxOptionWritesPtxText) {
    test_support::ChildResult result =
        run(path("k.cu") + " --arch=sm_90 --ptx -I" + path("include") + " -DEXTRA=2 -o " + path("k.ptx"));
    ASSERT_EQ(result.exit_status, 0) << result.output;
    EXPECT_NE(result.output.find("PTX for compute_90"), std::string::npos) << result.output;
    std::ifstream written(path("k.ptx"), std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(written)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find(".target sm_90"), std::string::npos);
    EXPECT_EQ(text.find('\0'), std::string::npos) << "a .ptx file holds the text without its NUL";
}

TEST_F(CompileCli, SecondRunIsServedByTheWarmedDiskCache) {
    std::string args = path("k.cu") + " --arch sm_90 -I " + path("include") + " -D EXTRA=2";
    ASSERT_EQ(run(args).exit_status, 0);
    test_support::ChildResult second = run(args);
    ASSERT_EQ(second.exit_status, 0) << second.output;
    EXPECT_NE(second.output.find("from the disk cache"), std::string::npos) << second.output;
}

TEST_F(CompileCli, CompileErrorPrintsTheMessageAndLogAndExitsOne) {
    test_support::ChildResult result = run(path("broken.cu") + " --arch sm_90");
    EXPECT_EQ(result.exit_status, 1) << result.output;
    EXPECT_NE(result.output.find("CUABI_ERROR_COMPILE"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("undefined_thing"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("error detected in the compilation"), std::string::npos) << result.output;
}

TEST_F(CompileCli, WithoutArchAndWithoutADeviceSaysToPassArch) {
    test_support::ChildResult result = run(path("k.cu"));
    EXPECT_EQ(result.exit_status, 1) << result.output;
    EXPECT_NE(result.output.find("pass --arch sm_XY"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("/nonexistent/libcuda.so.1"), std::string::npos) << result.output;
}

TEST_F(CompileCli, BadUsageExitsTwoWithTheUsage) {
    EXPECT_EQ(run("").exit_status, 2);
    test_support::ChildResult result = run(path("k.cu") + " --frobnicate");
    EXPECT_EQ(result.exit_status, 2) << result.output;
    EXPECT_NE(result.output.find("usage: cuabi compile FILE.cu"), std::string::npos) << result.output;
    EXPECT_EQ(run(path("missing.cu") + " --arch sm_90").exit_status, 1);
}

}  // namespace

namespace {

// `cuabi compile` with CUABI_CACHE_DIR set to `cache`.
test_support::ChildResult compile_into(const std::string& args, const std::string& cache) {
    return test_support::run_child({"/bin/sh", "-c", cli_path() + " compile " + args + " 2>&1"},
                                   {{"CUABI_LIBCUDA_PATH", "/nonexistent/libcuda.so.1"}, {"CUABI_CACHE_DIR", cache}});
}

}  // namespace

TEST_F(CompileCli, SaysCachedOnDiskOnlyWhenTheEntryReachedTheDisk) {
    test_support::ChildResult stored = run(path("k.cu") + " --arch sm_90 -I " + path("include") + " -D EXTRA=1");
    ASSERT_EQ(stored.exit_status, 0) << stored.output;
    EXPECT_NE(stored.output.find("now cached on disk"), std::string::npos) << stored.output;

    fs::create_directory(dir / "shared");
    fs::permissions(dir / "shared", fs::perms::all);  // 0777: refused
    test_support::ChildResult refused =
        compile_into(path("k.cu") + " --arch sm_90 -I " + path("include") + " -D EXTRA=1", (dir / "shared").string());
    ASSERT_EQ(refused.exit_status, 0) << refused.output;
    EXPECT_EQ(refused.output.find("now cached"), std::string::npos) << refused.output;
    EXPECT_NE(refused.output.find("NOT cached on disk"), std::string::npos) << refused.output;
    EXPECT_NE(refused.output.find("mode 777"), std::string::npos) << refused.output;
}

TEST_F(CompileCli, ToolkitIncludesCanBeLeftOutAndAMissingHeaderIsExplained) {
    std::ofstream(dir / "fp16.cu") << "#include <cuda_fp16.h>\n__global__ void k(__half* p) { p[0] = __float2half(1.f); }\n";
    ASSERT_EQ(run(path("fp16.cu") + " --arch sm_90").exit_status, 0);
    test_support::ChildResult without = run(path("fp16.cu") + " --arch sm_90 --no-toolkit-includes");
    EXPECT_EQ(without.exit_status, 1) << without.output;
    EXPECT_NE(without.output.find("\"cuda_fp16.h\" was not found"), std::string::npos) << without.output;
    EXPECT_NE(without.output.find("Fix: "), std::string::npos) << without.output;
}
