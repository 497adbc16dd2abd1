//! Devices: how many there are and what each can do, without a context.

use crate::error::Result;
use crate::ffi::{call, defaults, fixed_text};
use cuabi_sys as sys;

/// Facts about one device: identity, memory, and every limit a launch is checked against.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeviceInfo {
    /// The CUDA device ordinal.
    pub ordinal: i32,
    /// The device's name ("NVIDIA H100 80GB HBM3").
    pub name: String,
    /// The device's UUID.
    pub uuid: [u8; 16],
    /// Compute capability (major, minor): (9, 0) for sm_90.
    pub compute_capability: (i32, i32),
    /// Streaming multiprocessors.
    pub multiprocessor_count: i32,
    /// Threads per warp.
    pub warp_size: i32,
    /// Device memory in bytes.
    pub total_memory_bytes: u64,
    /// The most threads a block may have.
    pub max_threads_per_block: i32,
    /// The most threads in each block dimension.
    pub max_block_dim: [i32; 3],
    /// The most blocks in each grid dimension.
    pub max_grid_dim: [i32; 3],
    /// Shared memory per block without opt-in (usually 48 KiB).
    pub max_shared_memory_per_block: i32,
    /// Shared memory per block with opt-in (cuabi opts kernels in itself).
    pub max_shared_memory_per_block_optin: i32,
    /// Shared memory per multiprocessor.
    pub max_shared_memory_per_multiprocessor: i32,
    /// Registers per block.
    pub max_registers_per_block: i32,
    /// Registers per multiprocessor.
    pub max_registers_per_multiprocessor: i32,
    /// Resident threads per multiprocessor.
    pub max_threads_per_multiprocessor: i32,
    /// Resident blocks per multiprocessor.
    pub max_blocks_per_multiprocessor: i32,
    /// Whether cooperative launches are supported.
    pub cooperative_launch: bool,
    /// Whether thread block clusters are supported (sm_90+).
    pub cluster_launch: bool,
    /// PCI domain.
    pub pci_domain_id: i32,
    /// PCI bus.
    pub pci_bus_id: i32,
    /// PCI device.
    pub pci_device_id: i32,
    /// Clock rate in kHz.
    pub clock_rate_khz: i32,
    /// Memory bus width in bits.
    pub memory_bus_width_bits: i32,
    /// L2 cache in bytes.
    pub l2_cache_bytes: i32,
}

impl DeviceInfo {
    /// An empty `cuabi_device_info` for the library to fill.
    pub(crate) fn raw() -> Result<sys::cuabi_device_info> {
        defaults()
    }

    pub(crate) fn from_raw(raw: &sys::cuabi_device_info) -> DeviceInfo {
        DeviceInfo {
            ordinal: raw.ordinal,
            name: fixed_text(&raw.name),
            uuid: raw.uuid,
            compute_capability: (raw.compute_capability_major, raw.compute_capability_minor),
            multiprocessor_count: raw.multiprocessor_count,
            warp_size: raw.warp_size,
            total_memory_bytes: raw.total_memory_bytes,
            max_threads_per_block: raw.max_threads_per_block,
            max_block_dim: raw.max_block_dim,
            max_grid_dim: raw.max_grid_dim,
            max_shared_memory_per_block: raw.max_shared_memory_per_block,
            max_shared_memory_per_block_optin: raw.max_shared_memory_per_block_optin,
            max_shared_memory_per_multiprocessor: raw.max_shared_memory_per_multiprocessor,
            max_registers_per_block: raw.max_registers_per_block,
            max_registers_per_multiprocessor: raw.max_registers_per_multiprocessor,
            max_threads_per_multiprocessor: raw.max_threads_per_multiprocessor,
            max_blocks_per_multiprocessor: raw.max_blocks_per_multiprocessor,
            cooperative_launch: raw.cooperative_launch != 0,
            cluster_launch: raw.cluster_launch != 0,
            pci_domain_id: raw.pci_domain_id,
            pci_bus_id: raw.pci_bus_id,
            pci_device_id: raw.pci_device_id,
            clock_rate_khz: raw.clock_rate_khz,
            memory_bus_width_bits: raw.memory_bus_width_bits,
            l2_cache_bytes: raw.l2_cache_bytes,
        }
    }
}

/// The number of CUDA devices (`cuabi_device_get_count`). [`Status::NoDevice`](crate::Status::NoDevice)
/// when the driver sees none, [`Status::DriverNotFound`](crate::Status::DriverNotFound) without a driver.
pub fn device_count() -> Result<i32> {
    let mut count = 0;
    call!(cuabi_device_get_count(&mut count))?;
    Ok(count)
}

