// Tensor maps on a real Hopper device: a kernel compiled with NVRTC copies 2D tiles through the
// Tensor Memory Accelerator (cp.async.bulk.tensor, inline PTX) using a map cuabi encoded, and
// gets the right elements, zeros past the tensor's edge; the launch checks see the map parameter
// as 128 bytes where the compiler put it, and all 128 bytes arrive in both argument forms; and the
// placement rules refuse a
// real buffer that is too small or a wrapped address that is misaligned.
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "launch_test_support.hpp"

namespace {

// copy_tile and map_second, from the file the bindings' tensor-map tests compile too.
std::string tma_source() {
    const std::string path = std::string(CUABI_TEST_KERNEL_DIR) + "/tma_copy.cu";
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    EXPECT_TRUE(file.good()) << "cannot read " << path;
    return text.str();
}

constexpr uint32_t kWidth = 64, kHeight = 32, kBoxWidth = 32, kBoxHeight = 8;

class TensorMapTest : public LaunchTest {
protected:
    void SetUp() override {
        LaunchTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        if (info.compute_capability_major < 9)
            GTEST_SKIP() << "tensor maps need compute capability 9.0; device 0 is " << info.compute_capability_major
                         << "." << info.compute_capability_minor;
    }

    // A row-major kWidth x kHeight float tensor (element (x, y) = y * 1000 + x) in a new buffer.
    cuabi_buffer* tensor(uint64_t* out_address) {
        cuabi_buffer* made = buffer(kWidth * kHeight * sizeof(float), out_address);
        std::vector<float> values(kWidth * kHeight);
        for (uint32_t y = 0; y < kHeight; ++y)
            for (uint32_t x = 0; x < kWidth; ++x) values[y * kWidth + x] = static_cast<float>(y * 1000 + x);
        EXPECT_OK(cuabi_buffer_write(made, 0, values.data(), values.size() * sizeof(float), nullptr));
        return made;
    }

    static cuabi_tensor_map_params params_2d() {
        cuabi_tensor_map_params p;
        cuabi_tensor_map_params_init(sizeof p, &p);
        p.data_type = CUABI_TENSOR_DATA_FLOAT32;
        p.rank = 2;
        p.global_dims[0] = kWidth;
        p.global_dims[1] = kHeight;
        p.global_strides[0] = kWidth * sizeof(float);
        p.box_dims[0] = kBoxWidth;
        p.box_dims[1] = kBoxHeight;
        return p;
    }

