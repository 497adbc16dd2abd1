package cuabi

/*
// The hot launch calls carry both fast-call directives (Go 1.24+): noescape keeps their arguments
// off the heap and nocallback drops the bookkeeping for C calling back into Go, which these never
// do; Go removes that cost only when both are given.
#cgo noescape cuabi_go_launch_small
#cgo nocallback cuabi_go_launch_small
#cgo noescape cuabi_go_launch_large
#cgo nocallback cuabi_go_launch_large
#cgo noescape cuabi_go_launch_packed
#cgo nocallback cuabi_go_launch_packed
#include "zcalls.h"
*/
import "C"

import (
	"encoding/binary"
	"math"
	"reflect"
	"runtime"
	"sync"
	"unsafe"
)

// Dim3 is a grid, block or cluster shape. Trailing zero components count as 1, so Dim3{X: 256}
// is (256, 1, 1) and Dim3{X: 16, Y: 16} is (16, 16, 1); a zero X (or a zero Y before a non-zero Z)
// is passed on, and cuabi refuses it. For LaunchConfig.Cluster the zero Dim3 means no cluster.
type Dim3 struct {
	X, Y, Z uint32
}

func (d Dim3) c() [3]C.uint32_t {
	y, z := d.Y, d.Z
	if z == 0 {
		z = 1
		if y == 0 {
			y = 1
		}
	}
	return [3]C.uint32_t{C.uint32_t(d.X), C.uint32_t(y), C.uint32_t(z)}
}

// LaunchConfig is how to launch a kernel: geometry, dynamic shared memory, stream and flags.
type LaunchConfig struct {
	Grid, Block       Dim3
	Cluster           Dim3   // blocks per thread block cluster (sm_90+); zero: no cluster
	SharedMemoryBytes uint32 // dynamic shared memory per block; above 48 KiB cuabi opts the kernel in
	Stream            *Stream
	Flags             LaunchFlags
	Priority          int32 // with LaunchPriority: lower runs first; clamped to the device's range
}

// fill writes the config as the shim takes it into cfg (zeroed by the caller). A closed Stream is
// an error, never a silent synchronous launch.
func (l *LaunchConfig) fill(cfg *C.cuabi_go_launch_config) error {
	stream, err := optionalStream(l.Stream)
	if err != nil {
		return err
	}
	cfg.flags, cfg.shared_memory_bytes, cfg.stream = C.uint32_t(l.Flags), C.uint32_t(l.SharedMemoryBytes), stream
	cfg.priority = C.int32_t(l.Priority)
	cfg.grid, cfg.block = l.Grid.c(), l.Block.c()
	if l.Cluster.X|l.Cluster.Y|l.Cluster.Z != 0 {
		cfg.cluster = l.Cluster.c()
	}
	return nil
}

