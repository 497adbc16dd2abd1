// The image checks (image/check.hpp) against real images and every way of damaging them that the
// driver trusted before: cut short at every length, extended, headers and tables pointing past the
// end, a fatbin claiming a gigabyte, a damaged CUBIN inside a fatbin. Real images come from NVRTC
// (at test time) and from nvcc 13.0 (the fuzz seeds in tests/fuzz/corpus).
#include <elf.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "compile/image.hpp"
#include "cuabi/cuabi.h"
#include "expect_status.hpp"
#include "image/check.hpp"
#include "image_bytes.hpp"

namespace {

using cuabi::image::Kind;
using cuabi::image::Verdict;
using Bytes = test_support::ImageBytes;
using test_support::get;
using test_support::put;
using test_support::seed_image;

Bytes nvrtc_image(const char* target) {
    cuabi_compile_options options;
    cuabi_compile_options_init(sizeof options, &options);
    options.target = target;
    options.flags = CUABI_COMPILE_NO_CACHE;
    const char* source = R"(
        __constant__ int table[8];
        extern "C" __global__ void k(int* x, int n) {
            __shared__ int tile[64];
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            tile[threadIdx.x % 64] = i < n ? x[i] : 0;
            __syncthreads();
            if (i < n) x[i] = tile[(threadIdx.x + 1) % 64] + table[i % 8];
        })";
    cuabi_module* module = nullptr;
    EXPECT_EQ(cuabi_module_compile_offline(source, &options, &module), CUABI_SUCCESS) << cuabi_last_error_message();
    size_t size = 0;
    EXPECT_EQ(cuabi_module_get_image(module, nullptr, 0, &size), CUABI_SUCCESS);
    Bytes image(size);
    EXPECT_EQ(cuabi_module_get_image(module, image.data(), size, &size), CUABI_SUCCESS);
    cuabi_module_destroy(module);
    return image;
}

Verdict check(const Bytes& bytes) { return cuabi::image::check(bytes.data(), bytes.size()); }

Elf64_Ehdr header_of(const Bytes& cubin) { return get<Elf64_Ehdr>(cubin, 0); }
Elf64_Shdr section_of(const Bytes& cubin, unsigned index) {
    return get<Elf64_Shdr>(cubin, header_of(cubin).e_shoff + index * sizeof(Elf64_Shdr));
}
// The index of the first section of `type`, or 0.
unsigned find_section(const Bytes& cubin, uint32_t type) {
    for (unsigned i = 1; i < header_of(cubin).e_shnum; ++i)
        if (section_of(cubin, i).sh_type == type) return i;
    return 0;
}

TEST(ImageCheck, RealImagesAreSound) {
    struct Expected {
        const char* seed;
        Kind kind;
        int arch;
    } expected[] = {{"negate_sm90.cubin", Kind::Cubin, 90},
                    {"scale_sm75.cubin", Kind::Cubin, 75},
                    {"negate.fatbin", Kind::Fatbin, 0},
                    {"negate_uncompressed.fatbin", Kind::Fatbin, 0},
                    {"negate_compute75.ptx", Kind::Ptx, 0},
                    // Three kernels, a __device__ table, __constant__ memory, printf and a
                    // non-inlined device function; plain, with -rdc=true and with -G.
                    {"three_kernels_sm90.cubin", Kind::Cubin, 90},
                    {"three_kernels_rdc_sm75.cubin", Kind::Cubin, 75},
                    {"three_kernels_debug_sm80.cubin", Kind::Cubin, 80},
                    // Twelve kernels for sm_75, sm_80 and sm_90, and zstd-compressed PTX.
                    {"twelve_kernels.fatbin", Kind::Fatbin, 0}};
    for (const Expected& image : expected) {
        const Bytes bytes = seed_image(image.seed);
        ASSERT_FALSE(bytes.empty()) << image.seed;
        const Verdict verdict = check(bytes);
        EXPECT_TRUE(verdict.sound()) << image.seed << ": " << verdict.defect;
        EXPECT_EQ(verdict.kind, image.kind) << image.seed;
        if (image.kind == Kind::Cubin) EXPECT_EQ(verdict.arch, image.arch) << image.seed;
        EXPECT_EQ(verdict.extent, bytes.size()) << image.seed;
    }
    for (const char* target : {"sm_75", "sm_80", "sm_90", "sm_100", "sm_120", "compute_90"}) {
        const Verdict verdict = check(nvrtc_image(target));
        EXPECT_TRUE(verdict.sound()) << target << ": " << verdict.defect;
    }
}

