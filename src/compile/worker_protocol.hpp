// What cuabi and its compile worker say to each other over their socket: frames of a u32
// little-endian length and that many bytes; the bytes are a message of fields written in a
// fixed order (u32 / u64 little-endian, strings and byte arrays as a u64 length and the bytes).
//
//   worker -> cuabi, once, after loading NVRTC:  Hello
//   cuabi  -> worker, per compile:                NvrtcJob
//   worker -> cuabi, per compile:                 Outcome
//
// Decoding is bounded and never trusts a length: a worker that dies mid-message, or sends
// garbage, gives a decode failure, never a crash or an allocation the frame cannot back.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cache/cached_image.hpp"
#include "compile/nvrtc_program.hpp"
#include "driver/nvrtc_api.hpp"

namespace cuabi {
namespace worker {

constexpr uint32_t kProtocolVersion = 1;
// A frame holds at most an image (bounded like a cache entry) and its log.
constexpr uint64_t kMaxFrameBytes = uint64_t(1) << 31;

// The worker's first words: which NVRTC it loaded, or why it could not.
struct Hello {
    uint32_t protocol = kProtocolVersion;
    Status status = CUABI_SUCCESS;  // CUABI_ERROR_NVRTC_NOT_FOUND when NVRTC did not load
    std::string message;           // the failure's message ("... Fix: ...")
    NvrtcFacts facts;
};

// One compile's result: the status and, for a failure, the message and nvrtcResult that
// cuabi records on the calling thread; the log either way; the image on success.
struct Outcome {
    Status status = CUABI_SUCCESS;
    std::string message;
    int32_t nvrtc_result = 0;
    std::string log;
    cache::CachedImage image;
};

// Frames on a stream socket. `deadline_ms` is a CLOCK_MONOTONIC time in milliseconds, or
// kNoDeadline. Sending never raises SIGPIPE (MSG_NOSIGNAL): a dead peer is an Io result.
constexpr int64_t kNoDeadline = -1;
enum class Io { Ok, Closed, TimedOut, Failed };
Io send_frame(int fd, const std::vector<uint8_t>& bytes, int64_t deadline_ms);
Io receive_frame(int fd, std::vector<uint8_t>* bytes, int64_t deadline_ms);
int64_t now_ms();

std::vector<uint8_t> encode(const Hello& hello);
std::vector<uint8_t> encode(const NvrtcJob& job);
std::vector<uint8_t> encode(const Outcome& outcome);
bool decode(const std::vector<uint8_t>& bytes, Hello* out);
bool decode(const std::vector<uint8_t>& bytes, NvrtcJob* out);
bool decode(const std::vector<uint8_t>& bytes, Outcome* out);

}  // namespace worker
}  // namespace cuabi
