//! The context: one device's primary CUDA context, and its counters.

use crate::device::DeviceInfo;
use crate::error::Result;
use crate::ffi::{call, defaults, destroy};
use cuabi_sys as sys;
use std::os::raw::c_void;

/// One device's primary CUDA context (the one the CUDA runtime also uses), retained while this
/// handle or anything made from it lives.
///
/// Everything else is made from a context: [`Stream`](crate::Stream), [`Event`](crate::Event),
/// [`Buffer`](crate::Buffer), [`Module`](crate::Module). Those keep the CUDA context alive
/// themselves (the C library holds a reference for each), so they do not borrow the `Context` and
/// may outlive it: dropping handles in any order is safe.
///
/// `Send + Sync`: every context function of cuabi is thread-safe, and cuabi makes the context
/// current on whichever thread needs it.
#[derive(Debug)]
pub struct Context {
    raw: *mut sys::cuabi_context,
}

unsafe impl Send for Context {}
unsafe impl Sync for Context {}

impl Context {
    /// A context on device 0.
    ///
    /// Without a GPU this fails with [`Status::DriverNotFound`](crate::Status::DriverNotFound) or
    /// [`Status::NoDevice`](crate::Status::NoDevice) ([`Error::is_no_gpu`](crate::Error::is_no_gpu)),
    /// with a message that says what is missing.
    pub fn new() -> Result<Context> {
        Context::on_device(0)
    }

    /// A context on device `ordinal`. [`Status::InvalidDevice`](crate::Status::InvalidDevice) for a
    /// bad ordinal.
    pub fn on_device(ordinal: i32) -> Result<Context> {
        Context::with_options(&ContextOptions::new().device(ordinal))
    }

    /// A context as `options` say. [`Status::InvalidDevice`](crate::Status::InvalidDevice) for a
    /// bad ordinal.
    pub fn with_options(options: &ContextOptions) -> Result<Context> {
        let mut raw_options: sys::cuabi_context_options = defaults()?;
        raw_options.device_ordinal = options.device;
        raw_options.image_verification = options.image_verification.code();
        let mut raw = std::ptr::null_mut();
        call!(cuabi_context_create(&raw_options, &mut raw))?;
        Ok(Context { raw })
    }

    /// Facts and launch limits of the context's device.
    pub fn device_info(&self) -> Result<DeviceInfo> {
        let mut raw = DeviceInfo::raw()?;
        call!(cuabi_context_get_device_info(self.raw, &mut raw))?;
        Ok(DeviceInfo::from_raw(&raw))
    }

    /// Waits until all work on the context's device submitted by this process is done.
    pub fn synchronize(&self) -> Result<()> {
        call!(cuabi_context_synchronize(self.raw))
    }

    /// The underlying `CUcontext`, for other CUDA code. Not owned by the caller.
    pub fn native(&self) -> Result<*mut c_void> {
        let mut native = std::ptr::null_mut();
        call!(cuabi_context_get_native(self.raw, &mut native))?;
        Ok(native)
    }

    /// The work done through cuabi on this context so far.
    pub fn counters(&self) -> Result<Counters> {
        let mut raw: sys::cuabi_counters = defaults()?;
        call!(cuabi_context_get_counters(self.raw, &mut raw))?;
        Ok(Counters::from_raw(&raw))
    }

    /// Whether this context's device can be given access to the memory of `peer`'s device
    /// ([`enable_peer_access`](Self::enable_peer_access)); `true` for two contexts of one device.
    pub fn can_access_peer(&self, peer: &Context) -> Result<bool> {
        let mut can = 0u32;
        call!(cuabi_context_can_access_peer(self.raw, peer.raw, &mut can))?;
        Ok(can != 0)
    }

    /// Lets this context's kernels and copies reach the memory of `peer`'s device (one direction).
    /// Enabling what is already enabled succeeds. [`Status::Unsupported`](crate::Status::Unsupported)
    /// when the devices cannot be peers; the message names both.
    pub fn enable_peer_access(&self, peer: &Context) -> Result<()> {
        call!(cuabi_context_enable_peer_access(self.raw, peer.raw))
    }

    /// Undoes [`enable_peer_access`](Self::enable_peer_access); disabling what is not enabled
    /// succeeds. Work still using the peer's memory must have finished.
    pub fn disable_peer_access(&self, peer: &Context) -> Result<()> {
        call!(cuabi_context_disable_peer_access(self.raw, peer.raw))
    }

    /// Whether peer access from this context to `peer`'s device is enabled through cuabi.
    pub fn peer_access_enabled(&self, peer: &Context) -> Result<bool> {
        let mut enabled = 0u32;
        call!(cuabi_context_get_peer_access(self.raw, peer.raw, &mut enabled))?;
        Ok(enabled != 0)
    }

