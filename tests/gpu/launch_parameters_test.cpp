// Arguments reach the kernel intact: every scalar width, pointers and structs by value with 1-,
// 2-, 8- and 16-byte alignment, through the argument table and the packed buffer alike; random
// inputs, poisoned outputs. (Label gpu: skips without a device.)
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <random>
#include <vector>

#include "launch_test_support.hpp"

namespace {

// Host mirrors of the kernel's struct parameters: same members, same alignment.
struct Byte {
    char c;
};
struct ShortChar {
    short s;
    char c;
};
struct CharDouble {
    char c;
    double d;
};
struct alignas(16) Vec4 {
    float x, y, z, w;
};

// The kernel writes every field it received back to back into `out`, so the host can compare
// bytes without depending on padding.
const char* const kWidthsSource = R"(
struct Byte { char c; };
struct ShortChar { short s; char c; };
struct CharDouble { char c; double d; };
struct __align__(16) Vec4 { float x, y, z, w; };

template <typename T> __device__ unsigned char* put(unsigned char* p, T value) {
    const unsigned char* bytes = reinterpret_cast<const unsigned char*>(&value);
    for (int i = 0; i < (int)sizeof(T); ++i) p[i] = bytes[i];
    return p + sizeof(T);
}

extern "C" __global__ void widths(signed char i8, unsigned char u8, short i16, unsigned short u16, int i32,
                                  unsigned int u32, long long i64, unsigned long long u64, float f32, double f64,
                                  Byte s1, ShortChar s2, CharDouble s8, Vec4 s16, unsigned char* out) {
    unsigned char* p = out;
    p = put(p, i8); p = put(p, u8); p = put(p, i16); p = put(p, u16); p = put(p, i32); p = put(p, u32);
    p = put(p, i64); p = put(p, u64); p = put(p, f32); p = put(p, f64);
    p = put(p, s1.c); p = put(p, s2.s); p = put(p, s2.c); p = put(p, s8.c); p = put(p, s8.d);
    p = put(p, s16.x); p = put(p, s16.y); p = put(p, s16.z); p = put(p, s16.w);
}
)";

// The kernel's parameters as a C struct: its member offsets are the parameter offsets (the
// CUDA ABI lays parameters out like struct members).
struct WidthsParams {
    signed char i8;
    unsigned char u8;
    short i16;
    unsigned short u16;
    int i32;
    unsigned int u32;
    long long i64;
    unsigned long long u64;
    float f32;
    double f64;
    Byte s1;
    ShortChar s2;
    CharDouble s8;
    Vec4 s16;
    uint64_t out;
};

struct Widths {
    WidthsParams p{};
    std::vector<uint8_t> expected;

    explicit Widths(uint32_t seed) {
        std::mt19937_64 random(seed);
        p.i8 = static_cast<signed char>(random());
        p.u8 = static_cast<unsigned char>(random());
        p.i16 = static_cast<short>(random());
        p.u16 = static_cast<unsigned short>(random());
        p.i32 = static_cast<int>(random());
        p.u32 = static_cast<unsigned int>(random());
        p.i64 = static_cast<long long>(random());
        p.u64 = random();
        p.f32 = std::ldexp(static_cast<float>(random() % 100000), -7);
        p.f64 = std::ldexp(static_cast<double>(random() % 100000000), -13);
        p.s1.c = static_cast<char>(random());
        p.s2 = {static_cast<short>(random()), static_cast<char>(random())};
        p.s8 = {static_cast<char>(random()), std::ldexp(static_cast<double>(random() % 1000000), -9)};
        p.s16 = {1.5f * static_cast<float>(random() % 1000), -0.25f * static_cast<float>(random() % 1000),
                 static_cast<float>(random() % 7), 1e-3f * static_cast<float>(random() % 9)};
        put(p.i8), put(p.u8), put(p.i16), put(p.u16), put(p.i32), put(p.u32), put(p.i64), put(p.u64);
        put(p.f32), put(p.f64), put(p.s1.c), put(p.s2.s), put(p.s2.c), put(p.s8.c), put(p.s8.d);
        put(p.s16.x), put(p.s16.y), put(p.s16.z), put(p.s16.w);
    }

