// Bounds-checked reading of an image's bytes, shared by the checks in this directory.
#pragma once

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "image/check.hpp"

namespace cuabi {
namespace image {

class Bytes {
public:
    Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
    size_t size() const { return size_; }
    const uint8_t* data() const { return data_; }
    // [offset, offset + length) lies within the bytes; never overflows.
    bool holds(uint64_t offset, uint64_t length) const { return offset <= size_ && length <= size_ - offset; }
    // A T copied from `offset` (the caller checked holds(offset, sizeof(T))): images are not aligned.
    template <typename T>
    T at(uint64_t offset) const {
        T value;
        std::memcpy(&value, data_ + offset, sizeof value);
        return value;
    }
    // True when every byte in [from, size) is zero.
    bool zero_from(uint64_t from) const {
        for (uint64_t i = from; i < size_; ++i)
            if (data_[i] != 0) return false;
        return true;
    }

private:
    const uint8_t* data_;
    size_t size_;
};

// Records the first defect (later ones are consequences); returns false for `return defect(...)`.
inline bool defect(Verdict* out, const char* format, ...) __attribute__((format(printf, 2, 3)));
inline bool defect(Verdict* out, const char* format, ...) {
    if (out->defect[0] != '\0') return false;
    va_list args;
    va_start(args, format);
    std::vsnprintf(out->defect, sizeof out->defect, format, args);
    va_end(args);
    if (out->defect[0] == '\0') std::snprintf(out->defect, sizeof out->defect, "damaged");
    return false;
}

// Bytes past the described end must be zero padding.
inline bool check_tail(const Bytes& bytes, uint64_t extent, const char* what, Verdict* out) {
    out->extent = extent;
    if (bytes.zero_from(extent)) return true;
    return defect(out,
                  "%llu bytes follow the end of the %s that its headers describe (byte %llu), and they are not "
                  "zero padding: the file was extended or joined to another",
                  static_cast<unsigned long long>(bytes.size() - extent), what,
                  static_cast<unsigned long long>(extent));
}

inline unsigned long long ull(uint64_t value) { return static_cast<unsigned long long>(value); }

}  // namespace image
}  // namespace cuabi
