#include "cache/remote_protocol.hpp"

#include <new>

namespace cuabi {
namespace remote {
namespace {

using frames::Io;
using frames::receive_all;
using frames::send_all;

constexpr size_t kHeadBytes = 24;

void put(uint8_t* at, uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) at[i] = static_cast<uint8_t>(value >> (8 * i));
}

uint64_t get(const uint8_t* at, int bytes) {
    uint64_t value = 0;
    for (int i = 0; i < bytes; ++i) value |= uint64_t(at[i]) << (8 * i);
    return value;
}

}  // namespace

frames::Io send_message(int fd, const Message& message, int64_t deadline_ms) {
    if (message.text.size() + message.payload.size() > kMaxRemoteMessageBytes) return Io::Failed;
    uint8_t head[kHeadBytes] = {};
    put(head, message.code, 4);
    put(head + 8, message.text.size(), 8);
    put(head + 16, message.payload.size(), 8);
    Io io = send_all(fd, head, kHeadBytes, deadline_ms);
    if (io == Io::Ok)
        io = send_all(fd, reinterpret_cast<const uint8_t*>(message.text.data()), message.text.size(), deadline_ms);
    if (io == Io::Ok) io = send_all(fd, message.payload.data(), message.payload.size(), deadline_ms);
    return io;
}

frames::Io receive_message(int fd, Message* out, int64_t deadline_ms) {
    uint8_t head[kHeadBytes];
    Io io = receive_all(fd, head, kHeadBytes, deadline_ms);
    if (io != Io::Ok) return io;
    uint64_t text_size = get(head + 8, 8), payload_size = get(head + 16, 8);
    if (get(head + 4, 4) != 0 || text_size > kMaxRemoteMessageBytes || payload_size > kMaxRemoteMessageBytes - text_size)
        return Io::Failed;
    out->code = static_cast<uint32_t>(get(head, 4));
    try {
        out->text.resize(text_size);
        out->payload.resize(payload_size);
    } catch (const std::bad_alloc&) {
        return Io::Failed;
    }
    io = receive_all(fd, reinterpret_cast<uint8_t*>(&out->text[0]), text_size, deadline_ms);
    return io == Io::Ok ? receive_all(fd, out->payload.data(), payload_size, deadline_ms) : io;
}

}  // namespace remote
}  // namespace cuabi
