// One nvJitLink link: a job (inputs as bytes, canonical options, target) in, image + log out.
// The same code runs in this process and in the link worker, which receives the job over a
// socket (worker_protocol.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cache/cached_image.hpp"
#include "core/error.hpp"
#include "driver/nvjitlink_api.hpp"

namespace cuabi {

struct LinkJobInput {
    uint32_t kind = 0;  // CUABI_LINK_INPUT_* (nvJitLink's input type)
    std::string name;   // for nvJitLink's log
    std::vector<uint8_t> bytes;
};

// Everything nvJitLink is given, owned, in canonical order (linker.cpp builds it).
struct LinkJob {
    std::vector<std::string> options;  // exactly as nvJitLink receives them, "-arch=sm_90" first
    std::vector<LinkJobInput> inputs;
    std::string target;                // "sm_90", or "compute_90" for PTX output
    bool ptx = false;                  // read the linked PTX, not a CUBIN
    // The oldest nvJitLink that can read every input: the newest NVRTC that made an LTO-IR input
    // (1000 * major + 10 * minor), 0 when unknown.
    uint32_t min_version = 0;
};

// Links `job`. On success *out holds the CUBIN (or NUL-terminated PTX) with nvJitLink's info log
// as its log. *out_log receives the info and error logs whenever there are any, success or not.
// Fails with CUABI_ERROR_LINK (nvJitLink refused the inputs or options: the message quotes the
// first error line), CUABI_ERROR_NVJITLINK_NOT_FOUND (this nvJitLink is older than job.min_version)
// or CUABI_ERROR_OUT_OF_HOST_MEMORY.
Status run_nvjitlink(const NvJitLinkApi& api, const LinkJob& job, cache::CachedImage* out, std::string* out_log);

}  // namespace cuabi
