#include "progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace cli {
namespace {

constexpr auto kQuietFor = std::chrono::seconds(1);  // a compile this short shows no line
constexpr auto kRedrawEvery = std::chrono::milliseconds(250);

}  // namespace

ProgressLine::ProgressLine(std::string what, size_t total, std::function<Progress()> read)
    : what_(std::move(what)), total_(total), read_(std::move(read)) {
    if (isatty(STDERR_FILENO) == 1) thread_ = std::thread([this] { loop(); });
}

ProgressLine::~ProgressLine() {
    if (!thread_.joinable()) return;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
    if (shown_) std::fprintf(stderr, "\r\033[K");
}

void ProgressLine::draw(double seconds) {
    if (total_ == 1) {
        std::fprintf(stderr, "\r\033[Kcuabi compile: %s ... %.1f s", what_.c_str(), seconds);
    } else {
        const Progress now = read_();
        std::fprintf(stderr, "\r\033[Kcuabi compile: %s: %zu of %zu done, %zu running ... %.1f s", what_.c_str(),
                     now.done, total_, now.running, seconds);
    }
    std::fflush(stderr);
    shown_ = true;
}

void ProgressLine::loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (wake_.wait_until(lock, start_ + kQuietFor, [this] { return stop_; })) return;
    do {
        draw(std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
    } while (!wake_.wait_for(lock, kRedrawEvery, [this] { return stop_; }));
}

}  // namespace cli
