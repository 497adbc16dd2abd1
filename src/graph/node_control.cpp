// Control of single nodes of the executable graph beyond argument updates: pointing a memcpy node
// at new end points, turning kernel, memcpy and memset nodes off and on, and the driver's DOT dump
// of the graph for debugging. Each validates before the driver sees it and takes the graph's guard.
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "graph/graph.hpp"
#include "graph/node_kind.hpp"

namespace cuabi {
namespace graph {
namespace {

bool is_device(CUmemorytype type) { return type == CU_MEMORYTYPE_DEVICE || type == CU_MEMORYTYPE_UNIFIED; }
bool is_host(CUmemorytype type) { return type == CU_MEMORYTYPE_HOST || type == CU_MEMORYTYPE_UNIFIED; }

// One end against the node's: the same kind of memory, in bounds, on the graph's device.
Status check_end(const MemcpyEnd& end, CUmemorytype node_type, uint64_t size, CUcontext context, const char* side,
                 size_t index) {
    if (end.buffer != nullptr ? !is_device(node_type) : !is_host(node_type))
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "keep the node's direction: replace a buffer by a buffer, host memory by host memory",
                    "memcpy node %zu copies %s %s memory; the update gives %s", index,
                    side[0] == 'd' ? "to" : "from", is_device(node_type) ? "device" : "host",
                    end.buffer != nullptr ? "a buffer" : "host memory");
    if (end.buffer == nullptr) return CUABI_SUCCESS;
    if (end.buffer->context().cu_context() != context)
        return fail(CUABI_ERROR_CONTEXT_MISMATCH, "use buffers of the device the graph was captured on",
                    "the %s buffer of memcpy node %zu's update belongs to device %d, another device than the graph's",
                    side, index, end.buffer->context().ordinal());
    return check_range(end.offset, size, end.buffer->size(), "a memcpy node update", side);
}

void point(const MemcpyEnd& end, uint64_t size, CUmemorytype* type, CUdeviceptr* device, const void** host,
           size_t* pitch, size_t* height, size_t* x, size_t* y, size_t* z) {
    *type = end.buffer != nullptr ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
    *device = end.buffer != nullptr ? end.buffer->address() + end.offset : 0;
    *host = end.buffer != nullptr ? nullptr : end.host;
    *pitch = size;  // one row: pitch and height only need to cover it
    *height = 1;
    *x = *y = *z = 0;
}

}  // namespace

Status Graph::update_memcpy(size_t index, MemcpyEnd dst, MemcpyEnd src, uint64_t size) {
    range::Scope scope(range::Phase::GraphUpdate);
    Status status = context_->make_current();
    if (status != CUABI_SUCCESS) return status;
    std::lock_guard<Exclusive> lock(exclusive_);
    Node* node = nullptr;
    if ((status = node_of_kind(index, CUABI_GRAPH_NODE_MEMCPY, "update the end points of", &node)) != CUABI_SUCCESS)
        return status;
    const DriverApi& api = context_->api();
    CUDA_MEMCPY3D copy{};
    CUresult result = api.cuGraphMemcpyNodeGetParams(node->handle, &copy);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuGraphMemcpyNodeGetParams", "check that the device is still usable",
                       "for memcpy node %zu", index);
    if (copy.Height > 1 || copy.Depth > 1 || copy.srcArray != nullptr || copy.dstArray != nullptr)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "update only memcpy nodes of linear memory with one row",
                    "memcpy node %zu copies a %zu x %zu x %zu region or an array; cuabi updates one-dimensional "
                    "copies only",
                    index, copy.WidthInBytes, copy.Height, copy.Depth);
    if ((status = check_end(dst, copy.dstMemoryType, size, cu_context_, "destination", index)) != CUABI_SUCCESS ||
        (status = check_end(src, copy.srcMemoryType, size, cu_context_, "source", index)) != CUABI_SUCCESS)
        return status;
    const void* unused = nullptr;
    point(dst, size, &copy.dstMemoryType, &copy.dstDevice, &unused, &copy.dstPitch, &copy.dstHeight,
          &copy.dstXInBytes, &copy.dstY, &copy.dstZ);
    copy.dstHost = dst.host;
    point(src, size, &copy.srcMemoryType, &copy.srcDevice, &copy.srcHost, &copy.srcPitch, &copy.srcHeight,
          &copy.srcXInBytes, &copy.srcY, &copy.srcZ);
    copy.WidthInBytes = size;
    copy.Height = 1;
    copy.Depth = 1;
    result = api.cuGraphExecMemcpyNodeSetParams(exec_, node->handle, &copy, cu_context_);
    if (result != CUDA_SUCCESS)
        return fail_with_cu_result(CUABI_ERROR_GRAPH_UPDATE, result,
                                   "check the new end points; the node keeps its previous ones",
                                   "cuGraphExecMemcpyNodeSetParams failed with %s updating memcpy node %zu (%llu bytes)",
                                   cu_result_text(result).c_str(), index, static_cast<unsigned long long>(size));
    // Replays now read and write these buffers: keep them alive as long as the graph.
    for (std::shared_ptr<const Buffer>* end : {&dst.buffer, &src.buffer}) {
        if (*end == nullptr) continue;
        bool held = false;
        for (const auto& kept : retained_buffers_) held = held || kept == *end;
        if (!held) retained_buffers_.push_back(std::move(*end));
    }
    Counters::bump(context_->counters().graph_updates);
    return CUABI_SUCCESS;
}

