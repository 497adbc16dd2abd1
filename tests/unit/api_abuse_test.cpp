// Every exported function, called as a hostile or careless caller would: with NULL everywhere,
// made-up handles ((void*)1, 0xdeadbeef, a forged handle of the right type), destroyed handles,
// handles of another type, the extreme value of every integer (SIZE_MAX, INT32_MIN, ...),
// uninitialized structs (struct_size 0xA5A5A5A5) and megabyte-long strings.
//
// The functions come from cuabi.h through the table cuabi_get_proc_address serves
// (cuabi_proc_table.inc, generated from the header at build time), and each one's arguments are
// made from its own parameter types: a function added to the header is called here without
// editing this file.
//
// Each call must return (no crash; the ASan/UBSan build runs this too). A call that fails returns
// a known status with a fresh message that ends in a fix and quotes no caller text unbounded; a
// call that cannot report (destroys, inits, getters) leaves the thread's last error as it was.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "core/handle_table.hpp"
#include "cuabi/cuabi.h"

namespace {

using cuabi::HandleType;

enum class Abuse { Null, One, Deadbeef, Forged, Destroyed, WrongType, Extremes, GarbageStructs, LongText };

const char* abuse_name(Abuse abuse) {
    switch (abuse) {
        case Abuse::Null:
            return "NULL everywhere";
        case Abuse::One:
            return "handles (void*)1";
        case Abuse::Deadbeef:
            return "handles 0xdeadbeef";
        case Abuse::Forged:
            return "forged handles of the right type";
        case Abuse::Destroyed:
            return "destroyed handles";
        case Abuse::WrongType:
            return "handles of another type";
        case Abuse::Extremes:
            return "extreme integers";
        case Abuse::GarbageStructs:
            return "uninitialized structs";
        case Abuse::LongText:
            return "megabyte strings";
    }
    return "?";
}

template <typename T>
struct HandleTypeOf {
    static constexpr bool kIsHandle = false;
};
#define CUABI_HANDLE(public_type, internal)                       \
    template <>                                                   \
    struct HandleTypeOf<public_type> {                            \
        static constexpr bool kIsHandle = true;                   \
        static constexpr HandleType kType = HandleType::internal; \
    };
CUABI_HANDLE(cuabi_context, Context)
CUABI_HANDLE(cuabi_stream, Stream)
CUABI_HANDLE(cuabi_event, Event)
CUABI_HANDLE(cuabi_buffer, Buffer)
CUABI_HANDLE(cuabi_module, Module)
CUABI_HANDLE(cuabi_kernel, Kernel)
CUABI_HANDLE(cuabi_graph, Graph)
CUABI_HANDLE(cuabi_range, Range)
#undef CUABI_HANDLE

// Releases a handle a call created (when the call succeeded with made-up input).
void release(cuabi_context* h) { cuabi_context_destroy(h); }
void release(cuabi_stream* h) { cuabi_stream_destroy(h); }
void release(cuabi_event* h) { cuabi_event_destroy(h); }
void release(cuabi_buffer* h) { cuabi_buffer_destroy(h); }
void release(cuabi_module* h) { cuabi_module_destroy(h); }
void release(cuabi_kernel* h) { cuabi_kernel_destroy(h); }
void release(cuabi_graph* h) { cuabi_graph_destroy(h); }
void release(cuabi_range* h) { cuabi_range_end(h); }

template <typename T, typename = void>
struct HasStructSize : std::false_type {};
template <typename T>
struct HasStructSize<T, std::void_t<decltype(std::declval<T&>().struct_size)>> : std::true_type {};

struct Probe final : cuabi::Object {};

// Handles that are not live: destroyed ones of every type, and a live handle (a range) to pass
// where another type is expected.
class Handles {
public:
    Handles() {
        for (int type = 1; type <= 8; ++type) {
            uint64_t bits = 0;
            EXPECT_EQ(
                cuabi::HandleTable::instance().insert(static_cast<HandleType>(type), std::make_shared<Probe>(), &bits),
                CUABI_SUCCESS);
            cuabi::HandleTable::instance().remove(bits, static_cast<HandleType>(type), nullptr);
            destroyed_[type] = bits;
        }
        EXPECT_EQ(cuabi_range_start("abuse: the live handle of another type", nullptr, &live_range_), CUABI_SUCCESS);
        // For range parameters: a live handle of another type (its object is never reached).
        EXPECT_EQ(cuabi::HandleTable::instance().insert(HandleType::Buffer, std::make_shared<Probe>(), &live_other_),
                  CUABI_SUCCESS);
    }
    ~Handles() {
        cuabi_range_end(live_range_);
        cuabi::HandleTable::instance().remove(live_other_, HandleType::Buffer, nullptr);
    }
    uint64_t destroyed(HandleType type) const { return destroyed_[static_cast<int>(type)]; }
    uint64_t wrong_type(HandleType type) const {
        return type == HandleType::Range ? live_other_ : reinterpret_cast<uint64_t>(live_range_);
    }

private:
    uint64_t destroyed_[9] = {};
    cuabi_range* live_range_ = nullptr;
    uint64_t live_other_ = 0;
};

// The arguments of one call, made from the parameter types.
class Call {
public:
    Call(Abuse abuse, const Handles& handles) : abuse_(abuse), handles_(handles) {}

