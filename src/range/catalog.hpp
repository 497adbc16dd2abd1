// The catalog of cuabi's own ranges: one entry per range::Phase, readable through the ABI.
#pragma once

#include "range/ranges.hpp"

namespace cuabi {
namespace range {

struct CatalogEntry {
    const char* name;         // "cuabi.compile": namespaced, unique
    const char* description;  // the phase it covers
};

const CatalogEntry& catalog_entry(Phase phase);

}  // namespace range
}  // namespace cuabi
