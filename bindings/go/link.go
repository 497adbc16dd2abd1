package cuabi

// #include <stdlib.h>
// #include <string.h>
// #include "zcalls.h"
// #include "shim.h"
import "C"

import (
	"runtime"
	"strings"
	"time"
	"unsafe"
)

// MaxLinkInputs is the most inputs one link takes (CUABI_LINK_MAX_INPUTS).
const MaxLinkInputs = 4096

// LinkInput is one input of a link: exactly one of Module, Data or Path. Kind says what Data or
// Path holds and stays 0 for a Module; Name is the input's name in nvJitLink's log ("": derived).
type LinkInput struct {
	Module *Module
	Kind   LinkInputKind
	Data   []byte
	Path   string
	Name   string
}

// LinkOptions configure Context.Link and LinkOffline; the zero value (or nil) links for the
// context's device without LTO into a CUBIN, through the kernel cache.
type LinkOptions struct {
	Flags             LinkFlags     // LinkLTO is required when an input is LTO-IR
	Target            string        // "sm_90"; "": the context's device (required for LinkOffline)
	OptimizationLevel *int          // -O0 to -O3 for LTO; nil: nvJitLink's default
	MaxRegisters      int           // -maxrregcount; 0: no limit
	ExtraOptions      []string      // further nvJitLink options, passed as given
	Timeout           time.Duration // nvJitLink's deadline in its worker; 0: the compile default
}

// Link links inputs with nvJitLink for the context's device (or options.Target) and loads the
// result; a repeated link is a kernel-cache hit, served without NVRTC or nvJitLink.
//
// ErrLink when nvJitLink refuses the inputs (an undefined symbol, ...): Error.Log holds its log.
// ErrInvalidArgument or ErrInvalidImage for a malformed input (checked before nvJitLink sees it),
// ErrNotFound for a Path that is no readable file, ErrNVJitLinkNotFound when the cache misses and
// nvJitLink cannot be loaded.
func (c *Context) Link(inputs []LinkInput, options *LinkOptions) (*Module, error) {
	ctx, err := c.ref()
	if err != nil {
		return nil, err
	}
	m, err := link(ctx, false, inputs, options)
	runtime.KeepAlive(c)
	return m, err
}

// LinkOffline links for options.Target (required) without a context, driver or GPU. The module is
// not loaded: read it with Image, Log and KernelNames. Errors as for Context.Link.
func LinkOffline(inputs []LinkInput, options *LinkOptions) (*Module, error) {
	if err := loaded(); err != nil {
		return nil, err
	}
	return link(0, true, inputs, options)
}

// NVJitLinkVersion is the version of the nvJitLink cuabi links with (loading it in this process
// if needed). ErrNVJitLinkNotFound, saying where cuabi looked or why the file could not be
// loaded, when there is none.
func NVJitLinkVersion() (major, minor int, err error) {
	if err := loaded(); err != nil {
		return 0, 0, err
	}
	var a, b C.int32_t
	err = takeFailure(C.cuabi_go_nvjitlink_get_version(&a, &b))
	return int(a), int(b), err
}

// NVJitLinkPath is the nvJitLink library cuabi links with, located without loading it.
func NVJitLinkPath() (string, error) {
	if err := loaded(); err != nil {
		return "", err
	}
	return twoCallText(func(out unsafe.Pointer, capacity C.size_t, size *C.size_t) *C.cuabi_go_failure {
		return C.cuabi_go_nvjitlink_get_path((*C.char)(out), capacity, size)
	})
}

// cMemory holds what a link's C structs point at; free releases it all.
type cMemory []unsafe.Pointer

func (m *cMemory) bytes(b []byte) unsafe.Pointer {
	p := C.CBytes(b)
	*m = append(*m, p)
	return p
}

func (m *cMemory) text(what, s string) (*C.char, error) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return nil, newError(ErrInvalidArgument, "%s %q has a NUL byte at offset %d. Fix: remove it; C strings end at the first NUL.", what, s, i)
	}
	p := C.CString(s)
	*m = append(*m, unsafe.Pointer(p))
	return p, nil
}

func (m *cMemory) free() {
	for _, p := range *m {
		C.free(p)
	}
}

