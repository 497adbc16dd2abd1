// The per-thread memo of request keys (compile/request_memo.hpp): a request is found again only
// when every byte that decides its key is the same -- content, never addresses -- and a caller
// that rewrites its buffers in place is never served the key of what was there before.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <clocale>
#include <locale.h>

#include "api/compile_options.hpp"
#include "compile/request_memo.hpp"
#include "cuabi/cuabi.h"
#include "device/context.hpp"
#include "expect_status.hpp"

namespace cuabi {
namespace {

#define ASSERT_STATUS(call, expected) \
    ASSERT_EQ((call), (expected)) << #call << ": " << cuabi_last_error_message()

cache::Key key_of(uint64_t value) {
    cache::Key key;
    key.high = value;
    key.low = ~value;
    key.nvrtc = 7;
    return key;
}

Target target_of(int arch) {
    Target target;
    target.arch = arch;
    target.set_name();
    return target;
}

// Each test uses sources of its own, so entries other tests left in this thread's memo cannot
// answer for it.
std::string unique_source(const char* what) {
    static std::atomic<int> counter{0};
    return std::string("// ") + what + " " + std::to_string(getpid()) + " " + std::to_string(++counter) +
           "\nextern \"C\" __global__ void k(int* p) { *p = 1; }\n";
}

// A salt of the test's own, so that entries earlier runs left in the cache directory cannot answer.
std::string unique_salt(const char* what) {
    return std::string(what) + "-" + std::to_string(getpid()) + "-" +
           std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
}

// Offline sm_90 options salted with `salt`, which the caller keeps alive.
cuabi_compile_options salted_offline_options(const std::string& salt) {
    cuabi_compile_options options;
    cuabi_compile_options_init(sizeof options, &options);
    options.target = "sm_90";
    options.salt = salt.data();
    options.salt_size = salt.size();
    return options;
}

class RequestMemo : public ::testing::Test {
protected:
    void SetUp() override {
        source = unique_source(::testing::UnitTest::GetInstance()->current_test_info()->name());
        options.target = target_text;
        options.name_expressions = expressions;
        options.name_expression_count = 1;
        options.salt = salt;
        options.salt_size = sizeof salt;
        circumstances.nvrtc_identity = 42;
        request_memo::remember(source, options, circumstances, target_of(90), key_of(1));
    }

    bool found(const char* text, const CompileOptions& with, const request_memo::Circumstances& now,
               cache::Key* key = nullptr) {
        std::string_view view;
        Target target;
        cache::Key ignored;
        return request_memo::find(text, with, now, &view, &target, key != nullptr ? key : &ignored);
    }
    bool found(const char* text) { return found(text, options, circumstances); }

