#include "cache/remote_config.hpp"

#include <stdlib.h>

#include <cstring>

#include "cache/environment_values.hpp"
#include "core/error.hpp"

namespace cuabi {
namespace cache {
namespace {

constexpr char kUrlFix[] =
    "Fix: set CUABI_CACHE_REMOTE to redis://HOST:PORT or redis://HOST:PORT/DB (redis://:PASSWORD@HOST:PORT with "
    "a password), or unset it to use no remote";

bool parse_number(const std::string& text, int low, int high, int* out) {
    if (text.empty() || text.size() > 6 || text.find_first_not_of("0123456789") != std::string::npos) return false;
    int value = std::atoi(text.c_str());
    if (value < low || value > high) return false;
    *out = value;
    return true;
}

}  // namespace

bool RemoteConfig::parse_url(const std::string& url, RemoteConfig* out, std::string* why) {
    if (url.compare(0, 9, "rediss://") == 0) {
        *why = format("CUABI_CACHE_REMOTE='%s' asks for TLS, which this build's Redis client (hiredis 0.14) cannot "
                      "speak; cuabi never falls back to plain text. Fix: reach Redis through a TLS tunnel on "
                      "this host (stunnel, a service mesh sidecar) and set redis://127.0.0.1:PORT, or use a "
                      "trusted private network with redis://",
                      url.c_str());
        return false;
    }
    if (url.compare(0, 8, "redis://") != 0) {
        *why = format("CUABI_CACHE_REMOTE='%s' is not a redis:// URL. %s", url.c_str(), kUrlFix);
        return false;
    }
    std::string rest = url.substr(8);
    size_t at = rest.rfind('@');
    std::string visible = url;
    if (at != std::string::npos) {
        std::string credentials = rest.substr(0, at);
        size_t colon = credentials.find(':');
        out->password = colon == std::string::npos ? credentials : credentials.substr(colon + 1);
        rest = rest.substr(at + 1);
        visible = "redis://***@" + rest;
    }
    size_t slash = rest.find('/');
    std::string hostport = rest.substr(0, slash);
    if (slash != std::string::npos && !parse_number(rest.substr(slash + 1), 0, 65535, &out->db)) {
        *why = format("CUABI_CACHE_REMOTE='%s' names database '%s', not a number. %s", visible.c_str(),
                      rest.substr(slash + 1).c_str(), kUrlFix);
        return false;
    }
    size_t colon = hostport.rfind(':');
    out->host = hostport.substr(0, colon);
    if (out->host.size() > 2 && out->host.front() == '[' && out->host.back() == ']')
        out->host = out->host.substr(1, out->host.size() - 2);
    if (colon != std::string::npos && !parse_number(hostport.substr(colon + 1), 1, 65535, &out->port)) {
        *why = format("CUABI_CACHE_REMOTE='%s' names port '%s', not 1 to 65535. %s", visible.c_str(),
                      hostport.substr(colon + 1).c_str(), kUrlFix);
        return false;
    }
    if (out->host.empty() || out->host.find_first_of("\n\r ") != std::string::npos ||
        out->password.find('\n') != std::string::npos) {
        *why = format("CUABI_CACHE_REMOTE='%s' names no usable host. %s", visible.c_str(), kUrlFix);
        return false;
    }
    out->endpoint = visible;
    return true;
}

bool RemoteConfig::from_environment(RemoteConfig* out) {
    const char* url = secure_getenv("CUABI_CACHE_REMOTE");
    if (url == nullptr || *url == '\0') return false;
    RemoteConfig config;
    if (!parse_url(url, &config, &config.refused) && config.endpoint.empty()) config.endpoint = "(refused)";
    const char* mode = secure_getenv("CUABI_CACHE_REMOTE_MODE");
    if (mode != nullptr && std::strcmp(mode, "readwrite") == 0) config.readwrite = true;
    else if (mode != nullptr && *mode != '\0' && std::strcmp(mode, "read") != 0)
        warn(&config.warnings,
             format("CUABI_CACHE_REMOTE_MODE='%s' is neither read nor readwrite; reading only", bounded(mode, 40).c_str()));
    const char* key_file = secure_getenv("CUABI_CACHE_REMOTE_KEY_FILE");
    if (key_file != nullptr) config.key_file = key_file;
    read_milliseconds("CUABI_CACHE_REMOTE_TIMEOUT_MS", &config.timeout_ms, &config.warnings);
    read_milliseconds("CUABI_CACHE_REMOTE_LEASE_MS", &config.lease_ms, &config.warnings);
    read_milliseconds("CUABI_CACHE_REMOTE_EXPIRY_S", &config.expiry_s, &config.warnings);
    read_milliseconds("CUABI_CACHE_REMOTE_BACKOFF_MS", &config.backoff_ms, &config.warnings);
    read_size("CUABI_CACHE_REMOTE_MAX_BYTES", &config.max_bytes, &config.warnings);
    if (config.timeout_ms == 0) config.timeout_ms = 1;
    if (config.lease_ms == 0) config.lease_ms = 1;
    if (config.expiry_s == 0) config.expiry_s = 1;
    if (config.max_bytes > (uint64_t(1) << 30)) config.max_bytes = uint64_t(1) << 30;
    *out = std::move(config);
    return true;
}

std::string RemoteConfig::helper_settings() const {
    return format("host=%s\nport=%d\ndb=%d\npassword=%s\ntimeout_ms=%u\nkey_file=%s\nexpiry_s=%u\nlease_ms=%u\nmax_bytes=%llu\n",
                  host.c_str(), port, db, password.c_str(), timeout_ms, key_file.c_str(), expiry_s, lease_ms,
                  static_cast<unsigned long long>(max_bytes));
}

}  // namespace cache
}  // namespace cuabi
