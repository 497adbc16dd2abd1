//! Kernels: one `__global__` function of a loaded module, its facts, and launching it.

use crate::error::{check, Result};
use crate::ffi::{call, defaults, destroy, raw};
use crate::launch::{with_table, KernelArg, LaunchConfig, PackedArgs, Param};
use cuabi_sys as sys;
use std::os::raw::c_void;

/// One `__global__` function of a loaded [`Module`](crate::Module), in the module's context,
/// taken with [`Module::kernel`](crate::Module::kernel). It keeps its module alive.
///
/// Launches are checked before the driver sees them: geometry against the device, threads against
/// the kernel's own limit, shared memory, cooperative residency, clusters, and every argument
/// against the kernel's real parameter layout; each failed check has its own [`Status`](crate::Status).
///
/// `Send + Sync`: one kernel may be launched from several threads at once.
#[derive(Debug)]
pub struct Kernel {
    raw: *mut sys::cuabi_kernel,
}

unsafe impl Send for Kernel {}
unsafe impl Sync for Kernel {}

impl Kernel {
    pub(crate) fn from_owned(raw: *mut sys::cuabi_kernel) -> Kernel {
        Kernel { raw }
    }

    /// Launches the kernel with one argument per parameter, in declaration order:
    ///
    /// ```no_run
    /// # fn demo(saxpy: &cuabi::Kernel, x: &cuabi::Buffer, y: &cuabi::Buffer, config: &cuabi::LaunchConfig) -> cuabi::Result<()> {
    /// saxpy.launch(config, &[&2.0f32, x, y, &1024u32])?;
    /// # Ok(()) }
    /// ```
    ///
    /// The values are copied before the call returns; the launch allocates nothing.
    #[inline]
    pub fn launch(&self, config: &LaunchConfig<'_>, args: &[&dyn KernelArg]) -> Result<()> {
        let status = with_table(args, |table, count| -> Result<sys::cuabi_status> {
            Ok(raw!(cuabi_launch(self.raw, config.as_raw(), table, count)))
        })?;
        check(status)
    }

    /// Launches the kernel with arguments in packed form (see [`PackedArgs`]).
    #[inline]
    pub fn launch_packed(&self, config: &LaunchConfig<'_>, args: &PackedArgs) -> Result<()> {
        call!(cuabi_launch_packed(self.raw, config.as_raw(), args.as_ptr(), args.len()))
    }

    /// Launches the kernel with a packed buffer laid out by the caller at [`Kernel::params`]'
    /// offsets; its length must be where the last parameter ends.
    pub fn launch_packed_bytes(&self, config: &LaunchConfig<'_>, packed: &[u8]) -> Result<()> {
        call!(cuabi_launch_packed(self.raw, config.as_raw(), packed.as_ptr().cast(), packed.len()))
    }

    /// The kernel's registers, thread limit, shared/constant/local memory and versions.
    pub fn attributes(&self) -> Result<KernelAttributes> {
        let mut raw: sys::cuabi_kernel_attributes = defaults()?;
        call!(cuabi_kernel_get_attributes(self.raw, &mut raw))?;
        Ok(KernelAttributes {
            registers_per_thread: raw.registers_per_thread,
            max_threads_per_block: raw.max_threads_per_block,
            static_shared_memory_bytes: raw.static_shared_memory_bytes,
            constant_memory_bytes: raw.constant_memory_bytes,
            local_memory_bytes: raw.local_memory_bytes,
            max_dynamic_shared_memory_bytes: raw.max_dynamic_shared_memory_bytes,
            ptx_version: raw.ptx_version,
            binary_version: raw.binary_version,
        })
    }

    /// The underlying `CUfunction`. Not owned by the caller; valid while the kernel lives.
    pub fn native(&self) -> Result<*mut c_void> {
        let mut native = std::ptr::null_mut();
        call!(cuabi_kernel_get_native(self.raw, &mut native))?;
        Ok(native)
    }

    /// The number of parameters. [`Status::Unsupported`](crate::Status::Unsupported) with a driver
    /// older than CUDA 12.4.
    pub fn param_count(&self) -> Result<usize> {
        let mut count = 0;
        call!(cuabi_kernel_get_param_count(self.raw, &mut count))?;
        Ok(count)
    }

