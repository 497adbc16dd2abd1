#include "device/peer_access.hpp"

#include <mutex>
#include <set>
#include <utility>

namespace cuabi {
namespace {

// The pairs (from, to) of primary contexts that cuabi enabled peer access between.
struct EnabledPairs {
    std::mutex mutex;
    std::set<std::pair<CUcontext, CUcontext>> pairs;
};

EnabledPairs& enabled_pairs() {
    static EnabledPairs* pairs = new EnabledPairs;  // never destroyed, so calls during exit still find it
    return *pairs;
}

void record(const Context& context, const Context& peer, bool enabled) {
    EnabledPairs& all = enabled_pairs();
    std::lock_guard<std::mutex> lock(all.mutex);
    auto key = std::make_pair(context.cu_context(), peer.cu_context());
    if (enabled)
        all.pairs.insert(key);
    else
        all.pairs.erase(key);
}

bool one_device(const Context& a, const Context& b) { return a.cu_context() == b.cu_context(); }

}  // namespace

std::string device_label(const Context& context) {
    return format("device %d (%s)", context.ordinal(), context.info().name);
}

Status can_access_peer(const Context& context, const Context& peer, bool* out) {
    if (one_device(context, peer)) {
        *out = true;
        return CUABI_SUCCESS;
    }
    int can = 0;
    CUresult result = context.api().cuDeviceCanAccessPeer(&can, context.cu_device(), peer.cu_device());
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuDeviceCanAccessPeer", "check that both devices are still available (nvidia-smi)",
                       "from %s to %s", device_label(context).c_str(), device_label(peer).c_str());
    *out = can != 0;
    return CUABI_SUCCESS;
}

Status enable_peer_access(const Context& context, const Context& peer) {
    if (one_device(context, peer)) return CUABI_SUCCESS;
    bool can = false;
    Status status = can_access_peer(context, peer, &can);
    if (status != CUABI_SUCCESS) return status;
    if (!can)
        return fail(CUABI_ERROR_UNSUPPORTED,
                    "copy between these devices with CUABI_PEER_COPY_STAGED or through host memory; peer access "
                    "needs NVLink or a PCIe topology with peer-to-peer support (nvidia-smi topo -p2p r)",
                    "%s cannot access the memory of %s: the driver reports no peer-to-peer path between them",
                    device_label(context).c_str(), device_label(peer).c_str());
    if ((status = context.make_current()) != CUABI_SUCCESS) return status;
    CUresult result = context.api().cuCtxEnablePeerAccess(peer.cu_context(), 0);
    if (result != CUDA_SUCCESS && result != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
        return fail_cu(result, "cuCtxEnablePeerAccess",
                       "disable peer access to devices no longer needed (a device has at most 8 peers), or copy "
                       "with CUABI_PEER_COPY_STAGED",
                       "from %s to %s", device_label(context).c_str(), device_label(peer).c_str());
    record(context, peer, true);
    return CUABI_SUCCESS;
}

Status disable_peer_access(const Context& context, const Context& peer) {
    if (one_device(context, peer)) return CUABI_SUCCESS;
    Status status = context.make_current();
    if (status != CUABI_SUCCESS) return status;
    CUresult result = context.api().cuCtxDisablePeerAccess(peer.cu_context());
    if (result != CUDA_SUCCESS && result != CUDA_ERROR_PEER_ACCESS_NOT_ENABLED)
        return fail_cu(result, "cuCtxDisablePeerAccess", "check that both devices are still available (nvidia-smi)",
                       "from %s to %s", device_label(context).c_str(), device_label(peer).c_str());
    record(context, peer, false);
    return CUABI_SUCCESS;
}

bool peer_access_enabled(const Context& context, const Context& peer) {
    if (one_device(context, peer)) return true;
    EnabledPairs& all = enabled_pairs();
    std::lock_guard<std::mutex> lock(all.mutex);
    return all.pairs.count(std::make_pair(context.cu_context(), peer.cu_context())) != 0;
}

Status copy_between_devices(const Buffer& dst, size_t dst_offset, const Buffer& src, size_t src_offset, size_t size,
                            uint32_t flags, const Stream* stream) {
    if (one_device(dst.context(), src.context()))
        return Buffer::copy(dst, dst_offset, src, src_offset, size, stream);
    Status status = check_range(dst_offset, size, dst.size(), "copy", "destination");
    if (status != CUABI_SUCCESS) return status;
    if ((status = check_range(src_offset, size, src.size(), "copy", "source")) != CUABI_SUCCESS) return status;
    if (size == 0) return CUABI_SUCCESS;
    const Context& issuer = stream != nullptr ? stream->context() : dst.context();
    if (!one_device(issuer, dst.context()) && !one_device(issuer, src.context()))
        return fail(CUABI_ERROR_CONTEXT_MISMATCH, "pass a stream of the source's or the destination's device",
                    "the stream belongs to %s, but the copy goes from %s to %s", device_label(issuer).c_str(),
                    device_label(src.context()).c_str(), device_label(dst.context()).c_str());
    const Context& other = one_device(issuer, dst.context()) ? src.context() : dst.context();
    if ((flags & CUABI_PEER_COPY_STAGED) == 0 && !peer_access_enabled(issuer, other))
        return fail(CUABI_ERROR_CONTEXT_MISMATCH,
                    format("call cuabi_context_enable_peer_access() from the context of device %d to that of device "
                           "%d first (cuabi_context_can_access_peer() says whether they can be peers), or pass "
                           "CUABI_PEER_COPY_STAGED to let the driver stage the copy through host memory",
                           issuer.ordinal(), other.ordinal())
                        .c_str(),
                    "copy of %zu bytes from %s to %s: the copy runs on %s, which has no peer access to %s enabled "
                    "through cuabi",
                    size, device_label(src.context()).c_str(), device_label(dst.context()).c_str(),
                    device_label(issuer).c_str(), device_label(other).c_str());
    if ((status = issuer.make_current()) != CUABI_SUCCESS) return status;
    // Unified addressing tells the driver both devices from the addresses. cuMemcpyPeerAsync would
    // say the same, but a stream capture refuses it (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, H100),
    // while this becomes a memcpy node like any other copy.
    CUresult result = issuer.api().cuMemcpyDtoDAsync(dst.address() + dst_offset, src.address() + src_offset, size,
                                                     submission_stream(stream));
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuMemcpyDtoDAsync", "check that both buffers are still valid device memory",
                       "copying %zu bytes from offset %zu of a buffer on %s to offset %zu of a buffer on %s", size,
                       src_offset, device_label(src.context()).c_str(), dst_offset,
                       device_label(dst.context()).c_str());
    return complete_if_synchronous(issuer, stream, "a copy between devices");
}

}  // namespace cuabi
