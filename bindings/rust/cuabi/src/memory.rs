//! Stream-ordered and managed memory: memory pools, buffers allocated and freed on a stream (graph
//! memory nodes inside a capture), and managed buffers with prefetch and advice.

use crate::buffer::Buffer;
use crate::context::Context;
use crate::error::Result;
use crate::ffi::{call, defaults, destroy};
use crate::stream::Stream;
use cuabi_sys as sys;

/// How a created [`MemoryPool`] behaves. The default: the driver's size limit, a release
/// threshold of 0 (freed memory goes back to the system at the next synchronization).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryPoolOptions {
    max_size: u64,
    release_threshold: u64,
}

impl MemoryPoolOptions {
    /// The defaults.
    pub fn new() -> MemoryPoolOptions {
        MemoryPoolOptions::default()
    }

    /// The most bytes the pool may hold (0: the driver's limit).
    pub fn max_size(mut self, bytes: u64) -> MemoryPoolOptions {
        self.max_size = bytes;
        self
    }

    /// Bytes the pool keeps when a synchronization finds them unused.
    pub fn release_threshold(mut self, bytes: u64) -> MemoryPoolOptions {
        self.release_threshold = bytes;
        self
    }

    fn to_raw(self) -> Result<sys::cuabi_memory_pool_options> {
        let mut raw: sys::cuabi_memory_pool_options = defaults()?;
        raw.max_size = self.max_size;
        raw.release_threshold = self.release_threshold;
        Ok(raw)
    }
}

/// What [`MemoryPool::attribute`] reads, each a byte count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PoolAttribute {
    /// Memory kept on synchronization before giving it back.
    ReleaseThreshold,
    /// Memory the pool holds from the system now.
    ReservedCurrent,
    /// The most it held.
    ReservedHigh,
    /// Memory allocated to buffers now.
    UsedCurrent,
    /// The most allocated.
    UsedHigh,
}

impl PoolAttribute {
    fn raw(self) -> sys::cuabi_memory_pool_attribute {
        match self {
            PoolAttribute::ReleaseThreshold => sys::CUABI_MEMORY_POOL_RELEASE_THRESHOLD,
            PoolAttribute::ReservedCurrent => sys::CUABI_MEMORY_POOL_RESERVED_CURRENT,
            PoolAttribute::ReservedHigh => sys::CUABI_MEMORY_POOL_RESERVED_HIGH,
            PoolAttribute::UsedCurrent => sys::CUABI_MEMORY_POOL_USED_CURRENT,
            PoolAttribute::UsedHigh => sys::CUABI_MEMORY_POOL_USED_HIGH,
        }
    }
}

/// A pool of device memory for stream-ordered buffers: the device's default pool
/// ([`MemoryPool::default_for`]) or one of its own ([`MemoryPool::new`]). Buffers allocated from
/// a pool keep it alive, so dropping the pool while they live is safe. `Send + Sync`.
#[derive(Debug)]
pub struct MemoryPool {
    raw: *mut sys::cuabi_memory_pool,
}

unsafe impl Send for MemoryPool {}
unsafe impl Sync for MemoryPool {}

impl MemoryPool {
    /// A new pool on the context's device. [`Status::Unsupported`](crate::Status::Unsupported)
    /// when the device has no stream-ordered allocator.
    pub fn new(context: &Context, options: &MemoryPoolOptions) -> Result<MemoryPool> {
        let mut raw = std::ptr::null_mut();
        call!(cuabi_memory_pool_create(context.as_raw(), &options.to_raw()?, &mut raw))?;
        Ok(MemoryPool { raw })
    }

    /// The device's default pool (the one [`Buffer::new_async`] uses without a pool). Dropping
    /// the value leaves the driver's pool as it is.
    pub fn default_for(context: &Context) -> Result<MemoryPool> {
        let mut raw = std::ptr::null_mut();
        call!(cuabi_memory_pool_get_default(context.as_raw(), &mut raw))?;
        Ok(MemoryPool { raw })
    }

