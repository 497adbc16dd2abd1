#include "image/check.hpp"

#include <cstring>

namespace cuabi {
namespace image {

const char* kind_name(Kind kind) {
    switch (kind) {
        case Kind::Ptx:
            return "PTX";
        case Kind::Cubin:
            return "CUBIN";
        case Kind::Fatbin:
            return "fatbin";
        case Kind::Unknown:
            break;
    }
    return "image";
}

Verdict check(const void* data, size_t size) {
    const uint8_t* bytes = static_cast<const uint8_t*>(data);
    Verdict verdict;
    static const uint8_t kElfMagic[4] = {0x7f, 'E', 'L', 'F'};
    static const uint8_t kFatbinMagic[4] = {0x50, 0xed, 0x55, 0xba};
    if (size >= 4 && std::memcmp(bytes, kElfMagic, 4) == 0)
        check_cubin(bytes, size, &verdict);
    else if (size >= 4 && std::memcmp(bytes, kFatbinMagic, 4) == 0)
        check_fatbin(bytes, size, &verdict);
    else
        check_ptx(bytes, size, &verdict);
    return verdict;
}

}  // namespace image
}  // namespace cuabi
