//! The CUDA sources the tests compile: the conformance scenario's SOURCE (saxpy and the scale
//! template), as a macro so that tests can append kernels of their own with concat!.

macro_rules! scenario_source {
    () => {
        "extern \"C\" __global__ void saxpy(float a, const float* x, float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
template <typename T>
__global__ void scale(T* data, T factor, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] *= factor;
}
"
    };
}
pub(crate) use scenario_source;