    template <typename T>
    T arg() {
        if constexpr (std::is_pointer<T>::value) {
            using Pointee = std::remove_cv_t<std::remove_pointer_t<T>>;
            if constexpr (HandleTypeOf<Pointee>::kIsHandle)
                return reinterpret_cast<T>(handle(HandleTypeOf<Pointee>::kType));
            else
                return static_cast<T>(pointer<Pointee>());
        } else {
            static_assert(std::is_integral<T>::value, "a parameter type this test does not know");
            if (abuse_ != Abuse::Extremes) return T{0};
            return std::is_signed<T>::value ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max();
        }
    }

    // After the call: releases handles it created in out-parameters.
    void release_created() {
        for (auto& cleanup : cleanups_) cleanup();
    }

private:
    uint64_t handle(HandleType type) const {
        switch (abuse_) {
            case Abuse::Null:
                return 0;
            case Abuse::One:
                return 1;
            case Abuse::Deadbeef:
                return 0xdeadbeef;
            case Abuse::Forged:
                return (static_cast<uint64_t>(type) << 56) | (uint64_t{0x12345679} << 24) | 0xABCDEFu;
            case Abuse::WrongType:
                return handles_.wrong_type(type);
            default:
                return handles_.destroyed(type);
        }
    }

    // Storage for one pointer parameter: zeroed, large enough for any struct or two-call result
    // at capacity 0 (or, for megabyte strings, the string and its terminator).
    void* storage() {
        blocks_.emplace_back(abuse_ == Abuse::LongText ? kLongText + 1 : kBlock, 0);
        return blocks_.back().data();
    }

    template <typename Pointee>
    void* pointer() {
        if (abuse_ == Abuse::Null || abuse_ == Abuse::Extremes) return nullptr;
        void* memory = storage();
        if constexpr (HasStructSize<Pointee>::value) {
            // A struct: uninitialized (0xA5 everywhere), or a zeroed one of this header's size.
            if (abuse_ == Abuse::GarbageStructs)
                std::memset(memory, 0xA5, blocks_.back().size());
            else
                static_cast<Pointee*>(memory)->struct_size = sizeof(Pointee);
        } else if constexpr (std::is_same<Pointee, char>::value) {
            if (abuse_ == Abuse::LongText) std::memset(memory, 'x', kLongText);
        } else if constexpr (std::is_pointer<Pointee>::value) {
            using Target = std::remove_cv_t<std::remove_pointer_t<Pointee>>;
            if constexpr (HandleTypeOf<Target>::kIsHandle) {  // an out-handle: release what it receives
                Pointee* slot = static_cast<Pointee*>(memory);
                cleanups_.push_back([slot] {
                    if (*slot != nullptr) release(*slot);
                });
            }
        }
        return memory;
    }