TEST(ImageCheck, ACubinOrFatbinCutShortAtAnyLengthIsDamaged) {
    for (const char* name : {"negate_sm90.cubin", "negate.fatbin", "negate_uncompressed.fatbin"}) {
        const Bytes whole = seed_image(name);
        for (size_t size = 4; size < whole.size(); ++size) {
            const Verdict verdict = cuabi::image::check(whole.data(), size);
            ASSERT_FALSE(verdict.sound()) << name << " cut to " << size << " bytes";
            ASSERT_NE(verdict.defect[0], '\0') << name << " cut to " << size << " bytes";
        }
    }
}

TEST(ImageCheck, BytesAfterTheImageMustBeZeroPadding) {
    for (const char* name : {"negate_sm90.cubin", "negate.fatbin"}) {
        Bytes bytes = seed_image(name);
        const size_t size = bytes.size();
        bytes.resize(size + 64, 0);
        EXPECT_TRUE(check(bytes).sound()) << name << ": zero padding is harmless";
        bytes[size + 10] = 0x7f;
        const Verdict extended = check(bytes);
        EXPECT_FALSE(extended.sound()) << name;
        EXPECT_NE(std::string(extended.defect).find("extended or joined"), std::string::npos) << extended.defect;
    }
}

TEST(ImageCheck, CubinHeadersPointingPastTheEndAreDamaged) {
    const Bytes cubin = seed_image("negate_sm90.cubin");
    const Elf64_Ehdr header = header_of(cubin);
    auto damaged = [&](const char* what, auto&& change, const char* fragment) {
        Bytes bytes = cubin;
        change(&bytes);
        const Verdict verdict = check(bytes);
        EXPECT_FALSE(verdict.sound()) << what;
        EXPECT_NE(std::string(verdict.defect).find(fragment), std::string::npos) << what << ": " << verdict.defect;
    };
    // The crash of the issue: the section header table's offset past the end.
    damaged(
        "e_shoff past the end", [&](Bytes* b) { put<uint64_t>(b, offsetof(Elf64_Ehdr, e_shoff), cubin.size() + 4096); },
        "section header table");
    damaged(
        "e_shnum too large", [&](Bytes* b) { put<uint16_t>(b, offsetof(Elf64_Ehdr, e_shnum), 0x7fff); },
        "section header table");
    damaged(
        "e_phoff wraps", [&](Bytes* b) { put<uint64_t>(b, offsetof(Elf64_Ehdr, e_phoff), ~uint64_t{0} - 8); },
        "program header table");
    damaged(
        "e_shentsize", [&](Bytes* b) { put<uint16_t>(b, offsetof(Elf64_Ehdr, e_shentsize), 40); }, "entries of 40");
    damaged(
        "e_shstrndx", [&](Bytes* b) { put<uint16_t>(b, offsetof(Elf64_Ehdr, e_shstrndx), header.e_shnum + 3); },
        "section name table");
    const unsigned symtab = find_section(cubin, SHT_SYMTAB);
    ASSERT_NE(symtab, 0u);
    const size_t symtab_header = header.e_shoff + symtab * sizeof(Elf64_Shdr);
    damaged(
        "a section's offset",
        [&](Bytes* b) { put<uint64_t>(b, symtab_header + offsetof(Elf64_Shdr, sh_offset), uint64_t{1} << 40); },
        "past the image's");
    damaged(
        "a section's size",
        [&](Bytes* b) { put<uint64_t>(b, symtab_header + offsetof(Elf64_Shdr, sh_size), ~uint64_t{0}); }, "runs past");
    damaged(
        "a symbol's name",
        [&](Bytes* b) {
            put<uint32_t>(b, section_of(cubin, symtab).sh_offset + sizeof(Elf64_Sym) + offsetof(Elf64_Sym, st_name),
                          0x7fffffff);
        },
        "name");
    damaged(
        "a symbol's section",
        [&](Bytes* b) {
            put<uint16_t>(b, section_of(cubin, symtab).sh_offset + sizeof(Elf64_Sym) + offsetof(Elf64_Sym, st_shndx),
                          900);
        },
        "belongs to section 900");
    const unsigned relocations =
        find_section(cubin, SHT_RELA) != 0 ? find_section(cubin, SHT_RELA) : find_section(cubin, SHT_REL);
    if (relocations != 0) {
        const Elf64_Shdr table = section_of(cubin, relocations);
        damaged(
            "a relocation's offset", [&](Bytes* b) { put<uint64_t>(b, table.sh_offset, uint64_t{1} << 33); },
            "at byte 8589934592");
        damaged(
            "a relocation's symbol",
            [&](Bytes* b) { put<uint64_t>(b, table.sh_offset + 8, ELF64_R_INFO(uint64_t{0xffffff}, 1)); },
            "refers to symbol");
    }
}