namespace {

Status check_switchable(int32_t kind, size_t index) {
    if (kind == CUABI_GRAPH_NODE_KERNEL || kind == CUABI_GRAPH_NODE_MEMCPY || kind == CUABI_GRAPH_NODE_MEMSET)
        return CUABI_SUCCESS;
    return fail(CUABI_ERROR_GRAPH_NODE, "turn off kernel, memcpy or memset nodes only (the driver allows no others)",
                "node %zu is a %s node", index, node_kind_name(kind));
}

}  // namespace

Status Graph::set_node_enabled(size_t index, bool enabled) {
    Status status = context_->make_current();
    if (status != CUABI_SUCCESS) return status;
    std::lock_guard<Exclusive> lock(exclusive_);
    Node* node = nullptr;
    if ((status = node_of_kind(index, -1, enabled ? "turn on" : "turn off", &node)) != CUABI_SUCCESS) return status;
    if ((status = check_switchable(node->kind, index)) != CUABI_SUCCESS) return status;
    CUresult result = context_->api().cuGraphNodeSetEnabled(exec_, node->handle, enabled ? 1u : 0u);
    if (result != CUDA_SUCCESS)
        return fail_with_cu_result(CUABI_ERROR_GRAPH_UPDATE, result, "check that the device is still usable",
                                   "cuGraphNodeSetEnabled failed with %s turning node %zu %s",
                                   cu_result_text(result).c_str(), index, enabled ? "on" : "off");
    return CUABI_SUCCESS;
}

Status Graph::node_enabled(size_t index, bool* out_enabled) {
    Status status = context_->make_current();
    if (status != CUABI_SUCCESS) return status;
    std::lock_guard<Exclusive> lock(exclusive_);
    Node* node = nullptr;
    if ((status = node_of_kind(index, -1, "ask whether it runs", &node)) != CUABI_SUCCESS) return status;
    if ((status = check_switchable(node->kind, index)) != CUABI_SUCCESS) return status;
    unsigned int enabled = 0;
    CUresult result = context_->api().cuGraphNodeGetEnabled(exec_, node->handle, &enabled);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuGraphNodeGetEnabled", "check that the device is still usable", "for node %zu", index);
    *out_enabled = enabled != 0;
    return CUABI_SUCCESS;
}

Status Graph::write_dot(const char* path, bool verbose) {
    Status status = context_->make_current();
    if (status != CUABI_SUCCESS) return status;
    std::lock_guard<Exclusive> lock(exclusive_);
    CUresult result =
        context_->api().cuGraphDebugDotPrint(graph_, path, verbose ? unsigned{CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE} : 0u);
    if (result != CUDA_SUCCESS)
        return fail_with_cu_result(CUABI_ERROR_CUDA, result,
                                   "pass a path in a directory that exists and that this process may write",
                                   "cuGraphDebugDotPrint could not write the graph to '%s': %s",
                                   bounded(path).c_str(), cu_result_text(result).c_str());
    return CUABI_SUCCESS;
}

Status Graph::dot_text(bool verbose, std::string* out) {
    const int fd = memfd_create("cuabi-graph-dot", MFD_CLOEXEC);
    if (fd < 0)
        return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory or raise the open-file limit (ulimit -n)",
                    "memfd_create failed for the DOT text: %s", std::strerror(errno));
    // The driver opens a path: this process's own descriptor of the in-memory file.
    Status status = write_dot(format("/proc/self/fd/%d", fd).c_str(), verbose);
    std::string text;
    for (char chunk[8192]; status == CUABI_SUCCESS;) {
        const ssize_t got = pread(fd, chunk, sizeof chunk, static_cast<off_t>(text.size()));
        if (got > 0) {
            text.append(chunk, static_cast<size_t>(got));
        } else if (got == 0) {
            break;
        } else if (errno != EINTR) {
            status = fail(CUABI_ERROR_CUDA, "retry; report it if it persists", "reading the DOT text back failed: %s",
                          std::strerror(errno));
        }
    }
    close(fd);
    if (status == CUABI_SUCCESS) out->swap(text);
    return status;
}

}  // namespace graph
}  // namespace cuabi
