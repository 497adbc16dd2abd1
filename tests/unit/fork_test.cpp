// Life after fork() (core/fork.hpp): the child of a process that used cuabi gets
// CUABI_ERROR_FORKED from every call that needs the GPU, NVRTC or a cache, promptly, even when
// another thread of the parent held a pin or the cache's lock at the moment of fork(); its
// destroys return; the parent carries on. A process that forks before using cuabi is unaffected.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "cache/directory_lock.hpp"
#include "child_process.hpp"
#include "core/handle_table.hpp"
#include "cuabi/cuabi.h"
#include "forked_child.hpp"

namespace {

struct Probe final : cuabi::Object {
    static constexpr cuabi::HandleType kHandleType = cuabi::HandleType::Buffer;
};

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

    const std::string report = test_support::in_forked_child([&] {
        std::string lines;
        cuabi::Pinned<Probe> pin(handle, "buffer");
        lines += outcome("pin", pin.ok() ? CUABI_SUCCESS : CUABI_ERROR_FORKED);
        lines += std::string("pin message: ") + cuabi_last_error_message() + "\n";
        cuabi_buffer_destroy(handle);  // pinned by a thread that does not exist here: must return
        lines += "destroy returned\n";
        uint64_t removed = 0;
        lines += outcome("cuabi_cache_prune", cuabi_cache_prune(0, &removed, &removed));
        cuabi_compile_options options;
        cuabi_compile_options_init(sizeof options, &options);
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
    const std::string report = test_support::in_forked_child([] {
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
