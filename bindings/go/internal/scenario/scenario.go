// Package scenario holds the conformance scenario's CUDA sources (tests/conformance/README.md),
// shared by the conformance program and the package's tests.
package scenario

// Source is the scenario's SOURCE: an extern "C" saxpy and a scale template.
const Source = `extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
template <typename T>
__global__ void scale(T* data, T factor, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] *= factor;
}
`

// CountDownSource is the scenario's COUNT_DOWN_SOURCE: a kernel that counts down and clears a
// while node's condition at zero.
const CountDownSource = `extern "C" __device__ __cudart_builtin__ void cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value);
extern "C" __global__ void count_down(unsigned* counter, cudaGraphConditionalHandle condition) {
    if (--*counter == 0u) cudaGraphSetConditional(condition, 0u);
}
`

// Broken is the scenario's BROKEN: a source NVRTC refuses.
const Broken = "__global__ void broken( { }\n"

// NameExpressions are the scale template's instances the scenario compiles.
func NameExpressions() []string { return []string{"scale<float>", "scale<double>"} }

// LinkKernel is the scenario's LINK_KERNEL: a kernel calling twice, which only LinkDevice defines.
const LinkKernel = "extern \"C\" __device__ float twice(float x);\n" +
	"extern \"C\" __global__ void apply_twice(float* data, unsigned n) {\n" +
	"    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n" +
	"    if (i < n) data[i] = twice(data[i]);\n" +
	"}\n"

// LinkDevice is the scenario's LINK_DEVICE.
const LinkDevice = "extern \"C\" __device__ float twice(float x) { return 2.0f * x; }\n"
