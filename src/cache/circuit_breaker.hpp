// The remote tier's circuit breaker, one per process: after kBreakerFailures failed operations in
// a row it opens, and every operation is skipped at once until the back-off has passed; then one
// operation is let through as a probe (half-open). A probe that succeeds closes the breaker and
// resets the back-off; one that fails opens it again for twice as long, up to 60 s. So a remote
// that is down costs a process a few timeouts per back-off period, not one per kernel.
#pragma once

#include <cstdint>
#include <mutex>

#include "cache/remote_tier.hpp"

namespace cuabi {
namespace cache {

class CircuitBreaker {
public:
    static constexpr uint32_t kMaxBackoffMs = 60000;
    explicit CircuitBreaker(uint32_t first_backoff_ms) : first_backoff_ms_(first_backoff_ms ? first_backoff_ms : 1) {}

    // Whether an operation may go to the remote now (false: skip it). A true answer while the
    // breaker is open makes the caller the probe.
    bool allow(int64_t now_ms);
    void succeeded();
    void failed(int64_t now_ms);

    RemoteBreaker state(int64_t now_ms);
    uint64_t opens();

private:
    std::mutex mutex_;
    const uint32_t first_backoff_ms_;
    uint32_t backoff_ms_ = 0;       // the current open period; 0 while closed
    int64_t open_until_ms_ = 0;
    int failures_ = 0;              // in a row
    bool probing_ = false;
    uint64_t opens_ = 0;
};

}  // namespace cache
}  // namespace cuabi
