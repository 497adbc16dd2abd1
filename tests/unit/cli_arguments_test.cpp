// The cuabi tool's arguments as users expect them: `cuabi --help`, `cuabi help CMD` and
// `cuabi CMD --help` for every command, listing every option; `cache --json` for each subcommand;
// values refused with the argument and the value named; `cuabi info` listing the environment's
// refused settings. The real binary in child processes, without a driver, with a private cache.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "child_process.hpp"

namespace {

namespace fs = std::filesystem;

std::string cli_path() { return std::string(CUABI_TEST_BINARY_DIR) + "/../src/cli/cuabi"; }

class CliArguments : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_EQ(access(cli_path().c_str(), X_OK), 0)
            << "the cuabi CLI is not built at " << cli_path() << "; build the cuabi_cli target";
        char pattern[] = "/tmp/cuabi-cli-arguments-XXXXXX";
        ASSERT_NE(mkdtemp(pattern), nullptr);
        dir = pattern;
    }
    void TearDown() override { fs::remove_all(dir); }

    // `cuabi args` with stderr joined to stdout.
    test_support::ChildResult run(const std::string& args,
                                  std::vector<std::pair<std::string, std::string>> environment = {}) {
        environment.push_back({"CUABI_LIBCUDA_PATH", "/nonexistent/libcuda.so.1"});
        environment.push_back({"CUABI_CACHE_DIR", (dir / "cache").string()});
        return test_support::run_child({"/bin/sh", "-c", cli_path() + " " + args + " 2>&1"}, environment);
    }

    fs::path dir;
};

TEST_F(CliArguments, TopLevelHelpListsEveryCommandAndExitsZero) {
    for (const char* spelling : {"--help", "-h", "help"}) {
        test_support::ChildResult result = run(spelling);
        EXPECT_EQ(result.exit_status, 0) << spelling << ": " << result.output;
        for (const char* command : {"cache", "compile", "demo", "info", "ranges"})
            EXPECT_NE(result.output.find(std::string("  ") + command + " "), std::string::npos) << spelling << ": " << command;
    }
    EXPECT_EQ(run("").exit_status, 2) << "no command is bad usage";
    EXPECT_EQ(run("--bogus").exit_status, 2);
    test_support::ChildResult unknown = run("frobnicate");
    EXPECT_EQ(unknown.exit_status, 2);
    EXPECT_NE(unknown.output.find("unknown command 'frobnicate'"), std::string::npos) << unknown.output;
    test_support::ChildResult version = run("--version");
    EXPECT_EQ(version.exit_status, 0);
    EXPECT_EQ(version.output.rfind("cuabi 1.", 0), 0u) << version.output;
}

TEST_F(CliArguments, EveryCommandHasItsOwnHelpNamingEachOption) {
    const struct {
        const char* command;
        std::vector<std::string> options;
    } commands[] = {
        {"compile",
         {"--arch", "--std", "-D, --define", "-I, --include-dir", "--name-expr", "--program-name", "-o, --output",
          "--ptx", "--no-cache", "--no-toolkit-includes", "--in-process", "--timeout-ms", "-j, --jobs", "--json"}},
        {"cache", {"path", "stats", "verify", "prune", "clear", "export", "import", "--json", "--max-bytes", "--match"}},
        {"info", {"--json"}},
        {"ranges", {"--json"}},
        {"demo", {"--n", "--target"}},
    };
    for (const auto& command : commands) {
        for (const std::string& asked : {std::string(command.command) + " --help", std::string(command.command) + " -h",
                                         std::string("help ") + command.command}) {
            test_support::ChildResult result = run(asked);
            EXPECT_EQ(result.exit_status, 0) << asked << ": " << result.output;
            EXPECT_EQ(result.output.rfind(std::string("usage: cuabi ") + command.command, 0), 0u) << asked << ": " << result.output;
            for (const std::string& option : command.options)
                EXPECT_NE(result.output.find("  " + option), std::string::npos) << asked << " lacks " << option;
            EXPECT_NE(result.output.find("-h, --help"), std::string::npos) << asked;
        }
    }
    EXPECT_EQ(run("help frobnicate").exit_status, 2);
}

