package cuabi

// #include "zcalls.h"
import "C"

import (
	"math"
	"sync/atomic"
	"unsafe"
)

// Kernel is one __global__ function of a loaded module (Module.Kernel). It keeps its module
// alive. A Kernel is safe for concurrent use: any number of goroutines may launch it at once.
type Kernel struct {
	h      handle
	name   string                      // as it was looked up: "saxpy", "scale<float>"
	layout atomic.Pointer[paramLayout] // read on the first packed launch
	graph  *Graph                      // for a kernel borrowed from a graph's node: keeps the graph alive
}

// paramLayout is where each parameter lies in the packed argument buffer.
type paramLayout struct {
	params []paramSlot
	size   int // where the last parameter ends: the packed buffer's size
}

type paramSlot struct {
	offset, size int
}

// Close releases the kernel. A kernel borrowed from a graph (NodeInfo.Kernel) belongs to the graph:
// Close only forgets it. Closing twice is harmless; it returns nil.
func (k *Kernel) Close() error {
	if k != nil {
		k.h.release(k, func(bits C.uintptr_t) {
			if k.graph == nil {
				C.cuabi_go_kernel_destroy(bits)
			}
		})
	}
	return nil
}

func (k *Kernel) ref() (C.uintptr_t, error) {
	if k != nil {
		if bits := k.h.bits.Load(); bits != 0 {
			return C.uintptr_t(bits), nil
		}
	}
	return 0, errClosed("cuabi.Kernel")
}

// Name is the name or name expression the kernel was looked up by.
func (k *Kernel) Name() string { return k.name }

// KernelAttributes describe a kernel on its device (cuabi_kernel_attributes).
type KernelAttributes struct {
	RegistersPerThread          int
	MaxThreadsPerBlock          int // the kernel's own limit, at most the device's
	StaticSharedMemoryBytes     int
	ConstantMemoryBytes         int
	LocalMemoryBytes            int // per thread
	MaxDynamicSharedMemoryBytes int
	PTXVersion                  int // 90 for compute_90
	BinaryVersion               int // 90 for sm_90
}

// Attributes reads the kernel's registers, thread limit, memory use and versions.
func (k *Kernel) Attributes() (KernelAttributes, error) {
	a := new(C.cuabi_kernel_attributes)
	if err := call(k, func(bits C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_kernel_get_attributes(bits, a) }); err != nil {
		return KernelAttributes{}, err
	}
	return KernelAttributes{
		RegistersPerThread:          int(a.registers_per_thread),
		MaxThreadsPerBlock:          int(a.max_threads_per_block),
		StaticSharedMemoryBytes:     int(a.static_shared_memory_bytes),
		ConstantMemoryBytes:         int(a.constant_memory_bytes),
		LocalMemoryBytes:            int(a.local_memory_bytes),
		MaxDynamicSharedMemoryBytes: int(a.max_dynamic_shared_memory_bytes),
		PTXVersion:                  int(a.ptx_version),
		BinaryVersion:               int(a.binary_version),
	}, nil
}

// Native is the underlying CUfunction, valid while the Kernel is open.
func (k *Kernel) Native() (unsafe.Pointer, error) {
	var native unsafe.Pointer
	err := call(k, func(bits C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_kernel_get_native(bits, &native) })
	return native, err
}

// ParamCount is the number of parameters the kernel takes. ErrUnsupported with a driver older
// than CUDA 12.4 (which cannot tell; use LaunchTable there).
func (k *Kernel) ParamCount() (int, error) {
	var n C.size_t
	err := call(k, func(bits C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_kernel_get_param_count(bits, &n) })
	return int(n), err
}

// ParamInfo is where parameter index lies in the packed argument buffer (see LaunchPacked).
// ErrOutOfBounds for index >= ParamCount.
func (k *Kernel) ParamInfo(index int) (offset, size int, err error) {
	if err := checkOffset(index); err != nil {
		return 0, 0, err
	}
	var o, s C.size_t
	err = call(k, func(bits C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_kernel_get_param_info(bits, C.size_t(index), &o, &s)
	})
	return int(o), int(s), err
}

// paramLayout is the kernel's parameter layout, read once (one crossing for all parameters) and
// kept: it never changes.
func (k *Kernel) paramLayout(bits C.uintptr_t) (*paramLayout, error) {
	if l := k.layout.Load(); l != nil {
		return l, nil
	}
	return k.readLayout(bits)
}

func (k *Kernel) readLayout(bits C.uintptr_t) (*paramLayout, error) {
	capacity := 16
	for {
		raw := make([]C.size_t, 2*capacity)
		var count C.size_t
		if err := takeFailure(C.cuabi_go_kernel_layout(bits, &raw[0], C.size_t(capacity), &count)); err != nil {
			return nil, err
		}
		if int(count) > capacity {
			capacity = int(count)
			continue
		}
		l := &paramLayout{params: make([]paramSlot, int(count))}
		for i := range l.params {
			l.params[i] = paramSlot{offset: int(raw[2*i]), size: int(raw[2*i+1])}
			if end := l.params[i].offset + l.params[i].size; end > l.size {
				l.size = end
			}
		}
		k.layout.CompareAndSwap(nil, l)
		return k.layout.Load(), nil
	}
}

// MaxActiveBlocksPerSM is how many blocks of blockThreads threads with sharedMemoryBytes of dynamic
// shared memory fit on one multiprocessor at once (0 when none does); a cooperative grid may have
// at most this times the multiprocessor count blocks. ErrLaunchBlock, ErrLaunchKernelThreads or
// ErrLaunchSharedMemory for values no launch could use.
func (k *Kernel) MaxActiveBlocksPerSM(blockThreads, sharedMemoryBytes int) (int, error) {
	threads, err := uint32Arg("blockThreads", blockThreads)
	if err != nil {
		return 0, err
	}
	shared, err := uint32Arg("sharedMemoryBytes", sharedMemoryBytes)
	if err != nil {
		return 0, err
	}
	var blocks C.uint32_t
	err = call(k, func(bits C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_kernel_get_max_active_blocks_per_sm(bits, threads, shared, &blocks)
	})
	return int(blocks), err
}

// SuggestBlockSize is the block size giving the kernel the highest occupancy with
// sharedMemoryBytes of dynamic shared memory per block, and the smallest grid that fills the
// device with it.
func (k *Kernel) SuggestBlockSize(sharedMemoryBytes int) (blockThreads, minGridBlocks int, err error) {
	shared, err := uint32Arg("sharedMemoryBytes", sharedMemoryBytes)
	if err != nil {
		return 0, 0, err
	}
	var threads, grid C.uint32_t
	err = call(k, func(bits C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_kernel_suggest_block_size(bits, shared, &threads, &grid)
	})
	return int(threads), int(grid), err
}

func uint32Arg(what string, v int) (C.uint32_t, error) {
	if v < 0 || v > math.MaxUint32 {
		return 0, newError(ErrInvalidArgument, "%s %d is outside 0 .. %d. Fix: pass a value that fits an unsigned 32-bit integer.",
			what, v, uint32(math.MaxUint32))
	}
	return C.uint32_t(v), nil
}
