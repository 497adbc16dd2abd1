#include "cache/remote_protocol.hpp"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>

#include <new>

namespace cuabi {
namespace remote {
namespace {

constexpr size_t kHeadBytes = 24;

Io ready(int fd, short events, int64_t deadline_ms) {
    for (;;) {
        int timeout = -1;
        if (deadline_ms != kNoDeadline) {
            int64_t left = deadline_ms - monotonic_ms();
            if (left <= 0) return Io::TimedOut;
            timeout = left > 60000 ? 60000 : static_cast<int>(left);
        }
        struct pollfd wanted = {fd, events, 0};
        int got = poll(&wanted, 1, timeout);
        if (got > 0) return Io::Ok;  // ready, hung up or failed: the transfer that follows says which
        if (got < 0 && errno != EINTR) return Io::Failed;
    }
}

Io send_all(int fd, const uint8_t* data, size_t size, int64_t deadline_ms) {
    for (size_t done = 0; done < size;) {
        Io io = ready(fd, POLLOUT, deadline_ms);
        if (io != Io::Ok) return io;
        ssize_t sent = send(fd, data + done, size - done, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent > 0) done += static_cast<size_t>(sent);
        else if (sent < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
            return errno == EPIPE || errno == ECONNRESET ? Io::Closed : Io::Failed;
    }
    return Io::Ok;
}

Io receive_all(int fd, uint8_t* data, size_t size, int64_t deadline_ms) {
    for (size_t done = 0; done < size;) {
        Io io = ready(fd, POLLIN, deadline_ms);
        if (io != Io::Ok) return io;
        ssize_t got = recv(fd, data + done, size - done, MSG_DONTWAIT);
        if (got > 0) done += static_cast<size_t>(got);
        else if (got == 0) return Io::Closed;
        else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
            return errno == ECONNRESET ? Io::Closed : Io::Failed;
    }
    return Io::Ok;
}

void put(uint8_t* at, uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) at[i] = static_cast<uint8_t>(value >> (8 * i));
}

uint64_t get(const uint8_t* at, int bytes) {
    uint64_t value = 0;
    for (int i = 0; i < bytes; ++i) value |= uint64_t(at[i]) << (8 * i);
    return value;
}

}  // namespace

int64_t monotonic_ms() {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return int64_t(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

Io send_message(int fd, const Message& message, int64_t deadline_ms) {
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

Io receive_message(int fd, Message* out, int64_t deadline_ms) {
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