TEST_F(CliArguments, ProgramNameDefaultIsDocumentedInCompileHelp) {
    test_support::ChildResult result = run("compile --help");
    EXPECT_NE(result.output.find("part of the cache key"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("\"kernel.cu\""), std::string::npos) << result.output;
}

TEST_F(CliArguments, CacheSubcommandsAnswerInJson) {
    test_support::ChildResult path = run("cache --json path");
    ASSERT_EQ(path.exit_status, 0) << path.output;
    EXPECT_EQ(path.output, "{\"directory\":\"" + (dir / "cache").string() + "\",\"ok\":true}\n");
    test_support::ChildResult stats = run("cache stats --json");
    ASSERT_EQ(stats.exit_status, 0) << stats.output;
    EXPECT_EQ(stats.output.front(), '{') << stats.output;
    for (const char* key : {"\"disk_entries\":0", "\"disk_enabled\":true", "\"compiles\":0", "\"driver_jit\":{", "\"ok\":true"})
        EXPECT_NE(stats.output.find(key), std::string::npos) << key << ": " << stats.output;
    test_support::ChildResult verify = run("cache verify --json");
    EXPECT_EQ(verify.output, "{\"checked\":0,\"removed\":0,\"ok\":true}\n");
    test_support::ChildResult prune = run("cache prune --max-bytes 1M --json");
    EXPECT_EQ(prune.output, "{\"removed_entries\":0,\"removed_bytes\":0,\"ok\":true}\n");
    test_support::ChildResult clear = run("cache --json clear");
    EXPECT_EQ(clear.output, "{\"removed_entries\":0,\"removed_bytes\":0,\"ok\":true}\n");
    std::string bundle = (dir / "empty.bundle").string();
    test_support::ChildResult exported = run("cache export " + bundle + " --match 'sm_9*' --json");
    ASSERT_EQ(exported.exit_status, 0) << exported.output;
    EXPECT_EQ(exported.output, "{\"file\":\"" + bundle + "\",\"entries\":0,\"bytes\":" +
                                   std::to_string(fs::file_size(bundle)) + ",\"ok\":true}\n");
    test_support::ChildResult imported = run("cache import " + bundle + " --json");
    EXPECT_EQ(imported.output, "{\"imported\":0,\"refused\":0,\"ok\":true}\n");
    test_support::ChildResult missing = run("cache import " + (dir / "missing.bundle").string() + " --json");
    EXPECT_EQ(missing.exit_status, 1) << missing.output;
    EXPECT_NE(missing.output.find("\"ok\":false,\"status\":\"CUABI_ERROR_CACHE_IO\",\"message\":"), std::string::npos)
        << missing.output;
}

TEST_F(CliArguments, CacheRefusesMisplacedOptionsAndBadValuesNamingThem) {
    const struct {
        const char* args;
        const char* said;
    } cases[] = {{"cache prune --max-bytes lots", "--max-bytes 'lots' is not a byte count"},
                 {"cache prune", "prune needs --max-bytes N"},
                 {"cache path --match x", "--match belongs to export, not to path"},
                 {"cache stats --max-bytes 1M", "--max-bytes belongs to prune, not to stats"},
                 {"cache export", "export takes one FILE"},
                 {"cache clear now", "clear takes no operand, and 'now' was given"},
                 {"cache frob", "unknown subcommand 'frob'"},
                 {"cache", "no subcommand given"},
                 {"cache stats --bogus", "unknown option '--bogus'"}};
    for (const auto& c : cases) {
        test_support::ChildResult result = run(c.args);
        EXPECT_EQ(result.exit_status, 2) << c.args << ": " << result.output;
        EXPECT_NE(result.output.find(c.said), std::string::npos) << c.args << ": " << result.output;
    }
}

TEST_F(CliArguments, InfoListsEveryEnvironmentValueCuabiCannotUse) {
    std::vector<std::pair<std::string, std::string>> bad = {{"CUABI_COMPILE_TIMEOUT_MS", "abc"},
                                                            {"CUABI_COMPILE_WORKERS", "many"},
                                                            {"CUABI_COMPILE_ISOLATION", "sandbox"},
                                                            {"CUABI_IMAGE_VERIFY", "nnone"},
                                                            {"CUABI_IMAGE_VERIFY_TIMEOUT_MS", "5s"},
                                                            {"CUABI_CACHE_MAX_BYTES", "lots"},
                                                            {"CUABI_CACHE_LOCK_TIMEOUT_MS", "-1"},
                                                            {"CUABI_CACHE_DISABLE", "yes"},
                                                            {"CUABI_CACHE_READONLY_COPY", "2"},
                                                            {"CUABI_NVTX", "maybe"}};
    test_support::ChildResult text = run("info", bad);
    ASSERT_EQ(text.exit_status, 0) << text.output;
    EXPECT_NE(text.output.find("environment          10 refused settings:"), std::string::npos) << text.output;
    for (const auto& variable : bad)
        EXPECT_NE(text.output.find("  " + variable.first + "='" + variable.second + "'"), std::string::npos)
            << variable.first << ": " << text.output;
    test_support::ChildResult json = run("info --json", {{"CUABI_COMPILE_TIMEOUT_MS", "abc"}});
    EXPECT_NE(json.output.find("\"environment\":{\"problems\":[\"CUABI_COMPILE_TIMEOUT_MS='abc' is not a whole number "
                               "from 1 to 4294967295; 600000 is used.\"]}"),
              std::string::npos)
        << json.output;

    std::vector<std::pair<std::string, std::string>> good = {
        {"CUABI_COMPILE_TIMEOUT_MS", "5000"}, {"CUABI_IMAGE_VERIFY", "all"}, {"CUABI_NVTX", "off"},
        {"CUABI_CACHE_MAX_BYTES", "1G"}};
    test_support::ChildResult clean = run("info", good);
    EXPECT_NE(clean.output.find("environment          every CUABI_* setting usable"), std::string::npos) << clean.output;
    EXPECT_NE(run("info --json", good).output.find("\"environment\":{\"problems\":[]}"), std::string::npos);
}

}  // namespace