    /// Sets how many unused bytes the pool keeps at a synchronization (`u64::MAX`: all).
    pub fn set_release_threshold(&self, bytes: u64) -> Result<()> {
        call!(cuabi_memory_pool_set_release_threshold(self.raw, bytes))
    }

    /// Gives unused memory back to the system until at most `min_bytes_to_keep` stay reserved.
    pub fn trim(&self, min_bytes_to_keep: u64) -> Result<()> {
        call!(cuabi_memory_pool_trim(self.raw, min_bytes_to_keep))
    }

    /// Reads one of the pool's byte counts.
    pub fn attribute(&self, which: PoolAttribute) -> Result<u64> {
        let mut value = 0;
        call!(cuabi_memory_pool_get_attribute(self.raw, which.raw(), &mut value))?;
        Ok(value)
    }

    /// The C handle, for the raw API. Owned by this value.
    pub fn as_raw(&self) -> *mut sys::cuabi_memory_pool {
        self.raw
    }
}

impl Drop for MemoryPool {
    /// Releases the handle; a created pool is destroyed once its last buffer is freed.
    fn drop(&mut self) {
        destroy!(cuabi_memory_pool_destroy(self.raw));
    }
}

/// How a managed buffer starts out attached ([`Buffer::managed`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ManagedAttach {
    /// Any stream of any device may access it.
    #[default]
    Global,
    /// Attached to the host until a stream attaches it.
    Host,
}

/// Where managed memory is prefetched to or advised for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Location {
    /// The host's memory.
    Host,
    /// The device of this ordinal.
    Device(i32),
}

impl Location {
    fn raw(self) -> sys::cuabi_location {
        match self {
            Location::Host => sys::CUABI_LOCATION_HOST,
            Location::Device(ordinal) => ordinal,
        }
    }
}

/// Advice for a range of managed memory ([`Buffer::advise`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Advice {
    /// Mostly read: devices that read it get a copy (the location is ignored).
    SetReadMostly,
    /// Undoes [`Advice::SetReadMostly`].
    UnsetReadMostly,
    /// Keep the pages at the location where possible.
    SetPreferredLocation,
    /// Clears the preferred location.
    UnsetPreferredLocation,
    /// Keep the pages mapped for the location.
    SetAccessedBy,
    /// Undoes [`Advice::SetAccessedBy`].
    UnsetAccessedBy,
}

impl Advice {
    fn raw(self) -> sys::cuabi_advice {
        match self {
            Advice::SetReadMostly => sys::CUABI_ADVICE_SET_READ_MOSTLY,
            Advice::UnsetReadMostly => sys::CUABI_ADVICE_UNSET_READ_MOSTLY,
            Advice::SetPreferredLocation => sys::CUABI_ADVICE_SET_PREFERRED_LOCATION,
            Advice::UnsetPreferredLocation => sys::CUABI_ADVICE_UNSET_PREFERRED_LOCATION,
            Advice::SetAccessedBy => sys::CUABI_ADVICE_SET_ACCESSED_BY,
            Advice::UnsetAccessedBy => sys::CUABI_ADVICE_UNSET_ACCESSED_BY,
        }
    }
}

impl Buffer {
    /// `size` bytes allocated in stream order on `stream` (`None`: the per-thread stream, done
    /// before returning) from `pool` (`None`: the device's default pool). On a stream that
    /// captures, the allocation becomes a memory node of the graph. Free it with
    /// [`Buffer::free_async`]; dropping it frees it at once without waiting for queued work.
    pub fn new_async(
        context: &Context,
        size: usize,
        pool: Option<&MemoryPool>,
        stream: Option<&Stream>,
    ) -> Result<Buffer> {
        Buffer::create_async(context, size, pool, stream, sys::CUABI_BUFFER_DEFAULT)
    }

    /// As [`Buffer::new_async`], filled with zero bytes on the stream.
    pub fn zeroed_async(
        context: &Context,
        size: usize,
        pool: Option<&MemoryPool>,
        stream: Option<&Stream>,
    ) -> Result<Buffer> {
        Buffer::create_async(context, size, pool, stream, sys::CUABI_BUFFER_ZERO)
    }

