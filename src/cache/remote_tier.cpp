// RemoteTier over Redis, through the cuabi-cache-remote helper (remote_tier.hpp has the rules).
#include "cache/remote_tier.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "cache/circuit_breaker.hpp"
#include "cache/entry_format.hpp"
#include "cache/remote_config.hpp"
#include "cache/remote_protocol.hpp"
#include "core/error.hpp"
#include "core/child_process.hpp"
#include "core/helper_executable.hpp"

namespace cuabi {
namespace cache {
namespace {

using remote::Message;
using remote::RemoteOp;
using remote::RemoteReply;

constexpr char kHelperName[] = "cuabi-cache-remote";
constexpr int64_t kHelperStartMs = 2000;  // exec, the libraries' loading, the key file
constexpr int64_t kHelperSlackMs = 100;    // the helper's own scheduling, beyond Redis' timeouts
constexpr int kCrashGraceMs = 2000;     // for a helper whose socket closed to be reaped on its own

// Entries by their whole key, and by the request alone for nodes without NVRTC (the first entry
// any NVRTC published); leases by the whole key. The format version keeps releases apart.
std::string redis_key(const char* kind, const Key& key, bool any_nvrtc) {
    return format("cuabi:%llu:%s:%s:%s", static_cast<unsigned long long>(kFormatVersion), kind, key.hex().c_str(),
                  any_nvrtc || key.nvrtc == kAnyNvrtc ? "any" : key.nvrtc_hex().c_str());
}

class RedisTier final : public RemoteTier {
public:
    explicit RedisTier(RemoteConfig config) : config_(std::move(config)), breaker_(config_.backoff_ms), owner_(getpid()) {
        if (config_.refused.empty()) {
            std::string why;
            helper_path_ = config_.helper.empty() ? helper_executable(kHelperName, "CUABI_CACHE_REMOTE_HELPER", &why)
                                                  : config_.helper;
            if (helper_path_.empty())
                config_.refused = format("the remote cache %s is configured but its helper cannot be used: %s. Fix: "
                                         "install cuabi with hiredis and libsodium present (scripts/setup.sh; the "
                                         "helper belongs in <libdir>/cuabi/ beside libcuabi.so), point "
                                         "CUABI_CACHE_REMOTE_HELPER at it, or unset CUABI_CACHE_REMOTE",
                                         config_.endpoint.c_str(), why.c_str());
        }
    }

    // The helper ends when its socket closes; the process's own tier is never destroyed.
    ~RedisTier() override {
        if (running_ && owner_ == getpid()) stop_helper(false);
    }

    pid_t owner() const { return owner_; }

    RemoteResult fetch(const Key& key, CachedImage* out) override {
        Message reply;
        if (!exchange(RemoteOp::Get, redis_key("e", key, false), {}, &reply)) return RemoteResult::Unavailable;
        return accept(key, reply, out, nullptr);
    }

    RemoteLease take_lease(const Key& key) override {
        if (!config_.readwrite || key.nvrtc == kAnyNvrtc) return RemoteLease::Unavailable;
        Message reply;
        if (!exchange(RemoteOp::Lease, redis_key("l", key, false) + "\n" + redis_key("e", key, false), {}, &reply))
            return RemoteLease::Unavailable;
        if (reply.code == static_cast<uint32_t>(RemoteReply::Won)) return RemoteLease::Won;
        lease_waits_.fetch_add(1, std::memory_order_relaxed);
        return RemoteLease::Lost;
    }

    RemoteResult wait_for(const Key& key, int64_t deadline_ms, CachedImage* out) override {
        const std::string text = redis_key("e", key, false) + "\n" + redis_key("l", key, false);
        for (int64_t pause_ms = 5;; pause_ms = std::min<int64_t>(pause_ms * 2, 100)) {
            Message reply;
            if (!exchange(RemoteOp::Poll, text, {}, &reply)) return RemoteResult::Unavailable;
            bool waiting = false;
            RemoteResult result = accept(key, reply, out, &waiting);
            if (result == RemoteResult::Hit) lease_wait_hits_.fetch_add(1, std::memory_order_relaxed);
            if (!waiting) return result;
            int64_t left = deadline_ms - frames::now_ms();
            if (left <= 0) return RemoteResult::Miss;
            std::this_thread::sleep_for(std::chrono::milliseconds(std::min(pause_ms, left)));
        }
    }