    static constexpr size_t kBlock = 64 * 1024, kLongText = 1 << 20;
    Abuse abuse_;
    const Handles& handles_;
    std::vector<std::vector<unsigned char>> blocks_;
    std::vector<std::function<void()>> cleanups_;
};

enum class Kind { Status, Silent };
struct Outcome {
    Kind kind;
    cuabi_status status = CUABI_SUCCESS;
};

template <typename R, typename... A>
Outcome invoke(R (*function)(A...), Call& call) {
    if constexpr (std::is_same<R, cuabi_status>::value) {
        Outcome outcome{Kind::Status, function(call.arg<A>()...)};
        return outcome;
    } else {
        function(call.arg<A>()...);
        return Outcome{Kind::Silent};
    }
}

struct Entry {
    const char* name;
    Outcome (*call)(Call&);
};

const Entry kEntries[] = {
#define CUABI_PROC(name) {#name, [](Call& call) { return invoke(&name, call); }},
#include "cuabi_proc_table.inc"
#undef CUABI_PROC
};

constexpr size_t kMessageLimit = 4096;

class ApiAbuse : public ::testing::TestWithParam<Abuse> {
protected:
    static void SetUpTestSuite() {
        // Calls like cuabi_cache_clear() really run: keep them off the user's cache.
        static char directory[] = "/tmp/cuabi-abuse-XXXXXX";
        if (mkdtemp(directory) != nullptr) setenv("CUABI_CACHE_DIR", directory, 1);
    }
};

TEST_P(ApiAbuse, EveryFunctionReturnsAStatusAndAMessageThatEndsInAFix) {
    const Abuse abuse = GetParam();
    Handles handles;
    int calls = 0;
    for (const Entry& entry : kEntries) {
        SCOPED_TRACE(std::string(entry.name) + " with " + abuse_name(abuse));
        cuabi::fail(CUABI_ERROR_INTERNAL, "the sentinel's fix", "sentinel %d", calls);
        const std::string sentinel = cuabi_last_error_message();
        Call call(abuse, handles);
        const Outcome outcome = entry.call(call);
        ++calls;
        const std::string message = cuabi_last_error_message();
        if (outcome.kind == Kind::Silent || outcome.status == CUABI_SUCCESS ||
            outcome.status == CUABI_ERROR_NOT_READY) {
            if (outcome.kind == Kind::Silent)
                EXPECT_EQ(message, sentinel) << "a call that cannot report changed the last error";
        } else {
            EXPECT_STRNE(cuabi_status_name(outcome.status), "CUABI_UNKNOWN_STATUS") << outcome.status;
            EXPECT_NE(message, sentinel) << cuabi_status_name(outcome.status) << " without a message of its own";
            const size_t fix = message.rfind(" Fix: ");
            EXPECT_NE(fix, std::string::npos) << message;
            EXPECT_GT(message.size(), fix + 7) << "an empty fix: " << message;
            EXPECT_LT(message.size(), kMessageLimit) << "caller text quoted unbounded: " << message.substr(0, 400);
        }
        call.release_created();
    }
    EXPECT_GT(calls, 100);
}

std::string abuse_test_name(const ::testing::TestParamInfo<Abuse>& info) {
    static const char* const kNames[] = {"Null",      "One",      "Deadbeef",       "Forged",  "Destroyed",
                                         "WrongType", "Extremes", "GarbageStructs", "LongText"};
    return kNames[static_cast<int>(info.param)];
}

INSTANTIATE_TEST_SUITE_P(Every, ApiAbuse,
                         ::testing::Values(Abuse::Null, Abuse::One, Abuse::Deadbeef, Abuse::Forged, Abuse::Destroyed,
                                           Abuse::WrongType, Abuse::Extremes, Abuse::GarbageStructs, Abuse::LongText),
                         abuse_test_name);

}  // namespace
