// The envelope an entry travels in through Redis, and its signature.
//
//   0  u8[8]  magic "CUABIRV1"
//   8  u32    flags: bit 0 = signed (the MAC below is an HMAC-SHA256), no other bit is valid
//  12  u32    reserved (0)
//  16  u8[32] HMAC-SHA256 with the fleet key over the magic, the flags and the entry; zeros unsigned
//  48  the entry, as src/cache/entry_format writes it (self-identifying: its header holds its key)
//
// The MAC covers the entry, whose header names the key it belongs to, so an entry copied under
// another Redis key still verifies here and is then refused by cuabi's decode for the wrong key.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cuabi {
namespace remote {

constexpr size_t kEnvelopeBytes = 48;

class Sealer {
public:
    // Without a key file: entries go out unsigned and come in unchecked. With one: the file must be
    // a regular file of this user (or root), not readable or writable by anyone else, of 32 to
    // 4096 bytes (all of them are the key). False with *why ("... Fix: ...") otherwise.
    bool load_key(const std::string& path, std::string* why);
    bool signing() const { return !key_.empty(); }

    std::vector<uint8_t> seal(const uint8_t* entry, size_t size) const;
    // The entry inside `value`, or false with *why naming what is wrong with it.
    bool open(const uint8_t* value, size_t size, std::vector<uint8_t>* entry, std::string* why) const;

private:
    void mac(const uint8_t* head, const uint8_t* entry, size_t size, uint8_t out[32]) const;
    std::vector<uint8_t> key_;
};

}  // namespace remote
}  // namespace cuabi
