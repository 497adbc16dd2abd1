// Life after fork() (core/fork.hpp): the child of a process that used cuabi gets
// CUABI_ERROR_FORKED from every call that needs the GPU, NVRTC or a cache, promptly, even when
// another thread of the parent held a pin or the cache's lock at the moment of fork(); its
// destroys return; the parent carries on. A process that forks before using cuabi is unaffected.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "cache/directory_lock.hpp"
#include "child_process.hpp"
#include "core/handle_table.hpp"
#include "cuabi/cuabi.h"

namespace {

struct Probe final : cuabi::Object {
    static constexpr cuabi::HandleType kHandleType = cuabi::HandleType::Buffer;
};

// Runs `child` in a fork() child, which reports through a pipe; returns its report, or a line
// saying it hung (killed after `limit`) or died.
template <typename Child>
std::string in_forked_child(Child&& child, std::chrono::seconds limit = std::chrono::seconds(20)) {
    int fds[2];
    if (pipe(fds) != 0) return "pipe failed";
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        const std::string report = child();
        ssize_t written = write(fds[1], report.data(), report.size());
        _exit(written == static_cast<ssize_t>(report.size()) ? 0 : 1);
    }
    close(fds[1]);
    std::string report;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd readable{fds[0], POLLIN, 0};
        if (left.count() <= 0 || poll(&readable, 1, static_cast<int>(left.count())) <= 0) {
            kill(pid, SIGKILL);
            report += "\n(the child hung: killed)";
            break;
        }
        char chunk[4096];
        const ssize_t got = read(fds[0], chunk, sizeof chunk);
        if (got <= 0) break;
        report.append(chunk, static_cast<size_t>(got));
    }
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) report += "\n(the child did not exit cleanly)";
    return report;
}

// "<call>: <status name> <message>\n"
std::string outcome(const char* call, cuabi_status status) {
    return std::string(call) + ": " + cuabi_status_name(status) + " " +
           (status == CUABI_SUCCESS ? "" : cuabi_last_error_message()) + "\n";
}

TEST(Fork, TheChildOfAProcessThatUsedCuabiIsRefusedAndNeverWaitsForTheParentsThreads) {
    char directory[] = "/tmp/cuabi-fork-XXXXXX";
    ASSERT_NE(mkdtemp(directory), nullptr);
    setenv("CUABI_CACHE_DIR", directory, 1);

    cuabi_buffer* handle = nullptr;
    ASSERT_EQ(cuabi::publish(std::make_shared<Probe>(), &handle), CUABI_SUCCESS);
    // One thread holds a pin on the handle (as one inside a long cuabi_stream_synchronize does),
    // another the cache directory's lock, a third churns the handle table.
    std::atomic<bool> release{false}, pinned{false}, locked{false};
    std::thread pin_holder([&] {
        cuabi::Pinned<Probe> pin(handle, "buffer");
        pinned = pin.ok();
        while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    });
    std::thread lock_holder([&] {
        cuabi::cache::DirectoryLock lock(directory);
        locked = lock.ok();
        while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    });
    std::thread churner([&] {
        while (!release) {
            cuabi_range* range = nullptr;
            if (cuabi_range_start("churn", nullptr, &range) == CUABI_SUCCESS) cuabi_range_end(range);
        }
    });
    while (!pinned || !locked) std::this_thread::yield();

    const std::string report = in_forked_child([&] {
        std::string lines;
        cuabi::Pinned<Probe> pin(handle, "buffer");
        lines += outcome("pin", pin.ok() ? CUABI_SUCCESS : CUABI_ERROR_FORKED);
        lines += std::string("pin message: ") + cuabi_last_error_message() + "\n";
        cuabi_buffer_destroy(handle);  // pinned by a thread that does not exist here: must return
        lines += "destroy returned\n";
        uint64_t removed = 0;
        lines += outcome("cuabi_cache_prune", cuabi_cache_prune(0, &removed, &removed));
        cuabi_compile_options options;
        cuabi_compile_options_init(&options);
        options.target = "sm_90";
        cuabi_module* module = nullptr;
        lines += outcome("cuabi_module_compile_offline", cuabi_module_compile_offline("", &options, &module));
        int32_t count = 0;
        lines += outcome("cuabi_device_get_count", cuabi_device_get_count(&count));
        cuabi_range* range = nullptr;
        lines += outcome("cuabi_range_start", cuabi_range_start("in the child", nullptr, &range));
        lines += "version " + std::to_string(cuabi_version_number()) + "\n";
        return lines;
    });
    release = true;
    pin_holder.join();
    lock_holder.join();
    churner.join();

    EXPECT_EQ(report.find("hung"), std::string::npos) << report;
    EXPECT_EQ(report.find("did not exit"), std::string::npos) << report;
    EXPECT_NE(report.find("pin: CUABI_ERROR_FORKED"), std::string::npos) << report;
    EXPECT_NE(report.find("pin message: buffer (a cuabi buffer handle): this process is a fork() child"),
              std::string::npos)
        << report;
    EXPECT_NE(report.find("destroy returned"), std::string::npos) << report;
    for (const char* call :
         {"cuabi_cache_prune", "cuabi_module_compile_offline", "cuabi_device_get_count", "cuabi_range_start"})
        EXPECT_NE(report.find(std::string(call) + ": CUABI_ERROR_FORKED " + call + ": this process is a fork() child"),
                  std::string::npos)
            << call << "\n"
            << report;
    EXPECT_NE(report.find("Fix: use cuabi in the parent process only"), std::string::npos) << report;
    EXPECT_NE(report.find("version " + std::to_string(CUABI_VERSION_NUMBER)), std::string::npos) << report;

    // The parent is unaffected: its handle is still live and its threads' work went on.
    {
        cuabi::Pinned<Probe> still(handle, "buffer");
        EXPECT_TRUE(still.ok()) << cuabi_last_error_message();
    }
    cuabi_buffer_destroy(handle);
}

// Run in a process of its own (the test below starts one): forks before any cuabi call.
TEST(Fork, DISABLED_ChildOfAProcessThatHadNotUsedCuabi) {
    const std::string report = in_forked_child([] {
        cuabi_range* range = nullptr;
        std::string lines = outcome("cuabi_range_start", cuabi_range_start("in the child", nullptr, &range));
        if (range != nullptr) lines += outcome("cuabi_range_end", cuabi_range_end(range));
        return lines;
    });
    EXPECT_NE(report.find("cuabi_range_start: CUABI_SUCCESS"), std::string::npos) << report;
    EXPECT_NE(report.find("cuabi_range_end: CUABI_SUCCESS"), std::string::npos) << report;
}

TEST(Fork, AProcessThatForksBeforeUsingCuabiKeepsItInTheChild) {
    test_support::ChildResult result =
        test_support::run_child({"/proc/self/exe", "--gtest_also_run_disabled_tests",
                                 "--gtest_filter=Fork.DISABLED_ChildOfAProcessThatHadNotUsedCuabi"},
                                {});
    EXPECT_EQ(result.exit_status, 0) << result.output;
    EXPECT_NE(result.output.find("[  PASSED  ] 1 test"), std::string::npos) << result.output;
}

}  // namespace