/// Facts about device `ordinal` without creating a context (`cuabi_device_get_info`).
/// [`Status::InvalidDevice`](crate::Status::InvalidDevice) for an ordinal outside `[0, count)`.
pub fn device_info(ordinal: i32) -> Result<DeviceInfo> {
    let mut raw = DeviceInfo::raw()?;
    call!(cuabi_device_get_info(ordinal, &mut raw))?;
    Ok(DeviceInfo::from_raw(&raw))
}

/// A `CUdevice_attribute`: the number `cuda.h` gives it. The named constants are the common ones;
/// any other number works too (`DeviceAttribute(n)`), so facts of newer hardware need no new
/// binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DeviceAttribute(pub i32);

impl DeviceAttribute {
    /// The most threads a block may have.
    pub const MAX_THREADS_PER_BLOCK: DeviceAttribute = DeviceAttribute(1);
    /// Threads per warp.
    pub const WARP_SIZE: DeviceAttribute = DeviceAttribute(10);
    /// Streaming multiprocessors.
    pub const MULTIPROCESSOR_COUNT: DeviceAttribute = DeviceAttribute(16);
    /// 1 when the device shares memory with the host (an integrated GPU).
    pub const INTEGRATED: DeviceAttribute = DeviceAttribute(18);
    /// 1 when the device can map host memory ([`HostMemoryOptions::device_mapped`](crate::HostMemoryOptions::device_mapped)).
    pub const CAN_MAP_HOST_MEMORY: DeviceAttribute = DeviceAttribute(19);
    /// 1 when kernels of several streams may run at once.
    pub const CONCURRENT_KERNELS: DeviceAttribute = DeviceAttribute(31);
    /// L2 cache in bytes.
    pub const L2_CACHE_SIZE: DeviceAttribute = DeviceAttribute(38);
    /// Copy engines: how many transfers may overlap with kernels.
    pub const ASYNC_ENGINE_COUNT: DeviceAttribute = DeviceAttribute(40);
    /// 1 when host and device share one address space.
    pub const UNIFIED_ADDRESSING: DeviceAttribute = DeviceAttribute(41);
    /// The compute capability's major number (9 for sm_90).
    pub const COMPUTE_CAPABILITY_MAJOR: DeviceAttribute = DeviceAttribute(75);
    /// The compute capability's minor number.
    pub const COMPUTE_CAPABILITY_MINOR: DeviceAttribute = DeviceAttribute(76);
    /// 1 when streams (and launches) may have priorities.
    pub const STREAM_PRIORITIES_SUPPORTED: DeviceAttribute = DeviceAttribute(78);
    /// 1 when kernels may read pageable host memory directly.
    pub const PAGEABLE_MEMORY_ACCESS: DeviceAttribute = DeviceAttribute(88);
    /// Shared memory per block with opt-in, bytes.
    pub const MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: DeviceAttribute = DeviceAttribute(97);
    /// 1 when host memory may be registered ([`HostMemory::register`](crate::HostMemory::register)).
    pub const HOST_REGISTER_SUPPORTED: DeviceAttribute = DeviceAttribute(99);
    /// Resident blocks per multiprocessor.
    pub const MAX_BLOCKS_PER_MULTIPROCESSOR: DeviceAttribute = DeviceAttribute(106);
    /// 1 when thread block clusters are supported (sm_90+).
    pub const CLUSTER_LAUNCH: DeviceAttribute = DeviceAttribute(120);
}

/// Any attribute of device `ordinal`, without creating a context (`cuabi_device_get_attribute`):
/// the escape hatch for facts [`DeviceInfo`] lacks.
///
/// ```no_run
/// use cuabi::DeviceAttribute;
/// let engines = cuabi::device_attribute(0, DeviceAttribute::ASYNC_ENGINE_COUNT)?;
/// let newer = cuabi::device_attribute(0, DeviceAttribute(134))?; // any number cuda.h knows
/// # Ok::<(), cuabi::Error>(())
/// ```
///
/// [`Status::InvalidDevice`](crate::Status::InvalidDevice) for an ordinal outside `[0, count)`,
/// [`Status::InvalidArgument`](crate::Status::InvalidArgument) for an attribute the driver does not
/// know ([`Error::cu_result`](crate::Error::cu_result) has its `CUresult`).
pub fn device_attribute(ordinal: i32, attribute: DeviceAttribute) -> Result<i32> {
    let mut value = 0;
    call!(cuabi_device_get_attribute(ordinal, attribute.0, &mut value))?;
    Ok(value)
}