// The first relocation table with entries, and the section it patches.
unsigned first_relocations(const Bytes& cubin) {
    for (unsigned i = 1; i < header_of(cubin).e_shnum; ++i) {
        const Elf64_Shdr table = section_of(cubin, i);
        if ((table.sh_type == SHT_RELA || table.sh_type == SHT_REL) && table.sh_size > 0) return i;
    }
    return 0;
}

TEST(ImageCheck, RelocationsMustFitTheirWidthInsideTheirSection) {
    const Bytes cubin = seed_image("three_kernels_sm90.cubin");
    const unsigned relocations = first_relocations(cubin);
    ASSERT_NE(relocations, 0u);
    const Elf64_Shdr table = section_of(cubin, relocations);
    const Elf64_Shdr target = section_of(cubin, table.sh_info);
    ASSERT_EQ(ELF64_R_TYPE(get<uint64_t>(cubin, table.sh_offset + 8)), 2u) << "the seed's first relocation is R_CUDA_64";
    // An 8-byte relocation at the last byte passed the check of its offset alone.
    Bytes bytes = cubin;
    put<uint64_t>(&bytes, table.sh_offset, target.sh_size - 1);
    Verdict verdict = check(bytes);
    EXPECT_FALSE(verdict.sound());
    EXPECT_NE(std::string(verdict.defect).find("patches 8 bytes at byte " + std::to_string(target.sh_size - 1)),
              std::string::npos)
        << verdict.defect;
    put<uint64_t>(&bytes, table.sh_offset, target.sh_size - 8);  // the last 8 bytes: sound
    verdict = check(bytes);
    EXPECT_TRUE(verdict.sound()) << verdict.defect;
    EXPECT_FALSE(check(seed_image("mutant_relocation_at_end_sm90.cubin")).sound());
}

