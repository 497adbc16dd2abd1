#include "compile/request_memo.hpp"

#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <tuple>

#include "device/context.hpp"

namespace cuabi {
namespace request_memo {
namespace {

// Every string of `options` in one fixed order (NULL included: an absent program name and an
// empty one are different requests); `visit` returns false to stop. False, without a visit, for a
// NULL array with a non-zero count: find() sees options before they are checked (a hit needs no
// check), and a remembered request, checked when it was made, has none.
template <typename Visit>
bool for_each_string(const CompileOptions& options, Visit visit) {
    // Called once per array rather than looping over a table of them: most are empty, and each
    // then costs a test of its count on the hit path.
    auto visit_array = [&visit](const char* const* items, size_t count) {
        if (count == 0) return true;
        if (items == nullptr) return false;
        for (size_t i = 0; i < count; ++i)
            if (!visit(items[i])) return false;
        return true;
    };
    return visit(options.target) && visit(options.cpp_standard) && visit(options.program_name) &&
           visit_array(options.defines, options.define_count) &&
           visit_array(options.include_dirs, options.include_dir_count) &&
           visit_array(options.header_names, options.header_count) &&
           visit_array(options.header_sources, options.header_count) &&
           visit_array(options.name_expressions, options.name_expression_count) &&
           visit_array(options.extra_flags, options.extra_flag_count);
}

// The options' scalars, compared as a whole; the strings they count are compared by content.
auto scalars_of(const CompileOptions& o) {
    return std::make_tuple(o.flags, o.fast_math, o.max_registers, o.line_info, o.device_debug, o.timeout_ms, o.ftz,
                           o.prec_div, o.prec_sqrt, o.fmad, o.define_count, o.include_dir_count, o.header_count,
                           o.name_expression_count, o.extra_flag_count, o.salt_size);
}
using Scalars = decltype(scalars_of(CompileOptions{}));

// One remembered request, immutable once made: shared by the threads that remember it.
struct Entry {
    Scalars scalars;
    bool offline = true;
    int32_t device_major = 0, device_minor = 0;
    uint64_t nvrtc_identity = 0;
    const void* nvrtc_facts = nullptr;
    std::string source;
    // The option strings in for_each_string's order, each as a presence byte, then (when present)
    // its length (size_t, native order) and bytes; then the salt's bytes.
    std::string strings;
    Target target;
    cache::Key key;
};

using EntryRef = std::shared_ptr<const Entry>;

// A thread's recent requests: read and written by that thread only, so a hit takes no lock.
struct ThreadMemo {
    EntryRef entries[kEntries];
    uint64_t last_use[kEntries] = {};
    uint64_t clock = 0;

