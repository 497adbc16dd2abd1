package cuabi

// #include <stdlib.h>
// #include "zcalls.h"
import "C"

import (
	"runtime"
	"sync/atomic"
	"unsafe"
)

// DevicePtr is a device address (a CUdeviceptr), passed to kernels as an 8-byte parameter.
type DevicePtr uint64

// Buffer is device memory of a fixed size: owned (allocated by cuabi, freed at Close) or wrapped
// (memory from other CUDA code, never freed by cuabi). Every copy is checked against its bounds.
//
// A Buffer is safe for concurrent use; concurrent writes to the same bytes race, as in CUDA.
// Kernels reach buffers through raw addresses that the garbage collector cannot see: keep a
// Buffer reachable (or close it yourself, after synchronizing) while kernels may still use it.
// Close must not race with Address or with a launch that passes the Buffer as an argument (its
// address goes to the GPU as is); other methods racing with Close fail with ErrInvalidHandle.
type Buffer struct {
	h       handle
	size    int
	address DevicePtr // 0 once closed
}

// BufferOptions configure Context.NewBuffer; the zero value (or nil) allocates uninitialized memory.
type BufferOptions struct {
	Flags BufferFlags
}

// NewBuffer allocates size bytes of device memory. ErrInvalidArgument for size 0 or unknown
// flags, ErrDeviceOutOfMemory when the device cannot hold it.
func (c *Context) NewBuffer(size int, options *BufferOptions) (*Buffer, error) {
	return c.allocate(size, func(ctx C.uintptr_t, bits *C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_buffer_create(ctx, C.size_t(size), bufferOptions(options), bits)
	})
}

// allocate makes a buffer of size bytes through create, which receives the context's handle.
func (c *Context) allocate(size int, create func(ctx C.uintptr_t, bits *C.uintptr_t) *C.cuabi_go_failure) (*Buffer, error) {
	ctx, err := c.ref()
	if err != nil {
		return nil, err
	}
	if size < 0 {
		return nil, newError(ErrInvalidArgument, "buffer size %d is negative. Fix: pass a size of at least 1 byte.", size)
	}
	var bits C.uintptr_t
	err = takeFailure(create(ctx, &bits))
	runtime.KeepAlive(c)
	if err != nil {
		return nil, err
	}
	return newBuffer(bits)
}

func bufferOptions(options *BufferOptions) *C.cuabi_buffer_options {
	o := &C.cuabi_buffer_options{struct_size: C.sizeof_cuabi_buffer_options, flags: C.CUABI_BUFFER_DEFAULT}
	if options != nil {
		o.flags = C.uint32_t(options.Flags)
	}
	return o
}

// WrapBuffer wraps size bytes at a device address from other CUDA code, without taking ownership:
// the memory must outlive the Buffer. cuabi checks with the driver that the address is CUDA memory
// of this context (ErrInvalidArgument, ErrContextMismatch) and, where the driver knows the
// allocation's extent, that the range fits in it (ErrOutOfBounds).
func (c *Context) WrapBuffer(address DevicePtr, size int) (*Buffer, error) {
	ctx, err := c.ref()
	if err != nil {
		return nil, err
	}
	if size < 0 {
		return nil, newError(ErrInvalidArgument, "buffer size %d is negative. Fix: pass the size of the memory at the address.", size)
	}
	var bits C.uintptr_t
	err = takeFailure(C.cuabi_go_buffer_wrap(ctx, C.uint64_t(address), C.size_t(size), &bits))
	runtime.KeepAlive(c)
	if err != nil {
		return nil, err
	}
	return newBuffer(bits)
}

// newBuffer reads the new buffer's size and address once (neither ever changes), so that Size,
// Address and kernel arguments cost no call.
func newBuffer(bits C.uintptr_t) (*Buffer, error) {
	var size C.size_t
	var address C.uint64_t
	err := takeFailure(C.cuabi_go_buffer_get_size(bits, &size))
	if err == nil {
		err = takeFailure(C.cuabi_go_buffer_get_device_address(bits, &address))
	}
	if err != nil {
		C.cuabi_go_buffer_destroy(bits)
		return nil, err
	}
	b := &Buffer{size: int(size), address: DevicePtr(address)}
	return own(b, &b.h, bits, (*Buffer).Close), nil
}

