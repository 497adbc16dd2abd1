#include "image/nv_info.hpp"

namespace cuabi {
namespace image {
namespace {

constexpr uint8_t kFormatSized = 4;  // EIFMT_SVAL
constexpr uint8_t kLastFormat = 4;

// Attributes whose sized value is (symbol index, value) pairs, and the one of fixed size.
bool value_names_symbols(uint8_t attribute) {
    switch (attribute) {
        case 0x0a:  // EIATTR_PARAM_CBANK: the constant bank's symbol, offset, size
        case 0x11:  // EIATTR_FRAME_SIZE
        case 0x12:  // EIATTR_MIN_STACK_SIZE
        case 0x23:  // EIATTR_MAX_STACK_SIZE
        case 0x2f:  // EIATTR_REGCOUNT
            return true;
    }
    return false;
}
constexpr uint8_t kParameterInfo = 0x17;  // EIATTR_KPARAM_INFO
constexpr uint16_t kParameterInfoSize = 12;

}  // namespace

bool check_attribute_records(const Bytes& bytes, const Elf64_Ehdr& header, uint32_t index, const Elf64_Shdr& info,
                             Verdict* out) {
    uint64_t symbols = 0;
    if (info.sh_link < header.e_shnum) {
        const Elf64_Shdr table = bytes.at<Elf64_Shdr>(header.e_shoff + uint64_t{info.sh_link} * sizeof(Elf64_Shdr));
        if (table.sh_type == SHT_SYMTAB) symbols = table.sh_size / sizeof(Elf64_Sym);
    }
    const uint64_t end = info.sh_size;
    for (uint64_t at = 0; at < end;) {
        if (end - at < 4)
            return defect(out, "attribute section %u ends inside a record header at byte %llu of its %llu bytes", index,
                          ull(at), ull(end));
        const uint64_t record = info.sh_offset + at;
        const uint8_t format = bytes.at<uint8_t>(record);
        const uint8_t attribute = bytes.at<uint8_t>(record + 1);
        if (format == 0 || format > kLastFormat)
            return defect(out, "attribute record at byte %llu of section %u has format %u (known: 1 to %u)", ull(at),
                          index, format, kLastFormat);
        if (format != kFormatSized) {
            at += 4;
            continue;
        }
        const uint16_t size = bytes.at<uint16_t>(record + 2);
        if (size > end - at - 4)
            return defect(out,
                          "attribute record 0x%02x at byte %llu of section %u claims %u bytes of value, but only %llu "
                          "bytes of the section remain",
                          attribute, ull(at), index, size, ull(end - at - 4));
        if (attribute == kParameterInfo && size != kParameterInfoSize)
            return defect(out, "parameter record (0x%02x) at byte %llu of section %u has %u bytes; it has %u",
                          attribute, ull(at), index, size, kParameterInfoSize);
        if (value_names_symbols(attribute)) {
            if (size < 8 || size % 8 != 0)
                return defect(out,
                              "attribute record 0x%02x at byte %llu of section %u has %u bytes, not (symbol, value) "
                              "pairs of 8",
                              attribute, ull(at), index, size);
            // PARAM_CBANK holds one pair; the others a pair per function.
            const uint16_t step = attribute == 0x0a ? size : 8;
            for (uint16_t pair = 0; pair < size; pair += step) {
                const uint32_t symbol = bytes.at<uint32_t>(record + 4 + pair);
                if (symbol >= symbols)
                    return defect(out,
                                  "attribute record 0x%02x at byte %llu of section %u names symbol %u, but its symbol "
                                  "table (section %u) has %llu",
                                  attribute, ull(at), index, symbol, info.sh_link, ull(symbols));
            }
        }
        at += 4 + uint64_t{size};
    }
    return true;
}

}  // namespace image
}  // namespace cuabi