// Section indices in headers the checks once skipped (empty and NOBITS sections): the driver
// follows them without a bound, and these two mutants of a 12-kernel NVRTC CUBIN crashed the host's
// own load on the H100 after the image verifier had loaded them without harm.
TEST(ImageCheck, EverySectionIndexInASectionHeaderIsInRange) {
    Bytes crashed = seed_image("host_crash_25_1841");
    Verdict verdict = check(crashed);
    EXPECT_FALSE(verdict.sound());
    EXPECT_NE(std::string(verdict.defect).find("section 28 has entries of 250688651132952 bytes (at most 4096)"),
              std::string::npos)
        << verdict.defect;
    // Its other defect, once the first is undone: an index past the section table.
    put<uint64_t>(&crashed, header_of(crashed).e_shoff + 28 * sizeof(Elf64_Shdr) + offsetof(Elf64_Shdr, sh_entsize),
                  sizeof(Elf64_Rela));
    verdict = check(crashed);
    EXPECT_FALSE(verdict.sound());
    EXPECT_NE(std::string(verdict.defect).find("section 47 refers to section 20259 of 72 (sh_info)"), std::string::npos)
        << verdict.defect;
    verdict = check(seed_image("host_crash_25_2016"));
    EXPECT_FALSE(verdict.sound());
    EXPECT_NE(std::string(verdict.defect).find("refers to section 22827 of 72 (sh_info)"), std::string::npos)
        << verdict.defect;

    verdict = check(seed_image("host_crash_31_961"));
    EXPECT_FALSE(verdict.sound());
    EXPECT_NE(std::string(verdict.defect).find("section 26 starts at byte 15866848, past the image's 32104 bytes"),
              std::string::npos)
        << verdict.defect;

    const Bytes cubin = nvrtc_image("sm_90");
    ASSERT_TRUE(check(cubin).sound());
    const Elf64_Ehdr header = header_of(cubin);
    auto changed64 = [&](unsigned index, size_t field, uint64_t value) {
        Bytes bytes = cubin;
        put<uint64_t>(&bytes, header.e_shoff + index * sizeof(Elf64_Shdr) + field, value);
        return check(bytes);
    };
    const unsigned text = find_section(cubin, SHT_PROGBITS);
    ASSERT_NE(text, 0u);
    verdict = changed64(text, offsetof(Elf64_Shdr, sh_addralign), uint64_t{1} << 40);
    EXPECT_FALSE(verdict.sound());
    EXPECT_NE(std::string(verdict.defect).find("alignment of 1099511627776"), std::string::npos) << verdict.defect;
    verdict = changed64(text, offsetof(Elf64_Shdr, sh_addralign), 24);
    EXPECT_NE(std::string(verdict.defect).find("alignment of 24"), std::string::npos) << verdict.defect;
    verdict = changed64(text, offsetof(Elf64_Shdr, sh_entsize), uint64_t{0xa0} << 56);
    EXPECT_NE(std::string(verdict.defect).find("has entries of"), std::string::npos) << verdict.defect;
    auto changed = [&](unsigned index, size_t field, uint32_t value) {
        Bytes bytes = cubin;
        put<uint32_t>(&bytes, header.e_shoff + index * sizeof(Elf64_Shdr) + field, value);
        return check(bytes);
    };
    const unsigned shared = find_section(cubin, SHT_NOBITS);
    ASSERT_NE(shared, 0u);
    ASSERT_NE(section_of(cubin, shared).sh_flags & SHF_INFO_LINK, 0u) << "the kernel's .nv.shared names its code";
    verdict = changed(shared, offsetof(Elf64_Shdr, sh_info), 20259);
    EXPECT_FALSE(verdict.sound());
    EXPECT_NE(std::string(verdict.defect).find("section " + std::to_string(shared) + " refers to section 20259"),
              std::string::npos)
        << verdict.defect;
    verdict = changed(shared, offsetof(Elf64_Shdr, sh_link), header.e_shnum);
    EXPECT_FALSE(verdict.sound());
    EXPECT_NE(std::string(verdict.defect).find("links to section " + std::to_string(header.e_shnum)),
              std::string::npos)
        << verdict.defect;
    // A section whose sh_info is no index (a symbol table's first global symbol) keeps any value.
    const unsigned symtab = find_section(cubin, SHT_SYMTAB);
    ASSERT_EQ(section_of(cubin, symtab).sh_flags & SHF_INFO_LINK, 0u);
    EXPECT_TRUE(changed(symtab, offsetof(Elf64_Shdr, sh_info), 0).sound());
}

