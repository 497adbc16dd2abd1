// Bytes and frames on the stream socket between cuabi and one of its helper processes (the
// compile worker, the image verifier, the remote cache helper): each side reads with a deadline
// and never believes a length the peer announces before its bytes arrive. What the bytes mean is
// each helper's own protocol (compile/worker_protocol.hpp, compile/verifier_protocol.hpp,
// cache/remote_protocol.hpp).
//
// A frame is a u32 little-endian length and that many bytes. Both the library and the helpers
// build this file; it uses nothing else of cuabi's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cuabi {
namespace frames {

// The largest frame either side sends or accepts.
constexpr uint32_t kMaxFrameBytes = 0x7FFFFFFFu;

// `deadline_ms` is a CLOCK_MONOTONIC time in milliseconds (now_ms()), or kNoDeadline. Sending
// never raises SIGPIPE (MSG_NOSIGNAL): a dead peer is an Io result. TooLarge: the frame's length
// is above the cap the reader passed (nothing of it is read), or above kMaxFrameBytes when sent.
constexpr int64_t kNoDeadline = -1;
enum class Io { Ok, Closed, TimedOut, Failed, TooLarge };
int64_t now_ms();

// Exactly `size` bytes, or why not.
Io send_all(int fd, const uint8_t* data, size_t size, int64_t deadline_ms);
Io receive_all(int fd, uint8_t* data, size_t size, int64_t deadline_ms);

Io send_frame(int fd, const std::vector<uint8_t>& bytes, int64_t deadline_ms);
// `max_bytes` is what the message expected in this phase of the conversation can hold (a hello a
// few KiB); the buffer grows only as bytes arrive, so a length that lies costs no memory the
// peer did not send.
Io receive_frame(int fd, std::vector<uint8_t>* bytes, int64_t deadline_ms, uint32_t max_bytes);

}  // namespace frames
}  // namespace cuabi
