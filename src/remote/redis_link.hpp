// One connection to Redis, made on first use and remade after any failure, every step bounded:
// connecting by the connect timeout, each command by the operation timeout (socket timeouts), so
// a Redis that is down, stopped or slow costs one timeout, never a hang.
#pragma once

#include <hiredis/hiredis.h>

#include <memory>
#include <string>
#include <vector>

namespace cuabi {
namespace remote {

struct RedisAddress {
    std::string host = "127.0.0.1";
    int port = 6379;
    int db = 0;
    std::string password;  // AUTH before anything else when set
    int timeout_ms = 50;
};

struct ReplyDeleter {
    void operator()(redisReply* reply) const { freeReplyObject(reply); }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

class RedisLink {
public:
    explicit RedisLink(RedisAddress address) : address_(std::move(address)) {}
    ~RedisLink() { drop(); }
    RedisLink(const RedisLink&) = delete;
    RedisLink& operator=(const RedisLink&) = delete;

    // The reply of one command (binary-safe arguments), or null with *why naming the host and
    // what failed. An error reply is a reply: the caller decides what it means.
    Reply command(const std::vector<std::string>& arguments, std::string* why);

private:
    bool connect(std::string* why);
    void drop();
    std::string where() const;

    RedisAddress address_;
    redisContext* context_ = nullptr;
};

}  // namespace remote
}  // namespace cuabi
