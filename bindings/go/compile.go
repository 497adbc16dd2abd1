package cuabi

// #include "zcalls.h"
import "C"

import (
	"math"
	"runtime"
	"strings"
	"time"
	"unsafe"
)

// CompileFlags change how a compile runs (CompileOptions.Flags).
type CompileFlags uint32

const (
	// CompileNoCache neither looks up nor stores in the kernel cache: NVRTC always runs.
	CompileNoCache CompileFlags = C.CUABI_COMPILE_NO_CACHE
	// CompilePTX emits PTX for the target's compute_XY instead of a CUBIN.
	CompilePTX CompileFlags = C.CUABI_COMPILE_PTX
	// CompileNoToolkitIncludes leaves out the CUDA Toolkit's include directories.
	CompileNoToolkitIncludes CompileFlags = C.CUABI_COMPILE_NO_TOOLKIT_INCLUDES
	// CompileInProcess runs NVRTC in this process instead of cuabi's worker process.
	CompileInProcess CompileFlags = C.CUABI_COMPILE_IN_PROCESS
	// CompileIsolated runs NVRTC in the worker even where CUABI_COMPILE_ISOLATION says otherwise.
	CompileIsolated CompileFlags = C.CUABI_COMPILE_ISOLATED
)

// Toggle is an NVRTC setting that is on, off, or left to NVRTC's default (which FastMath changes).
type Toggle int8

const (
	ToggleDefault Toggle = iota // NVRTC's default: the zero value
	ToggleOff
	ToggleOn
)

// Header is an in-memory header: Name is what #include names, Source its contents.
type Header struct {
	Name, Source string
}

// CompileOptions configure Context.Compile and CompileOffline; the zero value (or nil) compiles
// for the context's device with NVRTC's defaults. Every field that changes the output is part of
// the kernel cache's key (docs/compile.md lists each option's NVRTC flag).
type CompileOptions struct {
	Flags           CompileFlags
	Target          string // "sm_90" (CUBIN), "compute_90" (PTX), optional 'a'/'f' suffix; "": the context's device
	CPPStandard     string // "c++17", "c++20"; "": NVRTC's default
	ProgramName     string // the file name in the log and line info; "": "kernel.cu"
	FastMath        bool   // --use_fast_math
	FTZ             Toggle // flush denormals to zero
	PrecDiv         Toggle // IEEE-rounded division
	PrecSqrt        Toggle // IEEE-rounded square root
	FMAD            Toggle // contract multiply-add into FMA
	MaxRegisters    int    // --maxrregcount; 0: no limit
	LineInfo        bool   // --generate-line-info
	DeviceDebug     bool   // --device-debug (-G)
	Defines         []string
	IncludeDirs     []string // searched before the toolkit's; their files are not in the cache key (see Salt)
	Headers         []Header
	NameExpressions []string      // C++ names to find kernels by later: "scale<float>"
	ExtraFlags      []string      // further NVRTC options, passed as given
	Salt            []byte        // mixed into the cache key, e.g. a hash of the files IncludeDirs reach
	Timeout         time.Duration // NVRTC deadline in the worker; 0: cuabi's default (120 s)
}

// Compile compiles CUDA C++ source with NVRTC for the context's device (or options.Target) and
// loads it; the kernel cache serves identical requests, also without NVRTC.
//
// ErrCompile for errors in the source: the message quotes the first error and Error.Log holds
// NVRTC's whole log. ErrInvalidArgument for a bad option, ErrNVRTCNotFound when the cache misses
// and NVRTC cannot be loaded, ErrInvalidImage when Target cannot run on the device, ErrTimeout
// when NVRTC ran past Timeout, ErrNVRTC when NVRTC failed otherwise.
func (c *Context) Compile(source string, options *CompileOptions) (*Module, error) {
	ctx, err := c.ref()
	if err != nil {
		return nil, err
	}
	m, err := compile(ctx, false, source, options)
	runtime.KeepAlive(c)
	return m, err
}

// CompileOffline compiles source for options.Target (required) without a context, driver or GPU,
// for ahead-of-time builds: read the result with Image, Log and LoweredName (Kernel refuses an
// offline module). It warms the cache for later compiles of the same request on a device of that
// architecture. Errors as for Context.Compile.
func CompileOffline(source string, options *CompileOptions) (*Module, error) {
	if err := loaded(); err != nil {
		return nil, err
	}
	return compile(0, true, source, options)
}

func compile(ctx C.uintptr_t, offline bool, source string, options *CompileOptions) (*Module, error) {
	if options == nil {
		options = &CompileOptions{}
	}
	request, block, err := encodeCompile(source, options)
	if err != nil {
		return nil, err
	}
	var bits C.uintptr_t
	if err := takeFailure(C.cuabi_go_module_compile(ctx, boolC(offline), request, (*C.char)(unsafe.Pointer(&block[0])),
		bytesPointer(options.Salt), &bits)); err != nil {
		return nil, err
	}
	return newModule(bits), nil
}

