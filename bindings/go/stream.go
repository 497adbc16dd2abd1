package cuabi

// #include "zcalls.h"
import "C"

import (
	"runtime"
	"unsafe"
)

// Stream is an ordered queue of GPU work, created non-blocking (cuabi never uses CUDA's legacy
// default stream). Wherever a *Stream parameter is nil, the work runs synchronously instead: on
// the calling thread's per-thread stream, finished before the call returns.
//
// A Stream is safe for concurrent use: work enqueued from several goroutines runs in the order it
// was enqueued. Capture (see Stream.Capture) is the exception that involves the OS thread.
type Stream struct {
	h handle
}

// StreamOptions configure Context.NewStream; the zero value (or nil) is the default priority.
type StreamOptions struct {
	Priority int // lower is higher priority; clamped to the device's range
}

// NewStream creates a stream on the context.
func (c *Context) NewStream(options *StreamOptions) (*Stream, error) {
	ctx, err := c.ref()
	if err != nil {
		return nil, err
	}
	var bits C.uintptr_t
	err = takeFailure(C.cuabi_go_stream_create(ctx, streamOptions(options), &bits))
	runtime.KeepAlive(c)
	if err != nil {
		return nil, err
	}
	return newStream(bits), nil
}

func streamOptions(options *StreamOptions) *C.cuabi_stream_options {
	o := &C.cuabi_stream_options{struct_size: C.sizeof_cuabi_stream_options, flags: C.CUABI_STREAM_DEFAULT}
	if options != nil {
		o.priority = C.int32_t(clampInt32(options.Priority))
	}
	return o
}

// WrapStream wraps a CUstream made by other CUDA code, without taking ownership: Close releases
// the wrapper, not the stream, which must belong to the context and outlive the Stream.
// ErrContextMismatch for a stream of another context; ErrInvalidArgument for nil, the legacy or
// per-thread default stream, or a stream the driver does not know.
func (c *Context) WrapStream(native unsafe.Pointer) (*Stream, error) {
	ctx, err := c.ref()
	if err != nil {
		return nil, err
	}
	var bits C.uintptr_t
	err = takeFailure(C.cuabi_go_stream_wrap(ctx, native, &bits))
	runtime.KeepAlive(c)
	if err != nil {
		return nil, err
	}
	return newStream(bits), nil
}

func newStream(bits C.uintptr_t) *Stream {
	s := &Stream{}
	return own(s, &s.h, bits, (*Stream).Close)
}

// Close destroys the stream once its queued work is done (it does not wait), or releases a wrapped
// one. A capture begun on it is ended and discarded. Closing twice is harmless; it returns nil.
func (s *Stream) Close() error {
	if s != nil {
		s.h.release(s, func(bits C.uintptr_t) { C.cuabi_go_stream_destroy(bits) })
	}
	return nil
}

func (s *Stream) ref() (C.uintptr_t, error) {
	if s == nil {
		return 0, errClosed("cuabi.Stream")
	}
	return s.h.ref("cuabi.Stream")
}

// optionalStream is the handle of s, or 0 for a nil s (run synchronously). A closed s is an error,
// never silently synchronous.
func optionalStream(s *Stream) (C.uintptr_t, error) {
	if s == nil {
		return 0, nil
	}
	return s.h.ref("cuabi.Stream")
}

// Synchronize waits until all work on the stream is done.
func (s *Stream) Synchronize() error {
	return call(s, func(bits C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_stream_synchronize(bits) })
}

// Query reports whether all work on the stream is done, without waiting.
func (s *Stream) Query() (bool, error) {
	bits, err := s.ref()
	if err != nil {
		return false, err
	}
	f := C.cuabi_go_stream_query(bits)
	runtime.KeepAlive(s)
	if quiet(f, ErrNotReady) {
		return false, nil
	}
	return f == nil, takeFailure(f)
}

// WaitEvent makes work enqueued on s after this call wait until e has completed (fork and join
// across streams). ErrContextMismatch when they belong to different contexts.
func (s *Stream) WaitEvent(e *Event) error {
	event, err := e.ref()
	if err != nil {
		return err
	}
	err = call(s, func(bits C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_stream_wait_event(bits, event) })
	runtime.KeepAlive(e)
	return err
}

// Native is the underlying CUstream, for other CUDA code; the Stream keeps it alive.
func (s *Stream) Native() (unsafe.Pointer, error) {
	var native unsafe.Pointer
	err := call(s, func(bits C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_stream_get_native(bits, &native) })
	return native, err
}

func clampInt32(v int) int32 {
	switch {
	case v > 1<<31-1:
		return 1<<31 - 1
	case v < -1<<31:
		return -1 << 31
	}
	return int32(v)
}
