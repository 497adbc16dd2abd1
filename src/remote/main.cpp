// cuabi-cache-remote: the remote cache tier's network end (src/cache/remote_tier.hpp). Redis
// (hiredis) and signatures (libsodium) live in this process, so that libcuabi links neither and a
// remote that hangs or answers garbage costs cuabi a timeout, never its process. Not meant to be
// run by hand:
//
//   cuabi-cache-remote --parent <pid>       socket on descriptor 3
//
// It reads the Configure request, answers it, then one reply per request (remote_protocol.hpp)
// until its socket closes. It dies with its parent and keeps no descriptor of the parent's but
// its socket.
#include <signal.h>
#include <sodium.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "cache/remote_protocol.hpp"
#include "core/child_process.hpp"
#include "core/helper_side.hpp"
#include "entry_seal.hpp"
#include "redis_link.hpp"

using cuabi::remote::Message;
using cuabi::remote::RemoteOp;
using cuabi::remote::RemoteReply;

namespace {

constexpr int kSocket = cuabi::kChildSocket;

// Compare-and-delete: only the lease this process holds is dropped.
const char* const kRelease =
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";
// The entry, unless it is larger than the cap (then only its size, unread); with a lease key,
// whether that lease still stands when there is no entry.
const char* const kGet =
    "local n = redis.call('STRLEN', KEYS[1]) "
    "if n > tonumber(ARGV[1]) then return redis.status_reply('oversize ' .. n) end "
    "if n > 0 then return redis.call('GET', KEYS[1]) end "
    "if KEYS[2] then return redis.call('EXISTS', KEYS[2]) end return false";
// A lease is only taken while there is no entry: a node whose lookup missed just before another
// published must not compile again. An entry present counts as a lost lease (the wait finds it).
const char* const kLease =
    "if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end "
    "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end return 0";
// First writer wins, under the exact key and the any-NVRTC alias; then this process's lease goes.
const char* const kPublish =
    "local stored = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'EX', ARGV[2]) "
    "redis.call('SET', KEYS[2], ARGV[1], 'NX', 'EX', ARGV[2]) "
    "if redis.call('GET', KEYS[3]) == ARGV[3] then redis.call('DEL', KEYS[3]) end "
    "if stored then return 1 end return 0";

struct Settings {
    cuabi::remote::RedisAddress address;
    std::string key_file;
    long expiry_s = 604800;
    long lease_ms = 60000;
    unsigned long long max_bytes = 64ull << 20;
};

Settings parse(const std::string& text) {
    Settings settings;
    size_t at = 0;
    while (at < text.size()) {
        size_t end = text.find('\n', at);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(at, end - at);
        at = end + 1;
        size_t equals = line.find('=');
        if (equals == std::string::npos) continue;
        std::string name = line.substr(0, equals), value = line.substr(equals + 1);
        if (name == "host") settings.address.host = value;
        else if (name == "port") settings.address.port = std::atoi(value.c_str());
        else if (name == "db") settings.address.db = std::atoi(value.c_str());
        else if (name == "password") settings.address.password = value;
        else if (name == "timeout_ms") settings.address.timeout_ms = std::atoi(value.c_str());
        else if (name == "key_file") settings.key_file = value;
        else if (name == "expiry_s") settings.expiry_s = std::atol(value.c_str());
        else if (name == "lease_ms") settings.lease_ms = std::atol(value.c_str());
        else if (name == "max_bytes") settings.max_bytes = std::strtoull(value.c_str(), nullptr, 10);
    }
    return settings;
}

Message reply(RemoteReply code, std::string text = std::string()) {
    Message message;
    message.code = static_cast<uint32_t>(code);
    message.text = std::move(text);
    return message;
}

std::string line(const std::string& text, int index) {
    size_t at = 0;
    for (int i = 0; i < index && at != std::string::npos; ++i) {
        at = text.find('\n', at);
        if (at != std::string::npos) ++at;
    }
    if (at == std::string::npos) return std::string();
    return text.substr(at, text.find('\n', at) - at);
}

class Server {
public:
    Server(Settings settings, const cuabi::remote::Sealer& sealer, std::string token)
        : settings_(std::move(settings)), link_(settings_.address), sealer_(sealer), token_(std::move(token)) {}

    Message handle(const Message& request) {
        switch (static_cast<RemoteOp>(request.code)) {
        case RemoteOp::Get: return get(line(request.text, 0), std::string());
        case RemoteOp::Poll: return get(line(request.text, 0), line(request.text, 1));
        case RemoteOp::Lease: return lease(line(request.text, 0), line(request.text, 1));
        case RemoteOp::Publish: return publish(request);
        case RemoteOp::Release: return release(request.text);
        default: return reply(RemoteReply::Unavailable, "the helper got an unknown request " + std::to_string(request.code));
        }
    }

private:
    // Script errors that mean the value is not a string (someone stored a list there) are the
    // value's fault; every other error is the remote's.
    Message unavailable_or_refused(const cuabi::remote::Reply& got, const std::string& key) {
        std::string text(got->str != nullptr ? got->str : "", got->len);
        if (text.find("WRONGTYPE") != std::string::npos)
            return reply(RemoteReply::Refused, "the value under '" + key + "' is not a string");
        return reply(RemoteReply::Unavailable, "Redis at " + settings_.address.host + " answered an error: " + text);
    }

