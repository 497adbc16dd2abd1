// The host's side of the image verifier (compile/image_verifier.hpp) with a stand-in verifier
// process that accepts, refuses, crashes, hangs, lies or dies on request
// (unit/stand_in/stand_in_verifier.cpp), and the real verifier on a machine without a driver.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <memory>
#include <string>

#include "cache/cache_key.hpp"
#include "cache/kernel_cache.hpp"
#include "compile/image_verifier.hpp"
#include "driver/driver_api.hpp"
#include "expect_status.hpp"

namespace cuabi {
namespace {

// Each test's images differ from every other test's (and repetition's): the cache keeps loadable
// verdicts for the process's life.
int test_number = 0;

// Stand-in images: the stand-in verifier reads no byte of them, but the cache keeps the loadable
// ones, so they start as a CUBIN does.
cache::CachedImage image_of(const std::string& text) {
    const std::string bytes = "\x7f" "ELF" + text + " #" + std::to_string(test_number);
    cache::CachedImage image;
    image.image.assign(bytes.begin(), bytes.end());
    image.image_kind = CUABI_IMAGE_CUBIN;
    image.target = "sm_90";
    return image;
}

cache::Key key_of(const cache::CachedImage& image) {
    cache::KeyBuilder builder;
    builder.add("image", image.image.data(), image.image.size());
    return builder.finish();
}

VerifiedOn device(int32_t ordinal) {
    VerifiedOn on;
    on.ordinal = ordinal;
    on.identity = "stand-in device " + std::to_string(ordinal) + " of process " + std::to_string(getpid());
    return on;
}

Status verify(const std::string& bytes) {
    cache::CachedImage image = image_of(bytes);
    return verify_image(device(0), key_of(image), image, "the caller's bytes (test)");
}

class ImageVerifier : public ::testing::Test {
protected:
    void SetUp() override {
        ++test_number;
        stop_image_verifier();
        forget_image_verdicts();
        setenv("CUABI_IMAGE_VERIFIER", CUABI_TEST_STAND_IN_VERIFIER, 1);
        unsetenv("CUABI_IMAGE_VERIFY_TIMEOUT_MS");
    }
    void TearDown() override {
        stop_image_verifier();
        forget_image_verdicts();
        unsetenv("CUABI_IMAGE_VERIFIER");
        unsetenv("CUABI_STAND_IN_VERIFIER");
        unsetenv("CUABI_IMAGE_VERIFY_TIMEOUT_MS");
    }
    static void behave(const char* mode) { setenv("CUABI_STAND_IN_VERIFIER", mode, 1); }
};

TEST_F(ImageVerifier, StartsOnFirstImageKeepsRunningAndRemembersVerdicts) {
    behave("accept");
    EXPECT_FALSE(image_verifier_running());
    const uint64_t before = image_trial_loads();
    EXPECT_EQ(verify("image A"), CUABI_SUCCESS) << last_error_message();
    EXPECT_TRUE(image_verifier_running());
    EXPECT_EQ(image_trial_loads(), before + 1);
    EXPECT_EQ(verify("image A"), CUABI_SUCCESS);  // remembered: no second trial
    EXPECT_EQ(image_trial_loads(), before + 1);
    EXPECT_EQ(verify("image B"), CUABI_SUCCESS);  // the same verifier, a second trial
    EXPECT_EQ(image_trial_loads(), before + 2);
    EXPECT_TRUE(image_verifier_running());
}

// A loadable verdict is also kept in the kernel cache, under a key of the content, device and
// driver, so that another process (here: this one, its memory of verdicts forgotten) need not
// trial-load the image again. Refusals are not kept there.
TEST_F(ImageVerifier, LoadableVerdictIsKeptInTheCache) {
    behave("accept");
    const uint64_t before = image_trial_loads();
    EXPECT_EQ(verify("image kept"), CUABI_SUCCESS) << last_error_message();
    forget_image_verdicts();
    EXPECT_EQ(verify("image kept"), CUABI_SUCCESS) << last_error_message();
    EXPECT_EQ(image_trial_loads(), before + 1);
    behave("refuse");
    stop_image_verifier();
    EXPECT_EQ(verify("image refused"), CUABI_ERROR_INVALID_IMAGE);
    forget_image_verdicts();
    EXPECT_EQ(verify("image refused"), CUABI_ERROR_INVALID_IMAGE);
    EXPECT_EQ(image_trial_loads(), before + 3);
}

// A verdict entry that came from elsewhere (a read-only layer, a bundle, a remote: untrusted) is
// the claim of whoever wrote it, not a verdict: the image is trial-loaded anyway. A verdict this
// process reaches about an untrusted image is its own, and is believed next time.
TEST_F(ImageVerifier, VerdictFromAnUntrustedEntryIsNotBelieved) {
    cache::CachedImage planted = image_of("image with a planted verdict");
    planted.untrusted = true;
    const cache::Key content = key_of(planted);
    cache::KeyBuilder builder;  // the verdict's key, as verify_image makes it
    builder.add("verified image", &content, sizeof content);
    const std::string identity = device(0).identity;
    builder.add("on", identity.data(), identity.size());
    cache::KernelCache::instance().store(builder.finish(), std::make_shared<cache::CachedImage>(planted), nullptr);
    behave("refuse");
    EXPECT_EQ(verify_image(device(0), content, planted, "an untrusted cache entry (test)"), CUABI_ERROR_INVALID_IMAGE);

    behave("accept");
    stop_image_verifier();  // the next image starts one that accepts
    cache::CachedImage fetched = image_of("untrusted image, verified here");
    fetched.untrusted = true;
    const uint64_t before = image_trial_loads();
    EXPECT_EQ(verify_image(device(0), key_of(fetched), fetched, "test"), CUABI_SUCCESS) << last_error_message();
    forget_image_verdicts();
    EXPECT_EQ(verify_image(device(0), key_of(fetched), fetched, "test"), CUABI_SUCCESS) << last_error_message();
    EXPECT_EQ(image_trial_loads(), before + 1) << "the verdict this process stored is believed";
}

TEST_F(ImageVerifier, VerdictIsPerDevice) {
    behave("accept");
    cache::CachedImage image = image_of("image on two devices");
    const uint64_t before = image_trial_loads();
    EXPECT_EQ(verify_image(device(0), key_of(image), image, "test"), CUABI_SUCCESS);
    EXPECT_EQ(verify_image(device(1), key_of(image), image, "test"), CUABI_SUCCESS);
    EXPECT_EQ(image_trial_loads(), before + 2);
}

// The stand-in dies by SIGSEGV; built with AddressSanitizer, its runtime catches that and aborts.
#if defined(__SANITIZE_ADDRESS__)
constexpr const char* kCrashSignal = "signal 6";
#else
constexpr const char* kCrashSignal = "signal 11";
#endif

TEST_F(ImageVerifier, CrashBecomesInvalidImageNamingSignalAndSource) {
    behave("crash");
    EXPECT_FAILS_WITH(verify("crashing image"), CUABI_ERROR_INVALID_IMAGE, kCrashSignal);
    const std::string message = last_error_message();
    EXPECT_NE(message.find("the caller's bytes (test)"), std::string::npos) << message;
    EXPECT_NE(message.find("-byte CUBIN for sm_90"), std::string::npos) << message;
    EXPECT_FALSE(image_verifier_running());
    // Remembered: refused again, with the same explanation, without another crash.
    const uint64_t trials = image_trial_loads();
    EXPECT_FAILS_WITH(verify("crashing image"), CUABI_ERROR_INVALID_IMAGE, kCrashSignal);
    EXPECT_EQ(image_trial_loads(), trials);
    EXPECT_FALSE(image_verifier_running());
}

TEST_F(ImageVerifier, RestartsAfterACrash) {
    behave("crash");
    EXPECT_EQ(verify("crashing image"), CUABI_ERROR_INVALID_IMAGE);
    behave("accept");  // the next verifier started reads it
    EXPECT_EQ(verify("sound image"), CUABI_SUCCESS) << last_error_message();
    EXPECT_TRUE(image_verifier_running());
}

TEST_F(ImageVerifier, HangEndsAtTheDeadline) {
    behave("hang");
    setenv("CUABI_IMAGE_VERIFY_TIMEOUT_MS", "300", 1);
    auto start = std::chrono::steady_clock::now();
    EXPECT_FAILS_WITH(verify("hanging image"), CUABI_ERROR_INVALID_IMAGE, "300 ms deadline");
    auto took = std::chrono::steady_clock::now() - start;
    EXPECT_LT(took, std::chrono::seconds(5));
    EXPECT_FALSE(image_verifier_running());  // stopped, not left hanging
    EXPECT_NE(std::string(last_error_message()).find("CUABI_IMAGE_VERIFY_TIMEOUT_MS"), std::string::npos);
}

TEST_F(ImageVerifier, DriverRefusalIsPassedOnAndRemembered) {
    behave("refuse");
    EXPECT_FAILS_WITH(verify("refused image"), CUABI_ERROR_INVALID_IMAGE, "stand-in: cuModuleLoadDataEx refused");
    EXPECT_EQ(last_cu_result(), 200);
    EXPECT_TRUE(image_verifier_running());  // a refusal is an answer: the verifier stays
    const uint64_t trials = image_trial_loads();
    EXPECT_EQ(verify("refused image"), CUABI_ERROR_INVALID_IMAGE);
    EXPECT_EQ(image_trial_loads(), trials);
}

TEST_F(ImageVerifier, AnswerThatIsNoVerdictRefusesTheImage) {
    behave("garbage");
    EXPECT_FAILS_WITH(verify("some image"), CUABI_ERROR_INVALID_IMAGE, "no verdict");
    EXPECT_FALSE(image_verifier_running());
}

TEST_F(ImageVerifier, VerifierThatDiedWhileIdleIsReplacedWithoutBlamingTheNextImage) {
    behave("exit-idle");
    EXPECT_EQ(verify("image A"), CUABI_SUCCESS) << last_error_message();
    usleep(200 * 1000);  // it exits after its answer
    EXPECT_EQ(verify("image B"), CUABI_SUCCESS) << last_error_message();
}

TEST_F(ImageVerifier, MissingVerifierIsUnsupportedAndSaysHowToTrustInstead) {
    setenv("CUABI_IMAGE_VERIFIER", "/nonexistent/cuabi-image-verifier", 1);
    EXPECT_FAILS_WITH(verify("image"), CUABI_ERROR_UNSUPPORTED, "does not exist");
    EXPECT_NE(std::string(last_error_message()).find("CUABI_IMAGE_VERIFY=none"), std::string::npos);
}

TEST_F(ImageVerifier, VerifierWithoutDriverPassesItsStatusOn) {
    behave("no-driver");
    EXPECT_FAILS_WITH(verify("image"), CUABI_ERROR_DRIVER_NOT_FOUND, "stand-in: libcuda.so.1");
    EXPECT_FALSE(image_verifier_running());
}

// The real cuabi-image-verifier (found beside the test binary, as beside libcuabi.so) on this
// machine: without a driver it says so and the image is not verified.
TEST_F(ImageVerifier, RealVerifierWithoutDriverFailsCleanly) {
    unsetenv("CUABI_IMAGE_VERIFIER");
    Status driver_status = CUABI_SUCCESS;
    if (driver(&driver_status) != nullptr)
        GTEST_SKIP() << "a CUDA driver is installed: tests/gpu covers the real verifier";
    Status status = verify("image");
    EXPECT_EQ(status, driver_status) << last_error_message();
    EXPECT_NE(std::string(last_error_message()).find("Fix: "), std::string::npos);
    EXPECT_FALSE(image_verifier_running());
}

TEST(ImageVerificationPolicy, WhatEachPolicyVerifies) {
    EXPECT_TRUE(must_verify(CUABI_IMAGE_VERIFY_UNTRUSTED, false));
    EXPECT_FALSE(must_verify(CUABI_IMAGE_VERIFY_UNTRUSTED, true));
    EXPECT_TRUE(must_verify(CUABI_IMAGE_VERIFY_ALL, false));
    EXPECT_TRUE(must_verify(CUABI_IMAGE_VERIFY_ALL, true));
    EXPECT_FALSE(must_verify(CUABI_IMAGE_VERIFY_NONE, false));
    EXPECT_FALSE(must_verify(CUABI_IMAGE_VERIFY_NONE, true));
    EXPECT_EQ(image_verification_policy(CUABI_IMAGE_VERIFY_NONE), CUABI_IMAGE_VERIFY_NONE);
    EXPECT_EQ(image_verification_policy(CUABI_IMAGE_VERIFY_ALL), CUABI_IMAGE_VERIFY_ALL);
}

TEST(ImageVerificationPolicy, ContextRefusesAnUnknownPolicyBeforeTheDriver) {
    cuabi_context_options options CUABI_CONTEXT_OPTIONS_INIT;
    options.image_verification = 4;
    cuabi_context* context = nullptr;
    EXPECT_FAILS_WITH(cuabi_context_create(&options, &context), CUABI_ERROR_INVALID_ARGUMENT,
                      "image_verification is 4");
}

}  // namespace
}  // namespace cuabi
