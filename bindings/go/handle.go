package cuabi

// #include "zcalls.h"
import "C"

import "sync/atomic"

// handle is the cuabi handle an object owns, zero once it is closed. It is a uintptr, not a Go
// pointer: cuabi handles are bit patterns that the garbage collector must never inspect. It is
// atomic so that Close may race with other methods: a method that loses the race passes a
// destroyed handle, which cuabi refuses with ErrInvalidHandle (it never touches freed memory).
type handle struct {
	bits atomic.Uintptr
}

func (h *handle) set(bits C.uintptr_t) { h.bits.Store(uintptr(bits)) }

// take clears the handle and returns what it held: the one caller that gets a non-zero value
// destroys it, so Close is idempotent and safe to call concurrently.
func (h *handle) take() C.uintptr_t { return C.uintptr_t(h.bits.Swap(0)) }

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
