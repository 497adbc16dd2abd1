// CUBINs: 64-bit little-endian ELF files for machine EM_CUDA.
#include <elf.h>

#include <algorithm>
#include <string>

#include "image/bytes.hpp"
#include "image/nv_info.hpp"

namespace cuabi {
namespace image {
namespace {

constexpr uint16_t kMachineCuda = 190;  // EM_CUDA
// Bounds no real CUBIN comes near: symbols and relocations are 16 or 24 bytes, code is 128-aligned.
constexpr uint64_t kMaxEntrySize = 4096;
constexpr uint64_t kMaxAlignment = 4096;

// SM architecture from the header flags. The field moved in ELF ABI version 8 (CUDA 13): bits
// 8..15 there, bits 0..7 before.
int arch_of(const Elf64_Ehdr& header) {
    if (header.e_ident[EI_ABIVERSION] >= 8) return static_cast<int>((header.e_flags >> 8) & 0xff);
    return static_cast<int>(header.e_flags & 0xff);
}

struct Tables {
    Elf64_Ehdr header;
    uint64_t extent;  // the furthest byte any table or section ends at
};

bool check_header(const Bytes& bytes, Tables* tables, Verdict* out) {
    Elf64_Ehdr& header = tables->header;
    if (!bytes.holds(0, sizeof header))
        return defect(out, "the ELF header needs %zu bytes but the image has %zu", sizeof header, bytes.size());
    header = bytes.at<Elf64_Ehdr>(0);
    if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_machine != kMachineCuda) {
        out->foreign = true;
        return defect(out, "it is an ELF file for machine %u (class %u), not a CUDA CUBIN (machine %u, 64-bit)",
                      header.e_machine, header.e_ident[EI_CLASS], kMachineCuda);
    }
    if (header.e_ident[EI_DATA] != ELFDATA2LSB)
        return defect(out, "its ELF header says big-endian data (EI_DATA %u); CUBINs are little-endian",
                      header.e_ident[EI_DATA]);
    if (header.e_ehsize < sizeof header || header.e_ehsize > bytes.size())
        return defect(out, "its ELF header claims to be %u bytes long (a 64-bit ELF header is %zu; the image has %zu)",
                      header.e_ehsize, sizeof header, bytes.size());
    tables->extent = header.e_ehsize;
    return true;
}

// A table of `count` entries of `entry_size` bytes at `offset`, of entries of `expected` bytes.
bool check_table(const Bytes& bytes, const char* name, uint64_t offset, uint64_t count, uint64_t entry_size,
                 uint64_t expected, Tables* tables, Verdict* out) {
    if (count == 0) return true;
    if (entry_size != expected)
        return defect(out, "its %s table has entries of %llu bytes; 64-bit ELF entries are %llu", name, ull(entry_size),
                      ull(expected));
    if (!bytes.holds(offset, count * entry_size))  // count < 2^16 and entry_size < 2^16: no overflow
        return defect(out, "its %s table (%llu entries at byte %llu) ends at byte %llu, past the image's %zu bytes",
                      name, ull(count), ull(offset), ull(offset + count * entry_size), bytes.size());
    tables->extent = std::max(tables->extent, offset + count * entry_size);
    return true;
}

Elf64_Shdr section(const Bytes& bytes, const Elf64_Ehdr& header, uint32_t index) {
    return bytes.at<Elf64_Shdr>(header.e_shoff + uint64_t{index} * sizeof(Elf64_Shdr));
}

bool check_segments(const Bytes& bytes, Tables* tables, Verdict* out) {
    const Elf64_Ehdr& header = tables->header;
    if (!check_table(bytes, "program header", header.e_phoff, header.e_phnum, header.e_phentsize, sizeof(Elf64_Phdr),
                     tables, out))
        return false;
    for (uint32_t i = 0; i < header.e_phnum; ++i) {
        const Elf64_Phdr segment = bytes.at<Elf64_Phdr>(header.e_phoff + uint64_t{i} * sizeof(Elf64_Phdr));
        if (segment.p_filesz == 0) continue;
        if (!bytes.holds(segment.p_offset, segment.p_filesz))
            return defect(out, "segment %u (%llu bytes at byte %llu) runs past the image's %zu bytes", i,
                          ull(segment.p_filesz), ull(segment.p_offset), bytes.size());
        tables->extent = std::max(tables->extent, segment.p_offset + segment.p_filesz);
    }
    return true;
}

bool check_sections(const Bytes& bytes, Tables* tables, Verdict* out) {
    const Elf64_Ehdr& header = tables->header;
    if (header.e_shnum == 0)
        return defect(out, "it has no section header table (e_shnum 0%s)",
                      header.e_shoff != 0 ? "; extended section numbering is not used by CUBINs" : "");
    if (!check_table(bytes, "section header", header.e_shoff, header.e_shnum, header.e_shentsize, sizeof(Elf64_Shdr),
                     tables, out))
        return false;
    for (uint32_t i = 0; i < header.e_shnum; ++i) {
        const Elf64_Shdr shdr = section(bytes, header, i);
        // The driver follows these indices into its section array without a bound: a mutated
        // index on an empty or NOBITS section crashed the host's own load (tests/fuzz/corpus/
        // host_crash_25_*), at random, since where the read lands decides whether it faults.
        if (shdr.sh_link >= header.e_shnum)
            return defect(out, "section %u links to section %u of %u", i, shdr.sh_link, header.e_shnum);
        const bool info_is_index =
            (shdr.sh_flags & SHF_INFO_LINK) != 0 || shdr.sh_type == SHT_REL || shdr.sh_type == SHT_RELA;
        if (info_is_index && shdr.sh_info >= header.e_shnum)
            return defect(out, "section %u refers to section %u of %u (sh_info)", i, shdr.sh_info, header.e_shnum);
        // The same for where an empty or NOBITS section starts, its entry size and its alignment
        // (host_crash_31_961: an empty relocation table 15 MiB past the end). Real CUBINs keep
        // every offset inside the file, entries of a few bytes and alignments of at most 128.
        if (shdr.sh_offset > bytes.size())
            return defect(out, "section %u starts at byte %llu, past the image's %zu bytes", i, ull(shdr.sh_offset),
                          bytes.size());
        if (shdr.sh_entsize > kMaxEntrySize)
            return defect(out, "section %u has entries of %llu bytes (at most %llu)", i, ull(shdr.sh_entsize),
                          ull(kMaxEntrySize));
        if (shdr.sh_addralign > kMaxAlignment || (shdr.sh_addralign & (shdr.sh_addralign - 1)) != 0)
            return defect(out, "section %u claims an alignment of %llu (a power of two up to %llu)", i,
                          ull(shdr.sh_addralign), ull(kMaxAlignment));
        if (shdr.sh_type == SHT_NOBITS || shdr.sh_size == 0) continue;
        if (!bytes.holds(shdr.sh_offset, shdr.sh_size))
            return defect(out, "section %u (%llu bytes at byte %llu) runs past the image's %zu bytes", i,
                          ull(shdr.sh_size), ull(shdr.sh_offset), bytes.size());
        tables->extent = std::max(tables->extent, shdr.sh_offset + shdr.sh_size);
    }
    return true;
}

// A string table: a non-empty section of type SHT_STRTAB whose last byte is NUL, so that every
// name starting inside it ends inside it.
bool check_string_table(const Bytes& bytes, const Elf64_Ehdr& header, uint32_t index, const char* role, Verdict* out) {
    if (index >= header.e_shnum) return defect(out, "its %s names section %u of %u", role, index, header.e_shnum);
    const Elf64_Shdr table = section(bytes, header, index);
    if (table.sh_type != SHT_STRTAB || table.sh_size == 0 ||
        bytes.at<uint8_t>(table.sh_offset + table.sh_size - 1) != 0)
        return defect(out, "its %s (section %u) is not a NUL-terminated string table", role, index);
    return true;
}

bool check_names(const Bytes& bytes, const Elf64_Ehdr& header, Verdict* out) {
    if (header.e_shstrndx == SHN_UNDEF) return true;
    if (!check_string_table(bytes, header, header.e_shstrndx, "section name table", out)) return false;
    const uint64_t names_size = section(bytes, header, header.e_shstrndx).sh_size;
    for (uint32_t i = 0; i < header.e_shnum; ++i) {
        const uint32_t name = section(bytes, header, i).sh_name;
        if (name >= names_size)
            return defect(out, "section %u's name starts at byte %u of a %llu-byte name table", i, name,
                          ull(names_size));
    }
    return true;
}

// The driver finds a kernel's shared memory and constant banks by section name: a section that
// belongs to kernel K's code (.text.K) but is not named for it leaves K without the memory its code
// uses (seed 32, mutant 1046 on the H100: .nv.shared.k2 renamed .nv.sDared.k2 faulted the context).
bool check_kernel_resources(const Bytes& bytes, const Elf64_Ehdr& header, Verdict* out) {
    const Elf64_Shdr names = section(bytes, header, header.e_shstrndx);
    auto name_of = [&](const Elf64_Shdr& shdr) {
        return std::string(reinterpret_cast<const char*>(bytes.data() + names.sh_offset + shdr.sh_name));
    };
    for (uint32_t i = 0; i < header.e_shnum; ++i) {
        const Elf64_Shdr shdr = section(bytes, header, i);
        if ((shdr.sh_flags & SHF_INFO_LINK) == 0 || (shdr.sh_flags & SHF_ALLOC) == 0) continue;
        const Elf64_Shdr code = section(bytes, header, shdr.sh_info);
        const std::string code_name = name_of(code);
        if ((code.sh_flags & SHF_EXECINSTR) == 0 || code_name.rfind(".text.", 0) != 0) continue;
        const std::string kernel = code_name.substr(6), name = name_of(shdr);
        bool named = false;
        if (shdr.sh_type == SHT_NOBITS) {
            named = name == ".nv.shared." + kernel;
        } else if (shdr.sh_type == SHT_PROGBITS && name.rfind(".nv.constant", 0) == 0) {
            const size_t dot = name.find('.', 12);
            named = dot > 12 && dot != std::string::npos && name.substr(dot + 1) == kernel &&
                    name.find_first_not_of("0123456789", 12) == dot;
        } else {
            continue;  // sections the driver does not find by name
        }
        if (!named)
            return defect(out, "section %u ('%s') holds memory of kernel code section %u ('%s') but is not named for it",
                          i, name.c_str(), shdr.sh_info, code_name.c_str());
    }
    return true;
}

bool check_symbols(const Bytes& bytes, const Elf64_Ehdr& header, uint32_t index, const Elf64_Shdr& table,
                   Verdict* out) {
    if (table.sh_entsize != sizeof(Elf64_Sym) || table.sh_size % sizeof(Elf64_Sym) != 0)
        return defect(out,
                      "symbol table (section %u) has entries of %llu bytes and %llu bytes in all; 64-bit "
                      "symbols are %zu bytes",
                      index, ull(table.sh_entsize), ull(table.sh_size), sizeof(Elf64_Sym));
    if (!check_string_table(bytes, header, table.sh_link, "symbol table's string table", out)) return false;
    const uint64_t names_size = section(bytes, header, table.sh_link).sh_size;
    for (uint64_t at = 0; at < table.sh_size; at += sizeof(Elf64_Sym)) {
        const Elf64_Sym symbol = bytes.at<Elf64_Sym>(table.sh_offset + at);
        const uint64_t number = at / sizeof(Elf64_Sym);
        if (symbol.st_name >= names_size)
            return defect(out, "symbol %llu of section %u has its name at byte %u of a %llu-byte string table",
                          ull(number), index, symbol.st_name, ull(names_size));
        if (symbol.st_shndx >= header.e_shnum && symbol.st_shndx < SHN_LORESERVE)
            return defect(out, "symbol %llu of section %u belongs to section %u of %u", ull(number), index,
                          symbol.st_shndx, header.e_shnum);
    }
    return true;
}

// How many bytes a relocation patches, at least: R_CUDA_64 and R_CUDA_G64 a 64-bit word, any other
// a 32-bit word in data; in code, every relocation patches an instruction, and none is shorter than
// 8 bytes. (A relocation at the last byte of its section otherwise passes and the driver writes
// past the section.)
uint64_t relocation_width(uint64_t type, const Elf64_Shdr& target) {
    constexpr uint64_t kCudaNone = 0, kCuda64 = 2, kCudaG64 = 4;
    if (type == kCudaNone) return 1;  // patches nothing; its offset must still lie inside
    if ((target.sh_flags & SHF_EXECINSTR) != 0) return 8;
    return type == kCuda64 || type == kCudaG64 ? 8 : 4;
}

bool check_relocations(const Bytes& bytes, const Elf64_Ehdr& header, uint32_t index, const Elf64_Shdr& table,
                       Verdict* out) {
    const uint64_t entry = table.sh_type == SHT_RELA ? sizeof(Elf64_Rela) : sizeof(Elf64_Rel);
    if (table.sh_entsize != entry || table.sh_size % entry != 0)
        return defect(out,
                      "relocation table (section %u) has entries of %llu bytes and %llu bytes in all; "
                      "expected %llu-byte entries",
                      index, ull(table.sh_entsize), ull(table.sh_size), ull(entry));
    if (table.sh_link >= header.e_shnum || section(bytes, header, table.sh_link).sh_type != SHT_SYMTAB)
        return defect(out, "relocation table (section %u) names section %u as its symbol table, which is not one",
                      index, table.sh_link);
    if (table.sh_info >= header.e_shnum)
        return defect(out, "relocation table (section %u) applies to section %u of %u", index, table.sh_info,
                      header.e_shnum);
    const uint64_t symbols = section(bytes, header, table.sh_link).sh_size / sizeof(Elf64_Sym);
    const Elf64_Shdr target = section(bytes, header, table.sh_info);
    const uint64_t target_size = target.sh_size;
    for (uint64_t at = 0; at < table.sh_size; at += entry) {
        const Elf64_Rel relocation = bytes.at<Elf64_Rel>(table.sh_offset + at);  // a prefix of Elf64_Rela
        const uint64_t number = at / entry;
        if (ELF64_R_SYM(relocation.r_info) >= symbols)
            return defect(out, "relocation %llu of section %u refers to symbol %llu of %llu", ull(number), index,
                          ull(ELF64_R_SYM(relocation.r_info)), ull(symbols));
        const uint64_t width = relocation_width(ELF64_R_TYPE(relocation.r_info), target);
        if (relocation.r_offset > target_size || width > target_size - relocation.r_offset)
            return defect(out,
                          "relocation %llu of section %u (type %llu) patches %llu bytes at byte %llu of section %u, "
                          "which has %llu bytes",
                          ull(number), index, ull(ELF64_R_TYPE(relocation.r_info)), ull(width),
                          ull(relocation.r_offset), table.sh_info, ull(target_size));
    }
    return true;
}

bool check_linked_tables(const Bytes& bytes, const Elf64_Ehdr& header, Verdict* out) {
    for (uint32_t i = 0; i < header.e_shnum; ++i) {
        const Elf64_Shdr table = section(bytes, header, i);
        // An empty relocation table still names its entry size, symbol table and target, which
        // the driver reads (host_crash_25_1841: an empty table's sh_entsize of 0xe40000000018).
        if ((table.sh_type == SHT_REL || table.sh_type == SHT_RELA) && !check_relocations(bytes, header, i, table, out))
            return false;
        if (table.sh_size == 0) continue;
        if ((table.sh_type == SHT_SYMTAB || table.sh_type == SHT_DYNSYM) &&
            !check_symbols(bytes, header, i, table, out))
            return false;
        if (table.sh_type == kSectionCudaInfo && !check_attribute_records(bytes, header, i, table, out)) return false;
    }
    return true;
}

}  // namespace

void check_cubin(const uint8_t* data, size_t size, Verdict* out) {
    out->kind = Kind::Cubin;
    const Bytes bytes(data, size);
    Tables tables{};
    if (!check_header(bytes, &tables, out)) return;
    out->arch = arch_of(tables.header);
    if (!check_segments(bytes, &tables, out) || !check_sections(bytes, &tables, out)) return;
    if (!check_names(bytes, tables.header, out) || !check_linked_tables(bytes, tables.header, out)) return;
    if (tables.header.e_shstrndx != SHN_UNDEF && !check_kernel_resources(bytes, tables.header, out)) return;
    check_tail(bytes, tables.extent, "CUBIN", out);
}

}  // namespace image
}  // namespace cuabi
