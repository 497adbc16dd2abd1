// The range catalog read through the ABI: every entry named in the "cuabi." namespace, unique,
// described; indexes past the end refused with a message.
#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <set>
#include <string>

#include "cuabi/cuabi.h"
#include "range/catalog.hpp"

namespace {

bool ends_with_fix(const std::string& message) { return message.find(" Fix: ") != std::string::npos; }

TEST(RangeCatalog, ListsOneEntryPerPhase) {
    size_t count = 0;
    ASSERT_EQ(cuabi_range_get_catalog_count(&count), CUABI_SUCCESS);
    EXPECT_EQ(count, static_cast<size_t>(cuabi::range::Phase::Count));
}

TEST(RangeCatalog, NamesAreNamespacedUniqueAndDescribed) {
    size_t count = 0;
    ASSERT_EQ(cuabi_range_get_catalog_count(&count), CUABI_SUCCESS);
    std::set<std::string> names;
    for (size_t i = 0; i < count; ++i) {
        const char* name = nullptr;
        const char* description = nullptr;
        ASSERT_EQ(cuabi_range_get_catalog_entry(i, &name, &description), CUABI_SUCCESS) << i;
        ASSERT_NE(name, nullptr);
        ASSERT_NE(description, nullptr);
        std::string text = name;
        EXPECT_EQ(text.rfind("cuabi.", 0), 0u) << text << " must be in the cuabi. namespace";
        EXPECT_GT(text.size(), std::strlen("cuabi.")) << text;
        for (char c : text)  // lower-case dotted words: safe in ncu filters and JSON without escaping
            EXPECT_TRUE(std::islower(static_cast<unsigned char>(c)) || c == '.') << text;
        EXPECT_EQ(text.back() == '.', false) << text;
        EXPECT_TRUE(names.insert(text).second) << text << " appears twice";
        EXPECT_GE(std::strlen(description), 20u) << text << " needs a description of the phase it covers";
    }
}

TEST(RangeCatalog, EntriesAreTheInternalCatalogInPhaseOrder) {
    for (size_t i = 0; i < static_cast<size_t>(cuabi::range::Phase::Count); ++i) {
        const char* name = nullptr;
        const char* description = nullptr;
        ASSERT_EQ(cuabi_range_get_catalog_entry(i, &name, &description), CUABI_SUCCESS);
        const cuabi::range::CatalogEntry& entry = cuabi::range::catalog_entry(static_cast<cuabi::range::Phase>(i));
        EXPECT_EQ(name, entry.name);  // the same static string, not a copy
        EXPECT_EQ(description, entry.description);
    }
}

TEST(RangeCatalog, IndexPastTheEndIsNotFound) {
    size_t count = 0;
    ASSERT_EQ(cuabi_range_get_catalog_count(&count), CUABI_SUCCESS);
    const char* name = "untouched";
    const char* description = "untouched";
    EXPECT_EQ(cuabi_range_get_catalog_entry(count, &name, &description), CUABI_ERROR_NOT_FOUND);
    std::string message = cuabi_last_error_message();
    EXPECT_NE(message.find(std::to_string(count)), std::string::npos) << message;
    EXPECT_TRUE(ends_with_fix(message)) << message;
    EXPECT_STREQ(name, "untouched");
    EXPECT_STREQ(description, "untouched");
    EXPECT_EQ(cuabi_range_get_catalog_entry(static_cast<size_t>(-1), &name, &description), CUABI_ERROR_NOT_FOUND);
}

TEST(RangeCatalog, NullOutputsAreInvalidArguments) {
    const char* text = nullptr;
    EXPECT_EQ(cuabi_range_get_catalog_count(nullptr), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(cuabi_range_get_catalog_entry(0, nullptr, &text), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("out_name"), std::string::npos);
    EXPECT_EQ(cuabi_range_get_catalog_entry(0, &text, nullptr), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("out_description"), std::string::npos);
}

TEST(RangeCatalog, IsReachableThroughGetProcAddress) {
    for (const char* function : {"cuabi_range_get_catalog_count", "cuabi_range_get_catalog_entry", "cuabi_range_push",
                                 "cuabi_range_pop", "cuabi_range_start", "cuabi_range_end", "cuabi_range_get_enabled",
                                 "cuabi_range_get_profiler_attached"})
        EXPECT_NE(cuabi_get_proc_address(function), nullptr) << function;
}

}  // namespace