    Message get(const std::string& key, const std::string& lease_key) {
        std::string why;
        std::vector<std::string> arguments = {"EVAL", kGet, lease_key.empty() ? "1" : "2", key};
        if (!lease_key.empty()) arguments.push_back(lease_key);
        arguments.push_back(std::to_string(settings_.max_bytes));
        cuabi::remote::Reply got = link_.command(arguments, &why);
        if (got == nullptr) return reply(RemoteReply::Unavailable, why);
        switch (got->type) {
        case REDIS_REPLY_NIL: return reply(RemoteReply::Miss);
        case REDIS_REPLY_INTEGER: return reply(got->integer != 0 ? RemoteReply::Waiting : RemoteReply::Miss);
        case REDIS_REPLY_STATUS:
            return reply(RemoteReply::Refused, "the value under '" + key + "' is " +
                                                   std::string(got->str, got->len).substr(9) +
                                                   " bytes, over the remote cap of " + std::to_string(settings_.max_bytes));
        case REDIS_REPLY_STRING: {
            Message hit = reply(RemoteReply::Hit);
            if (!sealer_.open(reinterpret_cast<const uint8_t*>(got->str), got->len, &hit.payload, &why))
                return reply(RemoteReply::Refused, "the value under '" + key + "' is " + why);
            return hit;
        }
        case REDIS_REPLY_ERROR: return unavailable_or_refused(got, key);
        default: return reply(RemoteReply::Refused, "the value under '" + key + "' is not a string");
        }
    }

    Message lease(const std::string& key, const std::string& entry_key) {
        std::string why;
        cuabi::remote::Reply got =
            link_.command({"EVAL", kLease, "2", key, entry_key, token_, std::to_string(settings_.lease_ms)}, &why);
        if (got == nullptr) return reply(RemoteReply::Unavailable, why);
        if (got->type == REDIS_REPLY_INTEGER) return reply(got->integer == 1 ? RemoteReply::Won : RemoteReply::Lost);
        return unavailable_or_refused(got, key);
    }

    Message publish(const Message& request) {
        std::vector<uint8_t> sealed = sealer_.seal(request.payload.data(), request.payload.size());
        std::string why;
        cuabi::remote::Reply got = link_.command(
            {"EVAL", kPublish, "3", line(request.text, 0), line(request.text, 1), line(request.text, 2),
             std::string(sealed.begin(), sealed.end()), std::to_string(settings_.expiry_s), token_},
            &why);
        if (got == nullptr) return reply(RemoteReply::Unavailable, why);
        if (got->type == REDIS_REPLY_INTEGER) return reply(got->integer == 1 ? RemoteReply::Ok : RemoteReply::Lost);
        return unavailable_or_refused(got, line(request.text, 0));
    }

    Message release(const std::string& key) {
        std::string why;
        cuabi::remote::Reply got = link_.command({"EVAL", kRelease, "1", key, token_}, &why);
        if (got == nullptr) return reply(RemoteReply::Unavailable, why);
        return reply(RemoteReply::Ok);
    }

    Settings settings_;
    cuabi::remote::RedisLink link_;
    const cuabi::remote::Sealer& sealer_;
    std::string token_;
};

// A lease names its holder: this host and process and a random part, so that only the holder's
// publish or release drops it.
std::string lease_token() {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    unsigned char random[8];
    randombytes_buf(random, sizeof random);
    char hex[17];
    sodium_bin2hex(hex, sizeof hex, random, sizeof random);
    return std::string(host) + ":" + std::to_string(getppid()) + ":" + hex;
}

}  // namespace

int main(int argc, char** argv) {
    pid_t parent = 0;
    if (int refused = cuabi::begin_helper(argc, argv, &parent)) return refused;
    signal(SIGPIPE, SIG_IGN);  // a Redis that hung up is a failed command, not the helper's death

    Message configure;
    if (cuabi::remote::receive_message(kSocket, &configure, cuabi::frames::kNoDeadline) != cuabi::frames::Io::Ok ||
        configure.code != static_cast<uint32_t>(RemoteOp::Configure))
        return 4;
    Settings settings = parse(configure.text);
    cuabi::remote::Sealer sealer;
    std::string why;
    Message hello = reply(RemoteReply::Ok, "hiredis " + std::to_string(HIREDIS_MAJOR) + "." + std::to_string(HIREDIS_MINOR) +
                                          ", libsodium " + sodium_version_string());
    if (sodium_init() < 0) hello = reply(RemoteReply::Unavailable, "libsodium could not start. Fix: reinstall libsodium");
    else if (!settings.key_file.empty() && !sealer.load_key(settings.key_file, &why))
        hello = reply(RemoteReply::Unavailable, why);
    if (cuabi::remote::send_message(kSocket, hello, cuabi::frames::kNoDeadline) != cuabi::frames::Io::Ok ||
        hello.code != static_cast<uint32_t>(RemoteReply::Ok))
        return 0;

    Server server(std::move(settings), sealer, lease_token());
    for (;;) {
        Message request;
        if (cuabi::remote::receive_message(kSocket, &request, cuabi::frames::kNoDeadline) != cuabi::frames::Io::Ok)
            return 0;
        Message answer;
        try {
            answer = server.handle(request);
        } catch (const std::bad_alloc&) {
            answer = reply(RemoteReply::Unavailable, "the remote cache helper ran out of memory");
        }
        if (cuabi::remote::send_message(kSocket, answer, cuabi::frames::kNoDeadline) != cuabi::frames::Io::Ok) return 0;
    }
}
