// core/child_process.hpp with a real helper (the stand-in verifier, which greets and then waits for
// work): what it is started with, an idle one stopped or reaped behind this process's back, and
// how its end is told.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "core/child_process.hpp"
#include "core/frame_io.hpp"

namespace {

using cuabi::ChildEnding;
using cuabi::ChildHealth;
using cuabi::ChildProcess;

// A stand-in verifier that has said its hello: idle, waiting for an image.
ChildProcess start_idle_helper() {
    setenv("CUABI_STAND_IN_VERIFIER", "accept", 1);
    ChildProcess child;
    std::string why;
    EXPECT_TRUE(cuabi::spawn_child(CUABI_TEST_STAND_IN_VERIFIER, {"--extra", "word"}, &child, &why)) << why;
    std::vector<uint8_t> hello;
    EXPECT_EQ(cuabi::frames::receive_frame(child.fd, &hello, cuabi::frames::now_ms() + 10000, 4096),
              cuabi::frames::Io::Ok);
    return child;
}

// Polls until the health is not Ready (a signal takes a moment to land), at most 5 s.
ChildHealth health_after_a_change(ChildProcess* child, ChildEnding* ending) {
    ChildHealth health = ChildHealth::Ready;
    for (int i = 0; i < 500 && health == ChildHealth::Ready; ++i) {
        health = cuabi::check_idle_child(child, ending);
        if (health == ChildHealth::Ready) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return health;
}

TEST(ChildProcess, StartedWithTheCallersArgumentsThenItsParent) {
    ChildProcess child = start_idle_helper();
    std::ifstream file("/proc/" + std::to_string(child.pid) + "/cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    const std::string expected =
        std::string(CUABI_TEST_STAND_IN_VERIFIER) + '\0' + "--extra" + '\0' + "word" + '\0' + "--parent" + '\0' +
        std::to_string(getpid()) + '\0';
    EXPECT_EQ(cmdline, expected);
    ChildEnding ending;
    EXPECT_EQ(cuabi::check_idle_child(&child, &ending), ChildHealth::Ready);
    ending = cuabi::end_child(&child, false, 2000);  // it ends by itself once its socket closes
    EXPECT_EQ(cuabi::describe(ending), "exited with status 0");
    EXPECT_EQ(child.pid, -1);
    EXPECT_EQ(child.fd, -1);
}

TEST(ChildProcess, StoppedIdleChildIsNotReadyAndIsKilledWhenEnded) {
    ChildProcess child = start_idle_helper();
    ASSERT_EQ(kill(child.pid, SIGSTOP), 0);
    ChildEnding ending;
    EXPECT_EQ(health_after_a_change(&child, &ending), ChildHealth::Stopped);
    EXPECT_EQ(cuabi::check_idle_child(&child, &ending), ChildHealth::Stopped) << "asked again: still stopped";
    EXPECT_EQ(cuabi::describe(cuabi::end_child(&child, true, 0)), "was killed by signal 9 (Killed)");
}

TEST(ChildProcess, ChildReapedForThisProcessIsGoneAndNeverSignalled) {
    struct sigaction ignore = {}, previous = {};
    ignore.sa_handler = SIG_IGN;
    ASSERT_EQ(sigaction(SIGCHLD, &ignore, &previous), 0);  // the kernel reaps children: a host may do this
    ChildProcess child = start_idle_helper();
    ASSERT_EQ(kill(child.pid, SIGKILL), 0);
    ChildEnding ending;
    ChildHealth health = health_after_a_change(&child, &ending);
    // Until the kernel has reaped it the socket already reads as closed; ask until the pid is let go.
    for (int i = 0; i < 500 && child.pid != -1; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        health = cuabi::check_idle_child(&child, &ending);
    }
    sigaction(SIGCHLD, &previous, nullptr);
    EXPECT_EQ(health, ChildHealth::Gone);
    EXPECT_EQ(child.pid, -1) << "a pid this process no longer has must not be kept: it may be someone else's";
    EXPECT_FALSE(ending.known);
    ending = cuabi::end_child(&child, true, 0);
    EXPECT_FALSE(ending.known);
    EXPECT_NE(cuabi::describe(ending).find("unknown"), std::string::npos) << cuabi::describe(ending);
    EXPECT_EQ(child.fd, -1);
}

}  // namespace
