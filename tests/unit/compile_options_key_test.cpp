// The kernel-cache key of a compile: changing any single input that can change the
// compiled image changes the key; spelling the same request differently does not.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "compile/compile_options.hpp"

namespace {

using cuabi::CompileRequest;

// Every field set, so that each mutation below changes something that is really there.
struct Inputs {
    std::string source = "extern \"C\" __global__ void k(float* x) { x[0] = N; }";
    std::vector<const char*> defines = {"N=2", "M"};
    std::vector<const char*> include_dirs = {"/opt/a", "/opt/b"};
    std::vector<const char*> header_names = {"a.h", "b.h"};
    std::vector<const char*> header_sources = {"#define A 1", "#define B 2"};
    std::vector<const char*> expressions = {"k<int>", "k<float>"};
    std::vector<const char*> extra = {"--extra-device-vectorization"};
    std::string salt = "salt-1";
    const char* target = "sm_90";
    uint64_t nvrtc_identity = 0x65be0db342ad51a1ull;
    cuabi::ToolkitHeaders toolkit;
    bool with_toolkit = true;
    cuabi::CompileOptions options;

    Inputs() {
        toolkit.directories = {"/usr/local/cuda/include/cccl", "/usr/local/cuda/include"};
        toolkit.identity = 42;
        options.cpp_standard = "c++17";
        options.program_name = "k.cu";
        options.max_registers = 64;
    }

