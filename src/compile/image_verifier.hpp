// Images cuabi did not produce itself are proven loadable in a sacrificial process first.
//
// The CUDA driver's loader trusts what is inside an image: mutated CUBINs that pass every check of
// image/check.hpp still crashed the process inside cuModuleLoadDataEx (7 of 500 mutants on an H100)
// or hung it. So before the host's driver sees an untrusted image, the image is trial-loaded -- the
// module load, then every kernel's lookup and the facts a launch reads -- in cuabi-image-verifier,
// a small executable next to the compile worker (<libdir>/cuabi/; $CUABI_IMAGE_VERIFIER overrides)
// with its own CUDA context, under a deadline ($CUABI_IMAGE_VERIFY_TIMEOUT_MS, default 30000). A
// crash there, or the deadline, becomes CUABI_ERROR_INVALID_IMAGE naming the signal or the time and
// where the image came from; the host is untouched.
//
// One verifier per process, started on the first untrusted image and kept (its context is created
// once per device), restarted by the next image when it died. Its verdicts are remembered by the
// image's content and device, refusals too: an image verified once is not verified again, and one
// that crashed the verifier is refused again without another crash.
//
// Trust (docs/safety.md, "Images"): cuabi's own NVRTC output and the entries of its own cache are
// trusted; the caller's bytes (cuabi_module_load_image) are not. The policy, per context
// (cuabi_context_options.image_verification) or for the process ($CUABI_IMAGE_VERIFY=untrusted,
// all or none), chooses what is verified.
#pragma once

#include <cstdint>
#include <string>

#include "cache/cache_key.hpp"
#include "cache/cached_image.hpp"
#include "core/error.hpp"

namespace cuabi {

// The policy in force for a context that asked for `requested` (CUABI_IMAGE_VERIFY_*): itself, or
// for CUABI_IMAGE_VERIFY_DEFAULT the environment's choice, else CUABI_IMAGE_VERIFY_UNTRUSTED.
int32_t image_verification_policy(int32_t requested);

// The first time a call's policy comes from the environment (`requested` is
// CUABI_IMAGE_VERIFY_DEFAULT) while CUABI_IMAGE_VERIFY holds a value cuabi cannot use:
// CUABI_ERROR_INVALID_ARGUMENT naming the variable. CUABI_SUCCESS otherwise.
Status report_verification_environment(int32_t requested);
// A trial's part: CUABI_ERROR_INVALID_ARGUMENT naming CUABI_IMAGE_VERIFY_TIMEOUT_MS the first time
// a trial is about to run while it holds a value cuabi cannot use (once per value).
Status report_trial_environment();

// Reads both variables now, so that environment_problems() lists what they hold.
void read_verification_environment();

// Whether an image of this trust must be verified under `policy` (from image_verification_policy).
bool must_verify(int32_t policy, bool trusted_source);

// Which device and driver a verdict holds for: the device's name and architecture and the driver
// version ("NVIDIA H100 80GB HBM3 sm_90 driver 13000"). A new driver is a new loader.
struct VerifiedOn {
    int32_t ordinal = 0;  // where the verifier loads it: the host context's device
    std::string identity;
};

// Trial-loads `image` on `device` in the verifier, unless its verdict is known: remembered in this
// process, or -- for images found loadable -- in the disk cache, whose entry under the verdict's
// key (the content, device and driver) holds the verified bytes, compared before they are
// believed. `content` identifies the bytes; `source` says where they came from, for messages
// ("the caller's bytes").
// CUABI_ERROR_INVALID_IMAGE when the verifier crashed, ran past the deadline or the driver refused
// the image there; CUABI_ERROR_UNSUPPORTED when no verifier can be started (the message says how
// to install one or to trust the images instead).
Status verify_image(const VerifiedOn& device, const cache::Key& content, const cache::CachedImage& image,
                    const char* source);

// For tests and `cuabi info`: whether a verifier process runs now, and how many trial loads it
// (any of them) has done.
bool image_verifier_running();
uint64_t image_trial_loads();

// For tests: stops the verifier (the next image starts another); forgets every remembered verdict.
void stop_image_verifier();
void forget_image_verdicts();

}  // namespace cuabi
