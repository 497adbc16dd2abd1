// The device library of the link tests, built by nvcc at test time (link_support.cmake) into a
// fatbin of LTO-IR and a static library.
extern "C" __device__ float thrice(float x) { return 3.0f * x; }
