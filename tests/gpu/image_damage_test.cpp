// Damaged images are refused before the driver sees them (image/check.hpp). The repros: a
// CUBIN whose section header offset points past its end crashed the process inside the driver
// (SIGSEGV); a 64-byte fatbin whose header claims 1 GiB hung it for more than a minute. Each kind
// of damage -- cut short, extended, headers corrupted -- now returns CUABI_ERROR_INVALID_IMAGE
// with a fix about the file, not about the device; the whole images still load and run.
#include <elf.h>

#include <chrono>
#include <cstring>
#include <functional>

#include "../unit/image_bytes.hpp"
#include "module_test_support.hpp"

namespace {

using Bytes = test_support::ImageBytes;
using test_support::get;
using test_support::put;
using test_support::seed_image;

class ImageDamage : public ModuleTest {
protected:
    // A CUBIN of negate/add_k for this device, from NVRTC.
    Bytes device_cubin() {
        const std::string target = "sm_" + std::to_string(device_arch);
        options.target = target.c_str();
        cuabi_module* module = nullptr;
        EXPECT_OK(cuabi_module_compile_offline(kIntKernels, &options, &module));
        track(module);
        options.target = nullptr;
        return module != nullptr ? image(module) : Bytes();
    }
    // Loads `bytes`; expects the whole image to load and negate to run.
    void expect_loads_and_runs(const Bytes& bytes, const char* what) {
        cuabi_module* module = nullptr;
        cuabi_status status = cuabi_module_load_image(context, bytes.data(), bytes.size(), &module);
        ASSERT_EQ(status, CUABI_SUCCESS) << what << ": " << cuabi_failure_text(status);
        track(module);
        expect_computes(kernel(module, "negate"), true, 0, 7);
    }
    // Loads `bytes`; expects a refusal that says the file is damaged and how to get a sound one.
    void expect_damaged(const Bytes& bytes, const char* what) {
        SCOPED_TRACE(what);
        cuabi_module* module = nullptr;
        const auto start = std::chrono::steady_clock::now();
        EXPECT_STATUS_WITH_FIX(cuabi_module_load_image(context, bytes.data(), bytes.size(), &module),
                               CUABI_ERROR_INVALID_IMAGE);
        EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2)) << "the check must not hang";
        EXPECT_EQ(module, nullptr);
        const std::string message = cuabi_last_error_message();
        EXPECT_NE(message.find("is damaged"), std::string::npos) << message;
        EXPECT_NE(message.find("produce it again"), std::string::npos) << message;
        EXPECT_EQ(message.find("architecture"), std::string::npos)
            << "a damaged file is no matter of the device: " << message;
    }
    void expect_damaged(Bytes bytes, const char* what, const std::function<void(Bytes*)>& damage) {
        damage(&bytes);
        expect_damaged(bytes, what);
    }
};

TEST_F(ImageDamage, DamagedCubinsAreRefusedAndTheWholeOneLoads) {
    const Bytes cubin = device_cubin();
    ASSERT_GT(cubin.size(), sizeof(Elf64_Ehdr));
    const Elf64_Ehdr header = get<Elf64_Ehdr>(cubin, 0);
    expect_loads_and_runs(cubin, "the whole CUBIN");

    // Cut short.
    for (size_t size : {cubin.size() - 1, cubin.size() / 2, size_t{100}, sizeof(Elf64_Ehdr)})
        expect_damaged(Bytes(cubin.begin(), cubin.begin() + static_cast<std::ptrdiff_t>(size)), "truncated");
    // Extended: something follows the image.
    expect_damaged(cubin, "extended", [](Bytes* b) { b->insert(b->end(), {0x7f, 'E', 'L', 'F', 1, 2, 3, 4}); });
    // Headers corrupted: the crash of the issue, and its relatives.
    expect_damaged(cubin, "section header table past the end",
                   [&](Bytes* b) { put<uint64_t>(b, offsetof(Elf64_Ehdr, e_shoff), cubin.size() + 4096); });
    expect_damaged(cubin, "section count", [](Bytes* b) { put<uint16_t>(b, offsetof(Elf64_Ehdr, e_shnum), 0x7fff); });
    expect_damaged(cubin, "program header table wraps",
                   [](Bytes* b) { put<uint64_t>(b, offsetof(Elf64_Ehdr, e_phoff), ~uint64_t{0} - 16); });
    expect_damaged(cubin, "section name table index",
                   [&](Bytes* b) { put<uint16_t>(b, offsetof(Elf64_Ehdr, e_shstrndx), header.e_shnum + 1); });
    expect_damaged(cubin, "a section's offset", [&](Bytes* b) {
        for (unsigned i = 1; i < header.e_shnum; ++i) {
            const size_t at = header.e_shoff + i * sizeof(Elf64_Shdr);
            if (get<Elf64_Shdr>(cubin, at).sh_type == SHT_SYMTAB)
                put<uint64_t>(b, at + offsetof(Elf64_Shdr, sh_offset), uint64_t{1} << 40);
        }
    });
    // After all that, the whole image still loads.
    expect_loads_and_runs(cubin, "the whole CUBIN again");
}

TEST_F(ImageDamage, DamagedFatbinsAreRefusedAndTheWholeOneLoads) {
    // nvcc 13.0 fatbins of negate: CUBINs for sm_75 and sm_90 and PTX for compute_75 (JIT-compiled
    // on other devices); one compressed as nvcc does by default, one not.
    const Bytes fatbin = seed_image("negate.fatbin");
    const Bytes uncompressed = seed_image("negate_uncompressed.fatbin");
    ASSERT_GT(fatbin.size(), 64u);
    ASSERT_GT(uncompressed.size(), 64u);
    expect_loads_and_runs(fatbin, "the whole fatbin");
    expect_loads_and_runs(uncompressed, "the whole uncompressed fatbin");

    // The hang of the issue: 64 bytes whose header claims 1 GiB of entries.
    Bytes claims = Bytes(fatbin.begin(), fatbin.begin() + 64);
    put<uint64_t>(&claims, 8, uint64_t{1} << 30);
    expect_damaged(claims, "a header claiming 1 GiB");
    expect_damaged(Bytes(fatbin.begin(), fatbin.end() - 100), "truncated");
    expect_damaged(Bytes(fatbin.begin(), fatbin.begin() + 1000), "truncated to 1000 bytes");
    expect_damaged(fatbin, "extended", [](Bytes* b) { b->insert(b->end(), {1, 2, 3, 4, 5, 6, 7, 8}); });
    const size_t first_entry = get<uint16_t>(fatbin, 6);
    expect_damaged(fatbin, "an entry's payload size",
                   [&](Bytes* b) { put<uint64_t>(b, first_entry + 8, uint64_t{1} << 40); });
    // A damaged CUBIN inside an uncompressed fatbin.
    expect_damaged(uncompressed, "the CUBIN inside", [&](Bytes* b) {
        size_t at = get<uint16_t>(uncompressed, 6);
        while (get<uint16_t>(uncompressed, at) != 2)
            at += get<uint32_t>(uncompressed, at + 4) + get<uint64_t>(uncompressed, at + 8);
        const size_t elf = at + get<uint32_t>(uncompressed, at + 4);
        put<uint64_t>(b, elf + offsetof(Elf64_Ehdr, e_shoff), uint64_t{1} << 33);
    });
    expect_loads_and_runs(fatbin, "the whole fatbin again");
}

}  // namespace
