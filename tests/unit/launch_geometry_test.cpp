// The launch geometry checks on synthetic devices: every dimension, every product, the kernel's
// own thread limit, shared memory, cooperative residency and clusters -- including the overflow
// edges where 32-bit dimensions multiply past 64 bits. No GPU needed.
#include <gtest/gtest.h>

#include <cstdint>

#include "cuabi/cuabi.h"
#include "expect_status.hpp"
#include "launch/geometry.hpp"
#include "synthetic_devices.hpp"

namespace cuabi {
namespace launch {
namespace {

DeviceLimits ampere() {
    DeviceLimits device = hopper();
    device.cc_major = 8;
    device.cluster_launch = false;
    device.multiprocessor_count = 108u;
    std::snprintf(device.arch, sizeof device.arch, "sm_80");
    return device;
}

KernelLimits kernel_allowing(uint32_t threads) {
    KernelLimits limits;
    limits.max_threads_per_block = threads;
    limits.registers_per_thread = 32;
    return limits;
}

Shape shape(uint32_t gx, uint32_t gy, uint32_t gz, uint32_t bx, uint32_t by, uint32_t bz) {
    Shape s;
    s.grid[0] = gx, s.grid[1] = gy, s.grid[2] = gz;
    s.block[0] = bx, s.block[1] = by, s.block[2] = bz;
    return s;
}

Status geometry_of(const Shape& s, Geometry* out = nullptr, const KernelLimits& limits = kernel_allowing(1024),
                   const DeviceLimits& device = hopper()) {
    Geometry ignored;
    return check_geometry("axpy", device, limits, s, out != nullptr ? out : &ignored);
}

TEST(LaunchArithmetic, ProductsSaturateInsteadOfWrapping) {
    EXPECT_EQ(mul_saturating(UINT64_MAX, 2), UINT64_MAX);
    EXPECT_EQ(mul_saturating(uint64_t{1} << 32, uint64_t{1} << 32), UINT64_MAX);
    EXPECT_EQ(mul_saturating(uint64_t{1} << 31, uint64_t{1} << 32), uint64_t{1} << 63);
    const uint32_t largest[3] = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
    EXPECT_EQ(dim_product(largest), UINT64_MAX);
    const uint32_t hopper_grid[3] = {2147483647u, 65535u, 65535u};
    EXPECT_EQ(dim_product(hopper_grid), uint64_t{2147483647u} * 65535u * 65535u);
}

TEST(LaunchGeometry, AcceptsATypicalLaunchAndReportsItsSize) {
    Geometry geometry;
    ASSERT_EQ(geometry_of(shape(1000, 2, 1, 256, 1, 1), &geometry), CUABI_SUCCESS) << last_error_message();
    EXPECT_EQ(geometry.blocks, 2000u);
    EXPECT_EQ(geometry.threads_per_block, 256u);
}

TEST(LaunchGeometry, AcceptsTheLargestGridTheDeviceAllows) {
    Geometry geometry;
    ASSERT_EQ(geometry_of(shape(2147483647u, 65535u, 65535u, 1024, 1, 1), &geometry), CUABI_SUCCESS)
        << last_error_message();
    EXPECT_EQ(geometry.blocks, uint64_t{2147483647u} * 65535u * 65535u);
}

TEST(LaunchGeometry, RejectsZeroGridDimensionNamingIt) {
    EXPECT_FAILS_WITH(geometry_of(shape(0, 1, 1, 32, 1, 1)), CUABI_ERROR_LAUNCH_GRID, "grid (0,1,1) has 0 in dimension x");
    EXPECT_FAILS_WITH(geometry_of(shape(4, 0, 1, 32, 1, 1)), CUABI_ERROR_LAUNCH_GRID, "dimension y");
    EXPECT_FAILS_WITH(geometry_of(shape(4, 1, 0, 32, 1, 1)), CUABI_ERROR_LAUNCH_GRID, "dimension z");
}

TEST(LaunchGeometry, RejectsZeroBlockDimensionNamingIt) {
    EXPECT_FAILS_WITH(geometry_of(shape(1, 1, 1, 0, 1, 1)), CUABI_ERROR_LAUNCH_BLOCK, "block (0,1,1) has 0 in dimension x");
    EXPECT_FAILS_WITH(geometry_of(shape(1, 1, 1, 32, 1, 0)), CUABI_ERROR_LAUNCH_BLOCK, "dimension z");
}

TEST(LaunchGeometry, RejectsGridDimensionsAboveTheDevice) {
    EXPECT_FAILS_WITH(geometry_of(shape(2147483648u, 1, 1, 32, 1, 1)), CUABI_ERROR_LAUNCH_GRID,
                      "2147483648 blocks in dimension x; sm_90 allows at most 2147483647");
    EXPECT_FAILS_WITH(geometry_of(shape(1, 65536, 1, 32, 1, 1)), CUABI_ERROR_LAUNCH_GRID,
                      "grid (1,65536,1) has 65536 blocks in dimension y; sm_90 allows at most 65535");
    EXPECT_FAILS_WITH(geometry_of(shape(1, 1, UINT32_MAX, 32, 1, 1)), CUABI_ERROR_LAUNCH_GRID, "dimension z");
}

TEST(LaunchGeometry, RejectsBlockDimensionsAboveTheDevice) {
    EXPECT_FAILS_WITH(geometry_of(shape(1, 1, 1, 1025, 1, 1)), CUABI_ERROR_LAUNCH_BLOCK,
                      "1025 threads in dimension x; sm_90 allows at most 1024");
    EXPECT_FAILS_WITH(geometry_of(shape(1, 1, 1, 1, 1, 65)), CUABI_ERROR_LAUNCH_BLOCK,
                      "65 threads in dimension z; sm_90 allows at most 64");
}

TEST(LaunchGeometry, RejectsBlockWithMoreThreadsThanTheDeviceAllows) {
    EXPECT_FAILS_WITH(geometry_of(shape(1, 1, 1, 1024, 2, 1)), CUABI_ERROR_LAUNCH_BLOCK,
                      "block (1024,2,1) has 2048 threads; kernel 'axpy' allows at most 1024 on sm_90");
    EXPECT_FAILS_WITH(geometry_of(shape(1, 1, 1, 64, 64, 1)), CUABI_ERROR_LAUNCH_BLOCK, "4096 threads");
}

TEST(LaunchGeometry, BlockProductOfHugeDimensionsDoesNotWrapIntoRange) {
    // A made-up device whose per-dimension limits are the whole 32-bit range: the product
    // (2^96) must not wrap around to something at or below 1024.
    DeviceLimits device = hopper();
    device.max_block[0] = device.max_block[1] = device.max_block[2] = UINT32_MAX;
    Geometry geometry;
    EXPECT_FAILS_WITH(check_geometry("axpy", device, kernel_allowing(1024), shape(1, 1, 1, 1u << 22, 1u << 22, 1u << 22), &geometry),
                      CUABI_ERROR_LAUNCH_BLOCK, "has 18446744073709551615 threads");
    EXPECT_FAILS_WITH(check_geometry("axpy", device, kernel_allowing(1024), shape(1, 1, 1, 65536, 65536, 1), &geometry),
                      CUABI_ERROR_LAUNCH_BLOCK, "has 4294967296 threads");
}

TEST(LaunchGeometry, RejectsBlockAboveTheKernelsOwnLimitThatTheDeviceWouldAllow) {
    EXPECT_FAILS_WITH(geometry_of(shape(1, 1, 1, 256, 1, 1), nullptr, kernel_allowing(128)),
                      CUABI_ERROR_LAUNCH_KERNEL_THREADS, "kernel 'axpy' allows at most 128 on sm_90");
    EXPECT_EQ(geometry_of(shape(1, 1, 1, 128, 1, 1), nullptr, kernel_allowing(128)), CUABI_SUCCESS);
}

TEST(LaunchSharedMemory, AcceptsStaticPlusDynamicUpToTheOptInMaximum) {
    KernelLimits limits = kernel_allowing(1024);
    limits.static_shared_bytes = 1024;
    EXPECT_EQ(check_shared_memory("tile", hopper(), limits, 0), CUABI_SUCCESS);
    EXPECT_EQ(check_shared_memory("tile", hopper(), limits, 100 * 1024), CUABI_SUCCESS);
    EXPECT_EQ(check_shared_memory("tile", hopper(), limits, 232448u - 1024u), CUABI_SUCCESS);
}

TEST(LaunchSharedMemory, RejectsOneByteAboveTheOptInMaximumAndSaysHowMuchFits) {
    KernelLimits limits = kernel_allowing(1024);
    limits.static_shared_bytes = 1024;
    EXPECT_FAILS_WITH(check_shared_memory("tile", hopper(), limits, 232448u - 1023u), CUABI_ERROR_LAUNCH_SHARED_MEMORY,
                      "kernel 'tile' needs 232449 bytes of shared memory per block (1024 static + 231425 dynamic); "
                      "sm_90 allows at most 232448");
    EXPECT_NE(std::string(last_error_message()).find("at most 231424 bytes of dynamic"), std::string::npos)
        << last_error_message();
}

TEST(LaunchSharedMemory, LargestRequestDoesNotWrap) {
    KernelLimits limits = kernel_allowing(1024);
    limits.static_shared_bytes = 4096;
    EXPECT_FAILS_WITH(check_shared_memory("tile", hopper(), limits, UINT32_MAX), CUABI_ERROR_LAUNCH_SHARED_MEMORY,
                      "4294971391 bytes");
}

TEST(LaunchCooperative, RejectsDevicesWithoutCooperativeLaunch) {
    DeviceLimits device = hopper();
    device.cooperative_launch = false;
    EXPECT_FAILS_WITH(check_cooperative_support("sync_all", device), CUABI_ERROR_LAUNCH_COOPERATIVE,
                      "does not support cooperative launches");
    EXPECT_EQ(check_cooperative_support("sync_all", hopper()), CUABI_SUCCESS);
}

TEST(LaunchCooperative, ThreadResidencyAllowsTheLimitAndRejectsOneBlockMore) {
    // 132 SMs x 2048 threads = 270336 threads = 264 blocks of 1024.
    Shape at_limit = shape(264, 1, 1, 1024, 1, 1);
    Geometry geometry;
    ASSERT_EQ(geometry_of(at_limit, &geometry), CUABI_SUCCESS);
    EXPECT_EQ(check_cooperative_threads("sync_all", hopper(), at_limit, geometry), CUABI_SUCCESS);
    Shape over = shape(265, 1, 1, 1024, 1, 1);
    ASSERT_EQ(geometry_of(over, &geometry), CUABI_SUCCESS);
    EXPECT_FAILS_WITH(check_cooperative_threads("sync_all", hopper(), over, geometry), CUABI_ERROR_LAUNCH_COOPERATIVE,
                      "265 blocks of 1024 threads (271360 threads), but sm_90 holds at most 270336 resident threads");
    EXPECT_NE(std::string(last_error_message()).find("at most 264 blocks"), std::string::npos);
}

TEST(LaunchCooperative, ThreadResidencyOfTheLargestGridDoesNotWrap) {
    Shape huge = shape(2147483647u, 65535u, 65535u, 1024, 1, 1);
    Geometry geometry;
    ASSERT_EQ(geometry_of(huge, &geometry), CUABI_SUCCESS);
    EXPECT_FAILS_WITH(check_cooperative_threads("sync_all", hopper(), huge, geometry), CUABI_ERROR_LAUNCH_COOPERATIVE,
                      "18446744073709551615 threads");
}

TEST(LaunchCooperative, OccupancyAllowsTheLimitAndRejectsOneBlockMore) {
    Geometry geometry;
    Shape at_limit = shape(264, 1, 1, 256, 1, 1);
    ASSERT_EQ(geometry_of(at_limit, &geometry), CUABI_SUCCESS);
    EXPECT_EQ(check_cooperative_occupancy("sync_all", hopper(), at_limit, geometry, 2), CUABI_SUCCESS);
    Shape over = shape(265, 1, 1, 256, 1, 1);
    ASSERT_EQ(geometry_of(over, &geometry), CUABI_SUCCESS);
    EXPECT_FAILS_WITH(check_cooperative_occupancy("sync_all", hopper(), over, geometry, 2),
                      CUABI_ERROR_LAUNCH_COOPERATIVE,
                      "cooperative grid (265,1,1) has 265 blocks, but at most 264 can be resident at once: 2 blocks");
}

TEST(LaunchCooperative, OccupancyOfZeroBlocksPerSmIsExplained) {
    Geometry geometry;
    Shape one = shape(1, 1, 1, 1024, 1, 1);
    ASSERT_EQ(geometry_of(one, &geometry), CUABI_SUCCESS);
    EXPECT_FAILS_WITH(check_cooperative_occupancy("sync_all", hopper(), one, geometry, 0),
                      CUABI_ERROR_LAUNCH_COOPERATIVE, "not one block fits on an SM of sm_90");
}

Shape clustered(uint32_t gx, uint32_t cx, uint32_t cy = 1, uint32_t cz = 1) {
    Shape s = shape(gx, 1, 1, 128, 1, 1);
    s.cluster[0] = cx, s.cluster[1] = cy, s.cluster[2] = cz;
    return s;
}

TEST(LaunchCluster, NoClusterNeedsNoClusterSupport) {
    EXPECT_EQ(check_cluster_shape("k", ampere(), kernel_allowing(1024), shape(7, 1, 1, 32, 1, 1)), CUABI_SUCCESS);
}

TEST(LaunchCluster, RejectsClustersBeforeHopper) {
    EXPECT_FAILS_WITH(check_cluster_shape("k", ampere(), kernel_allowing(1024), clustered(8, 2)),
                      CUABI_ERROR_LAUNCH_CLUSTER, "need compute capability 9.0 or newer and the device is sm_80");
}

TEST(LaunchCluster, RejectsAClusterWithAZeroDimension) {
    EXPECT_FAILS_WITH(check_cluster_shape("k", hopper(), kernel_allowing(1024), clustered(8, 2, 0, 1)),
                      CUABI_ERROR_LAUNCH_CLUSTER, "cluster (2,0,1) has 0 in dimension y");
}

TEST(LaunchCluster, RejectsAGridThatIsNotAMultipleOfTheCluster) {
    EXPECT_FAILS_WITH(check_cluster_shape("k", hopper(), kernel_allowing(1024), clustered(10, 4)),
                      CUABI_ERROR_LAUNCH_CLUSTER, "grid (10,1,1) is not a multiple of cluster (4,1,1) in dimension x (10 % 4 = 2)");
    EXPECT_EQ(check_cluster_shape("k", hopper(), kernel_allowing(1024), clustered(12, 4)), CUABI_SUCCESS);
}

TEST(LaunchCluster, CompileTimeClusterDimensionsMustMatchAndDivideTheGrid) {
    KernelLimits limits = kernel_allowing(1024);
    limits.required_cluster[0] = 2, limits.required_cluster[1] = 1, limits.required_cluster[2] = 1;
    EXPECT_FAILS_WITH(check_cluster_shape("k", hopper(), limits, clustered(8, 4)), CUABI_ERROR_LAUNCH_CLUSTER,
                      "compiled with __cluster_dims__(2,1,1), but the launch asks for cluster (4,1,1)");
    EXPECT_EQ(check_cluster_shape("k", hopper(), limits, clustered(8, 2)), CUABI_SUCCESS);
    EXPECT_FAILS_WITH(check_cluster_shape("k", hopper(), limits, shape(3, 1, 1, 32, 1, 1)), CUABI_ERROR_LAUNCH_CLUSTER,
                      "grid (3,1,1) is not a multiple of cluster (2,1,1)");
    EXPECT_EQ(check_cluster_shape("k", hopper(), limits, shape(4, 1, 1, 32, 1, 1)), CUABI_SUCCESS);
}

TEST(LaunchCluster, ClusterSizeAllowsTheKernelsMaximumAndRejectsMore) {
    EXPECT_EQ(check_cluster_size("k", hopper(), clustered(16, 4, 2), 8), CUABI_SUCCESS);
    EXPECT_FAILS_WITH(check_cluster_size("k", hopper(), clustered(16, 16), 8), CUABI_ERROR_LAUNCH_CLUSTER,
                      "cluster (16,1,1) has 16 blocks; with block (128,1,1) and 0 bytes of dynamic shared memory sm_90 "
                      "co-schedules at most 8 blocks per cluster");
    EXPECT_FAILS_WITH(check_cluster_size("k", hopper(), clustered(2, 2), 0), CUABI_ERROR_LAUNCH_CLUSTER,
                      "no cluster of it can be scheduled");
}

TEST(LaunchCluster, ClusterSizeOfHugeDimensionsDoesNotWrap) {
    EXPECT_FAILS_WITH(check_cluster_size("k", hopper(), clustered(1, UINT32_MAX, UINT32_MAX, UINT32_MAX), 16),
                      CUABI_ERROR_LAUNCH_CLUSTER, "18446744073709551615 blocks");
}

TEST(LaunchLimits, DeviceInfoBecomesLimitsWithArchitectureName) {
    DeviceInfo info;
    info.compute_capability_major = 9;
    info.compute_capability_minor = 0;
    info.max_grid_dim[0] = 2147483647;
    info.max_block_dim[2] = 64;
    info.max_shared_memory_per_block = 49152;
    info.max_shared_memory_per_block_optin = 232448;
    info.cluster_launch = 1;
    DeviceLimits limits = device_limits_from(info);
    EXPECT_STREQ(limits.arch, "sm_90");
    EXPECT_EQ(limits.max_grid[0], 2147483647u);
    EXPECT_EQ(limits.max_block[2], 64u);
    EXPECT_EQ(limits.shared_per_block_optin, 232448u);
    EXPECT_TRUE(limits.cluster_launch);
    EXPECT_FALSE(limits.cooperative_launch);
}

TEST(LaunchLimits, DevicesWithoutOptInUseThePlainPerBlockMaximum) {
    DeviceInfo info;
    info.compute_capability_major = 6;
    info.max_shared_memory_per_block = 49152;
    info.max_shared_memory_per_block_optin = 0;
    EXPECT_EQ(device_limits_from(info).shared_per_block_optin, 49152u);
}

}  // namespace
}  // namespace launch
}  // namespace cuabi
