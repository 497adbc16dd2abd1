// What cuabi and its compile worker say to each other over their socket: frames
// (core/frame_io.hpp), each holding a message of fields written in a
// fixed order (u32 / u64 little-endian, strings and byte arrays as a u64 length and the bytes).
//
//   worker -> cuabi, once, after loading NVRTC:  Hello
//   cuabi  -> worker, per compile:                Job (an NvrtcJob and its time budget)
//   worker -> cuabi, per compile:                 Outcome
//
// A worker started to link (--nvjitlink) says no Hello: it reads one LinkRequest, answers one
// Outcome (image and nvJitLink's log) and ends.
//
// Neither side trusts the other's lengths: a frame's length is bounded by what that message can
// hold (a Hello a few KiB), its buffer grows only as bytes arrive (so a length that lies costs no
// memory the peer did not send), and decoding never reads past the frame. Statuses from the
// worker decode only when they are ones the worker can produce. A peer that dies mid-message or
// sends garbage gives an Io or decode failure, never a crash.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cache/cached_image.hpp"
#include "compile/link_job.hpp"
#include "compile/nvrtc_program.hpp"
#include "compile/pch_worker.hpp"
#include "core/frame_io.hpp"
#include "driver/nvrtc_api.hpp"

namespace cuabi {
namespace worker {

constexpr uint32_t kProtocolVersion = 3;  // 3: precompiled headers, NvrtcJob.ltoir
// A Hello holds a message, a path, a build id and a list of architectures.
constexpr uint32_t kMaxHelloBytes = 64 * 1024;
// A job's sources, or an outcome's image and its log, are bounded by frames::kMaxFrameBytes.

// The worker's first words: which NVRTC it loaded, or why it could not.
struct Hello {
    uint32_t protocol = kProtocolVersion;
    Status status = CUABI_SUCCESS;  // CUABI_ERROR_NVRTC_NOT_FOUND when NVRTC did not load
    std::string message;           // the failure's message ("... Fix: ...")
    NvrtcFacts facts;
    std::string pch_problem;       // why this worker cannot use precompiled headers; "" when it can
};

// One compile's result: the status and, for a failure, the message and nvrtcResult that
// cuabi records on the calling thread; the log either way; the image on success.
struct Outcome {
    Status status = CUABI_SUCCESS;
    std::string message;
    int32_t nvrtc_result = 0;
    std::string log;
    cache::CachedImage image;
    PchReport pch;  // what became of the job's precompiled header
};

// One compile as the worker receives it: the job, and how long it may take from the moment the
// worker reads it (0: no limit). The worker ends itself past it, whatever NVRTC is doing.
struct Job {
    NvrtcJob job;
    uint64_t budget_ms = 0;
    // The precompiled header to use or create (compile/pch_policy.hpp): its key and the cache
    // directory whose store holds it; an empty key: none.
    std::string pch_key;
    std::string pch_cache_directory;
};

// One link as the link worker receives it, with its budget as Job's.
struct LinkRequest {
    LinkJob job;
    uint64_t budget_ms = 0;
};

std::vector<uint8_t> encode(const Hello& hello);
std::vector<uint8_t> encode(const LinkRequest& link);
bool decode(const std::vector<uint8_t>& bytes, LinkRequest* out);
std::vector<uint8_t> encode(const Job& job);
std::vector<uint8_t> encode(const Outcome& outcome);
// False for anything malformed, including a status the worker cannot produce (*status_out, when
// not NULL, receives the status as sent, so that a message can name it).
bool decode(const std::vector<uint8_t>& bytes, Hello* out, uint32_t* status_out = nullptr);
bool decode(const std::vector<uint8_t>& bytes, Job* out);
bool decode(const std::vector<uint8_t>& bytes, Outcome* out, uint32_t* status_out = nullptr);

}  // namespace worker
}  // namespace cuabi
