package cuabi

// #include "zcalls.h"
import "C"

import "runtime"

// DeviceAttribute is the value of any CUdevice_attribute of device ordinal, without a context:
// attribute is its number in cuda.h (16 is CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT), so new
// hardware needs no new binding. ErrInvalidDevice for an ordinal outside [0, DeviceCount()),
// ErrInvalidArgument for an attribute the driver does not know.
func DeviceAttribute(ordinal int, attribute int32) (int32, error) {
	if err := loaded(); err != nil {
		return 0, err
	}
	if int(int32(ordinal)) != ordinal {
		return 0, newError(ErrInvalidDevice, "device ordinal %d does not fit an int32. Fix: pass 0 .. DeviceCount()-1.", ordinal)
	}
	var value C.int32_t
	if err := takeFailure(C.cuabi_go_device_get_attribute(C.int32_t(ordinal), C.int32_t(attribute), &value)); err != nil {
		return 0, err
	}
	return int32(value), nil
}

// Values of AttributeCacheConfig.
const (
	CachePreferNone   int32 = C.CUABI_CACHE_PREFER_NONE
	CachePreferShared int32 = C.CUABI_CACHE_PREFER_SHARED
	CachePreferL1     int32 = C.CUABI_CACHE_PREFER_L1
	CachePreferEqual  int32 = C.CUABI_CACHE_PREFER_EQUAL
)

// SetAttribute sets attribute to value for every later launch of the kernel's function, checked
// against the device: ErrInvalidArgument for a value outside the attribute's range, ErrUnsupported
// for non-portable clusters on a device without clusters.
func (k *Kernel) SetAttribute(attribute KernelAttribute, value int32) error {
	return call(k, func(bits C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_kernel_set_attribute(bits, C.int32_t(attribute), C.int32_t(value))
	})
}

// MaxActiveClusters is how many clusters of config.Cluster blocks, each of config.Block threads
// with config.SharedMemoryBytes of dynamic shared memory, fit on the device at once (0 when none
// does); config.Grid, Stream and Flags are ignored. ErrLaunchCluster without a cluster shape or
// on a device without clusters.
func (k *Kernel) MaxActiveClusters(config LaunchConfig) (int, error) {
	config.Stream = nil // ignored by cuabi; a closed stream must not fail the query
	var cfg C.cuabi_go_launch_config
	if err := config.fill(&cfg); err != nil {
		return 0, err
	}
	var clusters C.uint32_t
	err := call(k, func(bits C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_kernel_max_active_clusters(bits, cfg, &clusters)
	})
	return int(clusters), err
}

// Global is a __device__ or __constant__ variable of the module as a Buffer over exactly its
// bytes, found by name ("scale") or by a name expression of the compile ("table<float>", also on a
// cache hit). Writes and reads are bounds-checked; __constant__ memory written through it is seen
// by kernels launched after the write. The Buffer frees nothing at Close and keeps the module
// loaded while open. ErrNotFound (listing the module's expressions) for a name the module has no
// variable of, ErrUnsupported for a module compiled offline.
func (m *Module) Global(nameOrExpression string) (*Buffer, error) {
	bits, err := m.ref()
	if err != nil {
		return nil, err
	}
	name, err := text("the variable name", nameOrExpression)
	if err != nil {
		return nil, err
	}
	var global C.uintptr_t
	err = takeFailure(C.cuabi_go_module_get_global(bits, name, &global))
	runtime.KeepAlive(m)
	if err != nil {
		return nil, err
	}
	return newBuffer(global)
}
