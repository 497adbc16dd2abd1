#include "graph/owned_captures.hpp"

#include <algorithm>

#include "core/deferred_release.hpp"
#include "graph/conditional_nodes.hpp"
#include "graph/retention.hpp"
#include "launch/capture_retention.hpp"

namespace cuabi {
namespace graph {

void OwnedCaptures::add(uint64_t id, CaptureRecord record) {
    std::lock_guard<std::mutex> lock(mutex_);
    records_.emplace_back(id, std::move(record));
    launch::install_argument_retainer(&retain_argument_buffers);
    publish_count();
}

bool OwnedCaptures::contains(uint64_t id) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::any_of(records_.begin(), records_.end(), [id](const auto& entry) { return entry.first == id; });
}

void OwnedCaptures::remove(uint64_t id) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    records_.erase(std::remove_if(records_.begin(), records_.end(), [id](const auto& entry) { return entry.first == id; }),
                   records_.end());
    publish_count();
}

bool OwnedCaptures::take(uint64_t id, CaptureRecord* out) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = std::find_if(records_.begin(), records_.end(), [id](const auto& entry) { return entry.first == id; });
    if (found == records_.end()) return false;
    *out = std::move(found->second);
    records_.erase(found);
    publish_count();
    return true;
}

void OwnedCaptures::put(uint64_t id, CaptureRecord record) {
    std::lock_guard<std::mutex> lock(mutex_);
    records_.emplace_back(id, std::move(record));
    publish_count();
}

CUgraph OwnedCaptures::keeper(uint64_t id, CUgraph captured) const {
    if (holding_roots_.load(std::memory_order_acquire) == 0) return captured;
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& entry : records_)
        if (entry.first == id && entry.second.root != nullptr) return entry.second.root;
    return captured;
}

void OwnedCaptures::publish_count() noexcept {
    uint32_t roots = 0;
    for (const auto& entry : records_) roots += entry.second.root != nullptr ? 1u : 0u;
    holding_roots_.store(roots, std::memory_order_release);
    launch::captures_in_progress.store(static_cast<uint32_t>(records_.size()), std::memory_order_relaxed);
}

OwnedCaptures& owned() {
    static OwnedCaptures* captures = new OwnedCaptures();  // never destroyed: streams die in static destructors too
    return *captures;
}

void discard_root(const CaptureRecord& record, const DriverApi& api) {
    if (record.root != nullptr) destroy_graph(api, record.root);
    DeferredRelease::release_queued();
}

}  // namespace graph
}  // namespace cuabi
