// A progress line on stderr for work that outlasts a second -- only when stderr is a terminal, so
// that output piped or redirected carries nothing extra. Redrawn in place and erased when done.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace cli {

// How far the work is, as the line shows it.
struct Progress {
    size_t running = 0;
    size_t done = 0;
};

class ProgressLine {
public:
    // `what` says what runs ("compiling k.cu for sm_90"), `total` how many items; `read` says how
    // far they are, called from the line's own thread at each redraw.
    ProgressLine(std::string what, size_t total, std::function<Progress()> read);
    ~ProgressLine();  // erases the line if it was shown
    ProgressLine(const ProgressLine&) = delete;
    ProgressLine& operator=(const ProgressLine&) = delete;

private:
    void draw(double seconds);
    void loop();

    std::string what_;
    size_t total_;
    std::function<Progress()> read_;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stop_ = false;
    bool shown_ = false;
    std::thread thread_;
};

}  // namespace cli
