// What libcuabi and its remote-cache helper (cuabi-cache-remote, src/remote/) say to each other
// over their socket pair. Both sides build this file and core/frame_io.cpp; the helper links nothing
// else of cuabi's.
//
// A message is a 24-byte head -- u32 code, u32 reserved (0), u64 text length, u64 payload length,
// little-endian -- then the text, then the payload. cuabi sends requests (code: RemoteOp) and the
// helper answers each with one reply (code: RemoteReply); its first message, unasked, answers the
// Configure request cuabi sends right after starting it.
//
//   Configure  text: the settings, "name=value" lines (see RemoteSettings)      -> Ok | Unavailable
//   Get        text: Redis key of the entry                                     -> Hit | Miss | Refused
//   Poll       text: entry key "\n" lease key                                   -> Hit | Miss (lease gone) | Waiting | Refused
//   Lease      text: lease key "\n" entry key                                  -> Won | Lost (or an entry is there)
//   Publish    text: entry key "\n" alias key "\n" lease key; payload: entry    -> Ok (stored) | Lost (one was there)
//   Release    text: lease key                                                  -> Ok
// Any request may also be answered Unavailable (Redis down, slow, refusing), text saying why.
// Hit carries the entry bytes (the signature already checked and stripped); Refused says why.
//
// Reading never trusts a length: a head announcing more than kMaxRemoteMessageBytes is a broken
// peer, not an allocation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/frame_io.hpp"

namespace cuabi {
namespace remote {

enum class RemoteOp : uint32_t { Configure = 1, Get = 2, Poll = 3, Lease = 4, Publish = 5, Release = 6 };
enum class RemoteReply : uint32_t { Ok = 1, Hit = 2, Miss = 3, Waiting = 4, Won = 5, Lost = 6, Refused = 7, Unavailable = 8 };

// An entry (at most cache::kMaxEntryBytes, bounded lower by the remote's own cap) and its text.
constexpr uint64_t kMaxRemoteMessageBytes = (uint64_t(1) << 30) + (uint64_t(1) << 16);

struct Message {
    uint32_t code = 0;
    std::string text;
    std::vector<uint8_t> payload;
};

// With core/frame_io.hpp's deadlines and results: a message too large to send or announced too
// large is Io::Failed.
frames::Io send_message(int fd, const Message& message, int64_t deadline_ms);
frames::Io receive_message(int fd, Message* out, int64_t deadline_ms);

}  // namespace remote
}  // namespace cuabi
