// The kernel cache's read-only layers (readonly_layer.hpp): opened from the environment on first
// use or added through the API, searched after the disk layer, never written.
#include <new>

#include "cache/kernel_cache.hpp"
#include "cache/readonly_layer.hpp"
#include "device/context.hpp"

namespace cuabi {
namespace cache {

std::vector<std::shared_ptr<ReadOnlyLayer>> KernelCache::readonly_layers() {
    std::call_once(readonly_once_, [this] {
        for (const std::string& path : config_.readonly_layers) {
            std::unique_ptr<ReadOnlyLayer> layer;
            Problem problem = ReadOnlyLayer::open(path, &layer);
            std::lock_guard<std::mutex> lock(readonly_mutex_);
            if (problem.ok())
                readonly_.push_back(std::move(layer));
            else
                readonly_problem_ = "read-only cache layer skipped (CUABI_CACHE_READONLY_DIRS): " + problem.message();
        }
    });
    std::lock_guard<std::mutex> lock(readonly_mutex_);
    return readonly_;
}

void KernelCache::note_readonly_problem(const std::string& problem) {
    std::lock_guard<std::mutex> lock(readonly_mutex_);
    readonly_problem_ = problem;
}

Status KernelCache::add_readonly_layer(const std::string& path) {
    readonly_layers();  // the environment's layers come first
    std::unique_ptr<ReadOnlyLayer> layer;
    Problem problem = ReadOnlyLayer::open(path, &layer);
    if (!problem.ok()) return fail(problem.status, problem.fix.c_str(), "%s", problem.what.c_str());
    std::lock_guard<std::mutex> lock(readonly_mutex_);
    readonly_.push_back(std::move(layer));
    return CUABI_SUCCESS;
}

std::shared_ptr<const CachedImage> KernelCache::find_in_readonly(const Key& key, Counters* counters) {
    std::vector<std::shared_ptr<ReadOnlyLayer>> layers = readonly_layers();
    if (layers.empty()) return nullptr;
    for (const std::shared_ptr<ReadOnlyLayer>& layer : layers) {
        std::shared_ptr<CachedImage> image;
        std::string why;
        ReadOnlyLayer::Read read = ReadOnlyLayer::Read::Miss;
        try {
            image = std::make_shared<CachedImage>();
            read = layer->read(key, image.get(), &why);
        } catch (const std::bad_alloc&) {
            read = ReadOnlyLayer::Read::Miss;
        }
        if (read == ReadOnlyLayer::Read::Corrupt) {
            readonly_refused_.fetch_add(1, std::memory_order_relaxed);
            note_readonly_problem(why + ". Fix: rebuild the layer or bundle (cuabi compile, cuabi cache export); "
                                        "the entry is compiled here meanwhile");
        }
        if (read != ReadOnlyLayer::Read::Hit) continue;
        readonly_hits_.fetch_add(1, std::memory_order_relaxed);
        if (config_.readonly_copy) {
            store(key, image, counters);  // memory, and the disk as an untrusted entry
            readonly_copies_.fetch_add(1, std::memory_order_relaxed);
        } else {
            memory_evictions_.fetch_add(memory_.insert(key, image), std::memory_order_relaxed);
        }
        return image;
    }
    readonly_misses_.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
}

}  // namespace cache
}  // namespace cuabi