    std::string source;
    char target_text[8] = "sm_90";
    char expression[32] = "block_sum<float, 256>";
    const char* expressions[1] = {expression};
    unsigned char salt[4] = {1, 2, 3, 4};
    CompileOptions options;
    request_memo::Circumstances circumstances;
};

TEST_F(RequestMemo, TheSameRequestIsFoundWithItsTargetKeyAndLength) {
    std::string_view view;
    Target target;
    cache::Key key;
    std::string copy = source;  // another address, the same bytes
    ASSERT_TRUE(request_memo::find(copy.c_str(), options, circumstances, &view, &target, &key));
    EXPECT_EQ(key, key_of(1));
    EXPECT_STREQ(target.name, "sm_90");
    EXPECT_EQ(view.data(), copy.c_str());
    EXPECT_EQ(view.size(), copy.size());
}

TEST_F(RequestMemo, ASourceRewrittenInPlaceIsNotFound) {
    std::string buffer = source;
    buffer[buffer.size() / 2] ^= 1;
    EXPECT_FALSE(found(buffer.c_str()));
    EXPECT_FALSE(found(source.substr(0, source.size() - 1).c_str()));  // a prefix
    EXPECT_FALSE(found((source + " ").c_str()));                        // longer
    EXPECT_TRUE(found(source.c_str()));
}

TEST_F(RequestMemo, OptionStringsCompareByContentNotAddress) {
    expression[0] = 'B';  // the caller reuses its buffer for another expression
    EXPECT_FALSE(found(source.c_str()));
    expression[0] = 'b';
    EXPECT_TRUE(found(source.c_str()));

    target_text[3] = '8';  // "sm_80"
    EXPECT_FALSE(found(source.c_str()));
    target_text[3] = '9';

    salt[3] = 5;
    EXPECT_FALSE(found(source.c_str()));
    salt[3] = 4;

    CompileOptions other = options;
    other.program_name = "";  // an empty name is not an absent one
    EXPECT_FALSE(found(source.c_str(), other, circumstances));
    other = options;
    other.flags = CUABI_COMPILE_PTX;
    EXPECT_FALSE(found(source.c_str(), other, circumstances));
    other = options;
    other.name_expression_count = 0;
    EXPECT_FALSE(found(source.c_str(), other, circumstances));
    other = options;
    const char* define = "N=4";
    other.defines = &define;
    other.define_count = 1;
    EXPECT_FALSE(found(source.c_str(), other, circumstances));
    EXPECT_TRUE(found(source.c_str()));
}

// find() sees options before they are checked: what a check would refuse matches nothing and is
// not dereferenced, even where the scalars (the counts) are those of a remembered request.
TEST_F(RequestMemo, OptionsThatWouldFailTheCheckAreNotFound) {
    const char* define = "N=4";
    CompileOptions with_define = options;
    with_define.defines = &define;
    with_define.define_count = 1;
    request_memo::remember(source, with_define, circumstances, target_of(90), key_of(5));
    ASSERT_TRUE(found(source.c_str(), with_define, circumstances));

    CompileOptions other = with_define;
    other.defines = nullptr;  // a NULL array with a count
    EXPECT_FALSE(found(source.c_str(), other, circumstances));
    const char* null_define = nullptr;
    other.defines = &null_define;  // a NULL entry
    EXPECT_FALSE(found(source.c_str(), other, circumstances));
    other = options;
    other.name_expressions = nullptr;
    EXPECT_FALSE(found(source.c_str(), other, circumstances));
    const char* null_expression = nullptr;
    other.name_expressions = &null_expression;
    EXPECT_FALSE(found(source.c_str(), other, circumstances));
    other = options;
    other.salt = nullptr;  // a NULL salt with its size
    EXPECT_FALSE(found(source.c_str(), other, circumstances));
    EXPECT_TRUE(found(source.c_str()));
}

TEST_F(RequestMemo, WhatDecidedTheKeyBesidesTheRequestMustMatch) {
    request_memo::Circumstances now = circumstances;
    now.nvrtc_identity = 43;  // NVRTC replaced
    EXPECT_FALSE(found(source.c_str(), options, now));
    now = circumstances;
    int facts = 0;
    now.nvrtc_facts = &facts;  // NVRTC's facts became known: the target may resolve differently
    EXPECT_FALSE(found(source.c_str(), options, now));

    DeviceInfo hopper;
    hopper.compute_capability_major = 9;
    DeviceInfo ampere;
    ampere.compute_capability_major = 8;
    request_memo::Circumstances on_hopper = circumstances;
    on_hopper.device = &hopper;
    EXPECT_FALSE(found(source.c_str(), options, on_hopper));  // remembered offline
    request_memo::remember(source, options, on_hopper, target_of(90), key_of(2));
    cache::Key key;
    DeviceInfo another_hopper = hopper;  // another context on the same kind of device
    on_hopper.device = &another_hopper;
    ASSERT_TRUE(found(source.c_str(), options, on_hopper, &key));
    EXPECT_EQ(key, key_of(2));
    on_hopper.device = &ampere;
    EXPECT_FALSE(found(source.c_str(), options, on_hopper));
    ASSERT_TRUE(found(source.c_str(), options, circumstances, &key));
    EXPECT_EQ(key, key_of(1));
}

TEST_F(RequestMemo, OlderRequestsMakeRoomForNewerOnes) {
    std::vector<std::string> others;
    for (size_t i = 0; i < request_memo::kSharedEntries; ++i) {
        others.push_back(unique_source("other"));
        request_memo::remember(others.back(), options, circumstances, target_of(90), key_of(10 + i));
    }
    EXPECT_FALSE(found(source.c_str()));  // out of this thread's memo and the process's
    for (size_t i = 0; i < others.size(); ++i) {
        cache::Key key;
        ASSERT_TRUE(found(others[i].c_str(), options, circumstances, &key)) << i;
        EXPECT_EQ(key, key_of(10 + i));
    }
}

TEST_F(RequestMemo, LargeRequestsAreNotRemembered) {
    std::string large = unique_source("large") + std::string(request_memo::kMaxRememberedBytes, ' ');
    request_memo::remember(large, options, circumstances, target_of(90), key_of(3));
    EXPECT_FALSE(found(large.c_str()));
    std::string header(request_memo::kMaxRememberedBytes, 'x');
    const char* header_name = "big.h";
    const char* header_source = header.c_str();
    CompileOptions with_header = options;
    with_header.header_names = &header_name;
    with_header.header_sources = &header_source;
    with_header.header_count = 1;
    request_memo::remember(source, with_header, circumstances, target_of(90), key_of(4));
    EXPECT_FALSE(found(source.c_str(), with_header, circumstances));
    EXPECT_TRUE(found(source.c_str()));  // the earlier entry was left alone
}

TEST_F(RequestMemo, AnotherThreadFindsWhatThisOneRemembered) {
    bool found_elsewhere = false;
    cache::Key key;
    std::thread([&] { found_elsewhere = found(source.c_str(), options, circumstances, &key); }).join();
    EXPECT_TRUE(found_elsewhere);
    EXPECT_EQ(key, key_of(1));

    // Once the process's memo has moved on, a new thread keys the request itself.
    for (size_t i = 0; i < request_memo::kSharedEntries; ++i)
        request_memo::remember(unique_source("newer"), options, circumstances, target_of(90), key_of(20 + i));
    std::thread([&] { found_elsewhere = found(source.c_str()); }).join();
    EXPECT_FALSE(found_elsewhere);
}

// Threads remembering and finding at once (TSan runs this): entries are shared, never torn.
TEST_F(RequestMemo, ThreadsRememberAndFindAtOnce) {
    std::vector<std::thread> threads;
    std::vector<int> wrong(8, 0);
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 200; ++i) {
                std::string mine = unique_source("concurrent");
                uint64_t value = 1000u * static_cast<uint64_t>(t) + static_cast<uint64_t>(i);
                request_memo::remember(mine, options, circumstances, target_of(90), key_of(value));
                cache::Key key;
                if (!found(mine.c_str(), options, circumstances, &key) || key != key_of(value)) ++wrong[t];
                if (found(source.c_str(), options, circumstances, &key) && key != key_of(1)) ++wrong[t];
            }
        });
    for (std::thread& thread : threads) thread.join();
    for (int t = 0; t < 8; ++t) EXPECT_EQ(wrong[t], 0) << t;
}