// Close releases the buffer. Owned memory is freed once no graph keeps it alive; like cuMemFree
// it does not wait for kernels still using it, so synchronize first. Closing twice is harmless;
// it returns nil.
func (b *Buffer) Close() error {
	if b != nil {
		b.h.release(b, func(bits C.uintptr_t) {
			b.address = 0
			C.cuabi_go_buffer_destroy(bits)
		})
	}
	return nil
}

func (b *Buffer) ref() (C.uintptr_t, error) {
	if b == nil {
		return 0, errClosed("cuabi.Buffer")
	}
	return b.h.ref("cuabi.Buffer")
}

// Size is the buffer's size in bytes.
func (b *Buffer) Size() int { return b.size }

// Address is the buffer's device address, e.g. for a kernel argument (a *Buffer argument passes
// it too). It stays the same for the buffer's life; 0 once closed.
func (b *Buffer) Address() DevicePtr { return b.address }

// Write copies data to the buffer at byte offset and returns when the copy is done.
// ErrOutOfBounds when it does not fit. (Go memory may not be used by C after a call returns, so
// copies from Go memory are synchronous; WriteAsync enqueues one from HostMemory.)
func (b *Buffer) Write(offset int, data []byte) error {
	return b.write(offset, bytesPointer(data), len(data), nil)
}

// Read copies len(out) bytes from the buffer at byte offset into out and returns when they
// arrived. ErrOutOfBounds when the range exceeds the buffer.
func (b *Buffer) Read(offset int, out []byte) error {
	return b.read(offset, bytesPointer(out), len(out), nil)
}

func (b *Buffer) write(offset int, data unsafe.Pointer, size int, s *Stream) error {
	return b.enqueue(offset, s, func(bits, stream C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_buffer_write(bits, C.size_t(offset), data, C.size_t(size), stream)
	})
}

func (b *Buffer) read(offset int, out unsafe.Pointer, size int, s *Stream) error {
	return b.enqueue(offset, s, func(bits, stream C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_buffer_read(bits, C.size_t(offset), out, C.size_t(size), stream)
	})
}

// enqueue checks the byte offset and the stream of an operation on b (nil: synchronous), then
// makes it with both handles.
func (b *Buffer) enqueue(offset int, s *Stream, op func(bits, stream C.uintptr_t) *C.cuabi_go_failure) error {
	stream, err := optionalStream(s)
	if err != nil {
		return err
	}
	if err := checkOffset(offset); err != nil {
		return err
	}
	err = call(b, func(bits C.uintptr_t) *C.cuabi_go_failure { return op(bits, stream) })
	runtime.KeepAlive(s)
	return err
}

// Copy copies size bytes from src at srcOffset to b at dstOffset on stream s (nil: synchronously).
// Both buffers belong to one device (ErrContextMismatch otherwise); ErrOutOfBounds when a range
// exceeds its buffer, ErrInvalidArgument when the ranges overlap.
func (b *Buffer) Copy(s *Stream, dstOffset int, src *Buffer, srcOffset, size int) error {
	return b.copyFrom(s, dstOffset, src, srcOffset, size, func(dst, from, stream C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_buffer_copy(dst, C.size_t(dstOffset), from, C.size_t(srcOffset), C.size_t(size), stream)
	})
}

// copyFrom checks a copy's source, offsets and stream, then makes it with the three handles.
func (b *Buffer) copyFrom(s *Stream, dstOffset int, src *Buffer, srcOffset, size int,
	op func(dst, from, stream C.uintptr_t) *C.cuabi_go_failure) error {
	from, err := src.ref()
	if err != nil {
		return err
	}
	for _, v := range [...]int{srcOffset, size} {
		if err := checkOffset(v); err != nil {
			return err
		}
	}
	err = b.enqueue(dstOffset, s, func(dst, stream C.uintptr_t) *C.cuabi_go_failure { return op(dst, from, stream) })
	runtime.KeepAlive(src)
	return err
}

