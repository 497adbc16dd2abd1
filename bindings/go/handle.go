package cuabi

// #include "zcalls.h"
import "C"

import (
	"runtime"
	"sync/atomic"
)

// handle is the cuabi handle an object owns, zero once it is closed. It is a uintptr, not a Go
// pointer: cuabi handles are bit patterns that the garbage collector must never inspect. It is
// atomic so that Close may race with other methods: a method that loses the race passes a
// destroyed handle, which cuabi refuses with ErrInvalidHandle (it never touches freed memory).
type handle struct {
	bits atomic.Uintptr
}

// own stores a new handle in h and makes the garbage collector close owner if it becomes
// unreachable: the safety net behind Close.
func own[T any](owner *T, h *handle, bits C.uintptr_t, close func(*T) error) *T {
	h.bits.Store(uintptr(bits))
	runtime.SetFinalizer(owner, close)
	return owner
}

// set stores a handle that the object borrows (no finalizer: the handle is not its to destroy).
func (h *handle) set(bits C.uintptr_t) { h.bits.Store(uintptr(bits)) }

// take clears the handle and returns what it held: the one caller that gets a non-zero value
// destroys it, so Close is idempotent and safe to call concurrently.
func (h *handle) take() C.uintptr_t { return C.uintptr_t(h.bits.Swap(0)) }

// release is Close's work: it clears h and, when h held a handle, drops owner's finalizer and
// destroys the handle.
func (h *handle) release(owner any, destroy func(C.uintptr_t)) {
	if bits := h.take(); bits != 0 {
		runtime.SetFinalizer(owner, nil)
		destroy(bits)
	}
}

// ref returns the live handle, or an ErrInvalidHandle error naming the type when it was closed.
func (h *handle) ref(typeName string) (C.uintptr_t, error) {
	if bits := h.bits.Load(); bits != 0 {
		return C.uintptr_t(bits), nil
	}
	return 0, errClosed(typeName)
}

func errClosed(typeName string) error {
	return newError(ErrInvalidHandle,
		"the %s was closed (or is nil). Fix: use it only before Close; keep it reachable while the GPU may still use it, "+
			"since the garbage collector closes unreachable handles.", typeName)
}

// object is a type that owns a handle.
type object interface {
	ref() (C.uintptr_t, error)
}

// call makes one cuabi call on o's handle: the closed error when o is closed, else the call's
// failure. o stays reachable until the call has returned, so its finalizer cannot destroy the
// handle during the call.
func call[T object](o T, f func(C.uintptr_t) *C.cuabi_go_failure) error {
	bits, err := o.ref()
	if err != nil {
		return err
	}
	err = takeFailure(f(bits))
	runtime.KeepAlive(o)
	return err
}
