// The catalog of cuabi's own ranges: one entry per range::Phase, readable through the ABI
// (cuabi_range_get_catalog_count / cuabi_range_get_catalog_entry) and printed by `cuabi ranges`.
#pragma once

#include <cstddef>

#include "range/ranges.hpp"

namespace cuabi {
namespace range {

struct CatalogEntry {
    const char* name;         // "cuabi.compile": namespaced, unique; the range's NVTX message
    const char* description;  // the phase it covers
};

constexpr size_t kCatalogSize = static_cast<size_t>(Phase::Count);

const CatalogEntry& catalog_entry(Phase phase);

}  // namespace range
}  // namespace cuabi