// FillBytes sets count elements of elementSize bytes (1, 2 or 4) from byte offset to the low
// elementSize bytes of value, on stream s (nil: synchronously). Fill does the same for typed
// elements.
func (b *Buffer) FillBytes(s *Stream, offset int, value uint32, elementSize, count int) error {
	for _, v := range [...]int{elementSize, count} {
		if err := checkOffset(v); err != nil {
			return err
		}
	}
	return b.enqueue(offset, s, func(bits, stream C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_buffer_fill(bits, C.size_t(offset), C.uint32_t(value), C.uint32_t(elementSize), C.size_t(count), stream)
	})
}

func checkOffset(v int) error {
	if v < 0 {
		return newError(ErrOutOfBounds, "offset or size %d is negative. Fix: pass byte offsets and sizes of 0 or more.", v)
	}
	return nil
}

func bytesPointer(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}

// Element is a fixed-size number type that buffers hold and kernels take: the typed helpers
// (NewBufferFrom, WriteSlice, ReadSlice, Fill) accept slices of it. Go's int, uint and uintptr are
// left out on purpose: their size is the platform's, while a kernel's int is 4 bytes.
type Element interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 |
		~float32 | ~float64 | ~complex64 | ~complex128
}

func sliceBytes[T Element](s []T) (unsafe.Pointer, int) {
	if len(s) == 0 {
		return nil, 0
	}
	return unsafe.Pointer(&s[0]), len(s) * int(unsafe.Sizeof(s[0]))
}

func elementOffset[T Element](index int) int {
	var zero T
	return index * int(unsafe.Sizeof(zero))
}

