// Cache keys: XXH3-128 over the documented canonical serialization.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "cache/cache_key.hpp"

#define XXH_INLINE_ALL
#include "xxhash.h"

using cuabi::cache::Key;
using cuabi::cache::KeyBuilder;

namespace {

// The serialization docs/cache.md promises, built by hand.
void put_field(std::string* out, const std::string& tag, const std::string& value) {
    auto put_u64 = [out](uint64_t v) {
        for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
    };
    put_u64(tag.size());
    *out += tag;
    put_u64(value.size());
    *out += value;
}

Key key_of(std::initializer_list<std::pair<const char*, std::string>> fields) {
    KeyBuilder builder;
    for (const auto& field : fields)
        builder.add_field(field.first, std::strlen(field.first), field.second.data(), field.second.size());
    return builder.finish();
}

}  // namespace

TEST(CacheKey, IsXxh3Of128BitsOverTheDocumentedSerializationWithFormatVersionFirst) {
    std::string expected;
    std::string version(8, '\0');
    version[0] = static_cast<char>(cuabi::cache::kFormatVersion);
    put_field(&expected, "cuabi.cache.format", version);
    put_field(&expected, "source", "__global__ void k() {}");
    XXH128_hash_t digest = XXH3_128bits(expected.data(), expected.size());

    Key key = key_of({{"source", "__global__ void k() {}"}});
    EXPECT_EQ(key.high, digest.high64);
    EXPECT_EQ(key.low, digest.low64);
}

TEST(CacheKey, ALongValueIsKeyedByItsLengthAndItsOwnDigest) {
    std::string source(4096, 'x');
    source[100] = 'y';
    XXH128_hash_t value = XXH3_128bits(source.data(), source.size());
    std::string digest;
    for (uint64_t half : {value.high64, value.low64})
        for (int i = 0; i < 8; ++i) digest.push_back(static_cast<char>(half >> (8 * i)));
    std::string expected;
    std::string version(8, '\0');
    version[0] = static_cast<char>(cuabi::cache::kFormatVersion);
    put_field(&expected, "cuabi.cache.format", version);
    std::string tag = "source";
    for (uint64_t length : {uint64_t(tag.size())}) for (int i = 0; i < 8; ++i) expected.push_back(static_cast<char>(length >> (8 * i)));
    expected += tag;
    for (int i = 0; i < 8; ++i) expected.push_back(static_cast<char>(uint64_t(source.size()) >> (8 * i)));
    expected += digest;
    XXH128_hash_t key_digest = XXH3_128bits(expected.data(), expected.size());
    Key key = key_of({{"source", source}});
    EXPECT_EQ(key.high, key_digest.high64);
    EXPECT_EQ(key.low, key_digest.low64);
    std::string changed = source;
    changed[4000] = 'z';
    EXPECT_NE(key_of({{"source", changed}}), key) << "a byte far into a long value";
}

TEST(CacheKey, TheVectorizedHashIsXxh3Itself) {
    std::string bytes(10000, '\0');
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 131 + 7);
    for (size_t size : {size_t(0), size_t(1), size_t(17), size_t(240), size_t(241), size_t(4096), bytes.size()}) {
        XXH128_hash_t reference = XXH3_128bits(bytes.data(), size);
        cuabi::cache::Digest digest = cuabi::cache::hash128(bytes.data(), size);
        EXPECT_EQ(digest.high, reference.high64) << size;
        EXPECT_EQ(digest.low, reference.low64) << size;
    }
}

TEST(CacheKey, HexIsThirtyTwoLowercaseDigitsHighHalfFirst) {
    Key key;
    key.high = 0x0123456789abcdefull;
    key.low = 0xfedcba9876543210ull;
    EXPECT_EQ(key.hex(), "0123456789abcdeffedcba9876543210");
}

TEST(CacheKey, SameFieldsGiveTheSameKey) {
    EXPECT_EQ(key_of({{"source", "a"}, {"target", "sm_90"}}), key_of({{"source", "a"}, {"target", "sm_90"}}));
}

TEST(CacheKey, FieldBoundariesCannotBeShifted) {
    EXPECT_NE(key_of({{"a", "ab"}, {"b", "c"}}), key_of({{"a", "a"}, {"b", "bc"}}));
    EXPECT_NE(key_of({{"ab", ""}}), key_of({{"a", "b"}}));
}

TEST(CacheKey, AnEmptyFieldDiffersFromAMissingOne) {
    EXPECT_NE(key_of({{"source", "x"}, {"salt", ""}}), key_of({{"source", "x"}}));
}

TEST(CacheKey, TheTagIsPartOfTheKey) {
    EXPECT_NE(key_of({{"define", "N=1"}}), key_of({{"flag", "N=1"}}));
}

TEST(CacheKey, FieldOrderMatters) {
    EXPECT_NE(key_of({{"a", "1"}, {"b", "2"}}), key_of({{"b", "2"}, {"a", "1"}}));
}

TEST(CacheKey, U64FieldsAreEightLittleEndianBytes) {
    KeyBuilder numeric;
    numeric.add_u64("nvrtc", 0x0102);
    KeyBuilder bytes;
    const unsigned char le[8] = {0x02, 0x01, 0, 0, 0, 0, 0, 0};
    bytes.add("nvrtc", le, sizeof le);
    EXPECT_EQ(numeric.finish(), bytes.finish());
}

TEST(CacheKey, ACopiedBuilderContinuesIndependentlyAndFinishIsRepeatable) {
    KeyBuilder base;
    base.add("source", "common prefix");
    KeyBuilder copy = base;
    copy.add("salt", "1");
    base.add("salt", "2");
    EXPECT_NE(base.finish(), copy.finish());
    EXPECT_EQ(copy.finish(), copy.finish());
    EXPECT_EQ(copy.finish(), key_of({{"source", "common prefix"}, {"salt", "1"}}));
}
