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
#include "cuabi/cuabi.h"

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

namespace {

// The "cache_key" of the first result in `cuabi compile --json` output.
std::string json_value(const std::string& json, const std::string& key, size_t from = 0) {
    std::string marker = "\"" + key + "\":\"";
    size_t at = json.find(marker, from);
    if (at == std::string::npos) return "";
    at += marker.size();
    return json.substr(at, json.find('"', at) - at);
}

size_t occurrences(const std::string& text, const std::string& what) {
    size_t count = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
    return count;
}

}  // namespace

TEST_F(CompileCli, ThreeSpellingsOfOneFileGiveOneKey) {
    // The file's base name is the program name: ./k.cu, k.cu and /abs/k.cu are one program.
    std::string options = " --arch sm_90 -I " + path("include") + " -D EXTRA=4 --json";
    std::string cd = "cd " + dir.string() + " && " + cli_path() + " compile ";
    auto compile = [&](const std::string& file) {
        return test_support::run_child({"/bin/sh", "-c", cd + file + options + " 2>&1"},
                                       {{"CUABI_LIBCUDA_PATH", "/nonexistent/libcuda.so.1"},
                                        {"CUABI_CACHE_DIR", (dir / "cache").string()}});
    };
    test_support::ChildResult relative = compile("./k.cu"), bare = compile("k.cu"), absolute = compile(path("k.cu"));
    ASSERT_EQ(relative.exit_status, 0) << relative.output;
    ASSERT_EQ(bare.exit_status, 0) << bare.output;
    ASSERT_EQ(absolute.exit_status, 0) << absolute.output;
    std::string key = json_value(relative.output, "cache_key");
    ASSERT_EQ(key.size(), 32u) << relative.output;
    EXPECT_EQ(json_value(bare.output, "cache_key"), key) << bare.output;
    EXPECT_EQ(json_value(absolute.output, "cache_key"), key) << absolute.output;
    EXPECT_EQ(json_value(relative.output, "program_name"), "k.cu");
    EXPECT_EQ(json_value(relative.output, "origin"), "compiled") << relative.output;
    EXPECT_EQ(json_value(bare.output, "origin"), "disk_cache") << "the second spelling is a hit: " << bare.output;
    EXPECT_EQ(json_value(absolute.output, "origin"), "disk_cache") << absolute.output;
}

