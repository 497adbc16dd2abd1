package cuabi

// #include "zcalls.h"
import "C"

import (
	"encoding/binary"
	"math"
	"reflect"
	"runtime"
	"unsafe"
)

// Dim3 is a grid, block or cluster shape. Trailing zero components count as 1, so Dim3{X: 256}
// is (256, 1, 1) and Dim3{X: 16, Y: 16} is (16, 16, 1); a zero X (or a zero Y before a non-zero Z)
// is passed on, and cuabi refuses it. For LaunchConfig.Cluster the zero Dim3 means no cluster.
type Dim3 struct {
	X, Y, Z uint32
}

func (d Dim3) c() (out [3]C.uint32_t) {
	out = [3]C.uint32_t{C.uint32_t(d.X), C.uint32_t(d.Y), C.uint32_t(d.Z)}
	if d.Z == 0 {
		out[2] = 1
		if d.Y == 0 {
			out[1] = 1
		}
	}
	return out
}

// LaunchFlags change how a launch runs (LaunchConfig.Flags).
type LaunchFlags uint32

const (
	// LaunchCooperative keeps every block resident at once, so the kernel may synchronize the whole grid.
	LaunchCooperative LaunchFlags = C.CUABI_LAUNCH_COOPERATIVE
	// LaunchSynchronize waits until the kernel has finished before the launch returns.
	LaunchSynchronize LaunchFlags = C.CUABI_LAUNCH_SYNCHRONIZE
)

// LaunchConfig is how to launch a kernel: geometry, dynamic shared memory, stream and flags.
type LaunchConfig struct {
	Grid, Block       Dim3
	Cluster           Dim3   // blocks per thread block cluster (sm_90+); zero: no cluster
	SharedMemoryBytes uint32 // dynamic shared memory per block; above 48 KiB cuabi opts the kernel in
	Stream            *Stream
	Flags             LaunchFlags
}

