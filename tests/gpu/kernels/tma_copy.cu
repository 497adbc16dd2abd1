// Kernels taking a tensor map, compiled with NVRTC by the tensor-map GPU tests of the C suite
// (tests/gpu/tensor_map_test.cpp) and of every binding, which read this file rather than keep a
// copy of it.
//
// A 64-byte aligned 128-byte struct is what NVRTC needs for the parameter: CUtensorMap lives in
// cuda.h, which NVRTC programs do not include.
struct alignas(64) TensorMap { unsigned long long opaque[16]; };

__device__ unsigned int shared_address(const void* pointer) {
    unsigned int address;
    asm("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }" : "=r"(address) : "l"(pointer));
    return address;
}

// Copies the 32 x 8 float box at (x0, y0) of the map's tensor to `out`, row by row, through the
// Tensor Memory Accelerator (cp.async.bulk.tensor): one thread issues the copy, all wait on the
// mbarrier for its bytes. Launch with one block.
extern "C" __global__ void copy_tile(const __grid_constant__ TensorMap map, float* out, int x0, int y0) {
    __shared__ __attribute__((aligned(128))) float tile[8][32];
    __shared__ __attribute__((aligned(8))) unsigned long long barrier;
    unsigned int bar = shared_address(&barrier);
    unsigned int dst = shared_address(&tile[0][0]);
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar));
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(8 * 32 * 4) : "memory");
        asm volatile(
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
            :: "r"(dst), "l"(reinterpret_cast<unsigned long long>(&map)), "r"(x0), "r"(y0), "r"(bar) : "memory");
    }
    asm volatile(
        "{\n"
        ".reg .pred done;\n"
        "wait:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
        "@!done bra wait;\n"
        "}\n" :: "r"(bar) : "memory");
    for (int i = threadIdx.x; i < 8 * 32; i += blockDim.x) out[i] = tile[i / 32][i % 32];
}

// Writes n and the map's 16 words to out[0..17): the map as the second parameter, after a 4-byte
// one, shows where the compiler put it and that all 128 bytes arrive.
extern "C" __global__ void map_second(int n, const __grid_constant__ TensorMap map, unsigned long long* out) {
    out[0] = static_cast<unsigned long long>(n);
    for (int i = 0; i < 16; ++i) out[1 + i] = map.opaque[i];
}
