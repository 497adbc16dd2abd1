// The on-disk entry format: every truncation and every flipped bit is detected.
#include <gtest/gtest.h>

#include "cache/entry_format.hpp"
#include "cache_support/test_images.hpp"

using namespace cuabi::cache;

namespace {

bool decodes(const Key& key, const std::vector<uint8_t>& bytes, std::string* why = nullptr) {
    CachedImage out;
    std::string reason;
    bool ok = decode_entry(key, bytes.data(), bytes.size(), &out, &reason);
    if (why != nullptr) *why = reason;
    if (!ok) EXPECT_FALSE(reason.empty());
    return ok;
}

// Flips every bit of [begin, end) one at a time; returns how many flips went unnoticed.
int undetected_flips(const Key& key, std::vector<uint8_t> bytes, size_t begin, size_t end) {
    int undetected = 0;
    for (size_t at = begin; at < end; ++at) {
        for (int bit = 0; bit < 8; ++bit) {
            bytes[at] ^= static_cast<uint8_t>(1u << bit);
            undetected += decodes(key, bytes);
            bytes[at] ^= static_cast<uint8_t>(1u << bit);
        }
    }
    return undetected;
}

}  // namespace

TEST(CacheEntryFormat, RoundTripKeepsImageKindTargetNamesAndLog) {
    Key key = cache_test::make_key(1);
    auto image = cache_test::make_image(1);
    std::vector<uint8_t> bytes = encode_entry(key, *image);
    EntryHeader header;
    ASSERT_TRUE(read_entry_header(bytes.data(), bytes.size(), &header));
    EXPECT_EQ(bytes.size(), header.total);
    CachedImage decoded;
    std::string why;
    ASSERT_TRUE(decode_entry(key, bytes.data(), bytes.size(), &decoded, &why)) << why;
    EXPECT_TRUE(cache_test::same_image(decoded, *image));
}

TEST(CacheEntryFormat, RoundTripKeepsTheNvrtcIdentityAndVersion) {
    Key key = cache_test::make_key(2);
    key.nvrtc = 0x1234567890abcdefull;
    auto image = cache_test::make_image(2);
    image->nvrtc_version = 13000;
    std::vector<uint8_t> bytes = encode_entry(key, *image);
    EntryHeader header;
    ASSERT_TRUE(read_entry_header(bytes.data(), bytes.size(), &header));
    EXPECT_EQ(header.nvrtc, key.nvrtc);
    EXPECT_EQ(header.nvrtc_version, 13000u);
    CachedImage decoded;
    std::string why;
    ASSERT_TRUE(decode_entry(key, bytes.data(), bytes.size(), &decoded, &why)) << why;
    EXPECT_EQ(decoded.nvrtc_version, 13000u);
    Key any = key;
    any.nvrtc = kAnyNvrtc;
    EXPECT_TRUE(decode_entry(any, bytes.data(), bytes.size(), &decoded, &why)) << "a lookup without NVRTC takes any";
    Key other = key;
    other.nvrtc = 99;
    EXPECT_FALSE(decode_entry(other, bytes.data(), bytes.size(), &decoded, &why)) << "another NVRTC's entry";
}

TEST(CacheEntryFormat, EveryTruncationIsDetected) {
    Key key = cache_test::make_key(3);
    std::vector<uint8_t> bytes = encode_entry(key, *cache_test::make_image(3));
    for (size_t size = 0; size < bytes.size(); ++size) {
        std::vector<uint8_t> truncated(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(size));
        ASSERT_FALSE(decodes(key, truncated)) << "truncated to " << size << " bytes";
    }
}

TEST(CacheEntryFormat, AppendedBytesAreDetected) {
    Key key = cache_test::make_key(4);
    std::vector<uint8_t> bytes = encode_entry(key, *cache_test::make_image(4));
    bytes.push_back(0);
    std::string why;
    EXPECT_FALSE(decodes(key, bytes, &why));
    EXPECT_NE(why.find("truncated or extended"), std::string::npos) << why;
}

TEST(CacheEntryFormat, EveryBitFlipInTheHeaderIsDetected) {
    Key key = cache_test::make_key(5);
    std::vector<uint8_t> bytes = encode_entry(key, *cache_test::make_image(5));
    EXPECT_EQ(undetected_flips(key, bytes, 0, kEntryHeaderSize), 0);
}

TEST(CacheEntryFormat, EveryBitFlipInTheImageIsDetected) {
    Key key = cache_test::make_key(6);
    auto image = cache_test::make_image(6, 300);
    std::vector<uint8_t> bytes = encode_entry(key, *image);
    EXPECT_EQ(undetected_flips(key, bytes, kEntryHeaderSize, kEntryHeaderSize + 300), 0);
}

TEST(CacheEntryFormat, EveryBitFlipInTheNameMapLogAndTargetIsDetected) {
    Key key = cache_test::make_key(7);
    auto image = cache_test::make_image(7, 64);
    std::vector<uint8_t> bytes = encode_entry(key, *image);
    EXPECT_EQ(undetected_flips(key, bytes, kEntryHeaderSize + 64, bytes.size()), 0);
}

TEST(CacheEntryFormat, AnIntactEntryUnderAnotherKeyIsRejected) {
    std::vector<uint8_t> bytes = encode_entry(cache_test::make_key(8), *cache_test::make_image(8));
    std::string why;
    EXPECT_FALSE(decodes(cache_test::make_key(9), bytes, &why));
    EXPECT_NE(why.find("another key"), std::string::npos) << why;
}

TEST(CacheEntryFormat, GarbageHasNoHeader) {
    std::vector<uint8_t> garbage(200, 0x5a);
    EntryHeader header;
    EXPECT_FALSE(read_entry_header(garbage.data(), garbage.size(), &header));
    EXPECT_FALSE(read_entry_header(garbage.data(), 10, &header));
}
