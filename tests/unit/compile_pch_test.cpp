// Precompiled headers with the real NVRTC, real worker processes and a real PCH store: a PCH one
// process creates serves another process's different variant; damaged, foreign, linked or stale
// PCH are refused and rebuilt; the image is the same with and without PCH; an NVRTC without PCH
// support compiles as before. Each compile runs in cache_helper ("pch" command), a fresh process.
#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cache/pch_store.hpp"
#include "cache_support/process.hpp"
#include "compile/compile_options.hpp"
#include "compile/pch_policy.hpp"
#include "compile/pch_worker.hpp"
#include "driver/nvrtc_api_locate.hpp"

namespace {

using cache_test::HelperResult;
using cache_test::TempDir;

constexpr char kVariantA[] = "fill<int, 2>";
constexpr char kVariantB[] = "fill<int, 3>";
constexpr char kVariantC[] = "fill<unsigned, 5>";
constexpr char kVariantD[] = "fill<unsigned, 7>";

HelperResult compile(const TempDir& dir, const std::string& cache, const std::string& expression,
                     std::vector<std::string> arguments = {}, std::vector<std::string> env = {}) {
    arguments.insert(arguments.begin(), {"pch", expression});
    env.push_back("CUABI_CACHE_DIR=" + (dir / cache));
    HelperResult result = cache_test::run_helper(arguments, env);
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_EQ(result.number("status"), 0u) << result.output;
    return result;
}

// The worker must be able to fix its address space (a seccomp filter may forbid it).
bool pch_possible(const HelperResult& first) {
    return first.values.count("pch_problem") != 0 && first.values.at("pch_problem").empty();
}

std::vector<std::string> stored(const TempDir& dir, const std::string& cache) {
    std::vector<std::string> names;
    DIR* listing = opendir((dir / (cache + "/pch")).c_str());
    while (listing != nullptr)
        if (struct dirent* entry = readdir(listing); entry == nullptr) break;
        else if (std::string(entry->d_name).size() > 4 && std::string(entry->d_name).find(".pch") != std::string::npos)
            names.push_back(entry->d_name);
    if (listing != nullptr) closedir(listing);
    return names;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_file(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
}

#define SKIP_WITHOUT_PCH(result)                                                                  \
    if (!pch_possible(result)) GTEST_SKIP() << "this host's compile worker cannot use PCH: "     \
                                            << (result).values["pch_problem"]

TEST(CompilePch, AVariantInAnotherProcessReusesThePchAndGetsTheSameImageAsWithout) {
    TempDir dir;
    HelperResult first = compile(dir, "cache", kVariantA);
    SKIP_WITHOUT_PCH(first);
    EXPECT_EQ(first.number("pch_created"), 1u) << first.output;
    EXPECT_EQ(first.number("store_files"), 1u);

    HelperResult second = compile(dir, "cache", kVariantB);
    EXPECT_EQ(second.number("pch_reused"), 1u) << second.output;
    EXPECT_EQ(second.number("pch_created"), 0u);
    EXPECT_EQ(second.number("store_files"), 1u);

    // The same request without PCH, in a cache of its own: the same bytes and the same log.
    HelperResult without = compile(dir, "plain", kVariantB, {"--no-pch"});
    EXPECT_EQ(without.number("pch_created") + without.number("pch_reused"), 0u);
    EXPECT_EQ(without.number("store_files"), 0u);
    EXPECT_EQ(second.values["image"], without.values["image"]);
    EXPECT_EQ(second.values["log"], without.values["log"]);
    HelperResult off = compile(dir, "off", kVariantB, {}, {"CUABI_PCH=off"});
    EXPECT_EQ(off.number("store_files"), 0u);
    EXPECT_EQ(off.values["image"], without.values["image"]);
}

TEST(CompilePch, OtherOptionsGetAPchOfTheirOwn) {
    TempDir dir;
    HelperResult first = compile(dir, "cache", kVariantA, {"--define", "WIDE=1"});
    SKIP_WITHOUT_PCH(first);
    HelperResult second = compile(dir, "cache", kVariantB);
    EXPECT_EQ(second.number("pch_reused"), 0u) << second.output;
    EXPECT_EQ(second.number("pch_created"), 1u);
    EXPECT_EQ(second.number("store_files"), 2u);
}

TEST(CompilePch, AFlippedOrTruncatedPchIsRefusedAndRebuilt) {
    TempDir dir;
    HelperResult reference = compile(dir, "plain", kVariantB, {"--no-pch"});
    HelperResult first = compile(dir, "cache", kVariantA);
    SKIP_WITHOUT_PCH(first);
    ASSERT_EQ(stored(dir, "cache").size(), 1u);

    std::string path = dir / ("cache/pch/" + stored(dir, "cache")[0]);
    std::string bytes = read_file(path);
    bytes[bytes.size() / 2] ^= 0x40;
    write_file(path, bytes);
    HelperResult flipped = compile(dir, "cache", kVariantB);
    EXPECT_EQ(flipped.number("pch_rejected"), 1u) << flipped.output;
    EXPECT_EQ(flipped.number("pch_reused"), 0u);
    EXPECT_EQ(flipped.number("pch_created"), 1u);
    EXPECT_EQ(flipped.values["image"], reference.values["image"]);

    ASSERT_EQ(stored(dir, "cache").size(), 1u);
    path = dir / ("cache/pch/" + stored(dir, "cache")[0]);
    ASSERT_EQ(truncate(path.c_str(), static_cast<off_t>(read_file(path).size() / 2)), 0);
    HelperResult truncated = compile(dir, "cache", kVariantC);
    EXPECT_EQ(truncated.number("pch_rejected"), 1u) << truncated.output;
    EXPECT_EQ(truncated.number("pch_created"), 1u);
    EXPECT_EQ(compile(dir, "cache", kVariantD).number("pch_reused"), 1u) << "the rebuilt PCH serves";
}

// A whole PCH under the wrong key (as another NVRTC's or other options' would be): it passes the
// store's checks, NVRTC refuses it, and the compile is right, then the next one builds afresh.
TEST(CompilePch, APchNvrtcRefusesIsRemovedAndTheNextCompileRebuildsIt) {
    TempDir dir;
    HelperResult reference = compile(dir, "plain", kVariantC, {"--no-pch"});
    HelperResult other = compile(dir, "cache", kVariantA, {"--define", "WIDE=1"});
    SKIP_WITHOUT_PCH(other);
    std::string foreign = stored(dir, "cache")[0];
    compile(dir, "cache", kVariantA);
    std::string own;
    for (const std::string& name : stored(dir, "cache"))
        if (name != foreign) own = name;
    ASSERT_FALSE(own.empty());

    std::string bytes = read_file(dir / ("cache/pch/" + foreign));
    ASSERT_EQ(unlink((dir / ("cache/pch/" + own)).c_str()), 0);
    std::string planted = own.substr(0, 32) + "-" + cuabi::cache::pch_checksum_hex(bytes.data(), bytes.size()) + ".pch";
    write_file(dir / ("cache/pch/" + planted), bytes);
    chmod((dir / ("cache/pch/" + planted)).c_str(), 0600);

    HelperResult stale = compile(dir, "cache", kVariantC);
    EXPECT_EQ(stale.number("pch_rejected"), 1u) << stale.output;
    EXPECT_EQ(stale.number("pch_reused"), 0u);
    EXPECT_EQ(stale.values["image"], reference.values["image"]);
    EXPECT_EQ(stale.values["log"], reference.values["log"]);
    EXPECT_EQ(access((dir / ("cache/pch/" + planted)).c_str(), F_OK), -1);
    EXPECT_EQ(compile(dir, "cache", kVariantB).number("pch_created"), 1u);
}

TEST(CompilePch, ALinkOrAFifoUnderAPchNameIsRefusedNeverFollowedOrWaitedOn) {
    TempDir dir;
    HelperResult first = compile(dir, "cache", kVariantA);
    SKIP_WITHOUT_PCH(first);
    std::string name = stored(dir, "cache")[0];
    std::string path = dir / ("cache/pch/" + name);
    ASSERT_EQ(rename(path.c_str(), (dir / "outside.pch").c_str()), 0);
    ASSERT_EQ(symlink((dir / "outside.pch").c_str(), path.c_str()), 0);
    HelperResult linked = compile(dir, "cache", kVariantB);
    EXPECT_EQ(linked.number("pch_rejected"), 1u) << linked.output;
    EXPECT_EQ(linked.number("pch_reused"), 0u);
    EXPECT_EQ(linked.number("pch_created"), 1u);
    struct stat info{};
    EXPECT_EQ(stat((dir / "outside.pch").c_str(), &info), 0) << "the link's target must be left alone";

    std::string rebuilt = dir / ("cache/pch/" + stored(dir, "cache")[0]);
    ASSERT_EQ(unlink(rebuilt.c_str()), 0);
    ASSERT_EQ(mkfifo(rebuilt.c_str(), 0600), 0);
    HelperResult fifo = compile(dir, "cache", kVariantC);
    EXPECT_EQ(fifo.number("pch_rejected"), 1u) << fifo.output;
    EXPECT_EQ(fifo.number("pch_created"), 1u);
}

TEST(CompilePch, AnNvrtcWithoutPchSupportCompilesAsBeforeAndStoresNothing) {
    TempDir dir;
    const cuabi::NvrtcLocation& real = cuabi::nvrtc_location();
    ASSERT_TRUE(real.found);
    HelperResult old = compile(dir, "cache", kVariantB, {},
                               {std::string("CUABI_NVRTC_PATH=") + CUABI_TEST_NVRTC_WITHOUT_PCH,
                                "CUABI_TEST_REAL_NVRTC=" + real.path});
    EXPECT_NE(old.values["pch_problem"].find("has no precompiled-header support"), std::string::npos) << old.output;
    EXPECT_EQ(old.number("pch_created") + old.number("pch_reused") + old.number("pch_not_created"), 0u);
    EXPECT_EQ(old.number("store_files"), 0u);
    HelperResult reference = compile(dir, "plain", kVariantB, {"--no-pch"});
    EXPECT_EQ(old.values["image"], reference.values["image"]);
}

TEST(CompilePch, AMalformedCuabiPchIsReportedByTheFirstCompileThatMisses) {
    TempDir dir;
    HelperResult result = cache_test::run_helper({"pch", kVariantA}, {"CUABI_CACHE_DIR=" + (dir / "cache"), "CUABI_PCH=maybe"});
    EXPECT_EQ(result.number("status"), static_cast<uint64_t>(CUABI_ERROR_INVALID_ARGUMENT)) << result.output;
    EXPECT_NE(result.values["message"].find("CUABI_PCH='maybe' is neither \"auto\" nor \"off\""), std::string::npos)
        << result.output;
    EXPECT_NE(result.values["message"].find("Fix: set CUABI_PCH"), std::string::npos) << result.output;
}

// --- the store's bounds, in this process -------------------------------------------------------

TEST(CompilePchStore, EvictionKeepsTheMostRecentlyUsedWithinTheBoundsAndRemovesDeadWorkDirectories) {
    TempDir dir;
    cuabi::cache::Fd store;
    ASSERT_TRUE(cuabi::cache::open_pch_store(dir / "cache", &store).ok());
    const std::string checksum(32, 'c');
    std::vector<std::string> names;
    for (int i = 0; i < 4; ++i) {
        names.push_back(std::string(31, 'a') + std::to_string(i) + "-" + checksum + ".pch");
        std::string path = dir / ("cache/pch/" + names.back());
        write_file(path, std::string(1000, 'p'));
        struct timespec times[2] = {{1000 + i, 0}, {1000 + i, 0}};  // names[3] is the most recent
        ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
    }
    ASSERT_EQ(mkdir((dir / "cache/pch/work.999999999.0").c_str(), 0700), 0);  // no such process
    std::string mine = "work." + std::to_string(getpid()) + ".0";
    ASSERT_EQ(mkdir((dir / ("cache/pch/" + mine)).c_str(), 0700), 0);

    EXPECT_EQ(cuabi::cache::evict_pch(store.get(), 2500, 16), 2u) << "2500 bytes hold two PCH of 1000";
    std::vector<std::string> left = stored(dir, "cache");
    std::sort(left.begin(), left.end());
    EXPECT_EQ(left, (std::vector<std::string>{names[2], names[3]}));
    EXPECT_EQ(cuabi::cache::evict_pch(store.get(), 1 << 20, 1), 1u) << "one file at most";
    EXPECT_EQ(stored(dir, "cache"), (std::vector<std::string>{names[3]}));
    EXPECT_EQ(cuabi::cache::pch_store_usage(store.get()).bytes, 1000u);
    EXPECT_EQ(access((dir / "cache/pch/work.999999999.0").c_str(), F_OK), -1) << "its process is gone";
    EXPECT_EQ(access((dir / ("cache/pch/" + mine)).c_str(), F_OK), 0) << "its process is alive";
}

// --- the policy, in this process -------------------------------------------------------------

struct Request {
    cuabi::CompileOptions options;
    cuabi::CompileRequest request;
    std::string source;
    std::string key() {
        request.options = &options;
        request.source = source;
        EXPECT_EQ(cuabi::parse_target("sm_90", "target", &request.target), CUABI_SUCCESS);
        return cuabi::pch_key(request, cuabi::make_job(request), 42);
    }
};

TEST(CompilePchPolicy, TheHeaderPrefixEndsAtTheFirstTokenOutsideADirective) {
    EXPECT_EQ(cuabi::header_prefix("// c\n#include <a>\n/* x\n y */ #define B \\\n 2\nint x;"),
              "// c\n#include <a>\n/* x\n y */ #define B \\\n 2\n");
    EXPECT_EQ(cuabi::header_prefix("int x;\n#include <a>\n"), "");
}

TEST(CompilePchPolicy, OnlyPrefixesWhoseFilesTheKeyKnowsGetAKey) {
    const char* names[] = {"mine.h"};
    const char* contents[] = {"#include <cuda/std/limits>\n"};
    const char* untracked[] = {"#include \"elsewhere.h\"\n"};
    Request angle{{}, {}, "#include <cuda/std/limits>\n__global__ void k() {}\n"};
    EXPECT_EQ(angle.key().size(), 32u);

    Request body = angle;
    body.source = "#include <cuda/std/limits>\n__global__ void other(int) {}\n";
    EXPECT_EQ(body.key(), angle.key()) << "another body shares the PCH";
    Request defined = angle;
    const char* defines[] = {"WIDE=1"};
    defined.options.defines = defines;
    defined.options.define_count = 1;
    EXPECT_NE(defined.key(), angle.key()) << "other options get their own";

    Request memory{{}, {}, "#include \"mine.h\"\n__global__ void k() {}\n"};
    memory.options.header_names = names;
    memory.options.header_sources = contents;
    memory.options.header_count = 1;
    EXPECT_EQ(memory.key().size(), 32u);
    memory.options.header_sources = untracked;
    EXPECT_EQ(memory.key(), "") << "an in-memory header that reaches a file on disk";

    Request quoted{{}, {}, "#include \"mine.h\"\n__global__ void k() {}\n"};
    EXPECT_EQ(quoted.key(), "") << "a quoted include found on disk (the working directory)";
    Request macro{{}, {}, "#define H <cuda/std/limits>\n#include H\n__global__ void k() {}\n"};
    EXPECT_EQ(macro.key(), "");
    Request nothing{{}, {}, "#define N 3\n__global__ void k() {}\n"};
    EXPECT_EQ(nothing.key(), "") << "nothing to precompile";

    Request directory = angle;
    const char* dirs[] = {"/tmp"};
    directory.options.include_dirs = dirs;
    directory.options.include_dir_count = 1;
    EXPECT_EQ(directory.key(), "");
    Request flag = angle;
    const char* flags[] = {"-I/tmp"};
    flag.options.extra_flags = flags;
    flag.options.extra_flag_count = 1;
    EXPECT_EQ(flag.key(), "");
    Request opted_out = angle;
    opted_out.options.flags = CUABI_COMPILE_NO_PCH;
    EXPECT_EQ(opted_out.key(), "");
    Request uncached = angle;
    uncached.options.flags = CUABI_COMPILE_NO_CACHE;
    EXPECT_EQ(uncached.key(), "");
}

TEST(CompilePchPolicy, NvrtcsPchMessagesLeaveTheLogAsItIsWithoutPch) {
    const std::string dir = "/proc/self/fd/7";
    bool used = false, refused = false;
    EXPECT_EQ(cuabi::strip_pch_messages("\"k.cu\": creating precompiled header file \"/proc/self/fd/7/a.pch\"\n\n", dir,
                                        &used, &refused),
              "");
    EXPECT_FALSE(used || refused);
    EXPECT_EQ(cuabi::strip_pch_messages("\"k.cu\": using precompiled header file \"/proc/self/fd/7/a.pch\"\n\n"
                                        "k.cu(3): warning #177-D: variable \"x\" was declared but never referenced\n",
                                        dir, &used, &refused),
              "k.cu(3): warning #177-D: variable \"x\" was declared but never referenced\n");
    EXPECT_TRUE(used);
    used = false;
    EXPECT_EQ(cuabi::strip_pch_messages(
                  "Warning #629-D: the command line options do not match those used when precompiled header file "
                  "\"/proc/self/fd/7/a.pch\" was created\n\nRemark: The warnings can be suppressed with "
                  "\"-diag-suppress <warning-number>\"\n\n",
                  dir, &used, &refused),
              "");
    EXPECT_TRUE(refused);
    EXPECT_FALSE(used);
}

}  // namespace