    // Runs copy_tile for the box at (x0, y0) and returns the 8 x 32 floats it wrote.
    std::vector<float> copy_tile(cuabi_kernel* kernel, const cuabi_tensor_map& map, int32_t x0, int32_t y0,
                                 bool packed) {
        uint64_t out_address = 0;
        cuabi_buffer* out = buffer(kBoxWidth * kBoxHeight * sizeof(float), &out_address);
        cuabi_launch_config launch = config(1, 128);
        std::vector<cuabi_kernel_arg> args = {{&map, sizeof map}, {&out_address, 8}, {&x0, 4}, {&y0, 4}};
        if (packed) {
            std::vector<uint8_t> bytes = pack(kernel, args);
            EXPECT_OK(cuabi_launch_packed(kernel, &launch, bytes.data(), bytes.size()));
        } else {
            EXPECT_OK(cuabi_launch(kernel, &launch, args.data(), args.size()));
        }
        std::vector<float> tile(kBoxWidth * kBoxHeight, -1.0f);
        EXPECT_OK(cuabi_buffer_read(out, 0, tile.data(), tile.size() * sizeof(float), nullptr));
        return tile;
    }
};

TEST_F(TensorMapTest, TheMapIs128BytesAsCUtensorMapIs) {
    EXPECT_EQ(sizeof(cuabi_tensor_map), 128u);
}

// copy_tile for the box at (x0, y0), in both argument forms: every element is the tensor's, or zero
// where the box reaches past the tensor's edge.
TEST_F(TensorMapTest, ACopyKernelReadsTheTileTheMapDescribesZerosPastTheEdge) {
    uint64_t address = 0;
    cuabi_buffer* source = tensor(&address);
    cuabi_tensor_map_params p = params_2d();
    cuabi_tensor_map map;
    ASSERT_OK(cuabi_tensor_map_encode_tiled(source, &p, &map));
    cuabi_kernel* kernel = this->kernel(tma_source().c_str(), "copy_tile");
    ASSERT_NE(kernel, nullptr);
    const uint32_t origins[][2] = {{32, 16}, {0, 0}, {48, 28}};
    for (const auto& origin : origins)
        for (bool packed : {false, true}) {
            const uint32_t x0 = origin[0], y0 = origin[1];
            std::vector<float> tile = copy_tile(kernel, map, static_cast<int32_t>(x0), static_cast<int32_t>(y0), packed);
            for (uint32_t y = 0; y < kBoxHeight; ++y)
                for (uint32_t x = 0; x < kBoxWidth; ++x) {
                    bool inside = x0 + x < kWidth && y0 + y < kHeight;
                    float expected = inside ? static_cast<float>((y0 + y) * 1000 + x0 + x) : 0.0f;
                    ASSERT_EQ(tile[y * kBoxWidth + x], expected) << "element (" << x << ", " << y << ") of the tile at ("
                                                                 << x0 << ", " << y0 << "), packed " << packed;
                }
        }
}

TEST_F(TensorMapTest, AMapParameterIs128BytesAndArrivesWholeInBothForms) {
    cuabi_kernel* kernel = this->kernel(tma_source().c_str(), "map_second");
    ASSERT_NE(kernel, nullptr);
    size_t n_offset = 0, map_offset = 0, out_offset = 0, size = 0;
    ASSERT_OK(cuabi_kernel_get_param_info(kernel, 0, &n_offset, &size));
    ASSERT_OK(cuabi_kernel_get_param_info(kernel, 1, &map_offset, &size));
    EXPECT_EQ(size, 128u);
    EXPECT_GE(map_offset, 4u);
    ASSERT_OK(cuabi_kernel_get_param_info(kernel, 2, &out_offset, &size));
    EXPECT_EQ(out_offset, map_offset + 128) << "the pointer follows the map directly (8-byte aligned)";

    int32_t n = 41;
    uint64_t out_address = 0;
    cuabi_buffer* out = buffer(17 * 8, &out_address);
    cuabi_tensor_map map;
    for (uint64_t i = 0; i < 16; ++i) map.opaque[i] = 0x1111111111111111ull * (i + 1) ^ (i << 56);
    cuabi_launch_config launch = config(1, 1);
    uint8_t half_map[64] = {};
    cuabi_kernel_arg short_map[] = {{&n, 4}, {half_map, sizeof half_map}, {&out_address, 8}};
    EXPECT_STATUS_WITH_FIX(cuabi_launch(kernel, &launch, short_map, 3), CUABI_ERROR_ARGUMENT_SIZE);
    std::string message = cuabi_last_error_message();
    EXPECT_NE(message.find("parameter 1 is 128 bytes (at offset " + std::to_string(map_offset) + ")"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("cuabi_tensor_map"), std::string::npos) << message;
    std::vector<uint8_t> too_long(out_offset + 16, 0);
    EXPECT_STATUS_WITH_FIX(cuabi_launch_packed(kernel, &launch, too_long.data(), too_long.size()),
                           CUABI_ERROR_ARGUMENT_SIZE);

    std::vector<cuabi_kernel_arg> args = {{&n, 4}, {&map, sizeof map}, {&out_address, 8}};
    for (bool packed : {false, true}) {
        ASSERT_OK(cuabi_buffer_fill(out, 0, 0, 1, 17 * 8, nullptr));
        if (packed) {
            std::vector<uint8_t> bytes = pack(kernel, args);
            EXPECT_EQ(bytes.size(), out_offset + 8);
            ASSERT_OK(cuabi_launch_packed(kernel, &launch, bytes.data(), bytes.size()));
        } else {
            ASSERT_OK(cuabi_launch(kernel, &launch, args.data(), args.size()));
        }
        uint64_t seen[17] = {};
        ASSERT_OK(cuabi_buffer_read(out, 0, seen, sizeof seen, nullptr));
        EXPECT_EQ(seen[0], 41u) << "packed " << packed;
        for (int i = 0; i < 16; ++i) EXPECT_EQ(seen[1 + i], map.opaque[i]) << "word " << i << ", packed " << packed;
    }
}

TEST_F(TensorMapTest, ATensorLargerThanItsBufferIsRefusedBeforeTheDriver) {
    uint64_t address = 0;
    cuabi_buffer* source = tensor(&address);
    cuabi_tensor_map_params p = params_2d();
    p.global_dims[1] = kHeight + 1;
    cuabi_tensor_map map;
    EXPECT_STATUS_WITH_FIX(cuabi_tensor_map_encode_tiled(source, &p, &map), CUABI_ERROR_OUT_OF_BOUNDS);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("spans 8448 bytes from offset 0"), std::string::npos)
        << cuabi_last_error_message();
}

TEST_F(TensorMapTest, AMisalignedTensorAddressIsRefused) {
    uint64_t address = 0;
    cuabi_buffer* source = tensor(&address);
    cuabi_tensor_map_params at_offset = params_2d();
    at_offset.global_dims[1] = kHeight - 1;
    at_offset.offset = 8;
    cuabi_tensor_map map;
    EXPECT_STATUS_WITH_FIX(cuabi_tensor_map_encode_tiled(source, &at_offset, &map), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("+ offset 8) is not 16-byte aligned"), std::string::npos)
        << cuabi_last_error_message();
    cuabi_buffer* shifted = nullptr;
    ASSERT_OK(cuabi_buffer_wrap(context, address + 4, kWidth * kHeight * sizeof(float) - 4, &shifted));
    cuabi_tensor_map_params p = params_2d();
    p.global_dims[1] = kHeight - 1;
    EXPECT_STATUS_WITH_FIX(cuabi_tensor_map_encode_tiled(shifted, &p, &map), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("is not 16-byte aligned"), std::string::npos)
        << cuabi_last_error_message();
    cuabi_buffer_destroy(shifted);
}

}  // namespace
