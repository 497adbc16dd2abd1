// The cache directory's lock between threads of one process: they queue for it instead of timing
// out on each other, and the deadline (CUABI_CACHE_LOCK_TIMEOUT_MS) is left for other processes.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "cache/directory_lock.hpp"
#include "cache_support/process.hpp"

using namespace std::chrono_literals;

TEST(CacheLockContention, AThreadWaitsItsTurnBehindAnotherThreadOfTheProcess) {
    cache_test::TempDir dir;
    int directory = open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(directory, 0);
    std::atomic<bool> held{false};
    std::thread holder([&] {
        cuabi::cache::DirectoryLock lock(directory, dir.path(), 100);
        ASSERT_TRUE(lock.ok());
        held = true;
        std::this_thread::sleep_for(600ms);  // longer than the other thread's 100 ms deadline
    });
    while (!held) std::this_thread::sleep_for(1ms);
    auto start = std::chrono::steady_clock::now();
    cuabi::cache::DirectoryLock lock(directory, dir.path(), 100);
    auto waited = std::chrono::steady_clock::now() - start;
    holder.join();
    EXPECT_TRUE(lock.ok()) << lock.problem().message();
    EXPECT_FALSE(lock.timed_out());
    EXPECT_GE(waited, 300ms) << "it did not wait for the other thread";
    close(directory);
}

TEST(CacheLockContention, AnotherProcessHoldingItStillCostsABoundedWaitAndSaysProcessOrThread) {
    cache_test::TempDir dir;
    int directory = open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(directory, 0);
    int pipe_fds[2];
    ASSERT_EQ(pipe(pipe_fds), 0);
    pid_t other = fork();
    ASSERT_GE(other, 0);
    if (other == 0) {
        int fd = openat(directory, "lock", O_RDWR | O_CREAT, 0600);
        flock(fd, LOCK_EX);
        char ready = 1;
        (void)!write(pipe_fds[1], &ready, 1);
        sleep(5);
        _exit(0);
    }
    char ready = 0;
    ASSERT_EQ(read(pipe_fds[0], &ready, 1), 1);
    auto start = std::chrono::steady_clock::now();
    cuabi::cache::DirectoryLock lock(directory, dir.path(), 200);
    auto waited = std::chrono::steady_clock::now() - start;
    kill(other, SIGKILL);
    waitpid(other, nullptr, 0);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    close(directory);
    EXPECT_FALSE(lock.ok());
    EXPECT_TRUE(lock.timed_out());
    EXPECT_LT(waited, 3s);
    EXPECT_NE(lock.problem().message().find("another process or thread"), std::string::npos) << lock.problem().message();
    EXPECT_NE(lock.problem().message().find("CUABI_CACHE_LOCK_TIMEOUT_MS"), std::string::npos);
}
