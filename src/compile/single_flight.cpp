#include "compile/single_flight.hpp"

#include <chrono>

#include "compile/worker_protocol.hpp"

namespace cuabi {

struct SingleFlight::Flight {
    std::mutex mutex;
    std::condition_variable done_signal;
    bool done = false;
    FlightResult result;
};

SingleFlight::Ticket::Ticket(SingleFlight* owner, const FlightKey& key, std::shared_ptr<Flight> flight, bool leader)
    : owner_(owner), key_(key), flight_(std::move(flight)), leader_(leader) {}

SingleFlight::Ticket::~Ticket() {
    if (!leader_ || completed_) return;
    FlightResult abandoned;
    abandoned.status = CUABI_ERROR_INTERNAL;
    abandoned.message = "the thread compiling the same kernel stopped without a result. Fix: report this as a cuabi bug";
    complete(abandoned);
}

const FlightResult* SingleFlight::Ticket::wait(int64_t deadline_ms) {
    std::unique_lock<std::mutex> lock(flight_->mutex);
    while (!flight_->done) {
        if (deadline_ms == frames::kNoDeadline) {
            flight_->done_signal.wait(lock);
            continue;
        }
        int64_t left = deadline_ms - frames::now_ms();
        if (left <= 0) return nullptr;
        flight_->done_signal.wait_for(lock, std::chrono::milliseconds(left));
    }
    return &flight_->result;
}

void SingleFlight::Ticket::complete(const FlightResult& result) {
    completed_ = true;
    {
        // Out of the table first: a compile starting from now on leads its own flight (and
        // finds the cached image, when there is one).
        std::lock_guard<std::mutex> lock(owner_->mutex_);
        auto found = owner_->flights_.find(key_);
        if (found != owner_->flights_.end() && found->second == flight_) owner_->flights_.erase(found);
    }
    std::lock_guard<std::mutex> lock(flight_->mutex);
    flight_->result = result;
    flight_->done = true;
    flight_->done_signal.notify_all();
}

SingleFlight::Ticket SingleFlight::join(const cache::Key& key, int isolation) {
    const FlightKey flight_key{key, isolation};
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = flights_.find(flight_key);
    if (found != flights_.end()) return Ticket(this, flight_key, found->second, false);
    auto flight = std::make_shared<Flight>();
    flights_.emplace(flight_key, flight);
    return Ticket(this, flight_key, std::move(flight), true);
}

}  // namespace cuabi
