// Deterministic cache contents for the cache tests and their helper processes: entry i always
// has the same key and the same image, so any process can tell a right answer from a wrong one.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "cache/cache_key.hpp"
#include "cache/cached_image.hpp"

namespace cache_test {

inline cuabi::cache::Key make_key(uint64_t index) {
    cuabi::cache::KeyBuilder builder;
    builder.add("test.entry", "cache test entry");
    builder.add_u64("test.index", index);
    return builder.finish();
}

inline std::shared_ptr<cuabi::cache::CachedImage> make_image(uint64_t index, size_t image_bytes = 0) {
    auto image = std::make_shared<cuabi::cache::CachedImage>();
    size_t size = image_bytes != 0 ? image_bytes : 1500 + (index % 7) * 211;
    image->image.resize(size);
    uint64_t state = index * 0x9e3779b97f4a7c15ull + 1;
    for (size_t i = 0; i < size; ++i) {
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        image->image[i] = static_cast<uint8_t>(state);
    }
    const uint8_t elf_magic[4] = {0x7f, 'E', 'L', 'F'};  // kind 2, a CUBIN, starts like one
    for (size_t i = 0; i < 4 && i < size; ++i) image->image[i] = elf_magic[i];
    image->image_kind = 2;
    image->target = "sm_90";
    image->lowered_names = {{"kernel<" + std::to_string(index) + ">", "_Z6kernelILi" + std::to_string(index) + "EEvv"},
                            {"plain", "plain"}};
    image->log = "compiled entry " + std::to_string(index);
    return image;
}

inline bool same_image(const cuabi::cache::CachedImage& a, const cuabi::cache::CachedImage& b) {
    return a.image == b.image && a.image_kind == b.image_kind && a.target == b.target &&
           a.lowered_names == b.lowered_names && a.log == b.log;
}

}  // namespace cache_test
