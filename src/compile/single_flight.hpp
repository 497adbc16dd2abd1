// Single-flight compiles: threads that miss the memory cache for the same key at the same time
// share one disk lookup and one NVRTC run. The first becomes the leader; the others wait for its
// result -- the image, or the failure with its message, nvrtcResult and log -- and take it as
// their own. Touched only after a memory miss, so hits never see it.
//
// Only requests of the same isolation share a flight: a request for the worker never waits on an
// NVRTC running in this process (whose crash would end it too, and which has no deadline). A
// follower waits until its own deadline, not the leader's.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "cache/cache_key.hpp"
#include "cache/cached_image.hpp"
#include "cache/kernel_cache.hpp"
#include "compile/target.hpp"
#include "core/error.hpp"

namespace cuabi {

// What one compile produced, as the leader hands it to the followers.
struct FlightResult {
    Status status = CUABI_ERROR_INTERNAL;
    std::string message;       // the failure's message, when status is not success
    int32_t nvrtc_result = 0;  // and its nvrtcResult
    std::shared_ptr<const std::string> log;  // the compile log, success or not (may be NULL)
    std::shared_ptr<const cache::CachedImage> image;
    cache::Key key;
    cache::Layer layer = cache::Layer::None;
    Target target;
};

class SingleFlight {
public:
    struct Flight;

    // A ticket for `key`: leader() when no compile of it is under way (the caller must then
    // complete() it, whatever happens), otherwise the caller wait()s for the leader's result.
    // A request's key and its isolation (a small number per kind: flights of different ones are
    // never shared).
    struct FlightKey {
        cache::Key key;
        int isolation = 0;
        bool operator==(const FlightKey& other) const { return key == other.key && isolation == other.isolation; }
    };

    class Ticket {
    public:
        Ticket(SingleFlight* owner, const FlightKey& key, std::shared_ptr<Flight> flight, bool leader);
        ~Ticket();  // a leader that never completed completes with CUABI_ERROR_INTERNAL
        Ticket(const Ticket&) = delete;
        Ticket& operator=(const Ticket&) = delete;
        bool leader() const { return leader_; }
        // Followers: the leader's result, or NULL when `deadline_ms` (frames::now_ms() clock,
        // frames::kNoDeadline for none) passed first.
        const FlightResult* wait(int64_t deadline_ms);
        void complete(const FlightResult& result);  // the leader, once

    private:
        SingleFlight* owner_;
        FlightKey key_;
        std::shared_ptr<Flight> flight_;
        bool leader_;
        bool completed_ = false;
    };

    Ticket join(const cache::Key& key, int isolation);

private:
    struct KeyHash {
        size_t operator()(const FlightKey& key) const {
            return static_cast<size_t>(key.key.low ^ key.key.high ^ key.key.nvrtc) + static_cast<size_t>(key.isolation);
        }
    };
    std::mutex mutex_;
    std::unordered_map<FlightKey, std::shared_ptr<Flight>, KeyHash> flights_;
};

}  // namespace cuabi
