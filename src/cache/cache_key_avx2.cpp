// XXH3-128 compiled for AVX2, chosen at run time by hash128() (cache_key.cpp) when the CPU has
// it: about twice the speed of the SSE2 baseline on a 4 KiB source. Only code in this file is
// compiled for AVX2; it includes no C++ header and all of xxHash is static here
// (XXH_INLINE_ALL), so nothing compiled for AVX2 can stand in for a baseline function elsewhere.
// Elsewhere than GCC or Clang on x86-64 this file is empty and hash128() uses the baseline.
#if defined(__x86_64__) && defined(__GNUC__)
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif

#include <stddef.h>
#include <stdint.h>
#include <immintrin.h>  /* xxhash.h includes it only when the whole build targets AVX2 */

#define XXH_INLINE_ALL
#define XXH_VECTOR XXH_AVX2
#include "xxhash.h"

namespace cuabi {
namespace cache {

void hash128_avx2(const void* data, size_t size, uint64_t* high, uint64_t* low) {
    XXH128_hash_t digest = XXH3_128bits(data, size);
    *high = digest.high64;
    *low = digest.low64;
}

}  // namespace cache
}  // namespace cuabi

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif
