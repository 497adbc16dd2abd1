#include "cache/circuit_breaker.hpp"

#include <algorithm>

namespace cuabi {
namespace cache {

bool CircuitBreaker::allow(int64_t now_ms) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (backoff_ms_ == 0) return true;
    if (now_ms < open_until_ms_ || probing_) return false;
    probing_ = true;
    return true;
}

void CircuitBreaker::succeeded() {
    std::lock_guard<std::mutex> lock(mutex_);
    failures_ = 0;
    backoff_ms_ = 0;
    probing_ = false;
}

void CircuitBreaker::failed(int64_t now_ms) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (backoff_ms_ != 0 && !probing_) return;  // an operation that began before the breaker opened
    if (probing_) {
        backoff_ms_ = std::min<uint32_t>(backoff_ms_ * 2, kMaxBackoffMs);
    } else if (++failures_ >= kBreakerFailures) {
        backoff_ms_ = first_backoff_ms_;
    } else {
        return;
    }
    probing_ = false;
    open_until_ms_ = now_ms + backoff_ms_;
    ++opens_;
}

RemoteBreaker CircuitBreaker::state(int64_t now_ms) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (backoff_ms_ == 0) return RemoteBreaker::Closed;
    return probing_ || now_ms >= open_until_ms_ ? RemoteBreaker::HalfOpen : RemoteBreaker::Open;
}

uint64_t CircuitBreaker::opens() {
    std::lock_guard<std::mutex> lock(mutex_);
    return opens_;
}

}  // namespace cache
}  // namespace cuabi