// Launch launches the kernel with one Go value per kernel parameter, in declaration order, packed
// at the offsets the kernel's parameter layout gives (cuabi_launch_packed: cgo cannot pass a
// table of pointers into Go memory). Each value is encoded in its own C size and must match its
// parameter's:
//
//	bool, int8, uint8                    1 byte
//	int16, uint16                        2 bytes
//	int32, uint32, float32               4 bytes (C int, unsigned, float)
//	int64, uint64, float64, complex64    8 bytes (long long, double, float2)
//	complex128                           16 bytes (double2)
//	DevicePtr, *Buffer                   8 bytes: a device address (T* in the kernel)
//	*TensorMap                           128 bytes (a __grid_constant__ CUtensorMap)
//	[]byte                               its length: a struct parameter's bytes, laid out as in C
//
// Go's int, uint and uintptr are refused: their size is the platform's, not the kernel's. A
// mismatched count or size is ErrArgumentCount or ErrArgumentSize before anything is launched;
// everything else is checked by cuabi (see the C header's Launch group for the statuses).
//
// With a nil config.Stream, or LaunchSynchronize, Launch returns when the kernel has finished.
// Otherwise the kernel may run after Launch returns: keep the buffers it uses reachable.
// Launch allocates nothing (after the kernel's first launch, which reads its parameter layout).
func (k *Kernel) Launch(config LaunchConfig, args ...any) error {
	bits, layout, err := k.refAndLayout()
	if err != nil {
		return err
	}
	// Config and arguments travel by value where they fit: nothing of this frame escapes to the heap.
	var f *C.cuabi_go_failure
	switch {
	case layout.size <= C.CUABI_GO_SMALL_ARGS:
		var launch C.cuabi_go_small_launch
		packed := (*[C.CUABI_GO_SMALL_ARGS]byte)(unsafe.Pointer(&launch.bytes))[:layout.size]
		if err := k.prepare(&config, &launch.config, packed, layout, args); err != nil {
			return err
		}
		launch.size = C.uint64_t(layout.size)
		f = C.cuabi_go_launch_small(bits, launch)
	case layout.size <= C.CUABI_GO_LARGE_ARGS:
		var launch C.cuabi_go_large_launch
		packed := (*[C.CUABI_GO_LARGE_ARGS]byte)(unsafe.Pointer(&launch.bytes))[:layout.size]
		if err := k.prepare(&config, &launch.config, packed, layout, args); err != nil {
			return err
		}
		launch.size = C.uint64_t(layout.size)
		f = C.cuabi_go_launch_large(bits, launch)
	default:
		var err error
		if f, err = k.launchPooled(bits, &config, layout, args); err != nil {
			return err
		}
	}
	runtime.KeepAlive(k)
	runtime.KeepAlive(config.Stream)
	for _, a := range args {
		runtime.KeepAlive(a)
	}
	return takeFailure(f)
}

// refAndLayout is the kernel's handle and parameter layout, for the packed launch forms.
func (k *Kernel) refAndLayout() (C.uintptr_t, *paramLayout, error) {
	bits, err := k.ref()
	if err != nil {
		return 0, nil, err
	}
	layout, err := k.paramLayout(bits)
	return bits, layout, err
}

// largeArguments holds packed-argument buffers for kernels whose arguments exceed
// CUABI_GO_LARGE_ARGS bytes, so that their launches allocate nothing either in steady state.
var largeArguments = sync.Pool{New: func() any { return new([]byte) }}

// launchPooled is a launch whose arguments travel in a pooled buffer.
func (k *Kernel) launchPooled(bits C.uintptr_t, config *LaunchConfig, layout *paramLayout, args []any) (*C.cuabi_go_failure, error) {
	buffer := largeArguments.Get().(*[]byte)
	defer largeArguments.Put(buffer)
	if cap(*buffer) < layout.size {
		*buffer = make([]byte, layout.size)
	}
	packed := (*buffer)[:layout.size]
	var cfg C.cuabi_go_launch_config
	if err := k.prepare(config, &cfg, packed, layout, args); err != nil {
		return nil, err
	}
	return C.cuabi_go_launch_packed(bits, cfg, unsafe.Pointer(&packed[0]), C.size_t(len(packed))), nil
}

// prepare fills the C config and packs the arguments into packed.
func (k *Kernel) prepare(config *LaunchConfig, cfg *C.cuabi_go_launch_config, packed []byte, layout *paramLayout, args []any) error {
	if err := config.fill(cfg); err != nil {
		return err
	}
	return k.pack(packed, layout, args)
}

// pack writes each argument's bytes at its parameter's offset.
func (k *Kernel) pack(packed []byte, layout *paramLayout, args []any) error {
	if len(args) != len(layout.params) {
		return newError(ErrArgumentCount,
			"kernel '%s' takes %d parameters; %d arguments were given. Fix: pass one argument per parameter, in declaration order.",
			k.name, len(layout.params), len(args))
	}
	for i, slot := range layout.params {
		size, problem := encodeArg(packed[slot.offset:slot.offset+slot.size], args, i)
		if problem != argOK {
			return argError(problem, args, i, "kernel '"+k.name+"'")
		}
		if size != slot.size {
			return newError(ErrArgumentSize,
				"argument %d of kernel '%s' is a %s of %d bytes, but parameter %d takes %d bytes. Fix: pass the parameter's C type "+
					"(float32 for float, int32 or uint32 for int or unsigned, DevicePtr or *Buffer for a pointer, []byte for a struct).",
				i, k.name, typeName(&args[i]), size, i, slot.size)
		}
	}
	return nil
}

