// The remote tier's place in a compile (cache/remote_tier.hpp): after every local tier missed and
// before NVRTC runs, and again after NVRTC ran.
//
// A remote entry is used only after the remote tier verified it (signature, key, checksum) and
// the image checks of image/check.hpp found it sound; it is then written to the local cache, so
// that the next process finds it on its own disk. Nothing here fails a compile: a remote that is
// off, down or lying is a miss.
#pragma once

#include <cstdint>
#include <memory>

#include "cache/cache_key.hpp"
#include "cache/cached_image.hpp"

namespace cuabi {
struct Counters;

struct RemoteTurn {
    bool leased = false;  // this process holds the remote lease: publish or release after compiling
};

// The entry for `key` from the remote tier, stored locally, or nullptr (compile it). When another
// node holds the compile's lease, waits for its entry until the lease ends or `deadline_ms`
// (frames::now_ms() clock) comes within half of the time left to it.
std::shared_ptr<const cache::CachedImage> find_remote(const cache::Key& key, int64_t deadline_ms, Counters* counters,
                                                      RemoteTurn* turn);

// After a local compile of `asked`: publishes `image` under `compiled` (the key it was stored under:
// a PTX fallback changes the target) -- or, for NULL (the compile failed or NVRTC did not run),
// drops the lease on `asked` so that waiting nodes stop waiting.
void after_local_compile(const cache::Key& asked, const cache::Key& compiled, const cache::CachedImage* image,
                         const RemoteTurn& turn);

}  // namespace cuabi