// A kernel's shared memory and constant banks are found by name: one renamed leaves the kernel
// without them (this mutant, one byte of .shstrtab changed, faulted its context on the H100).
TEST(ImageCheck, SectionsOfAKernelsMemoryAreNamedForTheKernel) {
    Verdict verdict = check(seed_image("host_fault_32_1046"));
    EXPECT_FALSE(verdict.sound());
    EXPECT_NE(std::string(verdict.defect).find("('.nv.sDared.k2') holds memory of kernel code section"),
              std::string::npos)
        << verdict.defect;
    for (const char* name : {"twelve_kernels.fatbin", "three_kernels_sm90.cubin", "three_kernels_rdc_sm75.cubin",
                             "three_kernels_debug_sm80.cubin", "negate_sm90.cubin", "scale_sm75.cubin"})
        EXPECT_TRUE(check(seed_image(name)).sound()) << name << ": " << check(seed_image(name)).defect;
}

TEST(ImageCheck, AttributeRecordsAreWalkedAndTheirSymbolsChecked) {
    const Bytes cubin = seed_image("three_kernels_sm90.cubin");
    const unsigned info = find_section(cubin, 0x70000000);  // the first .nv.info: (symbol, value) records
    ASSERT_NE(info, 0u);
    const size_t record = section_of(cubin, info).sh_offset;
    ASSERT_EQ(get<uint8_t>(cubin, record), 4u) << "the seed's first record has a sized value";
    auto defect_of = [&](auto&& change) {
        Bytes bytes = cubin;
        change(&bytes);
        return std::string(check(bytes).defect);
    };
    EXPECT_NE(defect_of([&](Bytes* b) { put<uint16_t>(b, record + 2, 0xfff0); }).find("claims 65520 bytes of value"),
              std::string::npos);
    EXPECT_NE(defect_of([&](Bytes* b) { put<uint8_t>(b, record, 9); }).find("has format 9"), std::string::npos);
    EXPECT_NE(defect_of([&](Bytes* b) { put<uint32_t>(b, record + 4, 0x7fffffff); }).find("names symbol 2147483647"),
              std::string::npos);
    EXPECT_NE(defect_of([&](Bytes* b) { put<uint16_t>(b, record + 2, 6); }).find("not (symbol, value) pairs"),
              std::string::npos);
    for (const char* mutant : {"mutant_attribute_overrun_sm90.cubin", "mutant_attribute_symbol_sm90.cubin",
                               "mutant_attribute_format_sm90.cubin"})
        EXPECT_FALSE(check(seed_image(mutant)).sound()) << mutant;
}

TEST(ImageCheck, ZstdEntryHeaderMustAgreeWithTheFatbinEntry) {
    const Bytes fatbin = seed_image("negate.fatbin");
    const size_t first = get<uint16_t>(fatbin, 6);
    const size_t payload = first + get<uint32_t>(fatbin, first + 4);
    ASSERT_EQ(get<uint32_t>(fatbin, payload), 0xFD2FB528u) << "the seed's first entry is zstd-compressed";
    EXPECT_TRUE(check(fatbin).sound());
    Bytes bytes = fatbin;
    put<uint32_t>(&bytes, payload, 0x12345678);
    EXPECT_NE(std::string(check(bytes).defect).find("does not start with a zstd frame"), std::string::npos);
    bytes = fatbin;
    put<uint64_t>(&bytes, first + 56, get<uint64_t>(fatbin, first + 56) + 1);  // the entry's decompressed size
    EXPECT_NE(std::string(check(bytes).defect).find("by its frame header"), std::string::npos) << check(bytes).defect;
    bytes = fatbin;
    put<uint8_t>(&bytes, payload + 4, get<uint8_t>(fatbin, payload + 4) | 0x08);
    EXPECT_NE(std::string(check(bytes).defect).find("reserved bit"), std::string::npos);
    EXPECT_FALSE(check(seed_image("mutant_zstd_size.fatbin")).sound());
}

