// The compile worker under what hosts and machines do to it: a host killed mid-compile, workers
// killed or stopped while idle, a thread cancelled inside a compile, a follower with a shorter
// deadline or a stronger isolation than the compile it would join, a worker that lies, a
// relative worker path, malformed settings. Real workers, real NVRTC, real signals; each test
// bounded to seconds.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "cache_support/process.hpp"
#include "child_process.hpp"
#include "compile/compile_worker.hpp"
#include "compile/nvrtc_runner.hpp"
#include "cuabi/cuabi.h"
#include "worker_support/worker_processes.hpp"

using namespace std::chrono_literals;
using worker_test::gone;
using worker_test::opening_a_fifo;
using worker_test::wait_until;
using worker_test::workers_of;

extern char** environ;

namespace {

const char* const kGood = "extern \"C\" __global__ void good(int* p) { p[0] = 42; }\n";
const char* const kStuck = "#include \"stuck.h\"\nextern \"C\" __global__ void stuck(int* p) { p[0] = 1; }\n";

std::string message() { return cuabi_last_error_message(); }

struct Compile {
    const char* source = kGood;
    uint32_t flags = CUABI_COMPILE_NO_CACHE;
    uint32_t timeout_ms = 0;
    const char* include_dir = nullptr;
    uint64_t salt = 0;
};

cuabi_status compile(const Compile& request) {
    cuabi_compile_options options = CUABI_COMPILE_OPTIONS_INIT;
    options.target = "sm_90";
    options.flags = request.flags;
    options.timeout_ms = request.timeout_ms;
    const char* dirs[] = {request.include_dir};
    if (request.include_dir != nullptr) {
        options.include_dirs = dirs;
        options.include_dir_count = 1;
    }
    if (request.salt != 0) {
        options.salt = &request.salt;
        options.salt_size = sizeof request.salt;
    }
    cuabi_module* module = nullptr;
    cuabi_status status = cuabi_module_compile_offline(request.source, &options, &module);
    cuabi_module_destroy(module);
    return status;
}

uint64_t fresh_salt() {
    static std::atomic<uint64_t> next{static_cast<uint64_t>(getpid()) << 20};
    return ++next + static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
}

// A directory whose stuck.h is a FIFO: NVRTC opening it waits for a writer. release() gives every
// reader that has it open a one-line header and end of file, so nothing stays blocked.
class StuckHeader {
public:
    StuckHeader() {
        mkfifo((dir_ / "stuck.h").c_str(), 0600);
        signal(SIGPIPE, SIG_IGN);  // a reader that closes between our open and write: EPIPE, not death
    }
    ~StuckHeader() { release(); }
    const char* dir() const { return dir_.path().c_str(); }
    std::string path() const { return dir_ / "stuck.h"; }
    void release() {
        for (int i = 0; i < 50; ++i) {
            int fd = open(path().c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
            if (fd < 0) return;  // no reader left
            (void)!write(fd, "// released\n", 12);
            close(fd);
            std::this_thread::sleep_for(10ms);
        }
    }

private:
    cache_test::TempDir dir_;
};

// A cached compile of the stuck source (its own key), which waits for the header.
Compile stuck_compile(const StuckHeader& stuck, uint32_t flags, uint64_t salt, uint32_t timeout_ms) {
    Compile request;
    request.source = kStuck;
    request.flags = flags;
    request.include_dir = stuck.dir();
    request.salt = salt;
    request.timeout_ms = timeout_ms;
    return request;
}

// A compile on a thread of its own; join() before reading its result.
struct BackgroundCompile {
    explicit BackgroundCompile(const Compile& request)
        : thread([this, request] {
              status = compile(request);
              said = message();
          }) {}
    void join() { thread.join(); }
    cuabi_status status = CUABI_ERROR_INTERNAL;
    std::string said;
    std::thread thread;  // last: it starts once the fields above exist
};

// The worker of this process that is blocked on the FIFO, or -1 after `limit`.
pid_t worker_on_fifo(pid_t host, std::chrono::milliseconds limit) {
    pid_t found = -1;
    wait_until(
        [&] {
            for (pid_t pid : workers_of(host))
                if (opening_a_fifo(pid)) found = pid;
            return found > 0;
        },
        limit);
    return found;
}

// The helper program's "compile" run, which must itself end normally.
test_support::ChildResult run_host(const std::vector<std::string>& arguments,
                                   const std::vector<std::pair<std::string, std::string>>& environment) {
    std::vector<std::string> argv = {CUABI_WORKER_TEST_HOST};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    test_support::ChildResult result = test_support::run_child(argv, environment);
    EXPECT_EQ(result.exit_status, 0) << result.output;
    return result;
}

// Makes sure no test leaves a stopped worker behind (a stopped process cannot end on its own).
void continue_all(const std::vector<pid_t>& pids) {
    for (pid_t pid : pids) kill(pid, SIGCONT);
}

}  // namespace

TEST(WorkerFaults, AHostKilledMidCompileLeavesNoWorkerAndItsStderrPipeCloses) {
    StuckHeader stuck;
    cache_test::TempDir work;
    { std::ofstream(work / "stuck.cu") << kStuck; }
    int pipe_fds[2];
    ASSERT_EQ(pipe2(pipe_fds, O_CLOEXEC), 0);
    std::string cli = std::string(CUABI_TEST_BINARY_DIR) + "/../src/cli/cuabi", source = work / "stuck.cu",
                cache = "CUABI_CACHE_DIR=" + (work / "cache");
    std::vector<char*> argv = {&cli[0], const_cast<char*>("compile"), &source[0], const_cast<char*>("--arch"),
                               const_cast<char*>("sm_90"), const_cast<char*>("-I"), const_cast<char*>(stuck.dir()),
                               nullptr};
    std::vector<char*> env = {&cache[0]};
    for (char** entry = environ; *entry != nullptr; ++entry)
        if (std::strncmp(*entry, "CUABI_CACHE_DIR=", 16) != 0) env.push_back(*entry);
    env.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
    pid_t host = -1;
    ASSERT_EQ(posix_spawn(&host, cli.c_str(), &actions, nullptr, argv.data(), env.data()), 0);
    posix_spawn_file_actions_destroy(&actions);
    close(pipe_fds[1]);

    pid_t worker = worker_on_fifo(host, 30s);
    if (worker < 0) {
        kill(host, SIGKILL);
        waitpid(host, nullptr, 0);
        close(pipe_fds[0]);
        GTEST_SKIP() << "no worker of the host was seen opening the FIFO (/proc/PID/task/*/wchan unreadable?)";
    }
    ASSERT_EQ(kill(host, SIGKILL), 0);
    waitpid(host, nullptr, 0);
    auto killed = std::chrono::steady_clock::now();

    EXPECT_TRUE(wait_until([&] { return gone(worker); }, 3s)) << "worker " << worker << " outlived its host";
    struct pollfd pipe_end = {pipe_fds[0], POLLIN, 0};
    bool closed = false;
    char drain[4096];
    while (!closed && std::chrono::steady_clock::now() - killed < 3s) {
        if (poll(&pipe_end, 1, 100) > 0) closed = read(pipe_fds[0], drain, sizeof drain) == 0;
    }
    EXPECT_TRUE(closed) << "the host's stderr pipe stayed open after the host died";
    close(pipe_fds[0]);
    if (!gone(worker)) kill(worker, SIGKILL);  // the suite itself leaves no orphan
}

TEST(WorkerFaults, AnIdleWorkerKilledMeanwhileIsReplacedAndTheCompileSucceeds) {
    ASSERT_EQ(compile({}), CUABI_SUCCESS) << message();
    std::vector<pid_t> idle = workers_of(getpid());
    ASSERT_FALSE(idle.empty());
    for (pid_t pid : idle) kill(pid, SIGKILL);
    for (pid_t pid : idle) ASSERT_TRUE(wait_until([&] { return gone(pid); }, 3s));
    EXPECT_EQ(compile({}), CUABI_SUCCESS) << "NVRTC never saw this job: " << message();
    EXPECT_EQ(compile({}), CUABI_SUCCESS) << message();
}

TEST(WorkerFaults, AnIdleWorkerStoppedMeanwhileIsReplacedWithoutWaitingForTheDeadline) {
    ASSERT_EQ(compile({}), CUABI_SUCCESS) << message();
    std::vector<pid_t> idle = workers_of(getpid());
    ASSERT_FALSE(idle.empty());
    for (pid_t pid : idle) kill(pid, SIGSTOP);
    for (pid_t pid : idle) ASSERT_TRUE(wait_until([&] { return worker_test::process_state(pid) == 'T'; }, 3s));
    Compile request;
    request.timeout_ms = 20000;
    auto start = std::chrono::steady_clock::now();
    cuabi_status status = compile(request);
    auto took = std::chrono::steady_clock::now() - start;
    continue_all(idle);
    EXPECT_EQ(status, CUABI_SUCCESS) << message();
    EXPECT_LT(took, 10s) << "the compile waited on a stopped worker";
}

TEST(WorkerFaults, CancellingAThreadInsideACompileEndsOnlyThatThread) {
#if defined(__SANITIZE_ADDRESS__)
    // GCC 12's AddressSanitizer runtime fails its own stack check (asan_thread.cpp, via
    // __asan_handle_no_return and its sigaltstack interceptor) while glibc unwinds a cancelled
    // thread, and aborts the process. The plain and ThreadSanitizer builds run this test.
    GTEST_SKIP() << "AddressSanitizer's runtime aborts inside the forced unwinding of a cancelled thread";
#endif
    StuckHeader stuck;
    pthread_t thread;
    // Cached, so that the cancelled thread also leads a single-flight compile that must end.
    Compile job = stuck_compile(stuck, CUABI_COMPILE_DEFAULT, fresh_salt(), 30000);
    ASSERT_EQ(pthread_create(&thread, nullptr,
                             [](void* request) -> void* {
                                 compile(*static_cast<Compile*>(request));
                                 return nullptr;
                             },
                             &job),
              0);
    pid_t worker = worker_on_fifo(getpid(), 30s);
    if (worker < 0) {
        stuck.release();
        pthread_join(thread, nullptr);
        GTEST_SKIP() << "no worker was seen opening the FIFO (/proc/PID/task/*/wchan unreadable?)";
    }
    ASSERT_EQ(pthread_cancel(thread), 0);
    void* result = nullptr;
    ASSERT_EQ(pthread_join(thread, &result), 0);
    EXPECT_EQ(result, PTHREAD_CANCELED);
    EXPECT_TRUE(wait_until([&] { return gone(worker); }, 3s)) << "the cancelled compile's worker still runs";
    // Nothing stayed held: the pool, the flight of that request, the compile lock.
    EXPECT_EQ(compile({}), CUABI_SUCCESS) << message();
    EXPECT_EQ(compile(stuck_compile(stuck, CUABI_COMPILE_DEFAULT, job.salt, 300)), CUABI_ERROR_TIMEOUT) << message();
}

TEST(WorkerFaults, AFollowerReturnsAtItsOwnDeadline) {
    StuckHeader stuck;
    Compile leader = stuck_compile(stuck, CUABI_COMPILE_DEFAULT, fresh_salt(), 30000);
    BackgroundCompile first(leader);
    bool reached = worker_on_fifo(getpid(), 30s) > 0;
    Compile follower = leader;
    follower.timeout_ms = 1000;
    auto start = std::chrono::steady_clock::now();
    cuabi_status status = reached ? compile(follower) : CUABI_SUCCESS;
    auto took = std::chrono::steady_clock::now() - start;
    std::string said = message();
    stuck.release();
    first.join();
    if (!reached) GTEST_SKIP() << "no worker was seen opening the FIFO (/proc/PID/task/*/wchan unreadable?)";
    EXPECT_EQ(status, CUABI_ERROR_TIMEOUT) << said;
    EXPECT_LT(took, 5s);
    EXPECT_NE(said.find("another thread"), std::string::npos) << said;
    EXPECT_NE(said.find("1000 ms, cuabi_compile_options.timeout_ms"), std::string::npos) << said;
    // Released, the leader ends with NVRTC's own verdict on the header (NVRTC 13.0 calls a FIFO
    // missing), not with a deadline or an abandoned flight.
    EXPECT_NE(first.status, CUABI_ERROR_TIMEOUT) << first.said;
    EXPECT_NE(first.status, CUABI_ERROR_INTERNAL) << first.said;
}

TEST(WorkerFaults, AWorkerRequestNeverJoinsAnInProcessCompile) {
    StuckHeader stuck;
    Compile leader = stuck_compile(stuck, CUABI_COMPILE_IN_PROCESS, fresh_salt(), 0);
    BackgroundCompile first(leader);
    bool reached = wait_until([] { return opening_a_fifo(getpid()); }, 30s);
    Compile isolated = leader;
    isolated.flags = CUABI_COMPILE_ISOLATED;
    isolated.timeout_ms = 1500;
    std::atomic<bool> returned{false};
    // On a failure the isolated request would wait for the in-process compile: release it then.
    std::thread rescue([&] {
        wait_until([&] { return returned.load(); }, 15s);
        stuck.release();
    });
    auto start = std::chrono::steady_clock::now();
    cuabi_status status = reached ? compile(isolated) : CUABI_SUCCESS;
    auto took = std::chrono::steady_clock::now() - start;
    std::string said = message();
    returned = true;
    rescue.join();
    first.join();
    if (!reached) GTEST_SKIP() << "NVRTC was not seen opening the FIFO (/proc/self/task/*/wchan unreadable?)";
    EXPECT_LT(took, 10s) << "the isolated request waited for the in-process compile";
    EXPECT_EQ(status, CUABI_ERROR_TIMEOUT) << said;
    EXPECT_EQ(said.find("another thread"), std::string::npos) << said;
    EXPECT_NE(first.status, CUABI_ERROR_INTERNAL) << first.said;
}

// A stand-in worker (the helper program itself) that lies in each way; the host must stay small,
// stop it, and say what it saw.
TEST(WorkerFaults, AWorkerThatLiesCostsAClearStatusAndBoundedMemory) {
    // How it lies, and what the message must say it saw.
    const std::map<std::string, std::string> lies = {{"garbage", "claimed to be too large"},
                                                     {"hello-status", "status 999"},
                                                     {"huge", "exited with status 0"},
                                                     {"status", "status 999"}};
    for (const auto& [how, said] : lies) {
        SCOPED_TRACE(how);
        test_support::ChildResult result =
            run_host({"compile"}, {{"CUABI_COMPILE_WORKER", CUABI_WORKER_TEST_HOST}, {"CUABI_TEST_LIAR", how}});
        EXPECT_NE(result.output.find("status=CUABI_ERROR_NVRTC\n"), std::string::npos) << result.output;
        EXPECT_NE(result.output.find(said), std::string::npos) << result.output;
        EXPECT_NE(result.output.find(" Fix: "), std::string::npos) << result.output;
        size_t rss = result.output.find("max_rss_kb=");
        ASSERT_NE(rss, std::string::npos) << result.output;
        EXPECT_LT(std::stol(result.output.substr(rss + 11)), 256 * 1024) << "KiB: the host trusted a length";
    }
}

TEST(WorkerFaults, ARelativeWorkerPathIsResolvedOnceWhereItWasChecked) {
    std::string worker_dir = CUABI_TEST_WORKER;
    worker_dir.erase(worker_dir.rfind('/'));
    cache_test::TempDir elsewhere;
    // A script anyone may change, where the relative path would lead after chdir(): never run.
    std::string marker = elsewhere / "ran";
    {
        std::ofstream script(elsewhere / "cuabi-compile-worker");
        script << "#!/bin/sh\ntouch " << marker << "\nexit 1\n";
    }
    chmod((elsewhere / "cuabi-compile-worker").c_str(), 0777);
    test_support::ChildResult result = run_host({"relative", worker_dir, elsewhere.path()}, {});
    EXPECT_NE(result.output.find("status=CUABI_SUCCESS\n"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("checked=/"), std::string::npos) << "not resolved to an absolute path: " << result.output;
    EXPECT_NE(access(marker.c_str(), F_OK), 0) << "the unchecked file was run";
}

TEST(WorkerFaults, MalformedSettingsAreReportedOnceByTheFirstCompile) {
    struct Setting {
        const char* name;
        const char* value;
    } settings[] = {{"CUABI_COMPILE_WORKERS", "2abc"},
                    {"CUABI_COMPILE_WORKERS", "abc"},
                    {"CUABI_COMPILE_TIMEOUT_MS", "5s"},
                    {"CUABI_COMPILE_ISOLATION", "sandbox"}};
    for (const Setting& setting : settings) {
        SCOPED_TRACE(std::string(setting.name) + "=" + setting.value);
        test_support::ChildResult result = run_host({"compile", "2"}, {{setting.name, setting.value}});
        size_t first = result.output.find("status=CUABI_ERROR_INVALID_ARGUMENT\n");
        EXPECT_EQ(first, 0u) << result.output;
        EXPECT_NE(result.output.find(std::string(setting.name) + "='" + setting.value + "'"), std::string::npos)
            << result.output;
        EXPECT_NE(result.output.find("status=CUABI_SUCCESS\n", first + 1), std::string::npos)
            << "the second compile: " << result.output;
    }
}

TEST(WorkerFaults, ARefusedWorkerOverrideIsReportedNotSilentlyReplaced) {
    cache_test::TempDir dir;
    std::string planted = dir / "cuabi-compile-worker";
    { std::ofstream(planted) << "#!/bin/sh\nexit 1\n"; }
    chmod(planted.c_str(), 0777);
    test_support::ChildResult result = run_host({"compile", "2"}, {{"CUABI_COMPILE_WORKER", planted}});
    EXPECT_EQ(result.output.find("status=CUABI_ERROR_INVALID_ARGUMENT\n"), 0u) << result.output;
    EXPECT_NE(result.output.find("CUABI_COMPILE_WORKER is refused"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("may be changed by another user"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("status=CUABI_SUCCESS\n"), std::string::npos) << "then in this process: " << result.output;
}

TEST(WorkerFaults, TheDefaultDeadlineFitsHeavyCompilesAndIsNamedInMessages) {
    cuabi::Deadline deadline;
    ASSERT_EQ(cuabi::compile_deadline(cuabi::Isolation::Worker, 0, &deadline), CUABI_SUCCESS);
    if (std::getenv("CUABI_COMPILE_TIMEOUT_MS") == nullptr) {
        EXPECT_GE(deadline.ms, 600000u) << "a 1 MiB source takes over 100 s on a busy machine";
        EXPECT_NE(deadline.describe().find("the default"), std::string::npos) << deadline.describe();
    }
    ASSERT_EQ(cuabi::compile_deadline(cuabi::Isolation::Worker, 800, &deadline), CUABI_SUCCESS);
    EXPECT_EQ(deadline.describe(), "the compile's deadline (800 ms, cuabi_compile_options.timeout_ms)");
    ASSERT_EQ(cuabi::compile_deadline(cuabi::Isolation::InProcess, 800, &deadline), CUABI_SUCCESS);
    EXPECT_EQ(deadline.describe(), "no deadline") << "in-process compiles have none";
}

TEST(WorkerFaults, RelocatableDeviceCodeIsRefusedWithAFix) {
    auto compile_with = [](const char* flag) {
        const char* extra[] = {flag};
        cuabi_compile_options options = CUABI_COMPILE_OPTIONS_INIT;
        options.target = "sm_90";
        options.flags = CUABI_COMPILE_NO_CACHE;
        options.extra_flags = extra;
        options.extra_flag_count = 1;
        cuabi_module* module = nullptr;
        cuabi_status status = cuabi_module_compile_offline(kGood, &options, &module);
        EXPECT_EQ(module == nullptr, status != CUABI_SUCCESS);
        cuabi_module_destroy(module);
        return status;
    };
    for (const char* flag : {"-rdc=true", "--relocatable-device-code=true", "-rdc", "-dc", "--device-c"}) {
        EXPECT_EQ(compile_with(flag), CUABI_ERROR_INVALID_ARGUMENT) << flag;
        EXPECT_NE(message().find("relocatable device code"), std::string::npos) << message();
        EXPECT_NE(message().find(flag), std::string::npos) << message();
    }
    EXPECT_EQ(compile_with("-rdc=false"), CUABI_SUCCESS) << message();
}