// NewBufferFrom allocates a buffer of len(data) elements and copies data into it.
func NewBufferFrom[T Element](c *Context, data []T) (*Buffer, error) {
	_, size := sliceBytes(data)
	b, err := c.NewBuffer(size, nil)
	if err != nil {
		return nil, err
	}
	if err := WriteSlice(b, 0, data); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// WriteSlice copies data to b starting at element index (byte offset index*sizeof(T)),
// synchronously.
func WriteSlice[T Element](b *Buffer, index int, data []T) error {
	if err := checkOffset(index); err != nil {
		return err
	}
	p, size := sliceBytes(data)
	return b.write(elementOffset[T](index), p, size, nil)
}

// ReadSlice fills out from b starting at element index, synchronously.
func ReadSlice[T Element](b *Buffer, index int, out []T) error {
	if err := checkOffset(index); err != nil {
		return err
	}
	p, size := sliceBytes(out)
	return b.read(elementOffset[T](index), p, size, nil)
}

// Fill sets count elements of b, from element index on, to value, on stream s (nil:
// synchronously). T is 1, 2 or 4 bytes wide.
func Fill[T ~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~float32](b *Buffer, s *Stream, index, count int, value T) error {
	if err := checkOffset(index); err != nil {
		return err
	}
	// cuabi writes the low sizeof(T) bytes of the 32-bit value: on the little-endian machines
	// CUDA runs on, those are the bytes stored at its address.
	var bits uint32
	*(*T)(unsafe.Pointer(&bits)) = value
	return b.FillBytes(s, index*int(unsafe.Sizeof(value)), bits, int(unsafe.Sizeof(value)), count)
}

// HostMemory is host memory outside the Go heap, for stream-ordered copies (WriteAsync,
// ReadAsync) and graph memcpy nodes: the GPU may use it after the call that enqueued the copy
// returns, which Go memory does not allow. It must stay open until the stream has passed every
// copy that uses it.
//
// NewHostMemory's memory is ordinary pageable memory: the driver stages copies from it, so they
// do not overlap with kernels. Page-locked memory -- Context.NewPinnedHostMemory, or Pin on
// NewHostMemory's -- is reached by the copy engines directly: copies return at once and overlap
// with other streams' work. (Go heap memory cannot be pinned: cgo forbids C keeping a Go pointer.)
//
// Bytes and HostSlice view the memory; the views are invalid after Close. Safe for concurrent use
// as plain memory is: concurrent writes to the same bytes race.
type HostMemory struct {
	p     atomic.Pointer[byte] // C memory (the garbage collector ignores it); nil once closed
	size  int
	pin   handle // the cuabi_host_memory while page-locked
	owned bool   // allocated by cuabi_host_memory_create, freed by its destroy (not by C.free)
}

// NewHostMemory allocates size bytes of zeroed host memory outside the Go heap.
func NewHostMemory(size int) (*HostMemory, error) {
	if size <= 0 {
		return nil, newError(ErrInvalidArgument, "host memory size %d is not positive. Fix: pass at least 1 byte.", size)
	}
	p := C.calloc(C.size_t(size), 1)
	if p == nil {
		return nil, newError(ErrOutOfHostMemory, "could not allocate %d bytes of host memory. Fix: free memory or ask for less.", size)
	}
	m := &HostMemory{size: size}
	m.p.Store((*byte)(p))
	runtime.SetFinalizer(m, (*HostMemory).Close)
	return m, nil
}

// Close frees the memory. Closing twice is harmless; it returns nil.
func (m *HostMemory) Close() error {
	if m == nil {
		return nil
	}
	if p := m.p.Swap(nil); p != nil {
		runtime.SetFinalizer(m, nil)
		if bits := m.pin.take(); bits != 0 {
			C.cuabi_go_host_memory_destroy(bits) // unregisters, or frees cuabi's allocation
		}
		if !m.owned {
			C.free(unsafe.Pointer(p))
		}
	}
	return nil
}

// Bytes is the memory as a byte slice (nil once closed).
func (m *HostMemory) Bytes() []byte {
	p := m.p.Load()
	if p == nil {
		return nil
	}
	return unsafe.Slice(p, m.size)
}

// HostSlice views m as elements of T (as many whole elements as fit; nil once closed).
func HostSlice[T Element](m *HostMemory) []T {
	b := m.Bytes()
	var zero T
	n := len(b) / int(unsafe.Sizeof(zero))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}

// hostRange checks that [offset, offset+size) lies in m and returns its address.
func (m *HostMemory) hostRange(offset, size int) (unsafe.Pointer, error) {
	var p *byte
	if m != nil {
		p = m.p.Load()
	}
	if p == nil {
		return nil, errClosed("cuabi.HostMemory")
	}
	if offset < 0 || size < 0 || offset > m.size || size > m.size-offset {
		return nil, newError(ErrOutOfBounds, "host range [%d, %d+%d) exceeds the %d bytes of the HostMemory. Fix: stay within it.",
			offset, offset, size, m.size)
	}
	return unsafe.Add(unsafe.Pointer(p), offset), nil
}

// WriteAsync enqueues a copy of size bytes from src at srcOffset to b at offset on stream s (nil:
// synchronously). src must stay open until the stream has passed the copy.
func (b *Buffer) WriteAsync(s *Stream, offset int, src *HostMemory, srcOffset, size int) error {
	p, err := src.hostRange(srcOffset, size)
	if err != nil {
		return err
	}
	err = b.write(offset, p, size, s)
	runtime.KeepAlive(src)
	return err
}

// ReadAsync enqueues a copy of size bytes from b at offset to dst at dstOffset on stream s (nil:
// synchronously). dst must stay open until the stream has passed the copy.
func (b *Buffer) ReadAsync(s *Stream, offset int, dst *HostMemory, dstOffset, size int) error {
	p, err := dst.hostRange(dstOffset, size)
	if err != nil {
		return err
	}
	err = b.read(offset, p, size, s)
	runtime.KeepAlive(dst)
	return err
}
