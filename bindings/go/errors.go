package cuabi

// #include "zcalls.h"
import "C"

import "fmt"

// Status is a cuabi status code (cuabi_status). The Err* constants are the error sentinels:
// errors.Is(err, cuabi.ErrLaunchBlock) is true for an *Error with that Status, and a Status is
// itself an error (its name), so a sentinel can be returned or compared directly.
type Status int32

// String is the status's C name, "CUABI_ERROR_LAUNCH_BLOCK" (as cuabi_status_name spells it), or
// "CUABI_UNKNOWN_STATUS" for a value this package does not know.
func (s Status) String() string {
	if name, ok := statusNames[s]; ok {
		return name
	}
	return "CUABI_UNKNOWN_STATUS"
}

// Error is the status's name, with the number for one this package does not know.
func (s Status) Error() string {
	if _, ok := statusNames[s]; ok {
		return s.String()
	}
	return fmt.Sprintf("CUABI_UNKNOWN_STATUS (%d)", int32(s))
}

// StatusName is the loaded library's name for status (cuabi_status_name): "CUABI_SUCCESS",
// "CUABI_ERROR_ARGUMENT_SIZE", ..., "CUABI_UNKNOWN_STATUS". Without a library it is s.String().
func StatusName(s Status) string {
	if loaded() != nil {
		return s.String()
	}
	var name *C.char
	if takeFailure(C.cuabi_go_status_name(C.cuabi_status(s), &name)) != nil || name == nil {
		return s.String()
	}
	return C.GoString(name)
}

// Error is a failed cuabi call: its status and everything the library said about it, copied in
// the same C call on the OS thread that made it (see the package documentation).
type Error struct {
	Status      Status // what failed; errors.Is(err, cuabi.ErrCompile) tests it
	Name        string // Status's C name: "CUABI_ERROR_COMPILE"
	Message     string // what was wrong, with the values involved, ending in "Fix: ..."
	CUResult    int32  // the CUresult behind a driver-caused failure, else 0
	NVRTCResult int32  // the nvrtcResult behind an NVRTC-caused failure, else 0
	Log         string // the NVRTC log of a failed compile ("" for other calls)
}

func (e *Error) Error() string { return e.Name + ": " + e.Message }

// Unwrap gives the Status, so that errors.Is(err, cuabi.ErrX) and errors.As(err, &status) work.
func (e *Error) Unwrap() error { return e.Status }

// newError is a failure this package reports itself (no cuabi call failed), with a message shaped
// like the library's: what was wrong, then "Fix: ...".
func newError(status Status, format string, args ...any) *Error {
	return &Error{Status: status, Name: status.String(), Message: fmt.Sprintf(format, args...)}
}

// takeFailure converts a trampoline's failure record into an *Error and frees it (nil stays nil).
func takeFailure(f *C.cuabi_go_failure) error {
	if f == nil {
		return nil
	}
	e := &Error{
		Status:      Status(f.status),
		Message:     C.GoString(f.message),
		CUResult:    int32(f.cu_result),
		NVRTCResult: int32(f.nvrtc_result),
	}
	e.Name = e.Status.String()
	if f.log != nil {
		e.Log = C.GoStringN(f.log, C.int(f.log_size))
	}
	C.cuabi_go_failure_free(f)
	return e
}

// quiet reports whether f is the message-less record of status s, which answers a question
// (still running, not cached) rather than reports a failure. It needs no freeing.
func quiet(f *C.cuabi_go_failure, s Status) bool {
	return f != nil && f.owned == 0 && Status(f.status) == s
}