    /// Where parameter `index` lies in the parameter buffer.
    pub fn param_info(&self, index: usize) -> Result<Param> {
        let (mut offset, mut size) = (0, 0);
        call!(cuabi_kernel_get_param_info(self.raw, index, &mut offset, &mut size))?;
        Ok(Param { offset, size })
    }

    /// Every parameter's place, in order: the layout [`PackedArgs`] uses.
    pub fn params(&self) -> Result<Vec<Param>> {
        (0..self.param_count()?).map(|index| self.param_info(index)).collect()
    }

    /// How many blocks of `block_threads` threads with `shared_memory_bytes` of dynamic shared
    /// memory fit on one multiprocessor at once (0 when none does).
    pub fn max_active_blocks_per_sm(&self, block_threads: u32, shared_memory_bytes: u32) -> Result<u32> {
        let mut blocks = 0;
        call!(cuabi_kernel_get_max_active_blocks_per_sm(self.raw, block_threads, shared_memory_bytes, &mut blocks))?;
        Ok(blocks)
    }

    /// The block size with the highest occupancy for `shared_memory_bytes` of dynamic shared
    /// memory, and the smallest grid that fills the device with it.
    pub fn suggest_block_size(&self, shared_memory_bytes: u32) -> Result<BlockSizeSuggestion> {
        let mut suggestion = BlockSizeSuggestion { block_threads: 0, min_grid_blocks: 0 };
        call!(cuabi_kernel_suggest_block_size(
            self.raw,
            shared_memory_bytes,
            &mut suggestion.block_threads,
            &mut suggestion.min_grid_blocks
        ))?;
        Ok(suggestion)
    }

    /// Sets one attribute of the kernel's function for every later launch (and every kernel handle
    /// of the same function in this context), checked against the device:
    ///
    /// ```no_run
    /// # fn demo(kernel: &cuabi::Kernel) -> cuabi::Result<()> {
    /// use cuabi::{CachePreference, Carveout, KernelAttribute};
    /// kernel.set_attribute(KernelAttribute::SharedMemoryCarveout(Carveout::Percent(50)))?;
    /// kernel.set_attribute(KernelAttribute::CacheConfig(CachePreference::L1))?;
    /// kernel.set_attribute(KernelAttribute::NonPortableClusterSize(true))?; // clusters of up to 16 on sm_90
    /// # Ok(()) }
    /// ```
    ///
    /// [`Status::InvalidArgument`](crate::Status::InvalidArgument) for a value outside the
    /// attribute's range (a carveout above 100 percent), [`Status::Unsupported`](crate::Status::Unsupported)
    /// for non-portable cluster sizes on a device without clusters. Racing launches on other
    /// threads may see either setting.
    pub fn set_attribute(&self, attribute: KernelAttribute) -> Result<()> {
        let (code, value) = attribute.to_raw();
        call!(cuabi_kernel_set_attribute(self.raw, code, value))
    }

    /// How many clusters of `config`'s cluster shape, each block of `config`'s block with its
    /// dynamic shared memory, can be resident on the device at once (0 when none fits); the
    /// config's grid, stream and flags are ignored. [`Status::LaunchCluster`](crate::Status::LaunchCluster)
    /// when the device has no clusters, or the cluster is malformed or above the kernel's limit
    /// (8 blocks, 16 after [`KernelAttribute::NonPortableClusterSize`] on sm_90), and the launch
    /// statuses for a block or shared memory a launch would refuse.
    pub fn max_active_clusters(&self, config: &LaunchConfig<'_>) -> Result<u32> {
        let mut clusters = 0;
        call!(cuabi_kernel_get_max_active_clusters(self.raw, config.as_raw(), &mut clusters))?;
        Ok(clusters)
    }

    /// The C handle, for the raw API. Owned by this value.
    pub fn as_raw(&self) -> *mut sys::cuabi_kernel {
        self.raw
    }
}

impl Drop for Kernel {
    fn drop(&mut self) {
        destroy!(cuabi_kernel_destroy(self.raw));
    }
}

/// What [`Kernel::suggest_block_size`] suggests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockSizeSuggestion {
    /// Threads per block for the highest occupancy.
    pub block_threads: u32,
    /// The smallest grid, in blocks, that fills the device with that block size.
    pub min_grid_blocks: u32,
}

