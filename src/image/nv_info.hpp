// The attribute records of a CUBIN's .nv.info sections, which the driver's loader walks and acts on
// without checking them: a record running past its section, or one naming a symbol the symbol
// table does not have, sends it reading outside the image.
//
// A section of type SHT_CUDA_INFO holds records of a format byte, an attribute byte and then, for
// format 4 (a sized value), a u16 size and that many bytes; formats 1 to 3 (no value, a byte, a
// half word) are 4 bytes in all. The records must fill the section exactly. The records whose value
// starts with a symbol index (register count, frame and stack sizes, the parameter constant bank)
// must name a symbol of the section's linked symbol table, and the parameter records
// (EIATTR_KPARAM_INFO) have their fixed 12 bytes. Tested by tests/unit/image_check_test.cpp and
// tests/fuzz/.
#pragma once

#include <elf.h>

#include "image/bytes.hpp"

namespace cuabi {
namespace image {

constexpr uint32_t kSectionCudaInfo = 0x70000000;  // SHT_CUDA_INFO (SHT_LOPROC)

// Checks the records of .nv.info section `index` (whose header is `info`; the section table and
// every section's extent were checked before). False, with the defect recorded, when one is wrong.
bool check_attribute_records(const Bytes& bytes, const Elf64_Ehdr& header, uint32_t index, const Elf64_Shdr& info,
                             Verdict* out);

}  // namespace image
}  // namespace cuabi