// LaunchTable launches the kernel through cuabi's argument table (cuabi_launch): each argument is
// passed in its own size, and cuabi checks count and sizes against the kernel's parameters with
// its own messages. It works where the parameter layout is unknown (drivers before CUDA 12.4) and
// allocates the table; values are encoded as for Launch.
func (k *Kernel) LaunchTable(config LaunchConfig, args ...any) error {
	bits, err := k.ref()
	if err != nil {
		return err
	}
	var cfg C.cuabi_go_launch_config
	if err := config.fill(&cfg); err != nil {
		return err
	}
	values, sizes, err := argTable(args, "kernel '"+k.name+"'")
	if err != nil {
		return err
	}
	f := C.cuabi_go_launch(bits, cfg, bytesPointer(values), sizesPointer(sizes), C.size_t(len(sizes)))
	runtime.KeepAlive(k)
	runtime.KeepAlive(config.Stream)
	runtime.KeepAlive(args)
	return takeFailure(f)
}

// LaunchPacked launches the kernel with arguments already packed at the offsets ParamInfo reports;
// len(packed) is where the last parameter ends. Up to 256 bytes travel by value, as Launch's do, so
// no Go pointer crosses into C (and cgo has no pointer to check); larger buffers are passed as they
// are. LaunchPacked allocates nothing.
func (k *Kernel) LaunchPacked(config LaunchConfig, packed []byte) error {
	bits, err := k.ref()
	if err != nil {
		return err
	}
	var f *C.cuabi_go_failure
	switch {
	case len(packed) == 0 || len(packed) > C.CUABI_GO_LARGE_ARGS: // none (NULL, as cuabi takes it) or too many to copy
		var cfg C.cuabi_go_launch_config
		if err := config.fill(&cfg); err != nil {
			return err
		}
		f = C.cuabi_go_launch_packed(bits, cfg, bytesPointer(packed), C.size_t(len(packed)))
	case len(packed) <= C.CUABI_GO_SMALL_ARGS:
		var launch C.cuabi_go_small_launch
		if err := config.fill(&launch.config); err != nil {
			return err
		}
		launch.size = C.uint64_t(copy((*[C.CUABI_GO_SMALL_ARGS]byte)(unsafe.Pointer(&launch.bytes))[:], packed))
		f = C.cuabi_go_launch_small(bits, launch)
	default:
		var launch C.cuabi_go_large_launch
		if err := config.fill(&launch.config); err != nil {
			return err
		}
		launch.size = C.uint64_t(copy((*[C.CUABI_GO_LARGE_ARGS]byte)(unsafe.Pointer(&launch.bytes))[:], packed))
		f = C.cuabi_go_launch_large(bits, launch)
	}
	runtime.KeepAlive(k)
	runtime.KeepAlive(config.Stream)
	return takeFailure(f)
}

// argTable encodes args back to back with their sizes, for the argument-table forms.
func argTable(args []any, target string) ([]byte, []C.size_t, error) {
	var values []byte
	sizes := make([]C.size_t, len(args))
	for i := range args {
		var scratch [16]byte // holds every fixed-size value; a []byte is as long as it is
		size, problem := encodeArg(scratch[:], args, i)
		if problem != argOK {
			return nil, nil, argError(problem, args, i, target)
		}
		if size > len(scratch) {
			values = append(values, args[i].([]byte)...)
		} else {
			values = append(values, scratch[:size]...)
		}
		sizes[i] = C.size_t(size)
	}
	return values, sizes, nil
}

func sizesPointer(sizes []C.size_t) *C.size_t {
	if len(sizes) == 0 {
		return nil
	}
	return &sizes[0]
}

// argProblem is why an argument cannot be encoded (argOK when it can).
type argProblem int

const (
	argOK argProblem = iota
	argClosedBuffer
	argPlatformSized
	argUnknownType
)