TEST_F(CompileCli, ProgramNameIsPartOfTheKeyAndKernelCuIsTheLibrarysDefault) {
    std::string args = " --arch sm_90 -I " + path("include") + " -D EXTRA=5 --json";
    test_support::ChildResult own = run(path("k.cu") + args);
    test_support::ChildResult renamed = run(path("k.cu") + args + " --program-name other.cu");
    test_support::ChildResult as_default = run(path("k.cu") + args + " --program-name kernel.cu");
    ASSERT_EQ(own.exit_status, 0) << own.output;
    ASSERT_EQ(renamed.exit_status, 0) << renamed.output;
    ASSERT_EQ(as_default.exit_status, 0) << as_default.output;
    EXPECT_EQ(json_value(renamed.output, "program_name"), "other.cu");
    EXPECT_NE(json_value(renamed.output, "cache_key"), json_value(own.output, "cache_key"));

    // A program that embeds the same source and leaves program_name NULL compiles "kernel.cu":
    // the same key as --program-name kernel.cu (and as a file called kernel.cu).
    std::ifstream file(path("k.cu"));
    std::string source((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    std::string include = path("include");
    const char* dirs[] = {include.c_str()};
    const char* defines[] = {"EXTRA=5"};
    cuabi_compile_options options;
    cuabi_compile_options_init(sizeof options, &options);
    options.target = "sm_90";
    options.flags = CUABI_COMPILE_NO_CACHE;  // this process's cache stays untouched; the key is the same
    options.include_dirs = dirs;
    options.include_dir_count = 1;
    options.defines = defines;
    options.define_count = 1;
    cuabi_module* module = nullptr;
    ASSERT_EQ(cuabi_module_compile_offline(source.c_str(), &options, &module), CUABI_SUCCESS)
        << cuabi_last_error_message();
    cuabi_module_info info = CUABI_MODULE_INFO_INIT;
    ASSERT_EQ(cuabi_module_get_info(module, &info), CUABI_SUCCESS);
    cuabi_module_destroy(module);
    EXPECT_EQ(json_value(as_default.output, "cache_key"), info.cache_key) << as_default.output;
    EXPECT_NE(json_value(own.output, "cache_key"), info.cache_key) << "k.cu is not the library's default name";
}

TEST_F(CompileCli, NoCacheRunsNvrtcOnAWarmCache) {
    std::string args = path("k.cu") + " --arch sm_90 -I " + path("include") + " -D EXTRA=6";
    ASSERT_EQ(run(args).exit_status, 0);
    test_support::ChildResult again = run(args + " --no-cache");
    ASSERT_EQ(again.exit_status, 0) << again.output;
    EXPECT_NE(again.output.find("compiled by NVRTC, not cached (--no-cache)"), std::string::npos) << again.output;
    test_support::ChildResult json = run(args + " --no-cache --json");
    EXPECT_EQ(json_value(json.output, "origin"), "compiled") << json.output;
    EXPECT_NE(json.output.find("\"cached_on_disk\":false"), std::string::npos) << json.output;
}

TEST_F(CompileCli, RepeatedDefinesOfOneMacroAreVariantsCompiledSideBySide) {
    std::ofstream(dir / "k2.cu") << "__global__ void other(int* x) { x[0] = LEVEL; }\n";
    test_support::ChildResult result = run(path("k.cu") + " " + path("k2.cu") + " --arch sm_90 -I " + path("include") +
                                           " -D EXTRA=1 -D EXTRA=2 --define LEVEL=3 --jobs 3 --json");
    ASSERT_EQ(result.exit_status, 0) << result.output;
    EXPECT_EQ(occurrences(result.output, "\"ok\":true"), 5u) << "two files x two variants, and the whole run: "
                                                             << result.output;
    EXPECT_EQ(occurrences(result.output, "\"defines\":[\"EXTRA=1\",\"LEVEL=3\"]"), 2u) << result.output;
    EXPECT_EQ(occurrences(result.output, "\"defines\":[\"EXTRA=2\",\"LEVEL=3\"]"), 2u) << result.output;
    std::vector<std::string> keys;
    for (size_t at = result.output.find("\"cache_key\""); at != std::string::npos;
         at = result.output.find("\"cache_key\"", at + 1))
        keys.push_back(json_value(result.output, "cache_key", at));
    ASSERT_EQ(keys.size(), 4u);
    for (size_t i = 0; i < keys.size(); ++i)
        for (size_t j = i + 1; j < keys.size(); ++j) EXPECT_NE(keys[i], keys[j]) << "each variant is its own program";

    test_support::ChildResult text = run(path("k.cu") + " --arch sm_90 -I " + path("include") + " -D EXTRA=1 -D EXTRA=2");
    EXPECT_NE(text.output.find("k.cu [EXTRA=1]: CUBIN"), std::string::npos) << text.output;
    EXPECT_NE(text.output.find("k.cu [EXTRA=2]: CUBIN"), std::string::npos) << text.output;
}

TEST_F(CompileCli, AFailureAmongSeveralIsReportedInJsonAndExitsOne) {
    test_support::ChildResult result =
        run(path("broken.cu") + " " + path("k.cu") + " --arch sm_90 -I " + path("include") + " -D EXTRA=7 --jobs 2 --json");
    EXPECT_EQ(result.exit_status, 1) << result.output;
    EXPECT_NE(result.output.find("\"status\":\"CUABI_ERROR_COMPILE\""), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("undefined_thing"), std::string::npos) << "the log rides along: " << result.output;
    EXPECT_EQ(occurrences(result.output, "\"ok\":true"), 1u) << "k.cu still compiled: " << result.output;
    EXPECT_NE(result.output.find("\"ok\":false}"), std::string::npos) << "the run as a whole failed: " << result.output;
}

// The results of `cuabi compile --json`, one object's text each, in the order printed.
std::vector<std::string> json_results(const std::string& json) {
    std::vector<std::string> results;
    const std::string start = "{\"file\":";
    for (size_t at = json.find(start); at != std::string::npos;) {
        size_t next = json.find(start, at + 1);
        results.push_back(json.substr(at, next == std::string::npos ? std::string::npos : next - at));
        at = next;
    }
    return results;
}

// Files x -D variants go to the library as one compile batch: every result comes back in the
// order files x variants, and a variant that does not compile fails with its own error and log
// while the variants beside it, of its file and the other, compile.
TEST_F(CompileCli, FilesTimesVariantsCompileAsOneBatchEachWithItsOwnResult) {
    std::ofstream(dir / "v.cu") << "#if EXTRA == 2\n#error variant EXTRA=2 is refused\n#endif\n"
                                   "__global__ void other(int* x) { x[0] = EXTRA; }\n";
    test_support::ChildResult result = run(path("k.cu") + " " + path("v.cu") + " --arch sm_90 -I " + path("include") +
                                           " -D EXTRA=31 -D EXTRA=2 -D EXTRA=33 --jobs 4 --json");
    EXPECT_EQ(result.exit_status, 1) << result.output;
    std::vector<std::string> results = json_results(result.output);
    ASSERT_EQ(results.size(), 6u) << result.output;
    const char* files[] = {"k.cu", "v.cu"};
    const char* variants[] = {"EXTRA=31", "EXTRA=2", "EXTRA=33"};
    for (size_t i = 0; i < results.size(); ++i) {
        const std::string file = path(files[i / 3]), variant = variants[i % 3];
        const std::string& r = results[i];
        EXPECT_EQ(json_value(r, "file"), file) << "result " << i << ": " << r;
        EXPECT_NE(r.find("\"defines\":[\"" + variant + "\"]"), std::string::npos) << "result " << i << ": " << r;
        const bool refused = i == 4;
        EXPECT_NE(r.find(refused ? "\"ok\":false" : "\"ok\":true"), std::string::npos) << "result " << i << ": " << r;
        EXPECT_EQ(json_value(r, "status"), refused ? "CUABI_ERROR_COMPILE" : "CUABI_SUCCESS") << r;
        EXPECT_EQ(r.find("variant EXTRA=2 is refused") != std::string::npos, refused) << "result " << i << ": " << r;
    }
    EXPECT_NE(results[4].find("\"message\":\"NVRTC"), std::string::npos) << results[4];
    EXPECT_NE(results[5].find("\"ok\":false}"), std::string::npos) << "the run as a whole failed: " << results[5];
}

// A request the library refuses before the batch starts (here a target it does not know) is that
// job's failure alone: the jobs before and after it still compile.
TEST_F(CompileCli, ATargetTheLibraryRefusesFailsAloneAndTheOtherTargetsCompile) {
    test_support::ChildResult result =
        run(path("k.cu") + " --arch sm_80,sm_x,sm_90 -I " + path("include") + " -D EXTRA=34 --json");
    EXPECT_EQ(result.exit_status, 1) << result.output;
    std::vector<std::string> results = json_results(result.output);
    ASSERT_EQ(results.size(), 3u) << result.output;
    EXPECT_EQ(json_value(results[0], "target"), "sm_80") << results[0];
    EXPECT_EQ(json_value(results[1], "requested_target"), "sm_x") << results[1];
    EXPECT_EQ(json_value(results[1], "status"), "CUABI_ERROR_INVALID_ARGUMENT") << results[1];
    EXPECT_EQ(json_value(results[1], "argument"), "--arch") << results[1];
    EXPECT_NE(results[1].find("\"message\":\"cuabi_compile_options.target is \\\"sm_x\\\""), std::string::npos)
        << "the library's message, without the batch's request number: " << results[1];
    EXPECT_EQ(json_value(results[2], "target"), "sm_90") << results[2];
    EXPECT_EQ(occurrences(result.output, "\"ok\":true"), 2u) << result.output;
}

TEST_F(CompileCli, ValuesThatCannotBeUsedAreRefusedNamingTheArgumentAndValue) {
    struct Case {
        std::string args;
        int exit_status;
        std::vector<std::string> said;
    } cases[] = {
        {"--jobs abc", 2, {"--jobs 'abc'", "from 1 to 256", "Fix: "}},
        {"--jobs 0", 2, {"--jobs '0'"}},
        {"-j 999", 2, {"--jobs '999'"}},
        {"--timeout-ms -5", 2, {"--timeout-ms '-5'"}},
        {"--arch", 2, {"option '--arch' needs a value"}},
        {"--frobnicate", 2, {"unknown option '--frobnicate'"}},
        {"--program-name dir/k.cu", 2, {"--program-name 'dir/k.cu'"}},
        {"--arch sm_x", 1, {"(from --arch)", "target is \"sm_x\"", "Fix: "}},
        {"--arch sm_90 --std c++18", 1, {"(from --std)", "cpp_standard is \"c++18\"", "\"c++20\""}},
        {"--arch sm_90 -D 1BAD=2", 1, {"(from -D/--define)", "\"1BAD=2\""}},
        {"--arch sm_80,sm_90 -o " + path("x.cubin"), 2, {"-o '" + path("x.cubin") + "' writes one image", "makes 2"}},
    };
    for (const Case& c : cases) {
        test_support::ChildResult result = run(path("k.cu") + " -I " + path("include") + " -D EXTRA=1 " + c.args);
        EXPECT_EQ(result.exit_status, c.exit_status) << c.args << ": " << result.output;
        for (const std::string& text : c.said) EXPECT_NE(result.output.find(text), std::string::npos) << c.args << ": " << result.output;
    }
    test_support::ChildResult two_named = run(path("k.cu") + " " + path("broken.cu") + " --program-name one.cu");
    EXPECT_EQ(two_named.exit_status, 2) << two_named.output;
    EXPECT_NE(two_named.output.find("--program-name 'one.cu' names one program, and 2 files"), std::string::npos)
        << two_named.output;
}

TEST_F(CompileCli, AMistypedNameExpressionIsNamedWithTheKernelsTheSourceDeclares) {
    test_support::ChildResult result =
        run(path("k.cu") + " --arch sm_90 -I " + path("include") + " -D EXTRA=1 --name-expr 'add_k<3>' --name-expr 'add_j<3>'");
    EXPECT_EQ(result.exit_status, 1) << result.output;
    EXPECT_NE(result.output.find("(from --name-expr)"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("name_expressions[1] \"add_j<3>\""), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("add_k<...>, negate"), std::string::npos) << result.output;
}

TEST_F(CompileCli, AProgressLineShowsOnATerminalOnlyForACompileLongerThanASecond) {
    if (access("/usr/bin/script", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/script (util-linux) to give the CLI a terminal";
    // CUB's block reduction takes NVRTC seconds, also on a fast machine.
    std::ofstream(dir / "heavy.cu")
        << "#include <cub/block/block_reduce.cuh>\n"
           "template <int B> __global__ void red(const float* in, float* out) {\n"
           "  using R = cub::BlockReduce<float, B>; __shared__ typename R::TempStorage t;\n"
           "  float v = R(t).Sum(in[threadIdx.x]); if (threadIdx.x == 0) *out = v; }\n";
    std::string compile = cli_path() + " compile " + path("heavy.cu") + " --arch sm_90 --no-cache --name-expr 'red<128>'";
    std::vector<std::pair<std::string, std::string>> environment = {
        {"CUABI_LIBCUDA_PATH", "/nonexistent/libcuda.so.1"}, {"CUABI_CACHE_DIR", (dir / "cache").string()}};
    test_support::ChildResult on_terminal =
        test_support::run_child({"/usr/bin/script", "-qec", compile, "/dev/null"}, environment);
    ASSERT_EQ(on_terminal.exit_status, 0) << on_terminal.output;
    EXPECT_NE(on_terminal.output.find("\r\033[Kcuabi compile: compiling " + path("heavy.cu") + " for sm_90 ... 1."),
              std::string::npos)
        << on_terminal.output;
    EXPECT_NE(on_terminal.output.find("red<128> -> "), std::string::npos) << on_terminal.output;

    std::string quick = cli_path() + " compile " + path("k.cu") + " --arch sm_90 -I " + path("include") + " -D EXTRA=8";
    ASSERT_EQ(test_support::run_child({"/bin/sh", "-c", quick}, environment).exit_status, 0);
    test_support::ChildResult hit = test_support::run_child({"/usr/bin/script", "-qec", quick, "/dev/null"}, environment);
    ASSERT_EQ(hit.exit_status, 0) << hit.output;
    EXPECT_NE(hit.output.find("from the disk cache"), std::string::npos) << hit.output;
    EXPECT_EQ(hit.output.find("compiling"), std::string::npos) << "a hit takes less than a second: " << hit.output;

    test_support::ChildResult piped = test_support::run_child({"/bin/sh", "-c", compile + " 2>&1 | cat"}, environment);
    ASSERT_EQ(piped.exit_status, 0) << piped.output;
    EXPECT_EQ(piped.output.find("compiling"), std::string::npos) << "nothing extra when piped: " << piped.output;
    EXPECT_EQ(piped.output.find('\r'), std::string::npos) << piped.output;
}
