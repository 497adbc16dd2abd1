package cuabi

// #include "zcalls.h"
import "C"

import (
	"runtime"
	"unsafe"
)

// MemoryPool is a pool of device memory for stream-ordered buffers: the device's default pool
// (Context.DefaultMemoryPool) or one of its own (Context.NewMemoryPool). Buffers allocated from a
// pool keep it alive, so closing the pool while they live is safe. Safe for concurrent use.
type MemoryPool struct {
	h handle
}

// MemoryPoolOptions configure Context.NewMemoryPool; the zero value (or nil) takes the driver's
// size limit and a release threshold of 0.
type MemoryPoolOptions struct {
	MaxSize          uint64 // the most bytes the pool may hold; 0: the driver's limit
	ReleaseThreshold uint64 // bytes kept when a synchronization finds them unused
}

// NewMemoryPool creates a pool on the context's device. ErrUnsupported when the device has no
// stream-ordered allocator.
func (c *Context) NewMemoryPool(options *MemoryPoolOptions) (*MemoryPool, error) {
	ctx, err := c.ref()
	if err != nil {
		return nil, err
	}
	o := new(C.cuabi_memory_pool_options)
	if err := takeFailure(C.cuabi_go_memory_pool_options_init(C.sizeof_cuabi_memory_pool_options, o)); err != nil {
		return nil, err
	}
	if options != nil {
		o.max_size = C.uint64_t(options.MaxSize)
		o.release_threshold = C.uint64_t(options.ReleaseThreshold)
	}
	var bits C.uintptr_t
	err = takeFailure(C.cuabi_go_memory_pool_create(ctx, o, &bits))
	runtime.KeepAlive(c)
	if err != nil {
		return nil, err
	}
	p := &MemoryPool{}
	return own(p, &p.h, bits, (*MemoryPool).Close), nil
}

// DefaultMemoryPool is a handle on the device's default pool, which NewBufferAsync uses for a nil
// pool. Closing it leaves the driver's pool as it is.
func (c *Context) DefaultMemoryPool() (*MemoryPool, error) {
	ctx, err := c.ref()
	if err != nil {
		return nil, err
	}
	var bits C.uintptr_t
	err = takeFailure(C.cuabi_go_memory_pool_get_default(ctx, &bits))
	runtime.KeepAlive(c)
	if err != nil {
		return nil, err
	}
	p := &MemoryPool{}
	return own(p, &p.h, bits, (*MemoryPool).Close), nil
}

// Close releases the handle; a created pool is destroyed once its last buffer is freed. Closing
// twice is harmless.
func (p *MemoryPool) Close() error {
	if p != nil {
		p.h.release(p, func(bits C.uintptr_t) { C.cuabi_go_memory_pool_destroy(bits) })
	}
	return nil
}

func (p *MemoryPool) ref() (C.uintptr_t, error) {
	if p == nil {
		return 0, errClosed("cuabi.MemoryPool")
	}
	return p.h.ref("cuabi.MemoryPool")
}

// SetReleaseThreshold sets how many unused bytes the pool keeps at a synchronization (MaxUint64: all).
func (p *MemoryPool) SetReleaseThreshold(bytes uint64) error {
	return call(p, func(bits C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_memory_pool_set_release_threshold(bits, C.uint64_t(bytes))
	})
}

// Trim gives unused memory back to the system until at most minBytesToKeep stay reserved.
func (p *MemoryPool) Trim(minBytesToKeep uint64) error {
	return call(p, func(bits C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_memory_pool_trim(bits, C.uint64_t(minBytesToKeep))
	})
}

// Attribute reads one of the pool's byte counts. ErrInvalidArgument for an unknown attribute.
func (p *MemoryPool) Attribute(which PoolAttribute) (uint64, error) {
	var value C.uint64_t
	err := call(p, func(bits C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_memory_pool_get_attribute(bits, C.cuabi_memory_pool_attribute(which), &value)
	})
	return uint64(value), err
}