    void put(EntryRef entry) {
        size_t oldest = 0;
        for (size_t i = 0; i < kEntries; ++i)
            if (!entries[i] || last_use[i] < last_use[oldest]) oldest = i;
        entries[oldest] = std::move(entry);
        last_use[oldest] = ++clock;
    }
};

// The process's recent requests, so that a thread's first compile of a request another thread
// made finds it too (a thread pool's new worker, say). Looked at only when the thread's own memo
// misses; replaced round robin.
struct SharedMemo {
    std::mutex mutex;
    EntryRef entries[kSharedEntries];
    size_t next = 0;
};

ThreadMemo& this_thread() {
    thread_local ThreadMemo memo;
    return memo;
}

SharedMemo& shared() {
    static SharedMemo* memo = new SharedMemo();  // never destroyed: compiles may run at exit
    return *memo;
}

bool same_circumstances(const Entry& entry, const Scalars& scalars, const Circumstances& now) {
    if (entry.scalars != scalars || entry.nvrtc_identity != now.nvrtc_identity ||
        entry.nvrtc_facts != now.nvrtc_facts || entry.offline != (now.device == nullptr))
        return false;
    return now.device == nullptr || (entry.device_major == now.device->compute_capability_major &&
                                     entry.device_minor == now.device->compute_capability_minor);
}

// Whether the caller's strings are those remembered in `stored`. A caller's string is read only
// up to its terminator: strncmp stops there, and a remembered string holds no NUL. Safe on
// unchecked options: a NULL string where the remembered request had one (array entries always)
// and a NULL salt with a size differ from every remembered request.
bool same_strings(const std::string& stored, const CompileOptions& options) {
    const char* at = stored.data();
    const char* end = at + stored.size();
    bool same = for_each_string(options, [&](const char* text) {
        if (at == end || (*at++ != 0) != (text != nullptr)) return false;
        if (text == nullptr) return true;
        size_t length = 0;
        if (static_cast<size_t>(end - at) < sizeof length) return false;
        std::memcpy(&length, at, sizeof length);
        at += sizeof length;
        if (static_cast<size_t>(end - at) < length || std::strncmp(text, at, length) != 0 || text[length] != '\0')
            return false;
        at += length;
        return true;
    });
    if (!same || static_cast<size_t>(end - at) != options.salt_size) return false;
    if (options.salt_size == 0) return true;
    return options.salt != nullptr && std::memcmp(at, options.salt, options.salt_size) == 0;
}

// The serialization same_strings() compares with; false when it would pass kMaxRememberedBytes.
bool serialize_strings(const CompileOptions& options, size_t budget, std::string* out) {
    out->clear();
    bool fits = for_each_string(options, [&](const char* text) {
        out->push_back(text != nullptr ? 1 : 0);
        if (text == nullptr) return true;
        size_t length = std::strlen(text);
        if (length > budget || out->size() + sizeof length + length > budget) return false;
        out->append(reinterpret_cast<const char*>(&length), sizeof length);
        out->append(text, length);
        return true;
    });
    if (!fits || out->size() + options.salt_size > budget) return false;
    if (options.salt_size != 0) out->append(static_cast<const char*>(options.salt), options.salt_size);
    return true;
}

// Whether `entry` is the request: its source, options and circumstances.
bool matches(const Entry& entry, const char* source, const CompileOptions& options, const Scalars& scalars,
             const Circumstances& circumstances) {
    // strncmp stops at the caller's terminator, and a remembered source holds no NUL.
    const size_t size = entry.source.size();
    return same_circumstances(entry, scalars, circumstances) && std::strncmp(source, entry.source.data(), size) == 0 &&
           source[size] == '\0' && same_strings(entry.strings, options);
}

void answer(const Entry& entry, const char* source, std::string_view* out_source, Target* out_target,
            cache::Key* out_key) {
    *out_source = std::string_view(source, entry.source.size());
    *out_target = entry.target;
    *out_key = entry.key;
}

}  // namespace

bool find(const char* source, const CompileOptions& options, const Circumstances& circumstances,
          std::string_view* out_source, Target* out_target, cache::Key* out_key) {
    ThreadMemo& memo = this_thread();
    const Scalars scalars = scalars_of(options);
    for (size_t i = 0; i < kEntries; ++i) {
        const EntryRef& entry = memo.entries[i];
        if (!entry || !matches(*entry, source, options, scalars, circumstances)) continue;
        memo.last_use[i] = ++memo.clock;
        answer(*entry, source, out_source, out_target, out_key);
        return true;
    }
    EntryRef found;
    {
        SharedMemo& process = shared();
        std::lock_guard<std::mutex> lock(process.mutex);
        for (const EntryRef& entry : process.entries)
            if (entry && matches(*entry, source, options, scalars, circumstances)) {
                found = entry;
                break;
            }
    }
    if (!found) return false;
    memo.put(found);
    answer(*found, source, out_source, out_target, out_key);
    return true;
}

void remember(std::string_view source, const CompileOptions& options, const Circumstances& circumstances,
              const Target& target, const cache::Key& key) noexcept {
    if (source.size() >= kMaxRememberedBytes) return;
    EntryRef remembered;
    try {
        auto entry = std::make_shared<Entry>();
        if (!serialize_strings(options, kMaxRememberedBytes - source.size(), &entry->strings)) return;
        entry->source.assign(source.data(), source.size());
        entry->scalars = scalars_of(options);
        entry->offline = circumstances.device == nullptr;
        entry->device_major = entry->offline ? 0 : circumstances.device->compute_capability_major;
        entry->device_minor = entry->offline ? 0 : circumstances.device->compute_capability_minor;
        entry->nvrtc_identity = circumstances.nvrtc_identity;
        entry->nvrtc_facts = circumstances.nvrtc_facts;
        entry->target = target;
        entry->key = key;
        remembered = std::move(entry);
    } catch (const std::bad_alloc&) {
        return;  // not remembered: the next compile of the request keys it again
    }
    this_thread().put(remembered);
    SharedMemo& process = shared();
    std::lock_guard<std::mutex> lock(process.mutex);
    process.entries[process.next] = std::move(remembered);
    process.next = (process.next + 1) % kSharedEntries;
}

}  // namespace request_memo
}  // namespace cuabi