// encodeCompile lays the options out as the shim reads them: scalars in a request, every string
// NUL-terminated in one block (Go memory passed to C may not hold pointers to Go memory, so the
// shim builds the pointer arrays).
func encodeCompile(source string, o *CompileOptions) (*C.cuabi_go_compile_request, []byte, error) {
	r, err := compileScalars(o)
	if err != nil {
		return nil, nil, err
	}
	block, err := compileStrings(r, source, o)
	if err != nil {
		return nil, nil, err
	}
	r.strings_size = C.uint64_t(len(block))
	r.salt_size = C.uint64_t(len(o.Salt))
	return r, block, nil
}

func compileScalars(o *CompileOptions) (*C.cuabi_go_compile_request, error) {
	r := &C.cuabi_go_compile_request{flags: C.uint32_t(o.Flags), fast_math: boolC(o.FastMath),
		line_info: boolC(o.LineInfo), device_debug: boolC(o.DeviceDebug)}
	for _, t := range []struct {
		name  string
		value Toggle
		out   *C.int32_t
	}{{"FTZ", o.FTZ, &r.ftz}, {"PrecDiv", o.PrecDiv, &r.prec_div}, {"PrecSqrt", o.PrecSqrt, &r.prec_sqrt}, {"FMAD", o.FMAD, &r.fmad}} {
		v, err := t.value.c(t.name)
		if err != nil {
			return nil, err
		}
		*t.out = v
	}
	if o.MaxRegisters < 0 || o.MaxRegisters > math.MaxUint32 {
		return nil, newError(ErrInvalidArgument, "MaxRegisters %d is out of range. Fix: pass 0 (no limit) or a register count.", o.MaxRegisters)
	}
	r.max_registers = C.uint32_t(o.MaxRegisters)
	timeout, err := milliseconds(o.Timeout)
	r.timeout_ms = timeout
	return r, err
}

// compileStrings is the block of strings, in the order the shim reads them, with their presence
// flags and counts set in r.
func compileStrings(r *C.cuabi_go_compile_request, source string, o *CompileOptions) ([]byte, error) {
	var block []byte
	add := func(what, s string) error {
		if i := strings.IndexByte(s, 0); i >= 0 {
			return newError(ErrInvalidArgument, "%s has a NUL byte at offset %d. Fix: remove it; C strings end at the first NUL.", what, i)
		}
		block = append(append(block, s...), 0)
		return nil
	}
	if err := add("the source", source); err != nil {
		return nil, err
	}
	for _, opt := range []struct {
		what, value string
		has         *C.uint32_t
	}{{"Target", o.Target, &r.has_target}, {"CPPStandard", o.CPPStandard, &r.has_cpp_standard}, {"ProgramName", o.ProgramName, &r.has_program_name}} {
		if opt.value != "" {
			*opt.has = 1
			if err := add(opt.what, opt.value); err != nil {
				return nil, err
			}
		}
	}
	names, sources := make([]string, len(o.Headers)), make([]string, len(o.Headers))
	for i, h := range o.Headers {
		names[i], sources[i] = h.Name, h.Source
	}
	var headerSources C.uint32_t // the same count as the names
	for _, list := range []struct {
		what  string
		items []string
		count *C.uint32_t
	}{
		{"a define", o.Defines, &r.define_count}, {"an include directory", o.IncludeDirs, &r.include_dir_count},
		{"a header name", names, &r.header_count}, {"a header source", sources, &headerSources},
		{"a name expression", o.NameExpressions, &r.name_expression_count}, {"an extra flag", o.ExtraFlags, &r.extra_flag_count},
	} {
		*list.count = C.uint32_t(len(list.items))
		for _, item := range list.items {
			if err := add(list.what, item); err != nil {
				return nil, err
			}
		}
	}
	return block, nil
}

func (t Toggle) c(field string) (C.int32_t, error) {
	switch t {
	case ToggleDefault:
		return C.CUABI_TRISTATE_DEFAULT, nil
	case ToggleOff:
		return C.CUABI_TRISTATE_OFF, nil
	case ToggleOn:
		return C.CUABI_TRISTATE_ON, nil
	}
	return 0, newError(ErrInvalidArgument, "%s is Toggle(%d). Fix: use ToggleDefault, ToggleOff or ToggleOn.", field, int8(t))
}