// c is the config as the shim takes it, by value. A closed Stream is an error, never a silent
// synchronous launch.
func (l *LaunchConfig) c() (C.cuabi_go_launch_config, error) {
	stream, err := optionalStream(l.Stream)
	if err != nil {
		return C.cuabi_go_launch_config{}, err
	}
	cfg := C.cuabi_go_launch_config{flags: C.uint32_t(l.Flags), shared_memory_bytes: C.uint32_t(l.SharedMemoryBytes), stream: stream}
	cfg.grid, cfg.block = l.Grid.c(), l.Block.c()
	if l.Cluster != (Dim3{}) {
		cfg.cluster = l.Cluster.c()
	}
	return cfg, nil
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
//	[]byte                               its length: a struct parameter's bytes, laid out as in C
//
// Go's int, uint and uintptr are refused: their size is the platform's, not the kernel's. A
// mismatched count or size is ErrArgumentCount or ErrArgumentSize before anything is launched;
// everything else is checked by cuabi (see the C header's Launch group for the statuses).
//
// With a nil config.Stream, or LaunchSynchronize, Launch returns when the kernel has finished.
// Otherwise the kernel may run after Launch returns: keep the buffers it uses reachable.
// For kernels whose parameters take up to 256 bytes, Launch allocates nothing.
func (k *Kernel) Launch(config LaunchConfig, args ...any) error {
	bits, err := k.ref()
	if err != nil {
		return err
	}
	cfg, err := config.c()
	if err != nil {
		return err
	}
	layout, err := k.paramLayout(bits)
	if err != nil {
		return err
	}
	var f *C.cuabi_go_failure
	if layout.size <= C.CUABI_GO_INLINE_BYTES {
		// Arguments and config travel by value: nothing of this frame escapes to the heap.
		var inline C.cuabi_go_inline_args
		packed := (*[C.CUABI_GO_INLINE_BYTES]byte)(unsafe.Pointer(&inline.bytes[0]))[:layout.size]
		if err := k.pack(packed, layout, args); err != nil {
			return err
		}
		inline.size = C.size_t(layout.size)
		f = C.cuabi_go_launch_packed_inline(bits, cfg, inline)
	} else {
		packed := make([]byte, layout.size)
		if err := k.pack(packed, layout, args); err != nil {
			return err
		}
		f = C.cuabi_go_launch_packed(bits, cfg, unsafe.Pointer(&packed[0]), C.size_t(len(packed)))
	}
	runtime.KeepAlive(k)
	runtime.KeepAlive(config.Stream)
	for _, a := range args {
		runtime.KeepAlive(a)
	}
	return takeFailure(f)
}

// pack writes each argument's bytes at its parameter's offset.
func (k *Kernel) pack(packed []byte, layout *paramLayout, args []any) error {
	if len(args) != len(layout.params) {
		return newError(ErrArgumentCount,
			"kernel '%s' takes %d parameters; %d arguments were given. Fix: pass one argument per parameter, in declaration order.",
			k.name, len(layout.params), len(args))
	}
	var scratch [16]byte
	for i := range args {
		value, problem := argBytes(args, i, &scratch)
		if problem != argOK {
			return argError(problem, args, i, "kernel '"+k.name+"'")
		}
		slot := layout.params[i]
		if len(value) != slot.size {
			return newError(ErrArgumentSize,
				"argument %d of kernel '%s' is a %s of %d bytes, but parameter %d takes %d bytes. Fix: pass the parameter's C type "+
					"(float32 for float, int32 or uint32 for int or unsigned, DevicePtr or *Buffer for a pointer, []byte for a struct).",
				i, k.name, typeName(&args[i]), len(value), i, slot.size)
		}
		copy(packed[slot.offset:slot.offset+slot.size], value)
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
	cfg, err := config.c()
	if err != nil {
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
// len(packed) is where the last parameter ends.
func (k *Kernel) LaunchPacked(config LaunchConfig, packed []byte) error {
	bits, err := k.ref()
	if err != nil {
		return err
	}
	cfg, err := config.c()
	if err != nil {
		return err
	}
	f := C.cuabi_go_launch_packed(bits, cfg, bytesPointer(packed), C.size_t(len(packed)))
	runtime.KeepAlive(k)
	runtime.KeepAlive(config.Stream)
	return takeFailure(f)
}

// argTable encodes args back to back with their sizes, for the argument-table forms.
func argTable(args []any, target string) ([]byte, []C.size_t, error) {
	var values []byte
	sizes := make([]C.size_t, len(args))
	var scratch [16]byte
	for i := range args {
		value, problem := argBytes(args, i, &scratch)
		if problem != argOK {
			return nil, nil, argError(problem, args, i, target)
		}
		values = append(values, value...)
		sizes[i] = C.size_t(len(value))
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

// argBytes is the C representation of args[i]: written into scratch for numbers, the address of a
// *Buffer, or a []byte itself. It never lets args escape (every launch would allocate otherwise)
// and builds no message: argError does, off the launch path.
func argBytes(args []any, i int, scratch *[16]byte) ([]byte, argProblem) {
	switch v := args[i].(type) {
	case bool:
		if v {
			return put8(scratch, 1)
		}
		return put8(scratch, 0)
	case int8:
		return put8(scratch, uint8(v))
	case uint8:
		return put8(scratch, v)
	case int16:
		return put16(scratch, uint16(v))
	case uint16:
		return put16(scratch, v)
	case int32:
		return put32(scratch, uint32(v))
	case uint32:
		return put32(scratch, v)
	case float32:
		return put32(scratch, math.Float32bits(v))
	case int64:
		return put64(scratch, uint64(v))
	case uint64:
		return put64(scratch, v)
	case float64:
		return put64(scratch, math.Float64bits(v))
	case DevicePtr:
		return put64(scratch, uint64(v))
	case complex64:
		return put64(scratch, uint64(math.Float32bits(imag(v)))<<32|uint64(math.Float32bits(real(v))))
	case complex128:
		binary.LittleEndian.PutUint64(scratch[8:], math.Float64bits(imag(v)))
		put64(scratch, math.Float64bits(real(v)))
		return scratch[:16], argOK
	case *Buffer:
		if v == nil || v.address == 0 { // a plain read: an atomic one would make args escape
			return nil, argClosedBuffer
		}
		return put64(scratch, uint64(v.address))
	case []byte:
		return v, argOK
	case int, uint, uintptr:
		return nil, argPlatformSized
	}
	return nil, argUnknownType
}

// put8 .. put64 write a value little-endian (as CUDA's hosts and devices store it) into scratch.
func put8(scratch *[16]byte, v uint8) ([]byte, argProblem) {
	scratch[0] = v
	return scratch[:1], argOK
}

func put16(scratch *[16]byte, v uint16) ([]byte, argProblem) {
	binary.LittleEndian.PutUint16(scratch[:], v)
	return scratch[:2], argOK
}

func put32(scratch *[16]byte, v uint32) ([]byte, argProblem) {
	binary.LittleEndian.PutUint32(scratch[:], v)
	return scratch[:4], argOK
}

func put64(scratch *[16]byte, v uint64) ([]byte, argProblem) {
	binary.LittleEndian.PutUint64(scratch[:], v)
	return scratch[:8], argOK
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
		"argument %d of %s is a %s, which cuabi cannot pass to a kernel. Fix: pass a fixed-size number, bool, DevicePtr, *Buffer, "+
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