    template <typename T>
    void put(const T& value) {
        const uint8_t* bytes = reinterpret_cast<const uint8_t*>(&value);
        expected.insert(expected.end(), bytes, bytes + sizeof(T));
    }

    std::vector<cuabi_kernel_arg> table() const {
        return {{&p.i8, 1},  {&p.u8, 1},  {&p.i16, 2},  {&p.u16, 2},  {&p.i32, 4},
                {&p.u32, 4}, {&p.i64, 8}, {&p.u64, 8},  {&p.f32, 4},  {&p.f64, 8},
                {&p.s1, 1},  {&p.s2, 4},  {&p.s8, 16},  {&p.s16, 16}, {&p.out, 8}};
    }
};

constexpr size_t kGuard = 16;  // poisoned bytes after what the kernel writes, to catch overruns

class LaunchParameters : public LaunchTest {
protected:
    // Runs `widths` with the given launcher and returns what it wrote (plus the guard bytes).
    template <typename Launch>
    std::vector<uint8_t> run_widths(Widths& widths, Launch launch) {
        std::vector<uint8_t> result = poisoned(widths.expected.size() + kGuard);
        cuabi_buffer* out = buffer(result.size(), &widths.p.out);
        if (out == nullptr) return {};
        EXPECT_OK(launch());
        EXPECT_OK(cuabi_buffer_read(out, 0, result.data(), result.size(), nullptr));
        return result;
    }

    void expect_delivered(const Widths& widths, const std::vector<uint8_t>& result) {
        ASSERT_EQ(result.size(), widths.expected.size() + kGuard);
        EXPECT_TRUE(std::equal(widths.expected.begin(), widths.expected.end(), result.begin()))
            << "the kernel received different bytes than were passed";
        for (size_t i = widths.expected.size(); i < result.size(); ++i)
            ASSERT_EQ(result[i], 0xA5) << "the kernel wrote past its output at byte " << i;
    }
};

TEST_F(LaunchParameters, EveryScalarWidthAndStructAlignmentArrivesThroughTheTable) {
    cuabi_kernel* kernel = this->kernel(kWidthsSource, "widths");
    ASSERT_NE(kernel, nullptr);
    for (uint32_t seed : {1u, 2u, 3u}) {
        Widths widths(seed);
        cuabi_launch_config one = config(1, 1);
        std::vector<uint8_t> result = run_widths(widths, [&] {
            std::vector<cuabi_kernel_arg> args = widths.table();
            return cuabi_launch(kernel, &one, args.data(), args.size());
        });
        expect_delivered(widths, result);
    }
}

TEST_F(LaunchParameters, PackedLaunchDeliversTheSameBytesAsTheTable) {
    cuabi_kernel* kernel = this->kernel(kWidthsSource, "widths");
    ASSERT_NE(kernel, nullptr);
    Widths widths(7);
    cuabi_launch_config one = config(1, 1);
    std::vector<uint8_t> from_table = run_widths(widths, [&] {
        std::vector<cuabi_kernel_arg> args = widths.table();
        return cuabi_launch(kernel, &one, args.data(), args.size());
    });
    std::vector<uint8_t> from_packed = run_widths(widths, [&] {
        std::vector<uint8_t> packed = pack(kernel, widths.table());
        return cuabi_launch_packed(kernel, &one, packed.data(), packed.size());
    });
    expect_delivered(widths, from_packed);
    EXPECT_EQ(from_table, from_packed);
}

