#include "driver/driver_log.hpp"

#include <pthread.h>

#include <cctype>
#include <mutex>
#include <new>

#include "core/fork.hpp"

namespace cuabi {
namespace driver_log {
namespace {

// Lines read but not quoted are kept (newest last, at most this many bytes): when two threads fail
// at once, the first to read takes the other's line out of the driver's ring too.
constexpr size_t kBacklogLimit = 4096;
// The driver keeps at most 25600 bytes of log; more than this since the last read is rare, and the
// driver then keeps the newest lines, which are the ones wanted.
constexpr size_t kDumpLimit = 8192;
// cuLogsDumpToMemory (driver 580) can write past the size it is given when more log is waiting
// than fits: under AddressSanitizer a read after a run of failing image loads wrote beyond an
// 8192-byte buffer. The buffer therefore extends past what the driver is told by at least the
// whole log it can hold, so an overrun lands in bytes that are never read.
constexpr size_t kDriverOverrunSlack = 25600 + 4096;

struct Reader {
    std::mutex mutex;
    const DriverApi* api = nullptr;
    CUlogIterator next = 0;  // where the next read starts
    std::string backlog;
};

// Made by attach(), never destroyed: failures may be recorded while the process exits.
Reader* reader_instance = nullptr;

bool is_identifier(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// "cuMemAlloc_v2" -> "cuMemAlloc": messages name entry points without their ABI suffix.
std::string_view without_version(std::string_view entry) {
    size_t cut = entry.rfind("_v");
    if (cut == std::string_view::npos || cut + 2 == entry.size()) return entry;
    for (size_t i = cut + 2; i < entry.size(); ++i)
        if (!std::isdigit(static_cast<unsigned char>(entry[i]))) return entry;
    return entry.substr(0, cut);
}

// Whether `what` names `entry` as a whole word (or the line names no entry point).
bool names(std::string_view what, std::string_view entry) {
    if (entry.empty()) return true;
    const std::string_view name = without_version(entry);
    for (size_t at = what.find(name); at != std::string_view::npos; at = what.find(name, at + 1)) {
        const size_t end = at + name.size();
        if ((at == 0 || !is_identifier(what[at - 1])) && (end == what.size() || !is_identifier(what[end])))
            return true;
    }
    return false;
}

struct Span {
    size_t begin = 0, length = 0;
    bool found = false;
};

// The chosen line within `lines` (fresh lines start at `fresh_begin`), as choose() describes.
Span choose_span(std::string_view what, std::string_view lines, size_t fresh_begin, uint64_t thread_id) {
    Span by_thread, in_fresh;
    size_t begin = 0;
    while (begin < lines.size()) {
        size_t end = lines.find('\n', begin);
        if (end == std::string_view::npos) end = lines.size();
        const std::string_view text = lines.substr(begin, end - begin);
        const Line line = parse_line(text);
        if (!text.empty() && names(what, line.entry_point)) {
            const Span span{begin, text.size(), true};
            if (line.thread_id != 0 && line.thread_id == thread_id) by_thread = span;
            if (begin >= fresh_begin) in_fresh = span;
        }
        begin = end + 1;
    }
    return by_thread.found ? by_thread : in_fresh;
}

std::string quote(std::string_view whole) {
    const Line line = parse_line(whole);
    std::string text = line.entry_point.empty() || line.text.find(line.entry_point) != std::string_view::npos
                           ? std::string(line.text)
                           : "[" + std::string(line.entry_point) + "] " + std::string(line.text);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    return bounded(text.c_str(), kQuoteLimit);
}

// The driver logs a thread as its pthread_t, printed as a number.
uint64_t this_thread_id() { return static_cast<uint64_t>(pthread_self()); }

// The reader fail_with_cu_result() calls (core/error.hpp). Never records a failure of its own.
std::string read_for_failure(int32_t cu_result, const std::string& what) {
    // NOT_READY answers a query (an event or stream still running); nothing failed.
    if (cu_result == CUDA_ERROR_NOT_READY || fork_state::forked_child()) return std::string();
    Reader& state = *reader_instance;  // installed only once made
    std::lock_guard<std::mutex> lock(state.mutex);
    std::string lines = state.backlog;
    const size_t fresh_begin = lines.size();
    std::string dump(kDumpLimit + kDriverOverrunSlack, '\0');
    size_t size = kDumpLimit;
    if (state.api->cuLogsDumpToMemory(&state.next, &dump[0], &size, 0) == CUDA_SUCCESS && size > 0) {
        dump.resize(size < kDumpLimit ? size : kDumpLimit - 1);
        lines += dump;
        if (lines.back() != '\n') lines += '\n';
    }
    const Span chosen = choose_span(what, lines, fresh_begin, this_thread_id());
    std::string result;
    if (chosen.found) {
        result = quote(std::string_view(lines).substr(chosen.begin, chosen.length));
        lines.erase(chosen.begin, chosen.length + 1);  // quoted once, never again
    }
    if (lines.size() > kBacklogLimit) {
        size_t keep_from = lines.find('\n', lines.size() - kBacklogLimit);
        lines.erase(0, keep_from == std::string::npos ? lines.size() : keep_from + 1);
    }
    state.backlog.swap(lines);
    return result;
}

}  // namespace

Line parse_line(std::string_view text) {
    Line line;
    line.whole = text;
    // Bracketed fields: time, thread id, source, severity, and in some lines the entry point.
    std::string_view fields[5];
    size_t count = 0, at = 0;
    while (count < 5 && at < text.size() && text[at] == '[') {
        const size_t close = text.find(']', at);
        if (close == std::string_view::npos) break;
        fields[count++] = text.substr(at + 1, close - at - 1);
        at = close + 1;
    }
    if (count < 4) {
        line.text = text;
        return line;
    }
    uint64_t id = 0;
    for (char c : fields[1]) {
        if (!std::isdigit(static_cast<unsigned char>(c))) {
            id = 0;
            break;
        }
        id = id * 10 + static_cast<uint64_t>(c - '0');
    }
    line.thread_id = id;
    while (at < text.size() && text[at] == ' ') ++at;
    line.text = text.substr(at);
    if (count == 5) {
        line.entry_point = fields[4];
    } else {
        // "Returning 2 (CUDA_ERROR_OUT_OF_MEMORY) from cuMemAlloc_v2": the entry point ends the text.
        const size_t from = line.text.rfind(" from cu");
        if (from != std::string_view::npos) {
            std::string_view name = line.text.substr(from + 6);
            size_t end = 0;
            while (end < name.size() && is_identifier(name[end])) ++end;
            line.entry_point = name.substr(0, end);
        }
    }
    return line;
}

std::string choose(std::string_view what, std::string_view earlier, std::string_view fresh, uint64_t thread_id) {
    std::string lines(earlier);
    if (!lines.empty() && lines.back() != '\n') lines += '\n';
    const size_t fresh_begin = lines.size();
    lines += fresh;
    const Span chosen = choose_span(what, lines, fresh_begin, thread_id);
    return chosen.found ? quote(std::string_view(lines).substr(chosen.begin, chosen.length)) : std::string();
}

void attach(const DriverApi& api) noexcept {
    if (api.cuLogsCurrent == nullptr || api.cuLogsDumpToMemory == nullptr) return;
    Reader* state = new (std::nothrow) Reader();
    if (state == nullptr) return;  // messages go without the log
    if (api.cuLogsCurrent(&state->next, 0) != CUDA_SUCCESS) {
        delete state;
        return;
    }
    state->api = &api;
    reader_instance = state;
    install_driver_log_reader(&read_for_failure);
}

}  // namespace driver_log
}  // namespace cuabi
