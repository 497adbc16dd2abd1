package cuabi

// #include "zcalls.h"
import "C"

import "unsafe"

// twoCallFunc is a C function of the two-call pattern, bound to its other arguments.
type twoCallFunc func(out unsafe.Pointer, capacity C.size_t, outSize *C.size_t) *C.cuabi_go_failure

// twoCall reads a variable-length result: one call with a buffer of a likely size, and only when
// the result is larger, a second with a buffer of the size the first reported.
func twoCall(guess int, call twoCallFunc) ([]byte, error) {
	buf := make([]byte, guess)
	for {
		var size C.size_t
		f := call(unsafe.Pointer(&buf[0]), C.size_t(len(buf)), &size)
		if f != nil && Status(f.status) == ErrBufferTooSmall && int(size) > len(buf) {
			C.cuabi_go_failure_free(f)
			buf = make([]byte, int(size))
			continue
		}
		if err := takeFailure(f); err != nil {
			return nil, err
		}
		return buf[:int(size)], nil
	}
}

// twoCallText is twoCall for text: the result without its terminating NUL.
func twoCallText(call twoCallFunc) (string, error) {
	b, err := twoCall(256, call)
	if err != nil || len(b) == 0 {
		return "", err
	}
	return string(b[:len(b)-1]), nil
}
