// Every field of the versioned input structs reaches the other side of src/api. Fields come from
// api/abi_structs.inc (the ABI model): a field added to the header fails here until the table
// below says how it is observed.
//
// cuabi_compile_options is the one where a missed field is silent: two requests that differ only in
// a field the request memo does not compare share one remembered key, and one the cache key does
// not hash shares one cached module. So for each of its fields, a request with a sentinel value
// must be a different request-memo entry from the same request without it, and -- compiled offline
// with real NVRTC through the public API -- must get a different cache key. The fields that by
// design do not enter the key say why.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "api/compile_options.hpp"
#include "compile/request_memo.hpp"
#include "cuabi/cuabi.h"
#include "expect_status.hpp"

namespace cuabi {
namespace {

// What a sentinel of the field must change.
enum class Reaches {
    MemoAndKey,  // the request memo compares it and the cache key hashes it
    MemoOnly,    // compared by the memo, kept out of the key on purpose (see `why`)
    Refusal,     // a value outside its range is refused naming the field: read, but not an input
};

struct Sentinel {
    std::function<void(cuabi_compile_options*)> set;
    Reaches reaches;
    const char* why;  // for anything other than MemoAndKey
};

const char* const kDefines[] = {"CUABI_SENTINEL_A=1", "CUABI_SENTINEL_B=2"};
const char* const kOtherDefines[] = {"CUABI_SENTINEL_C=3", "CUABI_SENTINEL_B=2"};
const char* const kIncludeDirs[] = {"/cuabi-sentinel/a", "/cuabi-sentinel/b"};
const char* const kOtherIncludeDirs[] = {"/cuabi-sentinel/c", "/cuabi-sentinel/b"};
const char* const kHeaderNames[] = {"sentinel_a.cuh", "sentinel_b.cuh"};
const char* const kOtherHeaderNames[] = {"sentinel_c.cuh", "sentinel_b.cuh"};
const char* const kHeaderSources[] = {"#define SENTINEL_A 1\n", "#define SENTINEL_B 2\n"};
const char* const kOtherHeaderSources[] = {"#define SENTINEL_A 3\n", "#define SENTINEL_B 2\n"};
const char* const kExpressions[] = {"k", "k2"};
const char* const kOtherExpressions[] = {"k2", "k"};
const char* const kExtraFlags[] = {"-DCUABI_SENTINEL_X", "-DCUABI_SENTINEL_Y"};
const char* const kOtherExtraFlags[] = {"-DCUABI_SENTINEL_Z", "-DCUABI_SENTINEL_Y"};
// Other salt bytes, longer than any base salt, so the base's salt_size stays inside them.
const char kOtherSalt[256] = "a salt of other bytes";

// One sentinel per field of cuabi_compile_options, applied to base_options().
const std::map<std::string, Sentinel>& compile_sentinels() {
    using O = cuabi_compile_options;
    static const std::map<std::string, Sentinel> table = {
        {"struct_size", {nullptr, Reaches::Refusal, "the struct's version, not an input: struct_size_test.cpp"}},
        {"flags", {[](O* o) { o->flags = CUABI_COMPILE_PTX; o->target = "compute_90"; }, Reaches::MemoAndKey, ""}},
        {"target", {[](O* o) { o->target = "sm_80"; }, Reaches::MemoAndKey, ""}},
        {"cpp_standard", {[](O* o) { o->cpp_standard = "c++20"; }, Reaches::MemoAndKey, ""}},
        {"program_name", {[](O* o) { o->program_name = "sentinel.cu"; }, Reaches::MemoAndKey, ""}},
        {"fast_math", {[](O* o) { o->fast_math = 1; }, Reaches::MemoAndKey, ""}},
        {"ftz", {[](O* o) { o->ftz = CUABI_TRISTATE_ON; }, Reaches::MemoAndKey, ""}},
        {"prec_div", {[](O* o) { o->prec_div = CUABI_TRISTATE_OFF; }, Reaches::MemoAndKey, ""}},
        {"prec_sqrt", {[](O* o) { o->prec_sqrt = CUABI_TRISTATE_OFF; }, Reaches::MemoAndKey, ""}},
        {"fmad", {[](O* o) { o->fmad = CUABI_TRISTATE_OFF; }, Reaches::MemoAndKey, ""}},
        {"max_registers", {[](O* o) { o->max_registers = 32; }, Reaches::MemoAndKey, ""}},
        {"line_info", {[](O* o) { o->line_info = 1; }, Reaches::MemoAndKey, ""}},
        {"device_debug", {[](O* o) { o->device_debug = 1; }, Reaches::MemoAndKey, ""}},
        {"defines", {[](O* o) { o->defines = kOtherDefines; }, Reaches::MemoAndKey, ""}},
        {"define_count", {[](O* o) { o->define_count = 2; }, Reaches::MemoAndKey, ""}},
        {"include_dirs", {[](O* o) { o->include_dirs = kOtherIncludeDirs; }, Reaches::MemoAndKey, ""}},
        {"include_dir_count", {[](O* o) { o->include_dir_count = 2; }, Reaches::MemoAndKey, ""}},
        {"header_names", {[](O* o) { o->header_names = kOtherHeaderNames; }, Reaches::MemoAndKey, ""}},
        {"header_sources", {[](O* o) { o->header_sources = kOtherHeaderSources; }, Reaches::MemoAndKey, ""}},
        {"header_count", {[](O* o) { o->header_count = 2; }, Reaches::MemoAndKey, ""}},
        {"name_expressions", {[](O* o) { o->name_expressions = kOtherExpressions; }, Reaches::MemoAndKey, ""}},
        {"name_expression_count", {[](O* o) { o->name_expression_count = 2; }, Reaches::MemoAndKey, ""}},
        {"extra_flags", {[](O* o) { o->extra_flags = kOtherExtraFlags; }, Reaches::MemoAndKey, ""}},
        {"extra_flag_count", {[](O* o) { o->extra_flag_count = 2; }, Reaches::MemoAndKey, ""}},
        {"salt", {[](O* o) { o->salt = kOtherSalt; }, Reaches::MemoAndKey, ""}},
        {"salt_size", {[](O* o) { o->salt_size -= 1; }, Reaches::MemoAndKey, ""}},
        {"timeout_ms",
         {[](O* o) { o->timeout_ms = 54321; }, Reaches::MemoOnly,
          "a deadline decides whether NVRTC finishes, never what it produces"}},
        {"reserved", {[](O* o) { o->reserved = 7; }, Reaches::Refusal, "must be 0: refused, never an input"}},
    };
    return table;
}

// The in-memory headers are offered, not included: every variant of them must still compile.
const char* kSource = "__global__ void k(int* p) { *p = 1; }\n__global__ void k2(int* p) { *p = 2; }\n";

// A request that uses every field, each array holding two entries of which it counts one, so that
// each field alone can be changed to another valid request.
cuabi_compile_options base_options(const std::string& salt) {
    cuabi_compile_options o;
    cuabi_compile_options_init(sizeof o, &o);
    o.target = "sm_90";
    o.defines = kDefines;
    o.define_count = 1;
    o.include_dirs = kIncludeDirs;
    o.include_dir_count = 1;
    o.header_names = kHeaderNames;
    o.header_sources = kHeaderSources;
    o.header_count = 1;
    o.name_expressions = kExpressions;
    o.name_expression_count = 1;
    o.extra_flags = kExtraFlags;
    o.extra_flag_count = 1;
    o.salt = salt.data();
    o.salt_size = salt.size();
    return o;
}

// The fields the ABI model lists for `type`.
std::set<std::string> model_fields(const std::string& type) {
    std::set<std::string> fields;
#define CUABI_STRUCT_RELEASES(name, ...)
#define CUABI_STRUCT_FIELD(name, field) \
    if (type == #name) fields.insert(#field);
#include "api/abi_structs.inc"
#undef CUABI_STRUCT_FIELD
#undef CUABI_STRUCT_RELEASES
    return fields;
}

TEST(OptionsSentinel, EveryCompileOptionsFieldHasASentinel) {
    const std::set<std::string> fields = model_fields("cuabi_compile_options");
    ASSERT_GT(fields.size(), 20u);
    for (const std::string& field : fields)
        EXPECT_EQ(compile_sentinels().count(field), 1u)
            << "cuabi_compile_options." << field << " has no sentinel: add it to compile_sentinels() in "
            << "tests/unit/options_sentinel_test.cpp with a value that changes the compile, after making the "
            << "request memo compare it (compile/request_memo.cpp) and the cache key hash it "
            << "(compile_key in compile/compile_options.cpp) -- or say why it must not";
    for (const auto& entry : compile_sentinels())
        EXPECT_EQ(fields.count(entry.first), 1u) << entry.first << " is not a field of cuabi_compile_options";
}

// Through src/api (read_compile_options), into the memo: the request with the sentinel is not the
// remembered request without it.
TEST(OptionsSentinel, EveryCompileOptionsFieldMakesADifferentRequestMemoEntry) {
    const std::string salt = "memo-" + std::to_string(getpid()) + "-" +
                             std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
    const std::string source = std::string(kSource) + "// " + salt + "\n";
    request_memo::Circumstances circumstances;
    circumstances.nvrtc_identity = 42;
    Target target;
    target.arch = 90;
    target.set_name();
    cache::Key key;
    key.high = 1;
    const cuabi_compile_options base = base_options(salt);
    CompileOptions read_base;
    ASSERT_EQ(read_compile_options(&base, &read_base), CUABI_SUCCESS) << cuabi_last_error_message();
    request_memo::remember(source, read_base, circumstances, target, key);
    std::string_view found_source;
    Target found_target;
    cache::Key found_key;
    ASSERT_TRUE(request_memo::find(source.c_str(), read_base, circumstances, &found_source, &found_target, &found_key));
    for (const auto& [field, sentinel] : compile_sentinels()) {
        if (sentinel.reaches == Reaches::Refusal) continue;
        SCOPED_TRACE("cuabi_compile_options." + field);
        cuabi_compile_options changed = base;
        sentinel.set(&changed);
        CompileOptions read_changed;
        ASSERT_EQ(read_compile_options(&changed, &read_changed), CUABI_SUCCESS) << cuabi_last_error_message();
        EXPECT_FALSE(request_memo::find(source.c_str(), read_changed, circumstances, &found_source, &found_target,
                                        &found_key))
            << "the request memo answers a request that differs in " << field << " with the key of one that does not";
    }
}

TEST(OptionsSentinel, CompileOptionsOutsideTheirRangeAreRefusedNamingTheField) {
    const cuabi_compile_options base = base_options("refusal");
    for (const auto& [field, sentinel] : compile_sentinels()) {
        if (sentinel.reaches != Reaches::Refusal || !sentinel.set) continue;
        cuabi_compile_options changed = base;
        sentinel.set(&changed);
        CompileOptions read;
        EXPECT_FAILS_WITH(read_compile_options(&changed, &read), CUABI_ERROR_INVALID_ARGUMENT, field);
    }
}

// The cache key of a module compiled offline with real NVRTC, from cuabi_module_get_info.
std::string compiled_key(const cuabi_compile_options& options, const std::string& source, cuabi_status* status) {
    cuabi_module* module = nullptr;
    *status = cuabi_module_compile_offline(source.c_str(), &options, &module);
    if (*status != CUABI_SUCCESS) return cuabi_last_error_message();
    cuabi_module_info info;
    cuabi_module_info_init(sizeof info, &info);
    *status = cuabi_module_get_info(module, &info);
    cuabi_module_destroy(module);
    return info.cache_key;
}

TEST(OptionsSentinel, EveryCompileOptionsFieldInTheKeyChangesTheCacheKey) {
    const std::string salt = "key-" + std::to_string(getpid());
    const std::string source = kSource;
    const cuabi_compile_options base = base_options(salt);
    cuabi_status status = CUABI_SUCCESS;
    const std::string base_key = compiled_key(base, source, &status);
    if (status == CUABI_ERROR_NVRTC_NOT_FOUND) GTEST_SKIP() << "needs NVRTC: " << base_key;
    ASSERT_EQ(status, CUABI_SUCCESS) << base_key;
    ASSERT_FALSE(base_key.empty());
    for (const auto& [field, sentinel] : compile_sentinels()) {
        if (sentinel.reaches == Reaches::Refusal) continue;
        SCOPED_TRACE("cuabi_compile_options." + field);
        cuabi_compile_options changed = base;
        sentinel.set(&changed);
        const std::string key = compiled_key(changed, source, &status);
        ASSERT_EQ(status, CUABI_SUCCESS) << key;
        if (sentinel.reaches == Reaches::MemoAndKey)
            EXPECT_NE(key, base_key) << field << " does not reach the cache key: two requests share one module";
        else
            EXPECT_EQ(key, base_key) << field << " is kept out of the key (" << sentinel.why << ") but changed it";
    }
}

}  // namespace
}  // namespace cuabi
