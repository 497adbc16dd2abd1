// A real redis-server for one test: started on 127.0.0.1 and a free port (no persistence, no
// other interface), stopped (SIGKILL, reaped) when the object goes. Also a minimal RESP client,
// so that tests can plant values the way a forger would, without the library under test.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace test_support {

#ifdef CUABI_REDIS_SERVER
constexpr const char* kRedisServer = CUABI_REDIS_SERVER;
#else
constexpr const char* kRedisServer = nullptr;
#endif

inline int free_port() {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    int port = -1;
    if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) == 0)
        port = ntohs(address.sin_port);
    close(fd);
    return port;
}

inline int connect_loopback(int port) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<uint16_t>(port));
    if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

class RedisServer {
public:
    RedisServer() {
        if (kRedisServer == nullptr) return;
        port_ = free_port();
        std::string port = std::to_string(port_);
        std::vector<std::string> args = {kRedisServer, "--port", port, "--bind", "127.0.0.1", "--save", "",
                                         "--appendonly", "no", "--protected-mode", "yes", "--logfile", "/dev/null"};
        std::vector<char*> argv;
        for (std::string& arg : args) argv.push_back(&arg[0]);
        argv.push_back(nullptr);
        if (posix_spawn(&pid_, kRedisServer, nullptr, nullptr, argv.data(), environ) != 0) {
            pid_ = -1;
            return;
        }
        for (int i = 0; i < 500; ++i) {  // up to 5 s for it to listen
            if (command({"PING"}) == "+PONG") return;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        stop();
    }
    ~RedisServer() { stop(); }

    bool running() const { return pid_ > 0; }
    int port() const { return port_; }
    std::string url() const { return "redis://127.0.0.1:" + std::to_string(port_); }
    void stop() {
        if (pid_ <= 0) return;
        kill(pid_, SIGKILL);
        int status = 0;
        waitpid(pid_, &status, 0);
        pid_ = -1;
    }
    void pause() { kill(pid_, SIGSTOP); }
    void resume() { kill(pid_, SIGCONT); }

    // One command; the reply's first line, or for a bulk string its bytes ("" when nil or failed).
    std::string command(const std::vector<std::string>& arguments) const {
        int fd = connect_loopback(port_);
        if (fd < 0) return "";
        std::string request = "*" + std::to_string(arguments.size()) + "\r\n";
        for (const std::string& argument : arguments)
            request += "$" + std::to_string(argument.size()) + "\r\n" + argument + "\r\n";
        for (size_t sent = 0; sent < request.size();) {
            ssize_t n = send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
            if (n <= 0) {
                close(fd);
                return "";
            }
            sent += static_cast<size_t>(n);
        }
        std::string reply;
        char chunk[65536];
        for (;;) {
            size_t line = reply.find("\r\n");
            if (line != std::string::npos) {
                if (reply[0] != '$') break;
                long length = std::stol(reply.substr(1, line - 1));
                if (length < 0) {
                    reply.clear();
                    break;
                }
                if (reply.size() >= line + 2 + static_cast<size_t>(length) + 2) {
                    reply = reply.substr(line + 2, static_cast<size_t>(length));
                    close(fd);
                    return reply;
                }
            }
            ssize_t n = recv(fd, chunk, sizeof chunk, 0);
            if (n <= 0) break;
            reply.append(chunk, static_cast<size_t>(n));
        }
        close(fd);
        size_t line = reply.find("\r\n");
        return line == std::string::npos ? reply : reply.substr(0, line);
    }

private:
    pid_t pid_ = -1;
    int port_ = -1;
};

}  // namespace test_support
