package cuabi

// #include "zcalls.h"
import "C"

import (
	"context"
	"runtime"
	"unsafe"
)

// CompileRequest is one compile of a batch: Source with Options (nil: the defaults), for
// Context's device, or offline for Options.Target when Context is nil.
type CompileRequest struct {
	Context *Context
	Source  string
	Options *CompileOptions
}

// CompileResult is one request's end: its Module, or the request's own error (status, message,
// NVRTC log). The caller closes Module.
type CompileResult struct {
	Module *Module
	Err    error
}

// RequestState is where a request of a batch is.
type RequestState int32

const (
	RequestQueued    RequestState = C.CUABI_REQUEST_QUEUED    // waiting for a thread of the batch
	RequestCompiling RequestState = C.CUABI_REQUEST_COMPILING // looked up below memory, or compiled
	RequestDone      RequestState = C.CUABI_REQUEST_DONE      // ended: its status says how
)

// MaxCompileRequests is the most requests one batch takes (CUABI_COMPILE_BATCH_MAX_REQUESTS).
const MaxCompileRequests = C.CUABI_COMPILE_BATCH_MAX_REQUESTS

// CompileBatch is a batch of compiles running in parallel on cuabi's compile workers. Memory-cache
// hits are done when it starts. Its methods may be called from any goroutine at once: poll State,
// wait with Module, stop with Cancel. Close cancels what is not done.
type CompileBatch struct {
	h handle
	n int
}

// StartCompileBatch starts compiling requests, at most jobs at once (0: as many as
// CUABI_COMPILE_WORKERS allows), and returns at once. It fails, starting nothing, for a request
// cuabi refuses (the message names it by index).
func StartCompileBatch(requests []CompileRequest, jobs int) (*CompileBatch, error) {
	if err := loaded(); err != nil {
		return nil, err
	}
	if jobs < 0 || int64(jobs) > int64(^uint32(0)) {
		return nil, newError(ErrInvalidArgument, "jobs %d is out of range. Fix: pass 0 (the worker limit) or a positive count.", jobs)
	}
	builder := C.cuabi_go_batch_builder_new(C.size_t(len(requests)))
	if builder == nil {
		return nil, newError(ErrOutOfHostMemory, "no memory for a batch of %d requests. Fix: free memory or start smaller batches.", len(requests))
	}
	defer C.cuabi_go_batch_builder_free(builder)
	for _, r := range requests {
		var ctx C.uintptr_t
		if r.Context != nil {
			bits, err := r.Context.ref()
			if err != nil {
				return nil, err
			}
			ctx = bits
		}
		options := r.Options
		if options == nil {
			options = &CompileOptions{}
		}
		request, block, err := encodeCompile(r.Source, options)
		if err != nil {
			return nil, err
		}
		if err := takeFailure(C.cuabi_go_batch_builder_add(builder, ctx, request, (*C.char)(unsafe.Pointer(&block[0])),
			bytesPointer(options.Salt))); err != nil {
			return nil, err
		}
	}
	var bits C.uintptr_t
	err := takeFailure(C.cuabi_go_batch_builder_start(builder, C.uint32_t(jobs), &bits))
	runtime.KeepAlive(requests)
	if err != nil {
		return nil, err
	}
	b := &CompileBatch{}
	own(b, &b.h, bits, (*CompileBatch).Close)
	var count C.size_t
	if err := call(b, func(bits C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_compile_batch_get_count(bits, &count) }); err != nil {
		b.Close()
		return nil, err
	}
	b.n = int(count)
	return b, nil
}

// CompileAll compiles requests in parallel and returns each one's result, in order. When ctx is
// done first, the requests not done end with ErrCancelled; the error is then ctx.Err().
func CompileAll(ctx context.Context, requests []CompileRequest) ([]CompileResult, error) {
	batch, err := StartCompileBatch(requests, 0)
	if err != nil {
		return nil, err
	}
	defer batch.Close()
	finished := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			batch.Cancel()
		case <-finished:
		}
	}()
	results := make([]CompileResult, len(requests))
	for i := range results {
		results[i].Module, results[i].Err = batch.Module(i)
	}
	close(finished)
	return results, ctx.Err()
}

// Len is the number of requests.
func (b *CompileBatch) Len() int { return b.n }

// State is request i's state without waiting, and once it is RequestDone its error (nil for a
// module). err is for the call itself (a closed batch, an index out of range).
func (b *CompileBatch) State(i int) (state RequestState, result error, err error) {
	var s C.int32_t
	var status C.cuabi_status
	err = call(b, func(bits C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_compile_batch_get_state(bits, C.size_t(i), &s, &status)
	})
	if err != nil {
		return 0, nil, err
	}
	if status != C.CUABI_SUCCESS {
		result = Status(status)
	}
	return RequestState(s), result, nil
}

// Module waits for request i and returns its module, or its own error (with its NVRTC log).
func (b *CompileBatch) Module(i int) (*Module, error) {
	if i < 0 {
		return nil, newError(ErrInvalidArgument, "index %d is negative. Fix: pass 0 to Len()-1.", i)
	}
	var m C.uintptr_t
	err := call(b, func(bits C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_compile_batch_result(bits, C.size_t(i), &m)
	})
	if err != nil {
		return nil, err
	}
	return newModule(m), nil
}

// Cancel ends every request not done with ErrCancelled (a compile running in the worker within
// milliseconds) and returns without waiting.
func (b *CompileBatch) Cancel() error {
	return call(b, func(bits C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_compile_batch_cancel(bits) })
}

// Close cancels what is not done, waits for the batch's threads and releases it; modules taken
// from it stay valid. Closing twice is harmless; it returns nil.
func (b *CompileBatch) Close() error {
	if b != nil {
		b.h.release(b, func(bits C.uintptr_t) { C.cuabi_go_compile_batch_destroy(bits) })
	}
	return nil
}

func (b *CompileBatch) ref() (C.uintptr_t, error) {
	if b == nil {
		return 0, errClosed("cuabi.CompileBatch")
	}
	return b.h.ref("cuabi.CompileBatch")
}