    cuabi::cache::Key key() {
        options.defines = defines.data();
        options.define_count = defines.size();
        options.include_dirs = include_dirs.data();
        options.include_dir_count = include_dirs.size();
        options.header_names = header_names.data();
        options.header_sources = header_sources.data();
        options.header_count = header_names.size();
        options.name_expressions = expressions.data();
        options.name_expression_count = expressions.size();
        options.extra_flags = extra.data();
        options.extra_flag_count = extra.size();
        options.salt = salt.data();
        options.salt_size = salt.size();
        CompileRequest request;
        request.source = source;
        EXPECT_EQ(cuabi::check_compile_options(options), CUABI_SUCCESS) << cuabi_last_error_message();
        request.options = &options;
        EXPECT_EQ(cuabi::parse_target(target, "target", &request.target), CUABI_SUCCESS);
        request.toolkit = with_toolkit ? &toolkit : nullptr;
        return cuabi::compile_key(request, nvrtc_identity);
    }
};

struct Mutation {
    const char* what;
    std::function<void(Inputs&)> apply;
};

TEST(CompileKey, IsStableForTheSameRequest) {
    Inputs a, b;
    EXPECT_EQ(a.key(), b.key());
}

TEST(CompileKey, ChangesWhenAnySingleInputChanges) {
    const Mutation mutations[] = {
        {"one source byte", [](Inputs& in) { in.source[in.source.size() - 3] = 'M'; }},
        {"program name", [](Inputs& in) { in.options.program_name = "other.cu"; }},
        {"target", [](Inputs& in) { in.target = "sm_89"; }},
        {"target kind", [](Inputs& in) { in.target = "compute_90"; }},
        {"target suffix", [](Inputs& in) { in.target = "sm_90a"; }},
        {"C++ standard", [](Inputs& in) { in.options.cpp_standard = "c++20"; }},
        {"fast math", [](Inputs& in) { in.options.fast_math = 1; }},
        {"ftz", [](Inputs& in) { in.options.ftz = CUABI_TRISTATE_ON; }},
        {"prec_div", [](Inputs& in) { in.options.prec_div = CUABI_TRISTATE_OFF; }},
        {"prec_sqrt", [](Inputs& in) { in.options.prec_sqrt = CUABI_TRISTATE_OFF; }},
        {"fmad", [](Inputs& in) { in.options.fmad = CUABI_TRISTATE_OFF; }},
        {"max registers", [](Inputs& in) { in.options.max_registers = 32; }},
        {"line info", [](Inputs& in) { in.options.line_info = 1; }},
        {"device debug", [](Inputs& in) { in.options.device_debug = 1; }},
        {"a define's value", [](Inputs& in) { in.defines[0] = "N=3"; }},
        {"an added define", [](Inputs& in) { in.defines.push_back("EXTRA"); }},
        {"order of two defines of one name", [](Inputs& in) { in.defines = {"N=2", "M", "N=5"}; }},
        {"include directory", [](Inputs& in) { in.include_dirs[1] = "/opt/c"; }},
        {"include directory order", [](Inputs& in) { in.include_dirs = {"/opt/b", "/opt/a"}; }},
        {"header contents", [](Inputs& in) { in.header_sources[1] = "#define B 3"; }},
        {"header name", [](Inputs& in) { in.header_names[1] = "c.h"; }},
        {"header contents swapped between names", [](Inputs& in) { in.header_sources = {"#define B 2", "#define A 1"}; }},
        {"a removed name expression", [](Inputs& in) { in.expressions.pop_back(); }},
        {"a different name expression", [](Inputs& in) { in.expressions[0] = "k<double>"; }},
        {"extra flag", [](Inputs& in) { in.extra.push_back("-default-device"); }},
        {"salt", [](Inputs& in) { in.salt = "salt-2"; }},
        {"NVRTC identity (another build or version)", [](Inputs& in) { in.nvrtc_identity += 2; }},
        {"toolkit headers' identity (another version)", [](Inputs& in) { in.toolkit.identity = 43; }},
        {"toolkit headers' location", [](Inputs& in) { in.toolkit.directories[1] = "/opt/cuda/include"; }},
        {"toolkit headers left out", [](Inputs& in) { in.with_toolkit = false; }},
    };
    Inputs base;
    cuabi::cache::Key reference = base.key();
    std::vector<cuabi::cache::Key> seen = {reference};
    for (const Mutation& mutation : mutations) {
        Inputs changed;
        mutation.apply(changed);
        cuabi::cache::Key key = changed.key();
        EXPECT_NE(key, reference) << "changing the " << mutation.what << " did not change the key";
        for (const cuabi::cache::Key& other : seen) EXPECT_NE(key, other) << mutation.what << " collides";
        seen.push_back(key);
    }
}

TEST(CompileKey, IgnoresEquivalentSpellings) {
    const Mutation spellings[] = {
        {"name expressions reordered", [](Inputs& in) { in.expressions = {"k<float>", "k<int>"}; }},
        {"a name expression repeated", [](Inputs& in) { in.expressions.push_back("k<int>"); }},
        {"defines of different names reordered", [](Inputs& in) { in.defines = {"M", "N=2"}; }},
        {"NAME spelled NAME=1", [](Inputs& in) { in.defines[1] = "M=1"; }},
        {"headers reordered with their names",
         [](Inputs& in) {
             in.header_names = {"b.h", "a.h"};
             in.header_sources = {"#define B 2", "#define A 1"};
         }},
        {"C++ standard as a number", [](Inputs& in) { in.options.cpp_standard = "17"; }},
        {"ftz default spelled as its value", [](Inputs& in) { in.options.ftz = CUABI_TRISTATE_OFF; }},
        {"prec_div default spelled as its value", [](Inputs& in) { in.options.prec_div = CUABI_TRISTATE_ON; }},
        {"fmad default spelled as its value", [](Inputs& in) { in.options.fmad = CUABI_TRISTATE_ON; }},
    };
    Inputs base;
    cuabi::cache::Key reference = base.key();
    for (const Mutation& spelling : spellings) {
        Inputs changed;
        spelling.apply(changed);
        EXPECT_EQ(changed.key(), reference) << spelling.what << " changed the key";
    }
}

TEST(CompileKey, TheNvrtcPartIsKeptApartFromTheRequest) {
    Inputs a, b;
    b.nvrtc_identity = 7;
    cuabi::cache::Key first = a.key(), second = b.key();
    EXPECT_EQ(first.high, second.high) << "the request part must not depend on the NVRTC";
    EXPECT_EQ(first.low, second.low);
    EXPECT_EQ(second.nvrtc, 7u);
}

TEST(CompileKey, BooleansAreAnyNonZeroValue) {
    Inputs one, seven;
    one.options.line_info = 1;
    seven.options.line_info = 7;
    EXPECT_EQ(one.key(), seven.key());
}

TEST(CompileKey, FastMathDefaultsAreResolvedBeforeKeying) {
    Inputs implicit, explicit_values;
    implicit.options.fast_math = 1;
    explicit_values.options.fast_math = 1;
    explicit_values.options.ftz = CUABI_TRISTATE_ON;
    explicit_values.options.prec_div = CUABI_TRISTATE_OFF;
    explicit_values.options.prec_sqrt = CUABI_TRISTATE_OFF;
    EXPECT_EQ(implicit.key(), explicit_values.key());
}

}  // namespace
