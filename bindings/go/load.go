package cuabi

/*
#cgo CFLAGS: -I${SRCDIR}/../../include -std=gnu99 -Wall
#cgo LDFLAGS: -ldl
#include "zcalls.h"
*/
import "C"

import (
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

//go:generate go run ./internal/gen

// DefaultLibrary is what Load opens when it is given no path and CUABI_LIBRARY is unset: the
// SONAME, found through the dynamic loader's search path (ldconfig, LD_LIBRARY_PATH, RUNPATH).
const DefaultLibrary = "libcuabi.so.1"

var library struct {
	mu        sync.Mutex
	loaded    atomic.Bool
	requested string // the path Load was given or chose
	implicit  error  // the failure of the first implicit load, returned to later calls
}

// Load opens the cuabi library at path; "" means $CUABI_LIBRARY, or DefaultLibrary when that is
// unset. It resolves the one symbol cuabi_get_proc_address and through it every function of the
// C API (a function the library lacks reports ErrUnsupported when called), and refuses a library
// of another ABI major than 1.
//
// Calling Load is optional: the first function that needs the library loads it with path "".
// A process loads the library once; a later Load of another path fails, Load("") succeeds. The
// library is never unloaded. A file that cannot be opened (or is not libcuabi) is ErrNotFound, a
// library of another ABI major ErrUnsupported, each with a Fix. Load is safe for concurrent use.
func Load(path string) error {
	library.mu.Lock()
	defer library.mu.Unlock()
	if path == "" {
		path = defaultPath()
	}
	if library.loaded.Load() {
		if path != library.requested && path != LibraryPath() {
			return newError(ErrInvalidArgument,
				"libcuabi is already loaded from %s; a process loads it once. Fix: call cuabi.Load(%q) before any other cuabi function.",
				LibraryPath(), path)
		}
		return nil
	}
	return loadLocked(path)
}

func loadLocked(path string) error {
	if strings.IndexByte(path, 0) >= 0 {
		return newError(ErrInvalidArgument, "the library path %q contains a NUL byte. Fix: pass a file path.", path)
	}
	if err := takeFailure(C.cuabi_go_load(cstring(path))); err != nil {
		return err
	}
	library.requested = path
	library.loaded.Store(true)
	return nil
}

func defaultPath() string {
	if path := os.Getenv("CUABI_LIBRARY"); path != "" {
		return path
	}
	return DefaultLibrary
}

// loaded makes sure the library is loaded: on the first call it loads it as Load("") does and
// remembers a failure, which later calls return (an explicit Load may still succeed).
func loaded() error {
	if library.loaded.Load() {
		return nil
	}
	library.mu.Lock()
	defer library.mu.Unlock()
	if library.loaded.Load() {
		return nil
	}
	if library.implicit == nil {
		library.implicit = loadLocked(defaultPath())
	}
	return library.implicit
}

// LibraryPath is the file the dynamic loader opened, e.g. "/usr/lib/x86_64-linux-gnu/libcuabi.so.1"
// ("" before the library is loaded).
func LibraryPath() string {
	return C.GoString(C.cuabi_go_library_path())
}

// LibraryVersion is the loaded library's version as 10000*major + 100*minor + patch.
func LibraryVersion() (uint32, error) {
	if err := loaded(); err != nil {
		return 0, err
	}
	var v C.uint32_t
	err := takeFailure(C.cuabi_go_version_number(&v))
	return uint32(v), err
}

// ABIVersion is the loaded library's ABI major (the number in its SONAME); Load accepts only 1.
func ABIVersion() (uint32, error) {
	if err := loaded(); err != nil {
		return 0, err
	}
	var v C.uint32_t
	err := takeFailure(C.cuabi_go_abi_version(&v))
	return uint32(v), err
}

// EnvironmentProblems lists the CUABI_* environment variables whose values cuabi cannot use: one
// sentence each, naming the variable, its value, what it accepts and what is used instead; empty
// when every setting is usable. Each such value also fails the first call it affects, once, with
// ErrInvalidArgument -- except the kernel cache's settings and CUABI_NVTX, which fail no call.
func EnvironmentProblems() ([]string, error) {
	if err := loaded(); err != nil {
		return nil, err
	}
	text, err := twoCallText(func(out unsafe.Pointer, capacity C.size_t, size *C.size_t) *C.cuabi_go_failure {
		return C.cuabi_go_environment_get_problems((*C.char)(out), capacity, size)
	})
	if err != nil || text == "" {
		return nil, err
	}
	return strings.Split(text, "\n"), nil
}

// HasFunction reports whether the loaded library exports the C function name
// ("cuabi_graph_retain_buffer"): functions added in later 1.x releases are absent from older
// libraries, and the methods that call them return ErrUnsupported.
func HasFunction(name string) bool {
	if loaded() != nil || strings.IndexByte(name, 0) >= 0 {
		return false
	}
	var proc C.cuabi_proc
	if takeFailure(C.cuabi_go_get_proc_address(cstring(name), &proc)) != nil {
		return false
	}
	return proc != nil
}

// tableFunctions lists the package's function table: every C function's name, and whether the
// loaded library provided it.
func tableFunctions() (names []string, present []bool) {
	for i := 0; i < C.CUABI_GO_FUNCTION_COUNT; i++ {
		names = append(names, C.GoString(C.cuabi_go_function_names[i]))
		present = append(present, C.cuabi_go_function_present(C.size_t(i)) != 0)
	}
	return names, present
}

// cstring is s with a terminating NUL, in Go memory: C may read it during the call it is passed to
// (Go memory that holds no Go pointers may be passed to C) without a malloc and free around it.
// Callers refuse strings with NUL bytes first (see text).
func cstring(s string) *C.char {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return (*C.char)(unsafe.Pointer(&b[0]))
}

// text is cstring(s) after checking that s has no NUL byte, which would cut it short in C.
func text(what, s string) (*C.char, error) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return nil, newError(ErrInvalidArgument, "%s %q has a NUL byte at offset %d. Fix: remove it; C strings end at the first NUL.", what, s, i)
	}
	return cstring(s), nil
}
