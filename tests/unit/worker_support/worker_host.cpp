// A separate process for the compile worker tests: what cuabi reads once per process (where the
// worker is) needs a fresh process per scenario. Also a stand-in worker that lies.
//
//   worker_host compile [COUNT]
//       compiles a small kernel offline for sm_90 (no cache, default deadline) COUNT times (1);
//       prints "status=NAME" and "message=TEXT" for each, then "max_rss_kb=N" (the peak resident
//       memory of this process)
//   worker_host batch [COUNT]
//       twice: starts a batch of COUNT (1) such compiles and prints "start=NAME" with
//       "message=TEXT" when it failed, else "request=NAME" for each request in order
//   worker_host relative WORKER_DIR OTHER_DIR
//       with CUABI_COMPILE_WORKER=./cuabi-compile-worker and WORKER_DIR as the working directory,
//       lets cuabi find and check its worker, then moves to OTHER_DIR and compiles as above
//   worker_host --nvrtc PATH --parent PID      (as cuabi starts a worker, socket on descriptor 3)
//       a stand-in worker that lies as $CUABI_TEST_LIAR says: "garbage" (text instead of a
//       greeting), "hello-status" (a greeting with status 999), "huge" (a reply claiming 2 GiB,
//       then 1 MiB of it), "status" (a reply with status 999)
#include <poll.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "compile/compile_worker.hpp"
#include "compile/worker_protocol.hpp"
#include "cuabi/cuabi.h"

namespace {

constexpr int kSocket = 3;

void write_all(const void* data, size_t size) {
    const char* at = static_cast<const char*>(data);
    while (size > 0) {
        ssize_t sent = write(kSocket, at, size);
        if (sent <= 0) return;
        at += sent;
        size -= static_cast<size_t>(sent);
    }
}

void send(const std::vector<uint8_t>& frame) {
    cuabi::frames::send_frame(kSocket, frame, cuabi::frames::kNoDeadline);
}

// Until the host hangs up, at most 20 s: a liar never outlives its host.
void linger() {
    struct pollfd connection = {kSocket, 0, 0};
    poll(&connection, 1, 20000);
}

int lie(const char* how) {
    if (std::strcmp(how, "garbage") == 0) {
        write_all("hello world\n", 12);
        linger();
        return 0;
    }
    cuabi::worker::Hello hello;
    hello.facts.major = 12;
    hello.facts.minor = 8;
    hello.facts.supported_archs = {90};
    hello.facts.path = "/stand-in/libnvrtc.so";
    hello.facts.identity = 0x5717;
    if (std::strcmp(how, "hello-status") == 0) hello.status = static_cast<cuabi::Status>(999);
    send(cuabi::worker::encode(hello));
    std::vector<uint8_t> job;
    if (cuabi::frames::receive_frame(kSocket, &job, cuabi::frames::kNoDeadline, cuabi::frames::kMaxFrameBytes) !=
        cuabi::frames::Io::Ok)
        return 0;
    if (std::strcmp(how, "huge") == 0) {
        const uint8_t length[4] = {0xF0, 0xFF, 0xFF, 0x7F};
        write_all(length, sizeof length);
        std::vector<uint8_t> some(1 << 20, 0x5A);
        write_all(some.data(), some.size());
        return 0;
    }
    cuabi::worker::Outcome outcome;
    outcome.status = static_cast<cuabi::Status>(999);
    outcome.message = "a status no cuabi has";
    send(cuabi::worker::encode(outcome));
    linger();
    return 0;
}

int compile(int count) {
    for (int i = 0; i < count; ++i) {
        cuabi_compile_options options = CUABI_COMPILE_OPTIONS_INIT;
        options.target = "sm_90";
        options.flags = CUABI_COMPILE_NO_CACHE;
        cuabi_module* module = nullptr;
        cuabi_status status =
            cuabi_module_compile_offline("extern \"C\" __global__ void k(int* p) { p[0] = 1; }\n", &options, &module);
        cuabi_module_destroy(module);
        std::printf("status=%s\nmessage=%s\n", cuabi_status_name(status),
                    status == CUABI_SUCCESS ? "" : cuabi_last_error_message());
    }
    struct rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    std::printf("max_rss_kb=%ld\n", usage.ru_maxrss);
    return 0;
}

int batch(int count) {
    for (int round = 0; round < 2; ++round) {
        cuabi_compile_options options = CUABI_COMPILE_OPTIONS_INIT;
        options.target = "sm_90";
        options.flags = CUABI_COMPILE_NO_CACHE;
        std::vector<cuabi_compile_request> requests(static_cast<size_t>(count));
        for (cuabi_compile_request& request : requests) {
            request.source = "extern \"C\" __global__ void k(int* p) { p[0] = 1; }\n";
            request.options = &options;
        }
        cuabi_compile_batch* started = nullptr;
        cuabi_status status = cuabi_compile_batch_start(requests.data(), requests.size(), 0, &started);
        std::printf("start=%s\n", cuabi_status_name(status));
        if (status != CUABI_SUCCESS) std::printf("message=%s\n", cuabi_last_error_message());
        for (size_t i = 0; status == CUABI_SUCCESS && i < requests.size(); ++i) {
            cuabi_module* module = nullptr;
            std::printf("request=%s\n", cuabi_status_name(cuabi_compile_batch_get_module(started, i, &module)));
            cuabi_module_destroy(module);
        }
        cuabi_compile_batch_destroy(started);
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc >= 2 && std::strcmp(argv[1], "--nvrtc") == 0) {
        const char* how = std::getenv("CUABI_TEST_LIAR");
        return lie(how != nullptr ? how : "");
    }
    if (argc >= 2 && argc <= 3 && std::strcmp(argv[1], "compile") == 0) return compile(argc == 3 ? std::atoi(argv[2]) : 1);
    if (argc >= 2 && argc <= 3 && std::strcmp(argv[1], "batch") == 0) return batch(argc == 3 ? std::atoi(argv[2]) : 1);
    if (argc == 4 && std::strcmp(argv[1], "relative") == 0) {
        if (chdir(argv[2]) != 0) return 2;
        setenv("CUABI_COMPILE_WORKER", "./cuabi-compile-worker", 1);
        std::string why;
        std::string found = cuabi::compile_worker_path(&why);
        std::printf("checked=%s%s\n", found.c_str(), why.c_str());
        if (chdir(argv[3]) != 0) return 2;
        return compile(1);
    }
    std::fprintf(stderr, "usage: see worker_host.cpp\n");
    return 2;
}