func link(ctx C.uintptr_t, offline bool, inputs []LinkInput, options *LinkOptions) (*Module, error) {
	if options == nil {
		options = &LinkOptions{}
	}
	if len(inputs) > MaxLinkInputs {
		return nil, newError(ErrInvalidArgument, "%d link inputs are more than the %d one link takes. Fix: link fewer at once.", len(inputs), MaxLinkInputs)
	}
	var memory cMemory
	defer memory.free()
	count := len(inputs)
	raw := (*C.cuabi_link_input)(C.calloc(C.size_t(count+1), C.sizeof_cuabi_link_input))
	memory = append(memory, unsafe.Pointer(raw))
	table := unsafe.Slice(raw, count+1)
	var modules []*Module // kept alive until the call returns
	for i, input := range inputs {
		entry := &table[i]
		entry.kind = C.int32_t(input.Kind)
		if input.Module != nil {
			bits, err := input.Module.ref()
			if err != nil {
				return nil, err
			}
			// A handle is an opaque number to Go: written as one, not as a Go pointer.
			*(*C.uintptr_t)(unsafe.Pointer(&entry.module)) = bits
			modules = append(modules, input.Module)
		}
		if input.Data != nil {
			if len(input.Data) == 0 {
				entry.data = unsafe.Pointer(raw) // not NULL: the library reports the empty input
			} else {
				entry.data = memory.bytes(input.Data)
			}
			entry.size = C.size_t(len(input.Data))
		}
		var err error
		if input.Path != "" {
			if entry.path, err = memory.text("the link input's path", input.Path); err != nil {
				return nil, err
			}
		}
		if input.Name != "" {
			if entry.name, err = memory.text("the link input's name", input.Name); err != nil {
				return nil, err
			}
		}
	}
	o, err := linkOptions(&memory, options)
	if err != nil {
		return nil, err
	}
	var bits C.uintptr_t
	err = takeFailure(C.cuabi_go_module_link(ctx, boolC(offline), raw, C.size_t(count), o, &bits))
	runtime.KeepAlive(modules)
	if err != nil {
		return nil, err
	}
	return newModule(bits), nil
}

func linkOptions(memory *cMemory, options *LinkOptions) (*C.cuabi_link_options, error) {
	o := (*C.cuabi_link_options)(C.calloc(1, C.sizeof_cuabi_link_options))
	*memory = append(*memory, unsafe.Pointer(o))
	if err := takeFailure(C.cuabi_go_link_options_init(C.uint32_t(C.sizeof_cuabi_link_options), o)); err != nil {
		return nil, err
	}
	o.flags = C.uint32_t(options.Flags)
	var err error
	if options.Target != "" {
		if o.target, err = memory.text("the target", options.Target); err != nil {
			return nil, err
		}
	}
	if options.OptimizationLevel != nil {
		o.optimization_level = C.int32_t(*options.OptimizationLevel)
	}
	if options.MaxRegisters < 0 || options.MaxRegisters > 1<<31 {
		return nil, newError(ErrInvalidArgument, "MaxRegisters %d is out of range. Fix: pass 0 (no limit) or a register count.", options.MaxRegisters)
	}
	o.max_registers = C.uint32_t(options.MaxRegisters)
	if o.timeout_ms, err = milliseconds(options.Timeout); err != nil {
		return nil, err
	}
	if n := len(options.ExtraOptions); n > 0 {
		list := (**C.char)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof((*C.char)(nil)))))
		*memory = append(*memory, unsafe.Pointer(list))
		entries := unsafe.Slice(list, n)
		for i, option := range options.ExtraOptions {
			if entries[i], err = memory.text("the nvJitLink option", option); err != nil {
				return nil, err
			}
		}
		o.extra_options = list
		o.extra_option_count = C.size_t(n)
	}
	return o, nil
}

// KernelNames lists the module's kernels, read from its CUBIN without a GPU.
// ErrUnsupported for PTX, fatbin and LTO-IR modules.
func (m *Module) KernelNames() ([]string, error) {
	bits, err := m.ref()
	if err != nil {
		return nil, err
	}
	names, err := twoCallText(func(out unsafe.Pointer, capacity C.size_t, size *C.size_t) *C.cuabi_go_failure {
		return C.cuabi_go_module_get_kernel_names(bits, (*C.char)(out), capacity, size)
	})
	runtime.KeepAlive(m)
	if err != nil {
		return nil, err
	}
	return strings.Fields(names), nil
}
