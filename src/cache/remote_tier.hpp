// The remote tier: compiled entries shared by a fleet through Redis (docs/cache.md, "Remote tier").
//
// Looked up after memory, the local disk and the read-only layers, before NVRTC. The network
// code is not in libcuabi: a helper process, cuabi-cache-remote (beside the compile worker in
// <libdir>/cuabi/; $CUABI_CACHE_REMOTE_HELPER overrides), talks to Redis through hiredis and signs
// with libsodium. It is started on the first remote operation and kept; a process that never sets
// CUABI_CACHE_REMOTE starts nothing and loads nothing.
//
// Nothing here is ever an error to the caller. A remote that is slow, down, absent or lying costs
// at most its timeouts (connect and per operation, CUABI_CACHE_REMOTE_TIMEOUT_MS, default 50 ms)
// and then Unavailable, which the caller treats as a miss and compiles locally. After
// kBreakerFailures failures in a row the breaker opens for the whole process: every operation is
// Unavailable at once for a back-off (1 s, doubling to 60 s while probes keep failing), then one
// probe is let through. stats() shows it all.
//
// A Hit is verified before it is returned: the signature (HMAC-SHA256 over the Redis key and the
// entry, in the helper) when CUABI_CACHE_REMOTE_KEY_FILE is set, then decode_entry() for this
// exact key (key fields, size, checksum, plausibility). A value that fails is Miss, counted in
// `refused` and reported once per process through the stats reason; it is never returned.
//
// The protocol a compile follows (the lookup chain):
//   fetch(key)                       Hit: store it locally, serve it. Miss/Unavailable: go on.
//   take_lease(key)                  Won or Unavailable: compile, then publish(key, image) (which
//                                    also drops the lease; release_lease(key) when the compile
//                                    failed). Lost: another node compiles it --
//   wait_for(key, deadline_ms)       Hit: serve it. Miss (the lease ended without an entry, or the
//                                    deadline passed) or Unavailable: compile locally.
//
// Thread-safe; operations of several threads share the one helper in turn.
#pragma once

#include <cstdint>
#include <string>

#include "cache/cache_key.hpp"
#include "cache/cached_image.hpp"

namespace cuabi {
namespace cache {

constexpr uint32_t kDefaultRemoteTimeoutMs = 50;          // connect and each operation
constexpr uint32_t kDefaultRemoteLeaseMs = 60000;         // a compile lease's expiry (PX)
constexpr uint32_t kDefaultRemoteExpirySeconds = 604800;  // published entries live 7 days (EX)
constexpr uint64_t kDefaultRemoteMaxBytes = uint64_t(64) << 20;  // larger values are refused unread
constexpr int kBreakerFailures = 3;

enum class RemoteResult { Hit, Miss, Unavailable };
enum class RemoteLease { Won, Lost, Unavailable };
enum class RemoteBreaker : uint32_t { Closed = 0, Open = 1, HalfOpen = 2 };

struct RemoteStats {
    bool configured = false;  // CUABI_CACHE_REMOTE is set (even if it was refused: see reason)
    bool readwrite = false;   // CUABI_CACHE_REMOTE_MODE=readwrite
    bool signed_entries = false;  // CUABI_CACHE_REMOTE_KEY_FILE is set
    uint64_t hits = 0;        // verified entries returned by fetch() and wait_for()
    uint64_t misses = 0;      // keys Redis did not have
    uint64_t errors = 0;      // operations that failed (timeout, connection, helper) or were skipped by the open breaker
    uint64_t refused = 0;     // values that failed verification (forged, damaged, oversized)
    uint64_t publishes = 0;   // entries this process stored first
    uint64_t lease_waits = 0; // leases lost, so this process waited for another's compile
    uint64_t lease_wait_hits = 0;  // of those, the waits that ended with the winner's entry
    uint64_t breaker_opens = 0;
    RemoteBreaker breaker = RemoteBreaker::Closed;
    std::string endpoint;  // "redis://127.0.0.1:6379/0" (never a password), "" when not configured
    std::string reason;    // "" while healthy; else the last problem, ending in "Fix: ..."
};

class RemoteTier {
public:
    // The process's remote tier, configured from the environment on first use, or nullptr when
    // CUABI_CACHE_REMOTE is unset or empty. A malformed or refused setting (rediss://, a bad key
    // file) gives a tier whose every operation is Unavailable and whose stats say why.
    static RemoteTier* instance();
    virtual ~RemoteTier() = default;

    // The verified entry stored under `key` (key.nvrtc == kAnyNvrtc: the first entry any NVRTC
    // published for the request).
    virtual RemoteResult fetch(const Key& key, CachedImage* out) = 0;
    // Claims the compile of `key` for this process for kDefaultRemoteLeaseMs
    // ($CUABI_CACHE_REMOTE_LEASE_MS). A read-only tier never leases: Unavailable.
    virtual RemoteLease take_lease(const Key& key) = 0;
    // After Lost: polls until the winner's entry appears (Hit), its lease ends without one or
    // `deadline_ms` (CLOCK_MONOTONIC milliseconds) passes (Miss).
    virtual RemoteResult wait_for(const Key& key, int64_t deadline_ms, CachedImage* out) = 0;
    // Stores the entry unless one is there already (first writer wins; expiry
    // $CUABI_CACHE_REMOTE_EXPIRY_S, default kDefaultRemoteExpirySeconds) and drops this process's
    // lease. Does nothing on a read-only tier.
    virtual void publish(const Key& key, const CachedImage& image) = 0;
    // Drops this process's lease on `key` (its compile failed), so that waiters stop waiting.
    virtual void release_lease(const Key& key) = 0;

    virtual RemoteStats stats() = 0;
};

}  // namespace cache
}  // namespace cuabi
