// cuabi_launch_batch without a GPU: the batch's own refusals (NULL items, too many items, a NULL
// out_submitted, an item with both argument forms), an item refused by the single launch's checks
// with the item named, the empty batch, and the in-order loop stopping at the refused item.
// tests/gpu/launch_batch_test.cpp proves the rest on a device.
#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "compile/kernel.hpp"
#include "core/handle_table.hpp"
#include "cuabi/cuabi.h"
#include "expect_status.hpp"
#include "launch/batch.hpp"

namespace cuabi {
namespace {

TEST(LaunchBatchStructs, LayoutIsFrozen) {
    EXPECT_EQ(offsetof(cuabi_launch_item, kernel), 0u);
    EXPECT_EQ(offsetof(cuabi_launch_item, config), 8u);
    EXPECT_EQ(offsetof(cuabi_launch_item, args), 16u);
    EXPECT_EQ(offsetof(cuabi_launch_item, arg_count), 24u);
    EXPECT_EQ(offsetof(cuabi_launch_item, packed), 32u);
    EXPECT_EQ(offsetof(cuabi_launch_item, packed_size), 40u);
    EXPECT_EQ(sizeof(cuabi_launch_item), 48u);
}

TEST(LaunchBatch, EmptyBatchSucceedsAndSubmitsNothing) {
    size_t submitted = 99;
    EXPECT_EQ(cuabi_launch_batch(nullptr, 0, &submitted), CUABI_SUCCESS);
    EXPECT_EQ(submitted, 0u);
    cuabi_launch_item item = {};
    submitted = 99;
    EXPECT_EQ(cuabi_launch_batch(&item, 0, &submitted), CUABI_SUCCESS);
    EXPECT_EQ(submitted, 0u);
}

TEST(LaunchBatch, RefusesNullItemsWithACount) {
    size_t submitted = 99;
    EXPECT_FAILS_WITH(cuabi_launch_batch(nullptr, 3, &submitted), CUABI_ERROR_INVALID_ARGUMENT, "count is 3");
    EXPECT_EQ(submitted, 0u);
}

TEST(LaunchBatch, RefusesNullOutSubmitted) {
    cuabi_launch_item item = {};
    EXPECT_FAILS_WITH(cuabi_launch_batch(&item, 1, nullptr), CUABI_ERROR_INVALID_ARGUMENT, "out_submitted");
}

TEST(LaunchBatch, RefusesMoreItemsThanTheMaximumBeforeLaunchingAny) {
    // Item 0 would be refused as an invalid handle if the batch got that far.
    std::vector<cuabi_launch_item> items(CUABI_LAUNCH_BATCH_MAX_ITEMS + 1);
    size_t submitted = 99;
    EXPECT_FAILS_WITH(cuabi_launch_batch(items.data(), items.size(), &submitted), CUABI_ERROR_INVALID_ARGUMENT,
                      "count is 4097; at most 4096");
    EXPECT_EQ(submitted, 0u);
    // The maximum itself is taken: the refusal is then item 0's own.
    items.pop_back();
    EXPECT_FAILS_WITH(cuabi_launch_batch(items.data(), items.size(), &submitted), CUABI_ERROR_INVALID_HANDLE,
                      "cuabi_launch_batch item 0 of 4096: ");
}

TEST(LaunchBatch, RefusedItemGetsTheSingleLaunchsStatusAndMessageWithItsIndex) {
    // What cuabi_launch says about the same arguments...
    cuabi_launch_config config = CUABI_LAUNCH_CONFIG_INIT;
    config.reserved = 7;
    EXPECT_EQ(cuabi_launch(nullptr, &config, nullptr, 0), CUABI_ERROR_INVALID_ARGUMENT);
    const std::string single = cuabi_last_error_message();
    // ...the batch says about its item, after naming it.
    cuabi_launch_item items[2] = {};
    items[0].config = &config;
    size_t submitted = 99;
    EXPECT_EQ(cuabi_launch_batch(items, 2, &submitted), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(cuabi_last_error_message()), "cuabi_launch_batch item 0 of 2: " + single);
    EXPECT_EQ(submitted, 0u);
}

TEST(LaunchBatch, RefusesAnItemWithBothArgumentForms) {
    const int value = 1;
    const cuabi_kernel_arg arg = {&value, sizeof value};
    cuabi_launch_item item = {};
    item.args = &arg;
    item.arg_count = 1;
    item.packed = &value;
    item.packed_size = sizeof value;
    size_t submitted = 99;
    EXPECT_FAILS_WITH(cuabi_launch_batch(&item, 1, &submitted), CUABI_ERROR_INVALID_ARGUMENT,
                      "cuabi_launch_batch item 0 of 1: the item has both an argument table");
    EXPECT_EQ(submitted, 0u);
    item.args = nullptr;  // a count without a table is still a table
    EXPECT_FAILS_WITH(cuabi_launch_batch(&item, 1, &submitted), CUABI_ERROR_INVALID_ARGUMENT, "both");
}

TEST(LaunchBatch, ItemsGoTheSingleLaunchsWayByForm) {
    // A stale kernel in the packed form is refused by cuabi_launch_packed's checks: its message
    // names the handle as cuabi_launch_packed does.
    cuabi_kernel* stale = nullptr;
    ASSERT_EQ(publish(std::make_shared<Kernel>(nullptr, nullptr, nullptr, "gone", "gone"), &stale), CUABI_SUCCESS);
    cuabi_kernel_destroy(stale);
    const int value = 1;
    EXPECT_EQ(cuabi_launch_packed(stale, nullptr, &value, sizeof value), CUABI_ERROR_INVALID_HANDLE);
    const std::string single = cuabi_last_error_message();
    cuabi_launch_item item = {};
    item.kernel = stale;
    item.packed = &value;
    item.packed_size = sizeof value;
    size_t submitted = 99;
    EXPECT_EQ(cuabi_launch_batch(&item, 1, &submitted), CUABI_ERROR_INVALID_HANDLE);
    EXPECT_EQ(std::string(cuabi_last_error_message()), "cuabi_launch_batch item 0 of 1: " + single);
}

// The loop itself, with items that succeed or fail as the test says: it stops at the refused item,
// never calls the ones after it, reports its index and keeps its status and CUresult.
TEST(LaunchBatchLoop, StopsAtTheRefusedItemAndNamesIt) {
    std::vector<size_t> called;
    size_t submitted = 99;
    const Status status = launch::launch_in_order(
        16,
        [&](size_t i, size_t* launched) {
            called.push_back(i);
            *launched = 1;
            if (i < 5) return CUABI_SUCCESS;
            return fail_with_cu_result(CUABI_ERROR_LAUNCH_BLOCK, 700, "reduce the block",
                                       "block (2048,1,1) is too large for kernel 'k'");
        },
        &submitted);
    EXPECT_EQ(status, CUABI_ERROR_LAUNCH_BLOCK);
    EXPECT_EQ(submitted, 5u);
    EXPECT_EQ(called, (std::vector<size_t>{0, 1, 2, 3, 4, 5}));
    EXPECT_EQ(std::string(cuabi_last_error_message()),
              "cuabi_launch_batch item 5 of 16: block (2048,1,1) is too large for kernel 'k'. Fix: reduce the block");
    EXPECT_EQ(cuabi_last_cu_result(), 700);
}

TEST(LaunchBatchLoop, LaunchesEveryItemInOrderOnSuccess) {
    std::vector<size_t> called;
    size_t submitted = 99;
    EXPECT_EQ(launch::launch_in_order(
                  4, [&](size_t i, size_t* launched) { called.push_back(i); *launched = 1; return CUABI_SUCCESS; },
                  &submitted),
              CUABI_SUCCESS);
    EXPECT_EQ(submitted, 4u);
    EXPECT_EQ(called, (std::vector<size_t>{0, 1, 2, 3}));
}

// A call that launches a run of items (the fast path's runs) moves the loop past the whole run,
// and a refusal after a run names its own index and counts the run as submitted.
TEST(LaunchBatchLoop, SkipsPastRunsAndCountsThemBeforeARefusal) {
    std::vector<size_t> called;
    size_t submitted = 99;
    const Status status = launch::launch_in_order(
        10,
        [&](size_t i, size_t* launched) {
            called.push_back(i);
            *launched = i == 0 ? 4 : 1;
            if (i < 6) return CUABI_SUCCESS;
            return fail(CUABI_ERROR_ARGUMENT_SIZE, "pack the arguments", "packed_size 3 for kernel 'k'");
        },
        &submitted);
    EXPECT_EQ(status, CUABI_ERROR_ARGUMENT_SIZE);
    EXPECT_EQ(called, (std::vector<size_t>{0, 4, 5, 6}));
    EXPECT_EQ(submitted, 6u);
    EXPECT_EQ(std::string(cuabi_last_error_message()),
              "cuabi_launch_batch item 6 of 10: packed_size 3 for kernel 'k'. Fix: pack the arguments");
}

}  // namespace
}  // namespace cuabi