    void publish(const Key& key, const CachedImage& image) override {
        if (!config_.readwrite || key.nvrtc == kAnyNvrtc) return;
        std::string text = redis_key("e", key, false) + "\n" + redis_key("e", key, true) + "\n" + redis_key("l", key, false);
        Message reply;
        if (exchange(RemoteOp::Publish, text, encode_entry(key, image), &reply) &&
            reply.code == static_cast<uint32_t>(RemoteReply::Ok))
            publishes_.fetch_add(1, std::memory_order_relaxed);
    }

    void release_lease(const Key& key) override {
        if (!config_.readwrite || key.nvrtc == kAnyNvrtc) return;
        Message reply;
        exchange(RemoteOp::Release, redis_key("l", key, false), {}, &reply);
    }

    RemoteStats stats() override {
        RemoteStats stats;
        stats.configured = true;
        stats.readwrite = config_.readwrite;
        stats.signed_entries = !config_.key_file.empty();
        stats.hits = hits_.load(std::memory_order_relaxed);
        stats.misses = misses_.load(std::memory_order_relaxed);
        stats.errors = errors_.load(std::memory_order_relaxed);
        stats.refused = refused_.load(std::memory_order_relaxed);
        stats.publishes = publishes_.load(std::memory_order_relaxed);
        stats.lease_waits = lease_waits_.load(std::memory_order_relaxed);
        stats.lease_wait_hits = lease_wait_hits_.load(std::memory_order_relaxed);
        stats.breaker_opens = breaker_.opens();
        stats.breaker = breaker_.state(frames::now_ms());
        stats.endpoint = config_.endpoint;
        std::lock_guard<std::mutex> lock(reason_mutex_);
        stats.reason = !config_.refused.empty() ? config_.refused : reason_;
        if (!first_refusal_.empty()) stats.reason += (stats.reason.empty() ? "" : " ") + first_refusal_;
        if (!config_.warnings.empty()) stats.reason += (stats.reason.empty() ? "" : " ") + config_.warnings;
        return stats;
    }

private:
    void note(const std::string& why) {
        std::lock_guard<std::mutex> lock(reason_mutex_);
        reason_ = why;
        problem_noted_.store(!why.empty(), std::memory_order_relaxed);
    }

    // The reply to one request, or false (Unavailable, counted): the breaker is open, the helper
    // could not be started or did not answer in time (it is then stopped; the next request starts
    // another), or it said the remote is unavailable.
    bool exchange(RemoteOp op, std::string text, std::vector<uint8_t> payload, Message* reply) {
        if (!config_.refused.empty() || !breaker_.allow(frames::now_ms())) {
            errors_.fetch_add(1, std::memory_order_relaxed);
            return false;
        }
        Message request;
        request.code = static_cast<uint32_t>(op);
        request.text = std::move(text);
        request.payload = std::move(payload);
        std::string why;
        bool answered = false;
        {
            std::lock_guard<std::mutex> lock(helper_mutex_);
            if (running_ || start(&why)) {
                // A connect and a command (Redis' timeouts bound both), plus the helper's own time.
                int64_t deadline = frames::now_ms() + 2 * int64_t(config_.timeout_ms) + kHelperSlackMs;
                frames::Io io = remote::send_message(helper_.fd, request, deadline);
                if (io == frames::Io::Ok) io = remote::receive_message(helper_.fd, reply, deadline);
                answered = io == frames::Io::Ok;
                if (!answered) {
                    std::string death = stop_helper(true);
                    running_ = false;
                    why = io == frames::Io::TimedOut
                              ? format("the remote cache helper did not answer within %u ms and was stopped",
                                       2 * config_.timeout_ms + unsigned(kHelperSlackMs))
                              : format("the remote cache helper %s", death.c_str());
                }
            }
        }
        if (answered && reply->code != static_cast<uint32_t>(RemoteReply::Unavailable)) {
            breaker_.succeeded();
            if (problem_noted_.load(std::memory_order_relaxed)) note("");  // healthy again
            return true;
        }
        if (answered) why = reply->text;
        errors_.fetch_add(1, std::memory_order_relaxed);
        breaker_.failed(frames::now_ms());
        note(format("the remote cache %s is unavailable: %s; compiles go on locally. Fix: check that Redis runs "
                    "and answers within CUABI_CACHE_REMOTE_TIMEOUT_MS (%u ms) from this host",
                    config_.endpoint.c_str(), why.c_str(), config_.timeout_ms));
        return false;
    }

    // Under helper_mutex_ (or in the destructor). One that closed its socket gets a moment to be
    // reaped on its own, so that a crash is reported as its signal, not as the kill that follows.
    std::string stop_helper(bool kill_now) { return describe(end_child(&helper_, kill_now, kCrashGraceMs)); }

