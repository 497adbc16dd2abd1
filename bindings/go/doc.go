// Package cuabi compiles CUDA C++ at run time, caches what it compiled, launches kernels with
// every limit and argument checked, captures and replays CUDA graphs, and marks Nsight ranges,
// through libcuabi.so.1 (see the repository's README and include/cuabi/cuabi.h, the C API this
// package follows function by function).
//
// # Loading
//
// The package has no link-time dependency on libcuabi: it dlopen()s libcuabi.so.1 (through the
// dynamic loader's search path), or the file named by $CUABI_LIBRARY, or the path given to Load,
// with RTLD_NOW, and resolves the single symbol cuabi_get_proc_address; every other function comes
// from it into a table. A function the loaded library lacks (a later 1.x addition) is reported
// when called, as ErrUnsupported; a library of another ABI major is refused at load. The first
// call that needs the library loads it; Load does it explicitly. The program itself links only
// libdl; building it needs cuabi.h (bindings/go/../../include), not the library.
//
// # Errors and goroutines
//
// cuabi keeps the message of the last failure per OS thread, and a goroutine may move to another
// OS thread between any two cgo calls. So every call goes through a small C trampoline that calls
// the cuabi function and, when it fails, copies the status, message, CUresult, nvrtcResult and
// (for compiles) the NVRTC log before returning to Go, on the thread that made the call, into a
// record the trampoline allocates only when the call failed (a Go struct passed to C for it would
// escape to the heap on every call, successful ones included). A failure therefore always carries
// its own message, however goroutines migrate, and no call needs runtime.LockOSThread for its
// error. Each call of a cuabi function is one cgo crossing (a method that needs several cuabi
// functions makes several); a failing call makes one more, to free the copied message.
//
// Failures are *Error values. Their Status is also the error they wrap, so
//
//	if errors.Is(err, cuabi.ErrLaunchBlock) { ... }
//
// works, and every Err* constant is an error sentinel. Error.Message says what was wrong with the
// values involved and ends in "Fix: ..."; Error.Log holds a failed compile's NVRTC log.
//
// Two things do depend on the OS thread, as in C: a range opened with PushRange must be closed by
// PopRange on the same thread, and a capture in CaptureGlobal or CaptureThreadLocal mode must end
// on the thread that began it. Stream.Capture locks the thread for you; hold runtime.LockOSThread
// around PushRange/PopRange and BeginCapture/EndCapture.
//
// # Handles
//
// Context, Stream, Event, Buffer, Module, Kernel, Graph and Range own cuabi handles (HostMemory owns
// C memory). Close releases one; closing twice is harmless, and a closed object's methods return
// ErrInvalidHandle. A finalizer closes objects that become unreachable, but only as a safety net:
// the garbage collector cannot see that a kernel still running uses a Buffer, so keep buffers
// reachable (or Close them yourself after synchronizing) while the GPU may use them. Objects keep
// what they depend on alive in the library, so they may be closed in any order: a Module outlives
// its closed Context, a Kernel its closed Module.
//
// Every type is safe for concurrent use by multiple goroutines, as the C API allows every handle
// from any thread; the type's documentation says where order matters. A Close racing with other
// calls on the same object makes those calls fail with ErrInvalidHandle, never crash.
//
// # Launching
//
// Kernel.Launch takes one Go value per kernel parameter (float32 for float, uint32 for unsigned,
// DevicePtr or *Buffer for pointers, []byte for structs; see Launch) and packs them at the offsets
// cuabi reports for the kernel. It allocates nothing in steady state and costs one cgo crossing
// over the C call. Kernel.LaunchTable passes the same values through cuabi's argument table, where
// cuabi checks every size itself; Kernel.LaunchPacked takes bytes already packed.
//
// Host memory and the GPU: Go memory may not be used by C after the call it was passed to
// returns, so Buffer.Write and Buffer.Read copy synchronously. Stream-ordered host copies use
// HostMemory, which lives outside the Go heap.
package cuabi
