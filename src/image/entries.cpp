#include "image/entries.hpp"

#include <elf.h>

#include "image/bytes.hpp"

namespace cuabi {
namespace image {
namespace {

// The NUL-terminated name at `offset` of the string table `table`, or "" when it leaves the table.
std::string name_at(const Bytes& bytes, const Elf64_Shdr& table, uint64_t offset) {
    if (offset >= table.sh_size || !bytes.holds(table.sh_offset, table.sh_size)) return "";
    const char* start = reinterpret_cast<const char*>(bytes.data() + table.sh_offset + offset);
    size_t room = static_cast<size_t>(table.sh_size - offset);
    size_t length = strnlen(start, room);
    return length == room ? std::string() : std::string(start, length);
}

}  // namespace

std::vector<std::string> cubin_kernel_names(const void* data, size_t size) {
    std::vector<std::string> names;
    Bytes bytes(static_cast<const uint8_t*>(data), size);
    if (!bytes.holds(0, sizeof(Elf64_Ehdr))) return names;
    const Elf64_Ehdr header = bytes.at<Elf64_Ehdr>(0);
    if (header.e_shentsize != sizeof(Elf64_Shdr) || !bytes.holds(header.e_shoff, header.e_shnum * sizeof(Elf64_Shdr)))
        return names;
    for (uint16_t i = 0; i < header.e_shnum; ++i) {
        const Elf64_Shdr symbols = bytes.at<Elf64_Shdr>(header.e_shoff + i * sizeof(Elf64_Shdr));
        if (symbols.sh_type != SHT_SYMTAB || symbols.sh_link >= header.e_shnum ||
            !bytes.holds(symbols.sh_offset, symbols.sh_size))
            continue;
        const Elf64_Shdr strings = bytes.at<Elf64_Shdr>(header.e_shoff + symbols.sh_link * sizeof(Elf64_Shdr));
        for (uint64_t at = 0; at + sizeof(Elf64_Sym) <= symbols.sh_size; at += sizeof(Elf64_Sym)) {
            const Elf64_Sym symbol = bytes.at<Elf64_Sym>(symbols.sh_offset + at);
            if (ELF64_ST_TYPE(symbol.st_info) != STT_FUNC || (symbol.st_other & kStoCudaEntry) == 0 ||
                symbol.st_shndx == SHN_UNDEF)
                continue;
            std::string name = name_at(bytes, strings, symbol.st_name);
            if (!name.empty()) names.push_back(std::move(name));
        }
    }
    return names;
}

}  // namespace image
}  // namespace cuabi
