// No C++ exception leaves a cuabi call: every CUABI_API definition in src/api/ is a
// function-try-block whose handler catches everything (api/guard.hpp). Checked on the sources, so
// a new entry point without the guard fails here, and every function cuabi.h declares must be
// defined that way.
#include <dirent.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace {

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The index just past the bracket matching the one at `open` (C++ source without tricks: comments
// and string literals are skipped).
size_t past_match(const std::string& text, size_t open) {
    const char opener = text[open], closer = opener == '(' ? ')' : '}';
    int depth = 0;
    for (size_t i = open; i < text.size(); ++i) {
        const char c = text[i];
        if (text.compare(i, 2, "//") == 0) {
            i = text.find('\n', i);
        } else if (text.compare(i, 2, "/*") == 0) {
            i = text.find("*/", i) + 1;
        } else if (c == '"' || c == '\'') {
            for (++i; i < text.size() && text[i] != c; ++i)
                if (text[i] == '\\') ++i;
        } else if (c == opener) {
            ++depth;
        } else if (c == closer && --depth == 0) {
            return i + 1;
        }
        if (i == std::string::npos) break;
    }
    return std::string::npos;
}

size_t skip_space(const std::string& text, size_t at) {
    while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
    return at;
}

// Names of the functions cuabi.h declares with CUABI_API.
std::set<std::string> declared() {
    const std::string header = read_file(std::string(CUABI_TEST_SOURCE_DIR) + "/include/cuabi/cuabi.h");
    std::set<std::string> names;
    const std::regex declaration(R"(CUABI_API[^;(]*[ *](cuabi_[a-z0-9_]+)\()");
    for (std::sregex_iterator it(header.begin(), header.end(), declaration), end; it != end; ++it)
        names.insert((*it)[1]);
    return names;
}

TEST(ApiGuard, EveryEntryPointIsAFunctionTryBlockThatCatchesEverything) {
    const std::string api_dir = std::string(CUABI_TEST_SOURCE_DIR) + "/src/api";
    DIR* dir = opendir(api_dir.c_str());
    ASSERT_NE(dir, nullptr) << api_dir;
    std::set<std::string> guarded;
    const std::regex definition(R"(\nCUABI_API [^;(]*?\b(cuabi_\w+)\()");  // at the start of a line
    while (dirent* entry = readdir(dir)) {
        const std::string name = entry->d_name;
        if (name.size() < 4 || name.compare(name.size() - 4, 4, ".cpp") != 0) continue;
        const std::string text = "\n" + read_file(api_dir + "/" + name);
        for (std::sregex_iterator it(text.begin(), text.end(), definition), end; it != end; ++it) {
            const std::string function = (*it)[1];
            const size_t open = static_cast<size_t>(it->position(0) + it->length(0)) - 1;
            size_t at = skip_space(text, past_match(text, open));
            ASSERT_EQ(text.compare(at, 3, "try"), 0) << name << ": " << function << " is not a function-try-block";
            at = skip_space(text, at + 3);
            ASSERT_EQ(text[at], '{') << name << ": " << function;
            at = skip_space(text, past_match(text, at));
            EXPECT_EQ(text.compare(at, 11, "catch (...)"), 0)
                << name << ": " << function << "'s handler must catch everything: catch (...)";
            guarded.insert(function);
        }
    }
    closedir(dir);
    const std::set<std::string> names = declared();
    EXPECT_GT(names.size(), 100u);
    for (const std::string& name : names)
        EXPECT_EQ(guarded.count(name), 1u) << name << " is declared in cuabi.h but not defined, guarded, in src/api";
}

}  // namespace