    /// The C handle, for the raw API ([`raw_api`](crate::raw_api)). Owned by this value.
    pub fn as_raw(&self) -> *mut sys::cuabi_context {
        self.raw
    }
}

/// Which images a context first trial-loads in cuabi's image verifier process, a separate process
/// where a damaged image that crashes or hangs the CUDA driver's loader costs
/// [`Status::InvalidImage`](crate::Status::InvalidImage) instead of this process
/// (`docs/safety.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ImageVerification {
    /// `$CUABI_IMAGE_VERIFY` (`untrusted`, `all`, `none`), else [`Untrusted`](Self::Untrusted).
    #[default]
    Default,
    /// Images cuabi did not compile ([`Module::load_image`](crate::Module::load_image)).
    Untrusted,
    /// Also cuabi's own compiles and cache entries.
    All,
    /// None: every image's source is trusted with the process.
    None,
}

impl ImageVerification {
    fn code(self) -> i32 {
        match self {
            ImageVerification::Default => sys::CUABI_IMAGE_VERIFY_DEFAULT,
            ImageVerification::Untrusted => sys::CUABI_IMAGE_VERIFY_UNTRUSTED,
            ImageVerification::All => sys::CUABI_IMAGE_VERIFY_ALL,
            ImageVerification::None => sys::CUABI_IMAGE_VERIFY_NONE,
        }
    }
}

/// How [`Context::with_options`] makes a context: by default on device 0 with
/// [`ImageVerification::Default`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ContextOptions {
    device: i32,
    image_verification: ImageVerification,
}

impl ContextOptions {
    /// Device 0, [`ImageVerification::Default`]: cuabi's defaults.
    pub fn new() -> ContextOptions {
        ContextOptions::default()
    }

    /// The CUDA device ordinal.
    pub fn device(mut self, ordinal: i32) -> ContextOptions {
        self.device = ordinal;
        self
    }

    /// Which images the context verifies before loading them.
    pub fn image_verification(mut self, policy: ImageVerification) -> ContextOptions {
        self.image_verification = policy;
        self
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        destroy!(cuabi_context_destroy(self.raw));
    }
}

/// Counters of the work done through cuabi on one context ([`Context::counters`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Counters {
    /// Every kernel launch through cuabi.
    pub launches: u64,
    /// Of which: packed-argument form.
    pub launches_packed: u64,
    /// Of which: cooperative.
    pub launches_cooperative: u64,
    /// Of which: with a thread block cluster.
    pub launches_cluster: u64,
    /// Stream, event and context synchronizations.
    pub synchronizations: u64,
    /// Graph replays.
    pub graph_launches: u64,
    /// Graph instantiations.
    pub graph_instantiations: u64,
    /// Kernel-node and memset-node updates.
    pub graph_updates: u64,
    /// Whole-graph updates that had to re-instantiate.
    pub graph_reinstantiations: u64,
    /// NVRTC compilations run for this context.
    pub compiles: u64,
    /// Wall time spent in them, in nanoseconds.
    pub compile_time_ns: u64,
    /// Compiles served by the in-memory cache.
    pub memory_cache_hits: u64,
    /// Compiles the in-memory cache did not have.
    pub memory_cache_misses: u64,
    /// Compiles served by the disk cache.
    pub disk_cache_hits: u64,
    /// Compiles the disk cache did not have.
    pub disk_cache_misses: u64,
    /// Corrupt disk entries found, removed and recompiled.
    pub disk_cache_corrupt_recovered: u64,
    /// Disk entries evicted to respect the size cap.
    pub disk_cache_evictions: u64,
}

impl Counters {
    fn from_raw(raw: &sys::cuabi_counters) -> Counters {
        Counters {
            launches: raw.launches,
            launches_packed: raw.launches_packed,
            launches_cooperative: raw.launches_cooperative,
            launches_cluster: raw.launches_cluster,
            synchronizations: raw.synchronizations,
            graph_launches: raw.graph_launches,
            graph_instantiations: raw.graph_instantiations,
            graph_updates: raw.graph_updates,
            graph_reinstantiations: raw.graph_reinstantiations,
            compiles: raw.compiles,
            compile_time_ns: raw.compile_time_ns,
            memory_cache_hits: raw.memory_cache_hits,
            memory_cache_misses: raw.memory_cache_misses,
            disk_cache_hits: raw.disk_cache_hits,
            disk_cache_misses: raw.disk_cache_misses,
            disk_cache_corrupt_recovered: raw.disk_cache_corrupt_recovered,
            disk_cache_evictions: raw.disk_cache_evictions,
        }
    }
}
