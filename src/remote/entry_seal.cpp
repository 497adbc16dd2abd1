#include "entry_seal.hpp"

#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdarg>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace cuabi {
namespace remote {
namespace {

constexpr char kMagic[8] = {'C', 'U', 'A', 'B', 'I', 'R', 'V', '1'};
constexpr uint32_t kSigned = 1;

__attribute__((format(printf, 1, 2))) std::string text(const char* format, ...) {
    char buffer[1024];
    va_list arguments;
    va_start(arguments, format);
    std::vsnprintf(buffer, sizeof buffer, format, arguments);
    va_end(arguments);
    return buffer;
}

}  // namespace

bool Sealer::load_key(const std::string& path, std::string* why) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        *why = text("the remote cache key file '%s' cannot be opened: %s. Fix: point CUABI_CACHE_REMOTE_KEY_FILE at the "
                    "fleet's key file, or unset it to use the remote without signatures",
                    path.c_str(), std::strerror(errno));
        return false;
    }
    struct stat info;
    bool ok = fstat(fd, &info) == 0;
    if (!ok || !S_ISREG(info.st_mode) || (info.st_mode & 077) != 0 || (info.st_uid != 0 && info.st_uid != geteuid())) {
        close(fd);
        *why = text("the remote cache key file '%s' is not a regular file that only its owner (this user or root) can "
                    "read and write (mode %03lo, owner uid %lu). Fix: chmod 600 it (a Kubernetes secret: defaultMode "
                    "0400), owned by the user that runs cuabi",
                    path.c_str(), ok ? static_cast<unsigned long>(info.st_mode & 0777) : 0ul,
                    ok ? static_cast<unsigned long>(info.st_uid) : 0ul);
        return false;
    }
    if (info.st_size < 32 || info.st_size > 4096) {
        close(fd);
        *why = text("the remote cache key file '%s' holds %lu bytes; a key is 32 to 4096 bytes. Fix: write at least 32 "
                    "random bytes into it (head -c 32 /dev/urandom > FILE)",
                    path.c_str(), static_cast<unsigned long>(info.st_size));
        return false;
    }
    key_.resize(static_cast<size_t>(info.st_size));
    ssize_t got = read(fd, key_.data(), key_.size());
    close(fd);
    if (got != static_cast<ssize_t>(key_.size())) {
        key_.clear();
        *why = text("the remote cache key file '%s' could not be read whole. Fix: check the file", path.c_str());
        return false;
    }
    return true;
}

void Sealer::mac(const uint8_t* head, const uint8_t* entry, size_t size, uint8_t out[32]) const {
    crypto_auth_hmacsha256_state state;
    crypto_auth_hmacsha256_init(&state, key_.data(), key_.size());
    crypto_auth_hmacsha256_update(&state, head, 16);
    crypto_auth_hmacsha256_update(&state, entry, size);
    crypto_auth_hmacsha256_final(&state, out);
    sodium_memzero(&state, sizeof state);
}

std::vector<uint8_t> Sealer::seal(const uint8_t* entry, size_t size) const {
    std::vector<uint8_t> value(kEnvelopeBytes + size, 0);
    std::memcpy(value.data(), kMagic, 8);
    if (signing()) {
        value[8] = kSigned;
        mac(value.data(), entry, size, value.data() + 16);
    }
    if (size > 0) std::memcpy(value.data() + kEnvelopeBytes, entry, size);
    return value;
}

bool Sealer::open(const uint8_t* value, size_t size, std::vector<uint8_t>* entry, std::string* why) const {
    if (size < kEnvelopeBytes || std::memcmp(value, kMagic, 8) != 0) {
        *why = size < kEnvelopeBytes ? "a value of " + std::to_string(size) + " bytes, shorter than the envelope"
                                     : "not a cuabi entry (no envelope magic)";
        return false;
    }
    uint32_t flags = value[8] | uint32_t(value[9]) << 8 | uint32_t(value[10]) << 16 | uint32_t(value[11]) << 24;
    uint32_t reserved = value[12] | value[13] | value[14] | value[15];
    if ((flags & ~kSigned) != 0 || reserved != 0) {
        *why = "an envelope with unknown flags " + std::to_string(flags);
        return false;
    }
    if (signing()) {
        if ((flags & kSigned) == 0) {
            *why = "an unsigned entry, and this node requires signatures (CUABI_CACHE_REMOTE_KEY_FILE)";
            return false;
        }
        uint8_t expected[32];
        mac(value, value + kEnvelopeBytes, size - kEnvelopeBytes, expected);
        bool good = crypto_verify_32(expected, value + 16) == 0;
        sodium_memzero(expected, sizeof expected);
        if (!good) {
            *why = "an entry whose signature does not verify with this node's key";
            return false;
        }
    }
    entry->assign(value + kEnvelopeBytes, value + size);
    return true;
}

}  // namespace remote
}  // namespace cuabi
