// Every allocation of verifying an image fails in turn (failing_new.hpp), with a stand-in verifier
// that accepts every image (unit/stand_in/): each run reports a status or throws std::bad_alloc
// (which the API's guard turns into CUABI_ERROR_OUT_OF_HOST_MEMORY), and none leaves the verifier's
// conversation out of step -- a hello or verdict left unread would be taken for the next image's,
// and the last run, whose allocations all succeed, would then be refused.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <new>
#include <string>

#include "cache/cache_key.hpp"
#include "compile/image_verifier.hpp"
#include "core/error.hpp"
#include "failing_new.hpp"

namespace {

cuabi::cache::CachedImage image_of(const std::string& text) {
    const std::string bytes = "\x7f" "ELF " + text;
    cuabi::cache::CachedImage image;
    image.image.assign(bytes.begin(), bytes.end());
    image.image_kind = CUABI_IMAGE_CUBIN;
    return image;
}

// As the API's guard does, an exception becomes CUABI_ERROR_OUT_OF_HOST_MEMORY.
cuabi::Status verify(const cuabi::cache::CachedImage& image) {
    try {
        cuabi::cache::KeyBuilder builder;
        builder.add("image", image.image.data(), image.image.size());
        cuabi::VerifiedOn device;
        device.identity = "stand-in device of process " + std::to_string(getpid());
        return cuabi::verify_image(device, builder.finish(), image, "the allocation test");
    } catch (const std::bad_alloc&) {
        return cuabi::fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory", "verification ran out of memory");
    }
}

TEST(AllocationFailure, EveryAllocationOfAVerificationFailsInTurn) {
    setenv("CUABI_IMAGE_VERIFIER", CUABI_TEST_STAND_IN_VERIFIER, 1);
    setenv("CUABI_STAND_IN_VERIFIER", "accept", 1);
    int run = 0;
    auto scenario = [&] {
        // Each run new images, so that no run is answered from an earlier one's verdict; every
        // other run also starts the verifier.
        failing_new::pause();
        ++run;
        const cuabi::cache::CachedImage image = image_of("run " + std::to_string(run));
        const cuabi::cache::CachedImage probe = image_of("probe after run " + std::to_string(run));
        if (run % 2 == 0) cuabi::stop_image_verifier();
        failing_new::resume();
        const cuabi::Status status = verify(image);
        // Whatever failed, the next image (its allocations all succeed) gets its own verdict.
        failing_new::pause();
        const cuabi::Status next = verify(probe);
        failing_new::resume();
        return next != CUABI_SUCCESS ? next : status;
    };
    EXPECT_GT(failing_new::fail_each_allocation(scenario, 400), 3);
    cuabi::stop_image_verifier();
    unsetenv("CUABI_IMAGE_VERIFIER");
    unsetenv("CUABI_STAND_IN_VERIFIER");
}

}  // namespace
