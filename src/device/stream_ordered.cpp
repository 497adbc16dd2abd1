// Stream-ordered buffers: allocated from a memory pool when a stream reaches the allocation, freed
// when a stream reaches the free; on a capturing stream, a graph's allocation and free nodes.
#include <new>

#include "core/deferred_release.hpp"
#include "device/buffer.hpp"
#include "device/buffer_directory.hpp"
#include "device/memory_pool.hpp"

namespace cuabi {
namespace {

unsigned long long u64(CUdeviceptr address) { return static_cast<unsigned long long>(address); }

// Whether `stream` (NULL: the per-thread stream, which cuabi never captures on) is capturing.
Status stream_captures(const Context& context, const Stream* stream, bool* out_captures) {
    *out_captures = false;
    if (stream == nullptr) return CUABI_SUCCESS;
    CUstreamCaptureStatus capturing = CU_STREAM_CAPTURE_STATUS_NONE;
    CUresult result = context.api().cuStreamIsCapturing(stream->cu_stream(), &capturing);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuStreamIsCapturing", "check that the stream is usable (cuabi_stream_query)",
                       "on device %d", context.ordinal());
    *out_captures = capturing != CU_STREAM_CAPTURE_STATUS_NONE;
    return CUABI_SUCCESS;
}

}  // namespace

Status Buffer::create_async(std::shared_ptr<MemoryPool> pool, size_t size, uint32_t flags, const Stream* stream,
                            std::shared_ptr<Buffer>* out) {
    // Memory that graphs no longer retain goes back to its pool first, so that it can be reused.
    DeferredRelease::release_queued();
    const std::shared_ptr<Context>& context = pool->context_ref();
    Status status = check_stream_context(*context, stream, "memory pool");
    if (status == CUABI_SUCCESS) status = check_fits_device(*context, size);
    if (status == CUABI_SUCCESS) status = context->make_current();
    bool captures = false;
    if (status == CUABI_SUCCESS) status = stream_captures(*context, stream, &captures);
    if (status != CUABI_SUCCESS) return status;
    const DriverApi& api = context->api();
    CUstream target = submission_stream(stream);
    CUdeviceptr address = 0;
    CUresult result = api.cuMemAllocFromPoolAsync(&address, size, pool->cu_pool(), target);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuMemAllocFromPoolAsync",
                       "allocate less, free buffers on their streams, trim the pool, or raise its max_size",
                       "for %zu bytes on device %d (%s)%s", size, context->ordinal(), context->info().name,
                       captures ? " in a capture" : "");
    Memory memory = captures ? Memory::GraphAllocated : Memory::StreamOrdered;
    std::shared_ptr<Buffer> created(new (std::nothrow) Buffer(context, address, size, memory));
    if (!created) {
        api.cuMemFreeAsync(address, target);
        return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory", "could not allocate a buffer object");
    }
    created->owner_ = std::move(pool);  // the pool outlives its buffers
    if ((status = finish_owned(std::move(created), flags, stream, out)) != CUABI_SUCCESS) return status;
    return complete_if_synchronous(*context, stream, "a stream-ordered allocation");
}

Status Buffer::check_free_async(const Stream* stream, long other_holders) const {
    if (memory_ != Memory::StreamOrdered && memory_ != Memory::GraphAllocated)
        return fail(CUABI_ERROR_INVALID_ARGUMENT,
                    "free only buffers made by cuabi_buffer_create_async this way; release this one with "
                    "cuabi_buffer_destroy",
                    "the buffer of %zu bytes at device address 0x%llx was not allocated in stream order", size_,
                    u64(address_));
    Status status = check_stream_context(*context_, stream, "buffer");
    if (status != CUABI_SUCCESS) return status;
    if (memory_ == Memory::StreamOrdered && other_holders > 0)
        return fail(CUABI_ERROR_INVALID_ARGUMENT,
                    "destroy the graphs that use the buffer first, or release it with cuabi_buffer_destroy (its "
                    "memory is then freed when the last of them dies)",
                    "the stream-ordered buffer of %zu bytes at 0x%llx is kept alive by %ld graph reference(s); "
                    "freeing it would leave their replays on freed memory",
                    size_, u64(address_), other_holders);
    bool captures = false;
    if ((status = stream_captures(*context_, stream, &captures)) != CUABI_SUCCESS) return status;
    if (memory_ == Memory::StreamOrdered && captures)
        return fail(CUABI_ERROR_INVALID_ARGUMENT,
                    "free it on a stream that does not capture (after cuabi_graph_capture_end), or allocate it "
                    "inside the capture",
                    "the buffer of %zu bytes at 0x%llx was allocated outside the capture in progress; inside a "
                    "capture the driver frees only memory the graph allocated",
                    size_, u64(address_));
    return CUABI_SUCCESS;
}

Status Buffer::free_async(const Stream* stream) {
    Status status = context_->make_current();
    if (status != CUABI_SUCCESS) return status;
    CUresult result = context_->api().cuMemFreeAsync(address_, submission_stream(stream));
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuMemFreeAsync",
                       "free each buffer once; a graph's allocation freed in its own graph cannot be freed again",
                       "for %zu bytes at 0x%llx on device %d", size_, u64(address_), context_->ordinal());
    // Unlisted now, before a later allocation can hand out the address again.
    if (memory_ == Memory::StreamOrdered) buffer_directory::remove(this);
    memory_ = Memory::Released;
    return complete_if_synchronous(*context_, stream, "a stream-ordered free");
}

}  // namespace cuabi
