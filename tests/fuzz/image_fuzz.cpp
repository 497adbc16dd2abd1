// libFuzzer harness of the image checks (src/image/check.hpp): whatever the bytes, the checks
// return -- no read outside the input (AddressSanitizer), no undefined behaviour (UBSan), no hang
// (libFuzzer's -timeout) -- and their verdict is consistent. Every input also goes through each
// kind's check directly, so the nested checks (a CUBIN or PTX inside a fatbin) see arbitrary bytes
// too, not only what passes the outer magic.
//
// Build: configure with clang and -DCUABI_BUILD_FUZZ=ON (scripts/test.d/50-fuzz.sh does). Seeds:
// tests/fuzz/corpus (real CUBINs, fatbins and PTX from nvcc 13.0).
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "image/check.hpp"

namespace {

void expect(bool condition) {
    if (!condition) __builtin_trap();
}

void expect_consistent(const cuabi::image::Verdict& verdict, size_t size) {
    expect(std::memchr(verdict.defect, '\0', sizeof verdict.defect) != nullptr);
    if (verdict.sound()) {
        expect(verdict.kind != cuabi::image::Kind::Unknown);
        expect(verdict.extent <= size);
        expect(verdict.extent > 0);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    expect_consistent(cuabi::image::check(data, size), size);
    cuabi::image::Verdict cubin, fatbin, ptx;
    cuabi::image::check_cubin(data, size, &cubin);
    cuabi::image::check_fatbin(data, size, &fatbin);
    cuabi::image::check_ptx(data, size, &ptx);
    expect_consistent(cubin, size);
    expect_consistent(fatbin, size);
    expect_consistent(ptx, size);
    return 0;
}
