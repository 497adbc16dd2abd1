// A progress line on stderr for work that outlasts a second -- only when stderr is a terminal, so
// that output piped or redirected carries nothing extra. Redrawn in place and erased when done.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>

namespace cli {

class ProgressLine {
public:
    // `what` says what runs ("compiling k.cu for sm_90"), `total` how many items.
    ProgressLine(std::string what, size_t total);
    ~ProgressLine();  // erases the line if it was shown
    ProgressLine(const ProgressLine&) = delete;
    ProgressLine& operator=(const ProgressLine&) = delete;

    void started() { running_.fetch_add(1); }
    void finished() {
        running_.fetch_sub(1);
        done_.fetch_add(1);
    }

private:
    void draw(double seconds);
    void loop();

    std::string what_;
    size_t total_;
    std::atomic<size_t> running_{0}, done_{0};
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stop_ = false;
    bool shown_ = false;
    std::thread thread_;
};

}  // namespace cli
