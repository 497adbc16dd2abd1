#include "compile/remote_lookup.hpp"

#include <algorithm>

#include "cache/kernel_cache.hpp"
#include "cache/remote_tier.hpp"
#include "compile/worker_protocol.hpp"
#include "image/check.hpp"

namespace cuabi {
namespace {

// The remote verified where the bytes belong; this checks what they are, as for any image that
// cuabi did not compile in this process.
bool sound_image(const cache::CachedImage& image) {
    return image::check(image.image.data(), image.image.size()).sound();
}

std::shared_ptr<const cache::CachedImage> keep(const cache::Key& key, cache::CachedImage&& found, Counters* counters) {
    if (!sound_image(found)) return nullptr;
    // Whoever can write the shared server could have written it: loading it goes through the
    // untrusted-image rule, here and when later processes find it on the local disk.
    found.untrusted = true;
    auto image = std::make_shared<const cache::CachedImage>(std::move(found));
    // Unsynced: the remote holds it, so a crash that tears the local copy costs one fetch, not
    // the two fsyncs on every warm-up (cache.md, "Remote tier").
    cache::KernelCache::instance().store(key, image, counters, cache::Durability::Unsynced);
    return image;
}

}  // namespace

std::shared_ptr<const cache::CachedImage> find_remote(const cache::Key& key, int64_t deadline_ms, Counters* counters,
                                                      RemoteTurn* turn) {
    cache::RemoteTier* remote = cache::RemoteTier::instance();
    if (remote == nullptr) return nullptr;
    cache::CachedImage found;
    if (remote->fetch(key, &found) == cache::RemoteResult::Hit) return keep(key, std::move(found), counters);
    switch (remote->take_lease(key)) {
    case cache::RemoteLease::Won: turn->leased = true; return nullptr;
    case cache::RemoteLease::Unavailable: return nullptr;
    case cache::RemoteLease::Lost: break;
    }
    int64_t now = frames::now_ms();
    int64_t wait_until = now + std::max<int64_t>((deadline_ms - now) / 2, 0);
    if (remote->wait_for(key, wait_until, &found) == cache::RemoteResult::Hit) return keep(key, std::move(found), counters);
    return nullptr;
}

void after_local_compile(const cache::Key& asked, const cache::Key& compiled, const cache::CachedImage* image,
                         const RemoteTurn& turn) {
    cache::RemoteTier* remote = cache::RemoteTier::instance();
    if (remote == nullptr) return;
    if (image != nullptr) remote->publish(compiled, *image);  // drops a lease on `compiled`
    if (turn.leased && (image == nullptr || compiled != asked)) remote->release_lease(asked);
}

}  // namespace cuabi