func milliseconds(d time.Duration) (C.uint32_t, error) {
	if d < 0 {
		return 0, newError(ErrInvalidArgument, "Timeout %v is negative. Fix: pass 0 for the default, or a positive duration.", d)
	}
	ms := (d + time.Millisecond - 1) / time.Millisecond // rounded up: 1 ns is not "no timeout"
	if ms > math.MaxUint32 {
		return 0, newError(ErrInvalidArgument, "Timeout %v exceeds %d ms. Fix: pass a shorter duration.", d, uint32(math.MaxUint32))
	}
	return C.uint32_t(ms), nil
}

func boolC(b bool) C.uint32_t {
	if b {
		return 1
	}
	return 0
}

// Module is one compiled or loaded image (CUBIN, PTX or fatbin) with its NVRTC log and the lowered
// names of its name expressions. It keeps its context alive, and its kernels keep it alive.
// A Module is safe for concurrent use.
type Module struct {
	h handle
}

func newModule(bits C.uintptr_t) *Module {
	m := &Module{}
	return own(m, &m.h, bits, (*Module).Close)
}

// LoadImage loads PTX, a CUBIN or a fatbin (copied: image may be reused on return).
// ErrInvalidImage for bytes that are none of these or are damaged, for a CUBIN of another
// architecture or PTX newer than the device, and when the driver refuses the image.
func (c *Context) LoadImage(image []byte) (*Module, error) {
	ctx, err := c.ref()
	if err != nil {
		return nil, err
	}
	var bits C.uintptr_t
	err = takeFailure(C.cuabi_go_module_load_image(ctx, bytesPointer(image), C.size_t(len(image)), &bits))
	runtime.KeepAlive(c)
	if err != nil {
		return nil, err
	}
	return newModule(bits), nil
}

// Close releases the module; kernels taken from it stay usable. Closing twice is harmless; it
// returns nil.
func (m *Module) Close() error {
	if m != nil {
		m.h.release(m, func(bits C.uintptr_t) { C.cuabi_go_module_destroy(bits) })
	}
	return nil
}

func (m *Module) ref() (C.uintptr_t, error) {
	if m == nil {
		return 0, errClosed("cuabi.Module")
	}
	return m.h.ref("cuabi.Module")
}

// ImageKind is what a module was loaded from.
type ImageKind int32

const (
	ImagePTX    ImageKind = C.CUABI_IMAGE_PTX    // PTX text, JIT-compiled by the driver at load
	ImageCUBIN  ImageKind = C.CUABI_IMAGE_CUBIN  // a binary for one GPU architecture
	ImageFatbin ImageKind = C.CUABI_IMAGE_FATBIN // CUBINs and/or PTX for several targets
)

// ModuleOrigin is where a module's image came from.
type ModuleOrigin int32

const (
	OriginCompiled    ModuleOrigin = C.CUABI_MODULE_ORIGIN_COMPILED     // NVRTC ran for this call
	OriginMemoryCache ModuleOrigin = C.CUABI_MODULE_ORIGIN_MEMORY_CACHE // the in-process cache
	OriginDiskCache   ModuleOrigin = C.CUABI_MODULE_ORIGIN_DISK_CACHE   // the on-disk cache
	OriginImage       ModuleOrigin = C.CUABI_MODULE_ORIGIN_IMAGE        // Context.LoadImage
	// OriginReadOnlyCache is a read-only cache layer or bundle (since 1.2).
	OriginReadOnlyCache ModuleOrigin = C.CUABI_MODULE_ORIGIN_READONLY_CACHE
)

// ModuleInfo describes a module (cuabi_module_info).
type ModuleInfo struct {
	ImageKind           ImageKind
	Origin              ModuleOrigin
	Loaded              bool // false for CompileOffline modules
	PTXFallback         bool // NVRTC did not know the device, so the image is PTX for the newest arch it knows
	NameExpressionCount int
	ImageSize           int
	Target              string // "sm_90", "compute_90"; "" when unknown (a fatbin)
	CacheKey            string // 32 hex digits; "" for loaded images
}

// Info describes the module.
func (m *Module) Info() (ModuleInfo, error) {
	info := new(C.cuabi_module_info)
	if err := call(m, func(bits C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_module_get_info(bits, info) }); err != nil {
		return ModuleInfo{}, err
	}
	return ModuleInfo{
		ImageKind:           ImageKind(info.image_kind),
		Origin:              ModuleOrigin(info.origin),
		Loaded:              info.loaded != 0,
		PTXFallback:         info.ptx_fallback != 0,
		NameExpressionCount: int(info.name_expression_count),
		ImageSize:           int(info.image_size),
		Target:              C.GoString(&info.target[0]),
		CacheKey:            C.GoString(&info.cache_key[0]),
	}, nil
}

// Image is the module's image: the CUBIN, the PTX with its terminating NUL, or the fatbin. Save it
// and load it later with Context.LoadImage.
func (m *Module) Image() ([]byte, error) {
	bits, err := m.ref()
	if err != nil {
		return nil, err
	}
	image, err := twoCall(64<<10, func(out unsafe.Pointer, capacity C.size_t, size *C.size_t) *C.cuabi_go_failure {
		return C.cuabi_go_module_get_image(bits, out, capacity, size)
	})
	runtime.KeepAlive(m)
	return image, err
}