// On a cuabi stream every launch after the first takes the fast path (launch/fast_path.hpp), which
// builds the argument table itself: 40 launches, table and packed in turn, each with its own
// random values and output, all queued before one synchronization.
TEST_F(LaunchParameters, EveryWidthArrivesThroughTheFastPathOnAStream) {
    cuabi_kernel* kernel = this->kernel(kWidthsSource, "widths");
    cuabi_stream* queue = stream();
    ASSERT_TRUE(kernel != nullptr && queue != nullptr);
    cuabi_launch_config on_stream = config(1, 1);
    on_stream.stream = queue;
    constexpr uint32_t kLaunches = 40;
    std::vector<Widths> all;
    std::vector<cuabi_buffer*> outs;
    for (uint32_t i = 0; i < kLaunches; ++i) all.emplace_back(1000 + i);
    for (Widths& widths : all) {
        outs.push_back(buffer(widths.expected.size() + kGuard, &widths.p.out));
        ASSERT_NE(outs.back(), nullptr);
    }
    for (uint32_t i = 0; i < kLaunches; ++i) {
        std::vector<cuabi_kernel_arg> args = all[i].table();
        if (i % 2 == 0) {
            ASSERT_OK(cuabi_launch(kernel, &on_stream, args.data(), args.size()));
        } else {
            std::vector<uint8_t> packed = pack(kernel, args);
            ASSERT_OK(cuabi_launch_packed(kernel, &on_stream, packed.data(), packed.size()));
        }
    }
    ASSERT_OK(cuabi_stream_synchronize(queue));
    for (uint32_t i = 0; i < kLaunches; ++i) {
        std::vector<uint8_t> result = poisoned(all[i].expected.size() + kGuard);
        ASSERT_OK(cuabi_buffer_read(outs[i], 0, result.data(), result.size(), nullptr));
        SCOPED_TRACE("launch " + std::to_string(i) + (i % 2 == 0 ? " (table)" : " (packed)"));
        expect_delivered(all[i], result);
    }
}

TEST_F(LaunchParameters, ParamLayoutMatchesTheCStructOfTheSameMembers) {
    cuabi_kernel* kernel = this->kernel(kWidthsSource, "widths");
    ASSERT_NE(kernel, nullptr);
    const size_t offsets[] = {offsetof(WidthsParams, i8),  offsetof(WidthsParams, u8),  offsetof(WidthsParams, i16),
                              offsetof(WidthsParams, u16), offsetof(WidthsParams, i32), offsetof(WidthsParams, u32),
                              offsetof(WidthsParams, i64), offsetof(WidthsParams, u64), offsetof(WidthsParams, f32),
                              offsetof(WidthsParams, f64), offsetof(WidthsParams, s1),  offsetof(WidthsParams, s2),
                              offsetof(WidthsParams, s8),  offsetof(WidthsParams, s16), offsetof(WidthsParams, out)};
    const size_t sizes[] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 1, 4, 16, 16, 8};
    size_t count = 0;
    ASSERT_OK(cuabi_kernel_get_param_count(kernel, &count));
    ASSERT_EQ(count, 15u);
    for (size_t i = 0; i < count; ++i) {
        size_t offset = 0, size = 0;
        ASSERT_OK(cuabi_kernel_get_param_info(kernel, i, &offset, &size));
        EXPECT_EQ(offset, offsets[i]) << "parameter " << i;
        EXPECT_EQ(size, sizes[i]) << "parameter " << i;
    }
    size_t offset = 0, size = 0;
    EXPECT_STATUS_WITH_FIX(cuabi_kernel_get_param_info(kernel, 15, &offset, &size), CUABI_ERROR_OUT_OF_BOUNDS);
}

TEST_F(LaunchParameters, ACStructIsAPackedBufferWithoutItsTrailingPadding) {
    cuabi_kernel* kernel = this->kernel(kWidthsSource, "widths");
    ASSERT_NE(kernel, nullptr);
    Widths widths(11);
    const size_t parameter_bytes = offsetof(WidthsParams, out) + sizeof(uint64_t);
    ASSERT_GT(sizeof(WidthsParams), parameter_bytes) << "the struct is expected to carry trailing padding";
    cuabi_launch_config one = config(1, 1);
    std::vector<uint8_t> result = run_widths(widths, [&] {
        EXPECT_STATUS_WITH_FIX(cuabi_launch_packed(kernel, &one, &widths.p, sizeof(WidthsParams)),
                               CUABI_ERROR_ARGUMENT_SIZE);
        return cuabi_launch_packed(kernel, &one, &widths.p, parameter_bytes);
    });
    expect_delivered(widths, result);
}

const char* const kSaxpySource = R"(
extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
)";

