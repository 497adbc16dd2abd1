package cuabi

// #include "zcalls.h"
import "C"

import (
	"runtime"
	"unsafe"
)

func hostMemoryOptions(flags HostMemoryFlags) (*C.cuabi_host_memory_options, error) {
	o := new(C.cuabi_host_memory_options)
	if err := takeFailure(C.cuabi_go_host_memory_options_init(C.sizeof_cuabi_host_memory_options, o)); err != nil {
		return nil, err
	}
	o.flags = C.uint32_t(flags)
	return o, nil
}

// NewPinnedHostMemory allocates size bytes of page-locked host memory (cuMemHostAlloc) for
// copies that overlap with kernels. ErrInvalidArgument for size 0 or unknown flags,
// ErrOutOfHostMemory when the system cannot pin that much.
func (c *Context) NewPinnedHostMemory(size int, flags HostMemoryFlags) (*HostMemory, error) {
	ctx, err := c.ref()
	if err != nil {
		return nil, err
	}
	if size <= 0 {
		return nil, newError(ErrInvalidArgument, "host memory size %d is not positive. Fix: pass at least 1 byte.", size)
	}
	options, err := hostMemoryOptions(flags)
	if err != nil {
		return nil, err
	}
	var bits C.uintptr_t
	err = takeFailure(C.cuabi_go_host_memory_create(ctx, C.size_t(size), options, &bits))
	runtime.KeepAlive(c)
	if err != nil {
		return nil, err
	}
	var p unsafe.Pointer
	var allocated C.size_t
	err = takeFailure(C.cuabi_go_host_memory_get_pointer(bits, &p))
	if err == nil {
		err = takeFailure(C.cuabi_go_host_memory_get_size(bits, &allocated))
	}
	if err != nil {
		C.cuabi_go_host_memory_destroy(bits)
		return nil, err
	}
	m := &HostMemory{size: int(allocated), owned: true}
	m.p.Store((*byte)(p))
	m.pin.set(bits)
	runtime.SetFinalizer(m, (*HostMemory).Close)
	return m, nil
}

// Pin page-locks memory from NewHostMemory in place (cuMemHostRegister) until Close, which
// unregisters it before freeing it. ErrInvalidArgument when it is pinned already or the flags
// include HostMemoryWriteCombined (memory that exists cannot change its caching).
func (m *HostMemory) Pin(c *Context, flags HostMemoryFlags) error {
	p, err := m.hostRange(0, 0)
	if err != nil {
		return err
	}
	ctx, err := c.ref()
	if err != nil {
		return err
	}
	if m.Pinned() {
		return newError(ErrInvalidArgument, "the HostMemory is page-locked already. Fix: pin it once.")
	}
	options, err := hostMemoryOptions(flags)
	if err != nil {
		return err
	}
	var bits C.uintptr_t
	err = takeFailure(C.cuabi_go_host_memory_register(ctx, p, C.size_t(m.size), options, &bits))
	runtime.KeepAlive(c)
	runtime.KeepAlive(m)
	if err != nil {
		return err
	}
	m.pin.set(bits)
	return nil
}

// Pinned says whether the memory is page-locked.
func (m *HostMemory) Pinned() bool { return m != nil && m.pin.bits.Load() != 0 }

// DeviceAddress is where kernels reach the memory, for memory pinned with HostMemoryDeviceMapped.
// ErrUnsupported for memory that is not mapped, ErrInvalidHandle when it is closed or not pinned.
func (m *HostMemory) DeviceAddress() (DevicePtr, error) {
	var address C.uint64_t
	bits, err := m.pin.ref("pinned cuabi.HostMemory")
	if err != nil {
		return 0, err
	}
	err = takeFailure(C.cuabi_go_host_memory_get_device_address(bits, &address))
	runtime.KeepAlive(m)
	return DevicePtr(address), err
}