/// Facts about a kernel on its device ([`Kernel::attributes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct KernelAttributes {
    /// Registers per thread.
    pub registers_per_thread: i32,
    /// The kernel's own thread limit (at most the device's).
    pub max_threads_per_block: i32,
    /// Static shared memory, bytes.
    pub static_shared_memory_bytes: i32,
    /// Constant memory, bytes.
    pub constant_memory_bytes: i32,
    /// Local memory per thread, bytes.
    pub local_memory_bytes: i32,
    /// The current limit for dynamic shared memory, bytes.
    pub max_dynamic_shared_memory_bytes: i32,
    /// The virtual architecture it was compiled for: 90 = compute_90.
    pub ptx_version: i32,
    /// The binary's architecture: 90 = sm_90.
    pub binary_version: i32,
}

/// An attribute a caller may set on a kernel ([`Kernel::set_attribute`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum KernelAttribute {
    /// The preferred share of the L1/shared memory array for shared memory (a hint).
    SharedMemoryCarveout(Carveout),
    /// `true`: allow clusters above 8 blocks (up to 16 on sm_90) where the device has them.
    NonPortableClusterSize(bool),
    /// How to split the L1 cache and shared memory.
    CacheConfig(CachePreference),
}

impl KernelAttribute {
    /// The `CUABI_KERNEL_ATTRIBUTE_*` code and its value.
    fn to_raw(self) -> (i32, i32) {
        match self {
            KernelAttribute::SharedMemoryCarveout(carveout) => {
                let percent = match carveout {
                    Carveout::NoPreference => -1,
                    Carveout::Percent(percent) => i32::from(percent),
                };
                (sys::CUABI_KERNEL_ATTRIBUTE_SHARED_MEMORY_CARVEOUT, percent)
            }
            KernelAttribute::NonPortableClusterSize(allowed) => {
                (sys::CUABI_KERNEL_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE, i32::from(allowed))
            }
            KernelAttribute::CacheConfig(preference) => {
                let value = match preference {
                    CachePreference::None => sys::CUABI_CACHE_PREFER_NONE,
                    CachePreference::Shared => sys::CUABI_CACHE_PREFER_SHARED,
                    CachePreference::L1 => sys::CUABI_CACHE_PREFER_L1,
                    CachePreference::Equal => sys::CUABI_CACHE_PREFER_EQUAL,
                };
                (sys::CUABI_KERNEL_ATTRIBUTE_CACHE_CONFIG, value)
            }
        }
    }
}

/// The shared-memory carveout ([`KernelAttribute::SharedMemoryCarveout`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Carveout {
    /// Let the driver choose.
    NoPreference,
    /// This percentage of the array for shared memory, 0..=100 (cuabi refuses more).
    Percent(u8),
}

/// The L1 / shared memory split ([`KernelAttribute::CacheConfig`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CachePreference {
    /// No preference.
    None,
    /// More shared memory, less L1.
    Shared,
    /// More L1, less shared memory.
    L1,
    /// Equal parts.
    Equal,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_are_the_headers_codes_and_values() {
        let cases = [
            (KernelAttribute::SharedMemoryCarveout(Carveout::NoPreference), (1, -1)),
            (KernelAttribute::SharedMemoryCarveout(Carveout::Percent(0)), (1, 0)),
            (KernelAttribute::SharedMemoryCarveout(Carveout::Percent(100)), (1, 100)),
            (KernelAttribute::SharedMemoryCarveout(Carveout::Percent(101)), (1, 101)),
            (KernelAttribute::NonPortableClusterSize(false), (2, 0)),
            (KernelAttribute::NonPortableClusterSize(true), (2, 1)),
            (KernelAttribute::CacheConfig(CachePreference::None), (3, 0)),
            (KernelAttribute::CacheConfig(CachePreference::Shared), (3, 1)),
            (KernelAttribute::CacheConfig(CachePreference::L1), (3, 2)),
            (KernelAttribute::CacheConfig(CachePreference::Equal), (3, 3)),
        ];
        for (attribute, raw) in cases {
            assert_eq!(attribute.to_raw(), raw, "{attribute:?}");
        }
    }
}
