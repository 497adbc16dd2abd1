package cuabi

import "errors"

// IsNoGPU reports whether err says this machine cannot run GPU work at all: no NVIDIA driver
// (ErrDriverNotFound) or no CUDA device (ErrNoDevice), as a program that should fall back to the
// CPU, or a test that should skip, needs to know. Like Rust's Error::is_no_gpu. Other failures,
// nil included, are false.
func IsNoGPU(err error) bool {
	return errors.Is(err, ErrDriverNotFound) || errors.Is(err, ErrNoDevice)
}