// Through the C API: a caller compiling from one buffer that it rewrites between calls (same
// address, same length) gets the second program, not the first one's cached image.
TEST(RequestMemoApi, ABufferRewrittenBetweenCompilesGetsItsOwnModule) {
    const std::string salt = unique_salt("memo");
    cuabi_compile_options options = salted_offline_options(salt);
    char buffer[] = "extern \"C\" __global__ void one(int* p) { *p = 1; }\n";
    cuabi_module* first = nullptr;
    ASSERT_STATUS(cuabi_module_compile_offline(buffer, &options, &first), CUABI_SUCCESS);
    cuabi_module* again = nullptr;
    ASSERT_STATUS(cuabi_module_compile_offline(buffer, &options, &again), CUABI_SUCCESS);
    std::memcpy(std::strstr(buffer, "one"), "two", 3);
    cuabi_module* second = nullptr;
    ASSERT_STATUS(cuabi_module_compile_offline(buffer, &options, &second), CUABI_SUCCESS);

    cuabi_module_info info[3];
    cuabi_module* modules[3] = {first, again, second};
    for (int i = 0; i < 3; ++i) {
        cuabi_module_info_init(sizeof info[i], &info[i]);
        ASSERT_STATUS(cuabi_module_get_info(modules[i], &info[i]), CUABI_SUCCESS);
    }
    EXPECT_EQ(info[1].origin, CUABI_MODULE_ORIGIN_MEMORY_CACHE);
    EXPECT_STREQ(info[0].cache_key, info[1].cache_key);
    EXPECT_EQ(info[2].origin, CUABI_MODULE_ORIGIN_COMPILED);
    EXPECT_STRNE(info[0].cache_key, info[2].cache_key);
    std::vector<char> image(info[2].image_size);
    size_t size = 0;
    ASSERT_STATUS(cuabi_module_get_image(second, image.data(), image.size(), &size), CUABI_SUCCESS);
    EXPECT_NE(std::string(image.begin(), image.end()).find("two"), std::string::npos);
    for (cuabi_module* module : modules) cuabi_module_destroy(module);
}

