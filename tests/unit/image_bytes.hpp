// Real images -- the fuzz seeds in tests/fuzz/corpus, CUBINs, fatbins and PTX built by nvcc 13.0 --
// and the byte surgery the image tests (unit and GPU) damage them with.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace test_support {

using ImageBytes = std::vector<uint8_t>;

inline ImageBytes seed_image(const char* name) {
    std::ifstream file(std::string(CUABI_TEST_IMAGE_DIR) + "/" + name, std::ios::binary);
    return ImageBytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

template <typename T>
void put(ImageBytes* bytes, size_t offset, T value) {
    std::memcpy(bytes->data() + offset, &value, sizeof value);
}

template <typename T>
T get(const ImageBytes& bytes, size_t offset) {
    T value;
    std::memcpy(&value, bytes.data() + offset, sizeof value);
    return value;
}

}  // namespace test_support
