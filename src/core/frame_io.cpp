#include "core/frame_io.hpp"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>

#include <algorithm>

namespace cuabi {
namespace frames {
namespace {

// Waits until `fd` is ready for `events` or the deadline passes.
Io wait_for(int fd, short events, int64_t deadline_ms) {
    for (;;) {
        int timeout = -1;
        if (deadline_ms != kNoDeadline) {
            int64_t left = deadline_ms - now_ms();
            if (left <= 0) return Io::TimedOut;
            timeout = left > 60000 ? 60000 : static_cast<int>(left);
        }
        struct pollfd ready = {fd, events, 0};
        int got = poll(&ready, 1, timeout);
        if (got > 0) return Io::Ok;  // readable, writable, hung up or failed: the next call says which
        if (got < 0 && errno != EINTR) return Io::Failed;
    }
}

}  // namespace

int64_t now_ms() {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return int64_t(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

Io send_all(int fd, const uint8_t* data, size_t size, int64_t deadline_ms) {
    size_t done = 0;
    while (done < size) {
        Io ready = wait_for(fd, POLLOUT, deadline_ms);
        if (ready != Io::Ok) return ready;
        ssize_t sent = send(fd, data + done, size - done, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent > 0) {
            done += static_cast<size_t>(sent);
        } else if (sent < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
            return errno == EPIPE || errno == ECONNRESET ? Io::Closed : Io::Failed;
        }
    }
    return Io::Ok;
}

Io receive_all(int fd, uint8_t* data, size_t size, int64_t deadline_ms) {
    size_t done = 0;
    while (done < size) {
        Io ready = wait_for(fd, POLLIN, deadline_ms);
        if (ready != Io::Ok) return ready;
        ssize_t got = recv(fd, data + done, size - done, MSG_DONTWAIT);
        if (got > 0) {
            done += static_cast<size_t>(got);
        } else if (got == 0) {
            return Io::Closed;
        } else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
            return errno == ECONNRESET ? Io::Closed : Io::Failed;
        }
    }
    return Io::Ok;
}

Io send_frame(int fd, const std::vector<uint8_t>& bytes, int64_t deadline_ms) {
    if (bytes.size() > kMaxFrameBytes) return Io::TooLarge;
    uint8_t length[4];
    for (int i = 0; i < 4; ++i) length[i] = static_cast<uint8_t>(bytes.size() >> (8 * i));
    Io sent = send_all(fd, length, sizeof length, deadline_ms);
    return sent == Io::Ok ? send_all(fd, bytes.data(), bytes.size(), deadline_ms) : sent;
}

Io receive_frame(int fd, std::vector<uint8_t>* bytes, int64_t deadline_ms, uint32_t max_bytes) {
    uint8_t length[4];
    Io got = receive_all(fd, length, sizeof length, deadline_ms);
    if (got != Io::Ok) return got;
    uint32_t size = 0;
    for (int i = 0; i < 4; ++i) size |= uint32_t(length[i]) << (8 * i);
    if (size > max_bytes) return Io::TooLarge;
    // Grown as bytes arrive, at most doubling: the length is the peer's word, not yet its bytes.
    constexpr size_t kFirstChunk = 64 * 1024;
    bytes->clear();
    size_t have = 0;
    while (have < size) {
        size_t next = std::min<size_t>(size, std::max(kFirstChunk, have * 2));
        bytes->resize(next);
        got = receive_all(fd, bytes->data() + have, next - have, deadline_ms);
        if (got != Io::Ok) return got;
        have = next;
    }
    return Io::Ok;
}

}  // namespace frames
}  // namespace cuabi
