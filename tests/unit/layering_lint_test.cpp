// The library's directories form layers that read top-down,
//   api -> graph -> launch -> compile -> image -> cache -> device -> driver -> range -> core,
// and an #include never goes upward (src/cli, src/worker and src/verifier are programs on top of
// the library).
// Checked on the sources, so an include that would close a cycle between directories fails here.
#include <dirent.h>
#include <sys/stat.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace {

const std::vector<std::string> kLayers = {"api",    "graph",  "launch", "compile", "image",
                                          "cache",  "device", "driver", "range",   "core"};

std::vector<std::string> files_in(const std::string& dir) {
    std::vector<std::string> names;
    if (DIR* listing = opendir(dir.c_str())) {
        while (const dirent* entry = readdir(listing)) {
            const std::string name = entry->d_name;
            if (name.size() > 4 && (name.rfind(".cpp") == name.size() - 4 || name.rfind(".hpp") == name.size() - 4))
                names.push_back(name);
        }
        closedir(listing);
    }
    return names;
}

// "file: #include line" for every include of a layer above the file's own.
std::vector<std::string> upward_includes(const std::string& src) {
    std::map<std::string, size_t> rank;
    for (size_t i = 0; i < kLayers.size(); ++i) rank[kLayers[i]] = i;
    const std::regex include(R"re(^\s*#\s*include\s*"(\w+)/)re");
    std::vector<std::string> found;
    for (const std::string& layer : kLayers) {
        const std::vector<std::string> names = files_in(src + "/" + layer);
        EXPECT_FALSE(names.empty()) << "no sources in src/" << layer;
        for (const std::string& name : names) {
            std::ifstream in(src + "/" + layer + "/" + name);
            std::string line;
            std::smatch match;
            while (std::getline(in, line))
                if (std::regex_search(line, match, include) && rank.count(match[1]) != 0 &&
                    rank[match[1]] < rank[layer])
                    found.push_back(layer + "/" + name + ": " + line);
        }
    }
    return found;
}

TEST(Layering, NoIncludeGoesUpward) {
    const std::vector<std::string> found = upward_includes(std::string(CUABI_TEST_SOURCE_DIR) + "/src");
    std::string listed;
    for (const std::string& line : found) listed += "\n  " + line;
    EXPECT_TRUE(found.empty()) << found.size() << " includes go upward:" << listed;
}

// The check can fail: a scratch tree with one upward include is caught.
TEST(Layering, TheCheckSeesAnUpwardInclude) {
    char dir[] = "/tmp/cuabi-layers-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    const std::string root = dir;
    for (const std::string& layer : kLayers) {
        ASSERT_EQ(mkdir((root + "/" + layer).c_str(), 0700), 0);
        std::ofstream(root + "/" + layer + "/a.hpp") << "#pragma once\n";
    }
    std::ofstream(root + "/compile/b.cpp") << "#include \"compile/a.hpp\"\n#include \"launch/a.hpp\"\n";
    const std::vector<std::string> found = upward_includes(root);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0], "compile/b.cpp: #include \"launch/a.hpp\"");
    ASSERT_EQ(std::system(("rm -rf " + root).c_str()), 0);
}

}  // namespace
