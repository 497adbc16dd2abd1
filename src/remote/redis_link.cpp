#include "redis_link.hpp"

#include <sys/time.h>

namespace cuabi {
namespace remote {
namespace {

struct timeval as_timeval(int ms) {
    struct timeval tv;
    tv.tv_sec = ms / 1000;
    tv.tv_usec = (ms % 1000) * 1000;
    return tv;
}

Reply run(redisContext* context, const std::vector<std::string>& arguments) {
    std::vector<const char*> argv;
    std::vector<size_t> lengths;
    for (const std::string& argument : arguments) {
        argv.push_back(argument.data());
        lengths.push_back(argument.size());
    }
    return Reply(static_cast<redisReply*>(
        redisCommandArgv(context, static_cast<int>(argv.size()), argv.data(), lengths.data())));
}

}  // namespace

std::string RedisLink::where() const {
    return address_.host + ":" + std::to_string(address_.port);
}

void RedisLink::drop() {
    if (context_ != nullptr) redisFree(context_);
    context_ = nullptr;
}

bool RedisLink::connect(std::string* why) {
    context_ = redisConnectWithTimeout(address_.host.c_str(), address_.port, as_timeval(address_.timeout_ms));
    if (context_ == nullptr || context_->err != 0) {
        *why = "cannot connect to Redis at " + where() + " within " + std::to_string(address_.timeout_ms) +
               " ms: " + (context_ != nullptr ? context_->errstr : "out of memory");
        drop();
        return false;
    }
    redisSetTimeout(context_, as_timeval(address_.timeout_ms));
    redisEnableKeepAlive(context_);
    std::vector<std::vector<std::string>> preludes;
    if (!address_.password.empty()) preludes.push_back({"AUTH", address_.password});
    if (address_.db != 0) preludes.push_back({"SELECT", std::to_string(address_.db)});
    for (const auto& prelude : preludes) {
        Reply reply = run(context_, prelude);
        if (reply == nullptr || reply->type == REDIS_REPLY_ERROR) {
            *why = "Redis at " + where() + " refused " + prelude[0] + ": " +
                   (reply != nullptr ? std::string(reply->str, reply->len) : std::string(context_->errstr));
            drop();
            return false;
        }
    }
    return true;
}

Reply RedisLink::command(const std::vector<std::string>& arguments, std::string* why) {
    if (context_ == nullptr && !connect(why)) return nullptr;
    Reply reply = run(context_, arguments);
    if (reply == nullptr) {
        // A timeout or a broken connection leaves the context unusable (a late reply would answer
        // the next command): start over next time.
        *why = "Redis at " + where() + " did not answer " + arguments[0] + " within " +
               std::to_string(address_.timeout_ms) + " ms: " + context_->errstr;
        drop();
    }
    return reply;
}

}  // namespace remote
}  // namespace cuabi