// A request the memo finds skips most of the options check (compile/compiler.hpp): options that
// look like a remembered request's but are invalid still fail as they do on their own -- the same
// status and message, the compile log left as it was -- and the valid request still hits.
TEST(RequestMemoApi, InvalidOptionsFailAsBeforeAfterAValidRequestThatLooksTheSame) {
    const std::string salt = unique_salt("memo-check");
    const char* defines[] = {"N=4"};
    cuabi_compile_options valid = salted_offline_options(salt);
    valid.defines = defines;
    valid.define_count = 1;
    const char* source = "extern \"C\" __global__ void memo_check(int* p) { *p = N; }\n";
    cuabi_module* module = nullptr;
    // Twice: the first may be the process's first compile, which makes NVRTC's facts known and so
    // changes what the memo compares; the second is remembered as the calls below see it.
    for (int i = 0; i < 2; ++i) {
        ASSERT_STATUS(cuabi_module_compile_offline(source, &valid, &module), CUABI_SUCCESS);
        cuabi_module_destroy(module);
    }
    // A failed compile leaves a log that the refusals below must not replace.
    const char* broken = "__global__ void memo_check_broken() { undeclared_name = 1; }\n";
    EXPECT_EQ(cuabi_module_compile_offline(broken, &valid, &module), CUABI_ERROR_COMPILE);
    size_t size = 0;
    ASSERT_EQ(cuabi_last_compile_log(nullptr, 0, &size), CUABI_SUCCESS);
    std::string log(size, '\0');
    ASSERT_EQ(cuabi_last_compile_log(&log[0], log.size(), &size), CUABI_SUCCESS);
    ASSERT_NE(log.find("undeclared_name"), std::string::npos) << log;

    const char* null_define = nullptr;
    std::vector<cuabi_compile_options> invalid(5, valid);
    invalid[0].defines = nullptr;  // NULL with define_count 1
    invalid[1].defines = &null_define;
    invalid[2].flags |= 1u << 30;  // a bit no version defines
    invalid[3].flags |= CUABI_COMPILE_IN_PROCESS | CUABI_COMPILE_ISOLATED;
    invalid[4].salt = nullptr;  // NULL with salt_size
    for (size_t i = 0; i < invalid.size(); ++i) {
        CompileOptions read;
        const cuabi_status expected = read_compile_options(&invalid[i], &read);  // the check alone
        const std::string expected_message = cuabi_last_error_message();
        ASSERT_EQ(expected, CUABI_ERROR_INVALID_ARGUMENT) << i;
        module = nullptr;
        EXPECT_EQ(cuabi_module_compile_offline(source, &invalid[i], &module), expected) << i;
        EXPECT_EQ(cuabi_last_error_message(), expected_message) << i;
        EXPECT_EQ(module, nullptr) << i;
        // With a context as well: the options are still what is reported, before the handle.
        EXPECT_EQ(cuabi_module_compile(nullptr, source, &invalid[i], &module), expected) << i;
        EXPECT_EQ(cuabi_last_error_message(), expected_message) << i;
        std::string after(log.size(), '\0');
        ASSERT_EQ(cuabi_last_compile_log(&after[0], after.size(), &size), CUABI_SUCCESS);
        EXPECT_EQ(after, log) << i;
    }

    ASSERT_STATUS(cuabi_module_compile_offline(source, &valid, &module), CUABI_SUCCESS);
    cuabi_module_info info;
    cuabi_module_info_init(sizeof info, &info);
    ASSERT_STATUS(cuabi_module_get_info(module, &info), CUABI_SUCCESS);
    EXPECT_EQ(info.origin, CUABI_MODULE_ORIGIN_MEMORY_CACHE);
    cuabi_module_destroy(module);
}