// Log is the NVRTC log of the compile that produced the module (warnings); "" for clean compiles
// and loaded images.
func (m *Module) Log() (string, error) {
	bits, err := m.ref()
	if err != nil {
		return "", err
	}
	log, err := twoCallText(func(out unsafe.Pointer, capacity C.size_t, size *C.size_t) *C.cuabi_go_failure {
		return C.cuabi_go_module_get_log(bits, (*C.char)(out), capacity, size)
	})
	runtime.KeepAlive(m)
	return log, err
}

// LoweredName is the mangled symbol a name expression of the compile ("scale<float>") lowered to.
// ErrKernelNotFound for an expression the module was not compiled with.
func (m *Module) LoweredName(expression string) (string, error) {
	bits, err := m.ref()
	if err != nil {
		return "", err
	}
	expr, err := text("the expression", expression)
	if err != nil {
		return "", err
	}
	name, err := twoCallText(func(out unsafe.Pointer, capacity C.size_t, size *C.size_t) *C.cuabi_go_failure {
		return C.cuabi_go_module_get_lowered_name(bits, expr, (*C.char)(out), capacity, size)
	})
	runtime.KeepAlive(m)
	return name, err
}

// Kernel finds a kernel by symbol name ("saxpy", or a mangled name) or by a name expression of the
// compile ("scale<float>"), without NVRTC. ErrKernelNotFound (the message lists what the module
// has), ErrInvalidArgument for an offline module.
func (m *Module) Kernel(nameOrExpression string) (*Kernel, error) {
	bits, err := m.ref()
	if err != nil {
		return nil, err
	}
	name, err := text("the kernel name", nameOrExpression)
	if err != nil {
		return nil, err
	}
	var kernel C.uintptr_t
	err = takeFailure(C.cuabi_go_module_get_kernel(bits, name, &kernel))
	runtime.KeepAlive(m)
	if err != nil {
		return nil, err
	}
	k := &Kernel{name: nameOrExpression}
	return own(k, &k.h, kernel, (*Kernel).Close), nil
}

// NVRTCVersion is the version of the NVRTC cuabi uses (loading it if needed).
// ErrNVRTCNotFound, saying where cuabi looked, when there is none.
func NVRTCVersion() (major, minor int, err error) {
	if err := loaded(); err != nil {
		return 0, 0, err
	}
	var a, b C.int32_t
	err = takeFailure(C.cuabi_go_nvrtc_get_version(&a, &b))
	return int(a), int(b), err
}

// NVRTCSupportedArchs lists the architectures NVRTC compiles for, ascending (75 for sm_75, ...).
func NVRTCSupportedArchs() ([]int, error) {
	if err := loaded(); err != nil {
		return nil, err
	}
	const int32Size = C.size_t(unsafe.Sizeof(C.int32_t(0)))
	raw, err := twoCall(64*int(int32Size), func(out unsafe.Pointer, capacity C.size_t, count *C.size_t) *C.cuabi_go_failure {
		f := C.cuabi_go_nvrtc_get_supported_archs((*C.int32_t)(out), capacity/int32Size, count)
		*count *= int32Size // twoCall counts bytes
		return f
	})
	if err != nil {
		return nil, err
	}
	archs := make([]int, len(raw)/int(int32Size))
	for i := range archs {
		archs[i] = int(*(*int32)(unsafe.Pointer(&raw[i*int(int32Size)])))
	}
	return archs, nil
}

// NVRTCPath is the NVRTC library cuabi loaded or would load.
func NVRTCPath() (string, error) {
	if err := loaded(); err != nil {
		return "", err
	}
	return twoCallText(func(out unsafe.Pointer, capacity C.size_t, size *C.size_t) *C.cuabi_go_failure {
		return C.cuabi_go_nvrtc_get_path((*C.char)(out), capacity, size)
	})
}

// NVRTCIncludeDirs are the toolkit include directories cuabi gives NVRTC (unless
// CompileNoToolkitIncludes), in search order; none when no toolkit headers were found.
func NVRTCIncludeDirs() ([]string, error) {
	if err := loaded(); err != nil {
		return nil, err
	}
	dirs, err := twoCallText(func(out unsafe.Pointer, capacity C.size_t, size *C.size_t) *C.cuabi_go_failure {
		return C.cuabi_go_nvrtc_get_include_dirs((*C.char)(out), capacity, size)
	})
	if err != nil || dirs == "" {
		return nil, err
	}
	return strings.Split(strings.TrimRight(dirs, "\n"), "\n"), nil
}
