// The remote tier's settings, from the environment (docs/cache.md, "Remote tier"):
//
//   CUABI_CACHE_REMOTE            redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]; unset: no remote
//   CUABI_CACHE_REMOTE_MODE       read (default) or readwrite (publish after compiling)
//   CUABI_CACHE_REMOTE_KEY_FILE   the fleet's HMAC key: sign what is published, refuse what is not
//   CUABI_CACHE_REMOTE_TIMEOUT_MS connect and per-operation timeout (default 50)
//   CUABI_CACHE_REMOTE_LEASE_MS   a compile lease's expiry (default 60000)
//   CUABI_CACHE_REMOTE_EXPIRY_S   published entries' expiry (default 7 days)
//   CUABI_CACHE_REMOTE_MAX_BYTES  larger values are refused unread (default 64M)
//   CUABI_CACHE_REMOTE_BACKOFF_MS the breaker's first back-off (default 1000; doubles to 60 s)
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "cache/remote_tier.hpp"

namespace cuabi {
namespace cache {

struct RemoteConfig {
    std::string endpoint;  // the URL without its password, for messages and stats
    std::string host;
    int port = 6379;
    int db = 0;
    std::string password;
    bool readwrite = false;
    std::string key_file;
    uint32_t timeout_ms = kDefaultRemoteTimeoutMs;
    uint32_t lease_ms = kDefaultRemoteLeaseMs;
    uint32_t expiry_s = kDefaultRemoteExpirySeconds;
    uint64_t max_bytes = kDefaultRemoteMaxBytes;
    uint32_t backoff_ms = 1000;
    std::string helper;    // the helper executable; empty: $CUABI_CACHE_REMOTE_HELPER, else beside the library
    std::string refused;   // why the remote cannot be used at all ("... Fix: ..."); empty when usable
    std::string warnings;  // malformed values that were ignored

    // False when CUABI_CACHE_REMOTE is unset or empty.
    static bool from_environment(RemoteConfig* out);
    // Parses `url` into host, port, db and password; false with *why ("... Fix: ...").
    static bool parse_url(const std::string& url, RemoteConfig* out, std::string* why);
    // The helper's Configure text: "name=value" lines.
    std::string helper_settings() const;
};

// A tier of its own for `config` (RemoteTier::instance() is the process's, from the environment):
// for tests and tools that talk to a remote the environment does not name.
std::unique_ptr<RemoteTier> open_remote_tier(RemoteConfig config);

}  // namespace cache
}  // namespace cuabi