// encodeArg writes the C representation of args[i] at the start of dst, when it fits, and returns
// its size (nothing is written when the size exceeds len(dst)): a number in its C size, a *Buffer
// as its address, a *TensorMap as its 128 bytes, a []byte as itself. It never lets args escape (every launch would allocate
// otherwise) and builds no message: argError does, off the launch path.
func encodeArg(dst []byte, args []any, i int) (int, argProblem) {
	switch v := args[i].(type) {
	case bool:
		if v {
			return put8(dst, 1)
		}
		return put8(dst, 0)
	case int8:
		return put8(dst, uint8(v))
	case uint8:
		return put8(dst, v)
	case int16:
		return put16(dst, uint16(v))
	case uint16:
		return put16(dst, v)
	case int32:
		return put32(dst, uint32(v))
	case uint32:
		return put32(dst, v)
	case float32:
		return put32(dst, math.Float32bits(v))
	case int64:
		return put64(dst, uint64(v))
	case uint64:
		return put64(dst, v)
	case float64:
		return put64(dst, math.Float64bits(v))
	case DevicePtr:
		return put64(dst, uint64(v))
	case Condition:
		return put64(dst, uint64(v))
	case complex64:
		return put64(dst, uint64(math.Float32bits(imag(v)))<<32|uint64(math.Float32bits(real(v))))
	case complex128:
		if len(dst) >= 16 {
			binary.LittleEndian.PutUint64(dst, math.Float64bits(real(v)))
			binary.LittleEndian.PutUint64(dst[8:], math.Float64bits(imag(v)))
		}
		return 16, argOK
	case *Buffer:
		if v == nil || v.address == 0 { // a plain read: an atomic one would make args escape
			return 0, argClosedBuffer
		}
		return put64(dst, uint64(v.address))
	case *TensorMap:
		if v == nil {
			return 0, argUnknownType
		}
		if len(dst) >= len(v.words)*8 {
			for w, word := range v.words {
				binary.LittleEndian.PutUint64(dst[w*8:], word)
			}
		}
		return len(v.words) * 8, argOK
	case []byte:
		if len(dst) >= len(v) {
			copy(dst, v)
		}
		return len(v), argOK
	case int, uint, uintptr:
		return 0, argPlatformSized
	}
	return 0, argUnknownType
}

// put8 .. put64 write a value little-endian (as CUDA's hosts and devices store it) when it fits.
func put8(dst []byte, v uint8) (int, argProblem) {
	if len(dst) >= 1 {
		dst[0] = v
	}
	return 1, argOK
}

func put16(dst []byte, v uint16) (int, argProblem) {
	if len(dst) >= 2 {
		binary.LittleEndian.PutUint16(dst, v)
	}
	return 2, argOK
}

func put32(dst []byte, v uint32) (int, argProblem) {
	if len(dst) >= 4 {
		binary.LittleEndian.PutUint32(dst, v)
	}
	return 4, argOK
}

func put64(dst []byte, v uint64) (int, argProblem) {
	if len(dst) >= 8 {
		binary.LittleEndian.PutUint64(dst, v)
	}
	return 8, argOK
}

func argError(problem argProblem, args []any, i int, target string) error {
	switch problem {
	case argClosedBuffer:
		return newError(ErrInvalidHandle, "argument %d of %s is a closed or nil *cuabi.Buffer. Fix: pass an open buffer.", i, target)
	case argPlatformSized:
		return newError(ErrInvalidArgument,
			"argument %d of %s is a Go %s, whose size is the platform's, not the kernel's. Fix: convert it to the parameter's C "+
				"type: int32 or uint32 for int or unsigned, int64 or uint64 for long long or size_t.", i, target, typeName(&args[i]))
	}
	return newError(ErrInvalidArgument,
		"argument %d of %s is a %s, which cuabi cannot pass to a kernel. Fix: pass a fixed-size number, bool, DevicePtr, Condition, *Buffer, "+
			"or the parameter's bytes as []byte.", i, target, typeName(&args[i]))
}

// typeName names a's dynamic type without letting a escape: it reads only the interface's type
// word. reflect.TypeOf(*a) would make every launch argument escape to the heap, because escape
// analysis cannot tell that only the type is used.
func typeName(a *any) string {
	if *a == nil {
		return "nil"
	}
	words := (*[2]uintptr)(unsafe.Pointer(a))
	var typeOnly any
	(*[2]uintptr)(unsafe.Pointer(&typeOnly))[0] = words[0]
	return reflect.TypeOf(typeOnly).String()
}