// NewBufferAsync allocates size bytes in stream order on s (nil: the calling thread's per-thread
// stream, done before returning) from pool (nil: the device's default pool). On a stream that
// captures, the allocation becomes a memory node of the graph. Free it with FreeAsync; Close frees
// it at once without waiting for queued work. ErrInvalidArgument for size 0 or unknown flags,
// ErrContextMismatch for a pool or stream of another device, ErrDeviceOutOfMemory when it does not fit.
func (c *Context) NewBufferAsync(size int, pool *MemoryPool, options *BufferOptions, s *Stream) (*Buffer, error) {
	var from C.uintptr_t
	var err error
	if pool != nil {
		if from, err = pool.ref(); err != nil {
			return nil, err
		}
	}
	stream, err := optionalStream(s)
	if err != nil {
		return nil, err
	}
	b, err := c.allocate(size, func(ctx C.uintptr_t, bits *C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_buffer_create_async(ctx, C.size_t(size), from, bufferOptions(options), stream, bits)
	})
	runtime.KeepAlive(pool)
	runtime.KeepAlive(s)
	return b, err
}

// FreeAsync frees a stream-ordered buffer when s (nil: the per-thread stream, waited for) reaches
// this point, and closes b: work enqueued before may still use the memory. On error b stays open.
// ErrInvalidArgument for memory not allocated in stream order, a buffer a graph keeps alive, or
// one allocated outside a capture in progress on s.
func (b *Buffer) FreeAsync(s *Stream) error {
	stream, err := optionalStream(s)
	if err != nil {
		return err
	}
	err = call(b, func(bits C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_buffer_free_async(bits, stream) })
	runtime.KeepAlive(s)
	if err != nil {
		return err
	}
	// The handle died with the free: forget it without destroying it again.
	b.h.release(b, func(C.uintptr_t) { b.address = 0 })
	return nil
}

// NewManagedBuffer allocates size bytes of managed memory: one address for the host
// (Buffer.HostBytes) and the device. ErrUnsupported where the device cannot allocate it.
func (c *Context) NewManagedBuffer(size int, flags ManagedFlags) (*Buffer, error) {
	return c.allocate(size, func(ctx C.uintptr_t, bits *C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_buffer_create_managed(ctx, C.size_t(size), C.uint32_t(flags), bits)
	})
}

// HostBytes is a managed buffer's memory as a byte slice over its host address (ErrUnsupported
// for device memory). The slice is valid until Close and races with kernels that use the buffer:
// synchronize before touching it.
func (b *Buffer) HostBytes() ([]byte, error) {
	var p unsafe.Pointer
	err := call(b, func(bits C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_buffer_get_host_pointer(bits, &p) })
	if err != nil {
		return nil, err
	}
	return unsafe.Slice((*byte)(p), b.size), nil
}

// Prefetch migrates size bytes of a managed buffer from offset to location (a device ordinal as
// Location(n), or LocationHost) on s (nil: done before returning).
func (b *Buffer) Prefetch(s *Stream, offset, size int, location Location) error {
	if err := checkOffset(size); err != nil {
		return err
	}
	return b.enqueue(offset, s, func(bits, stream C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_buffer_prefetch(bits, C.size_t(offset), C.size_t(size), C.cuabi_location(location), stream)
	})
}

// Advise tells the driver how size bytes of a managed buffer from offset are used; location is
// ignored by the read-mostly advice. ErrInvalidArgument for unknown advice.
func (b *Buffer) Advise(offset, size int, advice Advice, location Location) error {
	for _, v := range [...]int{offset, size} {
		if err := checkOffset(v); err != nil {
			return err
		}
	}
	return call(b, func(bits C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_buffer_advise(bits, C.size_t(offset), C.size_t(size), C.cuabi_advice(advice), C.cuabi_location(location))
	})
}
