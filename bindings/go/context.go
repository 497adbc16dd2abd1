package cuabi

// #include "zcalls.h"
import "C"

import (
	"time"
	"unsafe"
)

// Context is one device's primary CUDA context, retained while the Context or anything made from
// it lives. Everything made from it (streams, buffers, modules, graphs...) keeps the CUDA context
// alive by itself, so a Context may be closed before them. cuabi makes the context current on
// whichever OS thread a call runs on, so goroutines need no LockOSThread.
//
// A Context is safe for concurrent use.
type Context struct {
	h handle
}

// ContextOptions configure NewContext; the zero value (or nil) means device 0 and
// ImageVerifyDefault.
type ContextOptions struct {
	Device int // CUDA device ordinal
	// Which images are trial-loaded in cuabi's image verifier process before the context loads
	// them. NewContext refuses a value that is no ImageVerify* constant with ErrInvalidArgument.
	ImageVerification ImageVerification
}

// NewContext opens a context on a device. ErrInvalidDevice for a bad ordinal, ErrInvalidArgument
// for an unknown ImageVerification; without a driver or device, ErrDriverNotFound or ErrNoDevice,
// whose messages say what to install.
func NewContext(options *ContextOptions) (*Context, error) {
	if err := loaded(); err != nil {
		return nil, err
	}
	o, err := contextOptions(options)
	if err != nil {
		return nil, err
	}
	var bits C.uintptr_t
	if err := takeFailure(C.cuabi_go_context_create(o, &bits)); err != nil {
		return nil, err
	}
	c := &Context{}
	return own(c, &c.h, bits, (*Context).Close), nil
}

// contextOptions is options in C (nil: the defaults, as cuabi_context_options_init gives them).
func contextOptions(options *ContextOptions) (*C.cuabi_context_options, error) {
	o := &C.cuabi_context_options{struct_size: C.sizeof_cuabi_context_options}
	if options != nil {
		if int(int32(options.Device)) != options.Device {
			return nil, newError(ErrInvalidDevice, "device ordinal %d does not fit an int32. Fix: pass 0 .. DeviceCount()-1.", options.Device)
		}
		o.device_ordinal = C.int32_t(options.Device)
		o.image_verification = C.int32_t(options.ImageVerification)
	}
	return o, nil
}

// Close releases the context (and drops the graph-cache entries inserted under it). Objects made
// from it stay usable. Closing twice is harmless; Close always returns nil.
func (c *Context) Close() error {
	if c != nil {
		c.h.release(c, func(bits C.uintptr_t) { C.cuabi_go_context_destroy(bits) })
	}
	return nil
}

func (c *Context) ref() (C.uintptr_t, error) {
	if c == nil {
		return 0, errClosed("cuabi.Context")
	}
	return c.h.ref("cuabi.Context")
}

// DeviceInfo describes the context's device and its launch limits.
func (c *Context) DeviceInfo() (DeviceInfo, error) {
	info := new(C.cuabi_device_info)
	err := call(c, func(bits C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_context_get_device_info(bits, info) })
	if err != nil {
		return DeviceInfo{}, err
	}
	return deviceInfoFrom(info), nil
}

// Synchronize waits until all work this process submitted to the context's device is done.
func (c *Context) Synchronize() error {
	return call(c, func(bits C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_context_synchronize(bits) })
}

// Native is the underlying CUcontext, for other CUDA code; the Context keeps it alive.
func (c *Context) Native() (unsafe.Pointer, error) {
	var native unsafe.Pointer
	err := call(c, func(bits C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_context_get_native(bits, &native) })
	return native, err
}

// Counters counts the work done through cuabi on one context (cuabi_counters).
type Counters struct {
	Launches              uint64 // every kernel launch
	LaunchesPacked        uint64 // of which: packed arguments (Kernel.Launch)
	LaunchesCooperative   uint64 // of which: cooperative
	LaunchesCluster       uint64 // of which: with a thread block cluster
	Synchronizations      uint64 // stream, event and context synchronizations
	GraphLaunches         uint64
	GraphInstantiations   uint64
	GraphUpdates          uint64
	GraphReinstantiations uint64
	Compiles              uint64        // NVRTC runs for this context
	CompileTime           time.Duration // spent in them
	MemoryCacheHits       uint64
	MemoryCacheMisses     uint64
	DiskCacheHits         uint64
	DiskCacheMisses       uint64
	DiskCorruptRecovered  uint64
	DiskEvictions         uint64
}

// Counters reads the context's counters.
func (c *Context) Counters() (Counters, error) {
	n := new(C.cuabi_counters)
	if err := call(c, func(bits C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_context_get_counters(bits, n) }); err != nil {
		return Counters{}, err
	}
	return Counters{
		Launches:              uint64(n.launches),
		LaunchesPacked:        uint64(n.launches_packed),
		LaunchesCooperative:   uint64(n.launches_cooperative),
		LaunchesCluster:       uint64(n.launches_cluster),
		Synchronizations:      uint64(n.synchronizations),
		GraphLaunches:         uint64(n.graph_launches),
		GraphInstantiations:   uint64(n.graph_instantiations),
		GraphUpdates:          uint64(n.graph_updates),
		GraphReinstantiations: uint64(n.graph_reinstantiations),
		Compiles:              uint64(n.compiles),
		CompileTime:           time.Duration(n.compile_time_ns),
		MemoryCacheHits:       uint64(n.memory_cache_hits),
		MemoryCacheMisses:     uint64(n.memory_cache_misses),
		DiskCacheHits:         uint64(n.disk_cache_hits),
		DiskCacheMisses:       uint64(n.disk_cache_misses),
		DiskCorruptRecovered:  uint64(n.disk_cache_corrupt_recovered),
		DiskEvictions:         uint64(n.disk_cache_evictions),
	}, nil
}