TEST_F(LaunchParameters, SaxpyOnRandomDataMatchesTheCpu) {
    cuabi_kernel* kernel = this->kernel(kSaxpySource, "saxpy");
    ASSERT_NE(kernel, nullptr);
    const uint32_t n = 1000003;  // not a multiple of the block: the tail must be guarded
    std::mt19937 random(42);
    std::uniform_real_distribution<float> value(-10.0f, 10.0f);
    std::vector<float> x(n), y(n);
    for (uint32_t i = 0; i < n; ++i) x[i] = value(random), y[i] = value(random);
    const float a = value(random);
    uint64_t x_address = 0, y_address = 0;
    cuabi_buffer* x_buffer = buffer(n * sizeof(float), &x_address);
    cuabi_buffer* y_buffer = buffer(n * sizeof(float), &y_address);
    ASSERT_TRUE(x_buffer != nullptr && y_buffer != nullptr);
    ASSERT_OK(cuabi_buffer_write(x_buffer, 0, x.data(), n * sizeof(float), nullptr));
    ASSERT_OK(cuabi_buffer_write(y_buffer, 0, y.data(), n * sizeof(float), nullptr));
    cuabi_kernel_arg args[] = {{&a, 4}, {&x_address, 8}, {&y_address, 8}, {&n, 4}};
    cuabi_launch_config launch = config((n + 255) / 256, 256);
    ASSERT_OK(cuabi_launch(kernel, &launch, args, 4));
    std::vector<float> result(n, -1.0f);
    ASSERT_OK(cuabi_buffer_read(y_buffer, 0, result.data(), n * sizeof(float), nullptr));
    for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(result[i], std::fmaf(a, x[i], y[i])) << "element " << i;
}

TEST_F(LaunchParameters, KernelWithoutParametersLaunchesWithoutAnyArguments) {
    cuabi_kernel* kernel = this->kernel("extern \"C\" __global__ void nothing() {}", "nothing");
    ASSERT_NE(kernel, nullptr);
    size_t count = 99;
    ASSERT_OK(cuabi_kernel_get_param_count(kernel, &count));
    EXPECT_EQ(count, 0u);
    cuabi_launch_config launch = config(4, 32);
    EXPECT_OK(cuabi_launch(kernel, &launch, nullptr, 0));
    EXPECT_OK(cuabi_launch_packed(kernel, &launch, nullptr, 0));
}

const char* const kBlockSumSource = R"(
template <typename T, int Block>
__global__ void block_sum(const T* in, T* out, unsigned int n) {
    __shared__ T partial[Block];
    unsigned int i = blockIdx.x * Block + threadIdx.x;
    partial[threadIdx.x] = i < n ? in[i] : T(0);
    __syncthreads();
    for (int stride = Block / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}
)";

TEST_F(LaunchParameters, TemplatedKernelFoundByNameExpressionSumsBlocks) {
    cuabi_kernel* kernel = this->kernel(kBlockSumSource, "block_sum<long long, 128>", {"block_sum<long long, 128>"});
    ASSERT_NE(kernel, nullptr);
    const uint32_t n = 128 * 50 + 17, blocks = (n + 127) / 128;
    std::mt19937_64 random(5);
    std::vector<long long> in(n);
    for (long long& v : in) v = static_cast<long long>(random() % 2000001) - 1000000;
    uint64_t in_address = 0, out_address = 0;
    cuabi_buffer* in_buffer = buffer(n * sizeof(long long), &in_address);
    cuabi_buffer* out_buffer = buffer(blocks * sizeof(long long), &out_address);
    ASSERT_TRUE(in_buffer != nullptr && out_buffer != nullptr);
    ASSERT_OK(cuabi_buffer_write(in_buffer, 0, in.data(), in.size() * sizeof(long long), nullptr));
    cuabi_kernel_arg args[] = {{&in_address, 8}, {&out_address, 8}, {&n, 4}};
    cuabi_launch_config launch = config(blocks, 128);
    ASSERT_OK(cuabi_launch(kernel, &launch, args, 3));
    std::vector<long long> sums(blocks);
    ASSERT_OK(cuabi_buffer_read(out_buffer, 0, sums.data(), sums.size() * sizeof(long long), nullptr));
    for (uint32_t b = 0; b < blocks; ++b) {
        long long expected = 0;
        for (uint32_t i = b * 128; i < n && i < (b + 1) * 128; ++i) expected += in[i];
        EXPECT_EQ(sums[b], expected) << "block " << b;
    }
}

}  // namespace