    fn create_async(
        context: &Context,
        size: usize,
        pool: Option<&MemoryPool>,
        stream: Option<&Stream>,
        flags: u32,
    ) -> Result<Buffer> {
        let mut options: sys::cuabi_buffer_options = defaults()?;
        options.flags = flags;
        let pool = pool.map_or(std::ptr::null_mut(), MemoryPool::as_raw);
        let mut raw = std::ptr::null_mut();
        call!(cuabi_buffer_create_async(
            context.as_raw(),
            size,
            pool,
            &options,
            Stream::raw_or_null(stream),
            &mut raw
        ))?;
        // Safety: a new handle that nothing else owns.
        unsafe { Buffer::from_raw(raw) }
    }

    /// Frees a stream-ordered buffer when `stream` (`None`: the per-thread stream, waited for)
    /// reaches this point. Work enqueued before may still use it. On error the buffer is dropped
    /// (freed at once) and the error says why the free was refused: memory not allocated in
    /// stream order, a buffer a graph keeps alive, or one allocated outside a capture in progress.
    pub fn free_async(self, stream: Option<&Stream>) -> Result<()> {
        call!(cuabi_buffer_free_async(self.as_raw(), Stream::raw_or_null(stream)))?;
        // The handle died with the free.
        std::mem::forget(self);
        Ok(())
    }

    /// `size` bytes of managed memory: one address for host ([`Buffer::host_ptr`]) and device.
    pub fn managed(context: &Context, size: usize, attach: ManagedAttach) -> Result<Buffer> {
        let flags = match attach {
            ManagedAttach::Global => sys::CUABI_MANAGED_DEFAULT,
            ManagedAttach::Host => sys::CUABI_MANAGED_ATTACH_HOST,
        };
        let mut raw = std::ptr::null_mut();
        call!(cuabi_buffer_create_managed(context.as_raw(), size, flags, &mut raw))?;
        // Safety: a new handle that nothing else owns.
        unsafe { Buffer::from_raw(raw) }
    }

    /// The host address of a managed buffer's bytes ([`Status::Unsupported`](crate::Status::Unsupported)
    /// for device memory). Reading or writing them races with kernels that use the buffer.
    pub fn host_ptr(&self) -> Result<*mut u8> {
        let mut pointer = std::ptr::null_mut();
        call!(cuabi_buffer_get_host_pointer(self.as_raw(), &mut pointer))?;
        Ok(pointer.cast())
    }

    /// Migrates bytes `offset..offset + size` of a managed buffer to `to` on `stream` (`None`:
    /// done before returning).
    pub fn prefetch(&self, offset: usize, size: usize, to: Location, stream: Option<&Stream>) -> Result<()> {
        call!(cuabi_buffer_prefetch(self.as_raw(), offset, size, to.raw(), Stream::raw_or_null(stream)))
    }

    /// Tells the driver how bytes `offset..offset + size` of a managed buffer are used.
    pub fn advise(&self, offset: usize, size: usize, advice: Advice, location: Location) -> Result<()> {
        call!(cuabi_buffer_advise(self.as_raw(), offset, size, advice.raw(), location.raw()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_reach_the_raw_struct() {
        let raw = MemoryPoolOptions::new().max_size(1 << 30).release_threshold(1 << 20).to_raw();
        // Without the library the defaults cannot be read; with it the fields carry through.
        if let Ok(raw) = raw {
            assert_eq!(raw.max_size, 1 << 30);
            assert_eq!(raw.release_threshold, 1 << 20);
            assert_eq!(raw.reserved, 0);
        }
    }

    #[test]
    fn locations_and_advice_are_the_headers_values() {
        assert_eq!(Location::Host.raw(), sys::CUABI_LOCATION_HOST);
        assert_eq!(Location::Device(3).raw(), 3);
        assert_eq!(Advice::SetAccessedBy.raw(), sys::CUABI_ADVICE_SET_ACCESSED_BY);
        assert_eq!(PoolAttribute::UsedHigh.raw(), sys::CUABI_MEMORY_POOL_USED_HIGH);
    }
}
