#include "range/catalog.hpp"

namespace cuabi {
namespace range {
namespace {

// In Phase order. Each description says what the range covers, so that a reader of a profile
// knows what its length measures.
const CatalogEntry kCatalog[] = {
    {"cuabi.compile", "NVRTC compiles one program (source to PTX/CUBIN), lowered names included"},
    {"cuabi.cache.lookup.memory", "looks a compile up in the in-process cache"},
    {"cuabi.cache.lookup.disk", "looks a compile up in the on-disk cache: read, checksum, decode"},
    {"cuabi.cache.store", "writes a compiled image to the on-disk cache and publishes it atomically"},
    {"cuabi.module.load", "loads a compiled image into a context"},
    {"cuabi.launch", "validates a kernel launch and submits it to the driver"},
    {"cuabi.graph.capture", "captures work on a stream into a graph"},
    {"cuabi.graph.instantiate", "instantiates a captured graph into an executable graph"},
    {"cuabi.graph.update", "updates an executable graph: kernel-node arguments, geometry or whole graph"},
    {"cuabi.graph.launch", "replays an executable graph on a stream"},
    {"cuabi.cache.evict", "evicts least-recently-used entries until the on-disk cache is under its size cap"},
    {"cuabi.graph.upload", "uploads an executable graph to the device ahead of its first launch"},
    {"cuabi.driver.load", "loads libcuda, resolves its entry points and runs cuInit (once per process)"},
};
static_assert(sizeof kCatalog / sizeof kCatalog[0] == kCatalogSize, "every range::Phase needs a catalog entry");

}  // namespace

const CatalogEntry& catalog_entry(Phase phase) { return kCatalog[static_cast<size_t>(phase)]; }

}  // namespace range
}  // namespace cuabi
