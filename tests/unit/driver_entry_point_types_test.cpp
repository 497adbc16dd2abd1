// Every driver entry point cuabi resolves is called through the prototype that cuGetProcAddress
// hands out at CUDA_VERSION: the newest one cudaTypedefs.h declares for the name
// (cmake/DriverTypes.cmake lists them). Checked at compile time: a mismatch -- the next
// cuCtxSynchronize, whose CUDA 13 ABI takes a CUcontext that cuda.h declares only as _v2 -- stops
// the build of this test with the entry point's name. No GPU needed.
#include <cudaTypedefs.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <type_traits>

#include "driver/driver_api.hpp"

namespace {

#define CUABI_DRIVER_TYPE(name, newest)                                                          \
    static_assert(std::is_same<decltype(cuabi::DriverApi::name), newest>::value,                 \
                  #name ": DriverApi calls it through another prototype than " #newest "; Fix: " \
                  "specialize NewestAbi for it in src/driver/driver_api.hpp");
#include "driver_entry_point_types.inc"
#undef CUABI_DRIVER_TYPE

#define CUABI_COUNT(name) +1
constexpr size_t kListed = 0 CUABI_DRIVER_REQUIRED_ENTRY_POINTS(CUABI_COUNT) CUABI_DRIVER_OPTIONAL_ENTRY_POINTS(CUABI_COUNT);
#undef CUABI_COUNT
#define CUABI_DRIVER_TYPE(name, newest) +1
constexpr size_t kChecked = 0
#include "driver_entry_point_types.inc"
    ;
#undef CUABI_DRIVER_TYPE

TEST(DriverEntryPointTypes, EveryListedEntryPointIsComparedWithCudaTypedefs) {
    EXPECT_GT(kListed, 40u);
    EXPECT_EQ(kChecked, kListed);
}

}  // namespace
