// The remote tier's pure parts: the circuit breaker's states and back-off, and the helper
// protocol's refusal of lengths it cannot back.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "cache/circuit_breaker.hpp"
#include "cache/remote_protocol.hpp"

namespace {

using cuabi::cache::CircuitBreaker;
using cuabi::cache::RemoteBreaker;

TEST(RemoteCircuitBreaker, OpensAfterThreeFailuresInARowAndLetsOneProbeThrough) {
    CircuitBreaker breaker(100);
    int64_t now = 1000;
    breaker.failed(now);
    breaker.failed(now);
    breaker.succeeded();  // a success in between: the count starts again
    breaker.failed(now);
    breaker.failed(now);
    EXPECT_TRUE(breaker.allow(now));
    EXPECT_EQ(breaker.state(now), RemoteBreaker::Closed);
    breaker.failed(now);
    EXPECT_EQ(breaker.state(now), RemoteBreaker::Open);
    EXPECT_EQ(breaker.opens(), 1u);
    EXPECT_FALSE(breaker.allow(now + 99));
    EXPECT_TRUE(breaker.allow(now + 100));    // the probe
    EXPECT_FALSE(breaker.allow(now + 100));   // only one
    EXPECT_EQ(breaker.state(now + 100), RemoteBreaker::HalfOpen);
    breaker.failed(now + 100);                // the probe failed: twice as long
    EXPECT_FALSE(breaker.allow(now + 299));
    EXPECT_TRUE(breaker.allow(now + 300));
    breaker.succeeded();
    EXPECT_EQ(breaker.state(now + 300), RemoteBreaker::Closed);
    EXPECT_TRUE(breaker.allow(now + 300));
    EXPECT_TRUE(breaker.allow(now + 300));
}

TEST(RemoteCircuitBreaker, BackOffStopsDoublingAtOneMinute) {
    CircuitBreaker breaker(40000);
    int64_t now = 0;
    for (int i = 0; i < 3; ++i) breaker.failed(now);
    for (int probe = 0; probe < 4; ++probe) {
        now += CircuitBreaker::kMaxBackoffMs;
        ASSERT_TRUE(breaker.allow(now)) << "probe " << probe;
        breaker.failed(now);
    }
    EXPECT_FALSE(breaker.allow(now + CircuitBreaker::kMaxBackoffMs - 1));
    EXPECT_TRUE(breaker.allow(now + CircuitBreaker::kMaxBackoffMs));
}

TEST(RemoteProtocol, MessagesRoundTripAndLyingLengthsAreRefusedUnallocated) {
    int fds[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    cuabi::remote::Message sent, got;
    sent.code = 2;
    sent.text = "cuabi:3:e:key";
    sent.payload.assign(70000, 7);  // more than one socket buffer's worth is fine with a reader
    std::thread reader([&] { EXPECT_EQ(cuabi::remote::receive_message(fds[1], &got, cuabi::frames::kNoDeadline),
                                       cuabi::frames::Io::Ok); });
    EXPECT_EQ(cuabi::remote::send_message(fds[0], sent, cuabi::frames::kNoDeadline), cuabi::frames::Io::Ok);
    reader.join();
    EXPECT_EQ(got.code, 2u);
    EXPECT_EQ(got.text, sent.text);
    EXPECT_EQ(got.payload, sent.payload);

    uint8_t head[24] = {2};
    head[8 + 5] = 1;  // a text of 2^40 bytes
    ASSERT_EQ(write(fds[0], head, sizeof head), 24);
    EXPECT_EQ(cuabi::remote::receive_message(fds[1], &got, cuabi::frames::kNoDeadline), cuabi::frames::Io::Failed);

    // A peer that stops mid-message is a timeout at the deadline, not a hang.
    uint8_t partial[24] = {2, 0, 0, 0, 0, 0, 0, 0, 10};
    ASSERT_EQ(write(fds[0], partial, sizeof partial), 24);
    EXPECT_EQ(cuabi::remote::receive_message(fds[1], &got, cuabi::frames::now_ms() + 50),
              cuabi::frames::Io::TimedOut);
    close(fds[0]);
    EXPECT_EQ(cuabi::remote::receive_message(fds[1], &got, cuabi::frames::kNoDeadline), cuabi::frames::Io::Closed);
    close(fds[1]);
}

}  // namespace