// A remembered request's memory hit writes the compile log once (compile/compiler.cpp), and still
// replaces what an earlier call left there: the log of its image, not an earlier failure's.
TEST(RequestMemoApi, AHitReplacesTheLogOfAnEarlierFailure) {
    const std::string salt = unique_salt("memo-log");
    cuabi_compile_options options = salted_offline_options(salt);
    const char* source = "extern \"C\" __global__ void memo_log(int* p) { *p = 1; }\n";
    const char* broken = "__global__ void memo_log_broken() { undeclared_name = 1; }\n";
    auto last_log = [] {
        size_t size = 0;
        EXPECT_EQ(cuabi_last_compile_log(nullptr, 0, &size), CUABI_SUCCESS);
        std::string log(size, '\0');
        EXPECT_EQ(cuabi_last_compile_log(&log[0], log.size(), &size), CUABI_SUCCESS);
        return log;
    };
    cuabi_module* module = nullptr;
    std::string image_log;
    for (int i = 0; i < 3; ++i) {  // compiled, then hits (the last one found in the memo)
        EXPECT_EQ(cuabi_module_compile_offline(broken, &options, &module), CUABI_ERROR_COMPILE);
        ASSERT_NE(last_log().find("undeclared_name"), std::string::npos);
        ASSERT_STATUS(cuabi_module_compile_offline(source, &options, &module), CUABI_SUCCESS);
        const std::string log = last_log();
        EXPECT_EQ(log.find("undeclared_name"), std::string::npos) << i << ": " << log;
        if (i == 0) image_log = log;
        EXPECT_EQ(log, image_log) << i;
        cuabi_module_destroy(module);
    }
}

// Define names are judged in ASCII whatever the thread's locale, so a remembered request needs no
// second look: a name that is a letter only in some 8-bit locale is refused in that locale too, on
// the first request and on the repeated one. Needs an 8-bit locale in which 0xE9 is a letter
// (LOCPATH may point at one made with localedef).
TEST(RequestMemoApi, DefineNamesAreJudgedInAsciiWhateverTheLocale) {
    locale_t latin1 = nullptr;
    for (const char* name : {"en_US.ISO-8859-1", "de_DE.ISO-8859-1", "fr_FR.ISO-8859-1", "en_US.iso88591"})
        if ((latin1 = newlocale(LC_CTYPE_MASK, name, nullptr)) != nullptr) break;
    if (latin1 == nullptr) GTEST_SKIP() << "no ISO-8859-1 locale installed";
    ASSERT_NE(isalpha_l(0xE9, latin1), 0) << "the locale found does not make 0xE9 a letter";
    const std::string salt = unique_salt("memo-locale");
    const char* defines[] = {"caf\xe9"};
    cuabi_compile_options options = salted_offline_options(salt);
    options.defines = defines;
    options.define_count = 1;
    const char* source = "extern \"C\" __global__ void memo_locale(int* p) { *p = 1; }\n";
    cuabi_module* module = nullptr;
    locale_t previous = uselocale(latin1);
    for (int request = 0; request < 2; ++request)
        EXPECT_FAILS_WITH(cuabi_module_compile_offline(source, &options, &module), CUABI_ERROR_INVALID_ARGUMENT,
                          "is not a macro name");
    const char* plain_defines[] = {"cafe=1"};
    options.defines = plain_defines;
    cuabi_status plain = cuabi_module_compile_offline(source, &options, &module);
    uselocale(previous);
    freelocale(latin1);
    ASSERT_STATUS(plain, CUABI_SUCCESS);
    cuabi_module_destroy(module);
    options.defines = defines;
    EXPECT_FAILS_WITH(cuabi_module_compile_offline(source, &options, &module), CUABI_ERROR_INVALID_ARGUMENT,
                      "is not a macro name");
}

}  // namespace
}  // namespace cuabi
