// Peer access between devices and copies between them.
//
// Peer access is a property of two primary contexts, shared with everyone in the process, and the
// driver has no query for whether it is on. cuabi keeps its own record of what it enabled (and what
// the driver said was already enabled); copies between devices consult that record, so a copy
// without peer access is refused instead of silently taking the driver's slow staged path. A stale
// record (a primary context that ended and came back) costs no correctness: the driver
// copies either way, only slower.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "device/buffer.hpp"
#include "device/context.hpp"
#include "device/stream.hpp"

namespace cuabi {

// "device 1 (NVIDIA H100 80GB HBM3)": how messages name a device.
std::string device_label(const Context& context);

// Whether `context`'s device can be given access to `peer`'s memory (true for one device).
Status can_access_peer(const Context& context, const Context& peer, bool* out);

// Idempotent, as cuabi.h documents. UNSUPPORTED when the devices cannot be peers.
Status enable_peer_access(const Context& context, const Context& peer);
Status disable_peer_access(const Context& context, const Context& peer);

// Whether cuabi enabled access from `context` to `peer` (true for one device).
bool peer_access_enabled(const Context& context, const Context& peer);

// Copies between buffers of any two devices; `flags` are CUABI_PEER_COPY_* (already validated).
// One device: Buffer::copy. Otherwise the stream's device (dst's for NULL) issues the copy and
// needs peer access to the other device unless CUABI_PEER_COPY_STAGED is set.
Status copy_between_devices(const Buffer& dst, size_t dst_offset, const Buffer& src, size_t src_offset, size_t size,
                            uint32_t flags, const Stream* stream);

}  // namespace cuabi
