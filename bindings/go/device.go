package cuabi

// #include "zcalls.h"
import "C"

import (
	"fmt"
	"unsafe"
)

// DriverVersion is the CUDA driver's version, 13000 for 13.0. ErrDriverNotFound when libcuda.so.1
// cannot be loaded (the message says where cuabi looked).
func DriverVersion() (int, error) {
	if err := loaded(); err != nil {
		return 0, err
	}
	var v C.int32_t
	err := takeFailure(C.cuabi_go_driver_get_version(&v))
	return int(v), err
}

// DeviceCount is the number of CUDA devices. ErrNoDevice when the driver loads but sees none.
func DeviceCount() (int, error) {
	if err := loaded(); err != nil {
		return 0, err
	}
	var n C.int32_t
	err := takeFailure(C.cuabi_go_device_get_count(&n))
	return int(n), err
}

// QueryDevice describes device ordinal without creating a context. ErrInvalidDevice for an
// ordinal outside [0, DeviceCount()).
func QueryDevice(ordinal int) (DeviceInfo, error) {
	if err := loaded(); err != nil {
		return DeviceInfo{}, err
	}
	if int(int32(ordinal)) != ordinal {
		return DeviceInfo{}, newError(ErrInvalidDevice, "device ordinal %d does not fit an int32. Fix: pass 0 .. DeviceCount()-1.", ordinal)
	}
	info := new(C.cuabi_device_info)
	if err := takeFailure(C.cuabi_go_device_get_info(C.int32_t(ordinal), info)); err != nil {
		return DeviceInfo{}, err
	}
	return deviceInfoFrom(info), nil
}

// ComputeCapability is a device's architecture version, 9.0 for sm_90.
type ComputeCapability struct {
	Major, Minor int
}

func (c ComputeCapability) String() string { return fmt.Sprintf("%d.%d", c.Major, c.Minor) }

// AtLeast reports whether c is major.minor or newer.
func (c ComputeCapability) AtLeast(major, minor int) bool {
	return c.Major > major || (c.Major == major && c.Minor >= minor)
}

// DeviceInfo is what cuabi knows about a device: identity, memory, and every limit a launch is
// checked against (cuabi_device_info).
type DeviceInfo struct {
	Ordinal                          int
	Name                             string
	UUID                             [16]byte
	ComputeCapability                ComputeCapability
	MultiprocessorCount              int
	WarpSize                         int
	TotalMemoryBytes                 uint64
	MaxThreadsPerBlock               int
	MaxBlockDim                      [3]int
	MaxGridDim                       [3]int
	MaxSharedMemoryPerBlock          int // bytes without opt-in (usually 48 KiB)
	MaxSharedMemoryPerBlockOptin     int // bytes with opt-in; cuabi opts kernels in as needed
	MaxSharedMemoryPerMultiprocessor int
	MaxRegistersPerBlock             int
	MaxRegistersPerMultiprocessor    int
	MaxThreadsPerMultiprocessor      int
	MaxBlocksPerMultiprocessor       int
	CooperativeLaunch                bool
	ClusterLaunch                    bool // thread block clusters (sm_90 and later)
	PCIDomainID                      int
	PCIBusID                         int
	PCIDeviceID                      int
	ClockRateKHz                     int
	MemoryBusWidthBits               int
	L2CacheBytes                     int
}

func deviceInfoFrom(c *C.cuabi_device_info) DeviceInfo {
	info := DeviceInfo{
		Ordinal:                          int(c.ordinal),
		Name:                             C.GoString(&c.name[0]),
		ComputeCapability:                ComputeCapability{int(c.compute_capability_major), int(c.compute_capability_minor)},
		MultiprocessorCount:              int(c.multiprocessor_count),
		WarpSize:                         int(c.warp_size),
		TotalMemoryBytes:                 uint64(c.total_memory_bytes),
		MaxThreadsPerBlock:               int(c.max_threads_per_block),
		MaxSharedMemoryPerBlock:          int(c.max_shared_memory_per_block),
		MaxSharedMemoryPerBlockOptin:     int(c.max_shared_memory_per_block_optin),
		MaxSharedMemoryPerMultiprocessor: int(c.max_shared_memory_per_multiprocessor),
		MaxRegistersPerBlock:             int(c.max_registers_per_block),
		MaxRegistersPerMultiprocessor:    int(c.max_registers_per_multiprocessor),
		MaxThreadsPerMultiprocessor:      int(c.max_threads_per_multiprocessor),
		MaxBlocksPerMultiprocessor:       int(c.max_blocks_per_multiprocessor),
		CooperativeLaunch:                c.cooperative_launch != 0,
		ClusterLaunch:                    c.cluster_launch != 0,
		PCIDomainID:                      int(c.pci_domain_id),
		PCIBusID:                         int(c.pci_bus_id),
		PCIDeviceID:                      int(c.pci_device_id),
		ClockRateKHz:                     int(c.clock_rate_khz),
		MemoryBusWidthBits:               int(c.memory_bus_width_bits),
		L2CacheBytes:                     int(c.l2_cache_bytes),
	}
	copy(info.UUID[:], (*[16]byte)(unsafe.Pointer(&c.uuid[0]))[:])
	for i := 0; i < 3; i++ {
		info.MaxBlockDim[i] = int(c.max_block_dim[i])
		info.MaxGridDim[i] = int(c.max_grid_dim[i])
	}
	return info
}