TEST(ImageCheck, AFatbinClaimingAGigabyteIsDamaged) {
    // The hang of the issue: a 64-byte fatbin whose header claims 1 GiB of entries.
    Bytes fatbin = seed_image("negate.fatbin");
    fatbin.resize(64);
    put<uint64_t>(&fatbin, 8, uint64_t{1} << 30);
    const Verdict verdict = check(fatbin);
    EXPECT_FALSE(verdict.sound());
    EXPECT_NE(std::string(verdict.defect).find("claims 1073741824 bytes of entries"), std::string::npos)
        << verdict.defect;
}

TEST(ImageCheck, FatbinEntriesAreCheckedAndTheirCubinsToo) {
    const Bytes fatbin = seed_image("negate_uncompressed.fatbin");
    const size_t first = get<uint16_t>(fatbin, 6);
    {
        Bytes bytes = fatbin;
        put<uint64_t>(&bytes, first + 8, uint64_t{1} << 40);  // the first entry's payload size
        EXPECT_NE(std::string(check(bytes).defect).find("bytes of payload"), std::string::npos) << check(bytes).defect;
    }
    {
        Bytes bytes = fatbin;
        put<uint32_t>(&bytes, first + 4, 8);  // the first entry's header size
        EXPECT_FALSE(check(bytes).sound());
    }
    // The CUBIN inside: its section header table moved past the payload.
    size_t at = first;
    while (get<uint16_t>(fatbin, at) != 2) at += get<uint32_t>(fatbin, at + 4) + get<uint64_t>(fatbin, at + 8);
    const size_t elf = at + get<uint32_t>(fatbin, at + 4);
    ASSERT_EQ(std::memcmp(fatbin.data() + elf, ELFMAG, SELFMAG), 0) << "the seed's CUBIN entry is not compressed";
    Bytes bytes = fatbin;
    put<uint64_t>(&bytes, elf + offsetof(Elf64_Ehdr, e_shoff), uint64_t{1} << 33);
    const Verdict verdict = check(bytes);
    EXPECT_FALSE(verdict.sound());
    EXPECT_NE(std::string(verdict.defect).find("(CUBIN): its section header table"), std::string::npos)
        << verdict.defect;
}

TEST(ImageCheck, PtxIsTextUpToAnOptionalTerminator) {
    Bytes ptx = seed_image("negate_compute75.ptx");
    EXPECT_TRUE(check(ptx).sound());
    ptx.push_back(0);
    ptx.push_back(0);
    EXPECT_TRUE(check(ptx).sound()) << "NUL padding";
    ptx.push_back('x');
    EXPECT_EQ(check(ptx).kind, Kind::Unknown) << "text after the terminator";
    Bytes binary = seed_image("negate_compute75.ptx");
    binary[40] = 0x01;
    EXPECT_EQ(check(binary).kind, Kind::Unknown) << "a control character";
}

TEST(ImageCheck, LoadingDamagedBytesSaysSoWithAFixThatFits) {
    Bytes cubin = seed_image("negate_sm90.cubin");
    cubin.resize(cubin.size() / 2);
    cuabi::ImageFacts facts;
    EXPECT_FAILS_WITH(cuabi::inspect_image(cubin.data(), cubin.size(), &facts), CUABI_ERROR_INVALID_IMAGE,
                      "CUBIN is damaged");
    const std::string message = cuabi_last_error_message();
    EXPECT_NE(message.find("produce it again"), std::string::npos) << message;
    EXPECT_EQ(message.find("architecture"), std::string::npos)
        << "a damaged file is not a matter of the device: " << message;
}

}  // namespace