    // Under helper_mutex_.
    bool start(std::string* why) {
        if (!spawn_child(helper_path_, {}, &helper_, why)) return false;
        Message configure, hello;
        configure.code = static_cast<uint32_t>(RemoteOp::Configure);
        configure.text = config_.helper_settings();
        int64_t deadline = frames::now_ms() + kHelperStartMs;
        frames::Io io = remote::send_message(helper_.fd, configure, deadline);
        if (io == frames::Io::Ok) io = remote::receive_message(helper_.fd, &hello, deadline);
        bool ready = io == frames::Io::Ok && hello.code == static_cast<uint32_t>(RemoteReply::Ok);
        if (ready) {
            running_ = true;
            return true;
        }
        std::string death = stop_helper(io != frames::Io::Ok);
        *why = io == frames::Io::Ok ? hello.text : format("the remote cache helper '%s' %s before it was ready",
                                                          helper_path_.c_str(), death.c_str());
        return false;
    }

    // A Hit is only what decodes as an entry of exactly this key; anything else the remote sent is
    // refused, counted, and the first refusal kept for the stats.
    RemoteResult accept(const Key& key, const Message& reply, CachedImage* out, bool* waiting) {
        std::string why;
        switch (static_cast<RemoteReply>(reply.code)) {
        case RemoteReply::Hit:
            if (decode_entry(key, reply.payload.data(), reply.payload.size(), out, &why)) {
                hits_.fetch_add(1, std::memory_order_relaxed);
                return RemoteResult::Hit;
            }
            why = format("the entry under key %s:%s is not an entry of that key: %s", key.hex().c_str(),
                         key.nvrtc == kAnyNvrtc ? "any" : key.nvrtc_hex().c_str(), why.c_str());
            break;
        case RemoteReply::Refused: why = reply.text; break;
        case RemoteReply::Waiting:
            if (waiting != nullptr) {
                *waiting = true;
                return RemoteResult::Miss;
            }
            [[fallthrough]];
        default:
            misses_.fetch_add(1, std::memory_order_relaxed);
            return RemoteResult::Miss;
        }
        refused_.fetch_add(1, std::memory_order_relaxed);
        std::lock_guard<std::mutex> lock(reason_mutex_);
        if (first_refusal_.empty())
            first_refusal_ = format("A value from the remote cache %s was refused and compiled locally instead: %s. "
                                    "Fix: find who writes to that Redis; with CUABI_CACHE_REMOTE_KEY_FILE set on "
                                    "every node, only key holders can publish",
                                    config_.endpoint.c_str(), why.c_str());
        return RemoteResult::Miss;
    }

    RemoteConfig config_;
    CircuitBreaker breaker_;
    const pid_t owner_;
    std::string helper_path_;
    std::mutex helper_mutex_;
    ChildProcess helper_;
    bool running_ = false;
    std::mutex reason_mutex_;
    std::string reason_, first_refusal_;
    std::atomic<bool> problem_noted_{false};  // reason_ is set: the next success clears it
    std::atomic<uint64_t> hits_{0}, misses_{0}, errors_{0}, refused_{0}, publishes_{0}, lease_waits_{0},
        lease_wait_hits_{0};
};

}  // namespace

std::unique_ptr<RemoteTier> open_remote_tier(RemoteConfig config) {
    return std::unique_ptr<RemoteTier>(new RedisTier(std::move(config)));
}

namespace {

RemoteTier* from_environment() {
    RemoteConfig config;
    if (!RemoteConfig::from_environment(&config)) return nullptr;
    return new RedisTier(std::move(config));
}

// After fork() a child makes its own tier (and helper) and leaves the parent's alone: another
// thread may have held its mutex at the fork. The parent's is never freed.
std::atomic<RedisTier*> current{nullptr};
std::once_flag configured_once;
bool configured = false;

}  // namespace

RemoteTier* RemoteTier::instance() {
    std::call_once(configured_once, [] {
        RemoteConfig probe;
        configured = RemoteConfig::from_environment(&probe);
    });
    if (!configured) return nullptr;
    pid_t me = getpid();
    RedisTier* tier = current.load(std::memory_order_acquire);
    while (tier == nullptr || tier->owner() != me) {
        RedisTier* fresh = static_cast<RedisTier*>(from_environment());
        if (fresh == nullptr) return nullptr;  // the environment changed since: no remote
        if (current.compare_exchange_strong(tier, fresh, std::memory_order_acq_rel)) return fresh;
        delete fresh;
    }
    return tier;
}

}  // namespace cache
}  // namespace cuabi
