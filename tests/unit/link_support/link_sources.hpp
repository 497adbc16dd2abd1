// The device code the link tests join: a kernel that calls an extern __device__ function defined
// in a second source and another defined in a device library that nvcc builds at test time
// (link_support.cmake), so that the link succeeds only when every input took part.
#pragma once

namespace link_test {

// scale(out, in): out[i] = twice(in[i]) + thrice(in[i]) = 5 * in[i].
constexpr const char* kKernelSource = R"(
extern "C" __device__ float twice(float x);
extern "C" __device__ float thrice(float x);
extern "C" __global__ void scale(float* out, const float* in, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = twice(in[i]) + thrice(in[i]);
}
)";

constexpr const char* kTwiceSource = R"(
extern "C" __device__ float twice(float x) { return 2.0f * x; }
)";

// What the device library (link_library.cu) defines: thrice.
constexpr const char* kLibraryFunction = "thrice";

}  // namespace link_test
