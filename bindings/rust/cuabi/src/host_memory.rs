//! Page-locked ("pinned") host memory: allocated by cuabi, or the caller's own memory registered
//! for as long as a borrow of it lives.

use crate::buffer::{DeviceCopy, DevicePtr};
use crate::context::Context;
use crate::error::{Error, Result, Status};
use crate::ffi::{call, defaults, destroy};
use cuabi_sys as sys;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

/// How host memory is pinned ([`HostMemory::new`], [`HostMemory::register`]). The default pins it
/// for the context's device only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostMemoryOptions {
    flags: u32,
}

impl HostMemoryOptions {
    /// No flags: pinned for the context's device.
    pub fn new() -> HostMemoryOptions {
        HostMemoryOptions::default()
    }

    /// Pinned for every context, not only this one.
    pub fn portable(mut self) -> HostMemoryOptions {
        self.flags |= sys::CUABI_HOST_MEMORY_PORTABLE;
        self
    }

    /// Also mapped into the device's address space: kernels reach the bytes over the bus at
    /// [`HostMemory::device_ptr`] (zero-copy).
    pub fn device_mapped(mut self) -> HostMemoryOptions {
        self.flags |= sys::CUABI_HOST_MEMORY_DEVICE_MAPPED;
        self
    }

    /// Write-combined (allocation only; registering refuses it): faster for the GPU to read across
    /// the bus, very slow for the CPU to read.
    pub fn write_combined(mut self) -> HostMemoryOptions {
        self.flags |= sys::CUABI_HOST_MEMORY_WRITE_COMBINED;
        self
    }

    /// The `CUABI_HOST_MEMORY_*` flags.
    pub fn flags(&self) -> u32 {
        self.flags
    }

    fn to_raw(self) -> Result<sys::cuabi_host_memory_options> {
        let mut raw: sys::cuabi_host_memory_options = defaults()?;
        raw.flags = self.flags;
        Ok(raw)
    }
}

/// Page-locked host memory holding values of `T`, used as a slice (`Deref<Target = [T]>`).
///
/// The GPU's copy engines read and write pinned memory directly, so transfers on a stream
/// ([`Buffer::write_async`](crate::Buffer::write_async), [`Buffer::read_async`](crate::Buffer::read_async))
/// overlap with kernels on other streams and run at full bus speed. Pinning takes physical memory
/// from the system: pin what transfers use, not everything.
///
/// - [`HostMemory::new`] allocates (`HostMemory<'static, T>`), zeroed, and frees on drop.
/// - [`HostMemory::register`] pins the caller's slice and borrows it mutably for `'a`: the slice can
///   be neither used nor freed while it is registered, and dropping the `HostMemory` unregisters it
///   (the memory stays the caller's).
///
/// Dropping does not wait for copies still enqueued on streams: synchronize them first (the
/// `unsafe` transfer functions make the caller promise that).
///
/// `Send + Sync` as `T` is: the handle's functions are thread-safe and the values are plain memory,
/// shared by Rust's usual rules.
pub struct HostMemory<'a, T: DeviceCopy> {
    raw: *mut sys::cuabi_host_memory,
    data: *mut T,
    len: usize,
    borrowed: PhantomData<&'a mut [T]>,
}

unsafe impl<T: DeviceCopy + Send> Send for HostMemory<'_, T> {}
unsafe impl<T: DeviceCopy + Sync> Sync for HostMemory<'_, T> {}

impl<T: DeviceCopy> HostMemory<'static, T> {
    /// `len` values of pinned host memory for the context's device, zeroed.
    /// [`Status::InvalidArgument`] for a size of 0 or flags cuabi refuses,
    /// [`Status::OutOfHostMemory`] when the system cannot pin that much.
    pub fn new(context: &Context, len: usize, options: &HostMemoryOptions) -> Result<HostMemory<'static, T>> {
        let size = byte_size::<T>(len)?;
        let mut raw = std::ptr::null_mut();
        call!(cuabi_host_memory_create(context.as_raw(), size, &options.to_raw()?, &mut raw))?;
        let memory = HostMemory::adopt(raw, len)?;
        // Safety: the allocation holds `size` bytes; zero is a valid `T` (DeviceCopy's contract), and
        // Rust must never read the bytes cuMemHostAlloc leaves uninitialized.
        unsafe { std::ptr::write_bytes(memory.data, 0, len) };
        Ok(memory)
    }
}

impl<'a, T: DeviceCopy> HostMemory<'a, T> {
    /// Pins the caller's `data` (any alignment; the driver pins whole pages around it) for as long
    /// as the returned value lives; dropping it unregisters the memory, which stays the caller's.
    ///
    /// ```no_run
    /// # fn demo(context: &cuabi::Context, buffer: &cuabi::Buffer) -> cuabi::Result<()> {
    /// let mut values = vec![0f32; 1 << 20];
    /// {
    ///     let mut pinned = cuabi::HostMemory::register(context, &mut values, &cuabi::HostMemoryOptions::new())?;
    ///     pinned[0] = 1.0; // the slice, through the registration
    ///     buffer.write(0, &pinned)?;
    /// } // unregistered
    /// values[1] = 2.0;
    /// # Ok(()) }
    /// ```
    ///
    /// While registered, the slice is the registration's alone; using or freeing it does not compile:
    ///
    /// ```compile_fail
    /// # fn demo(context: &cuabi::Context) -> cuabi::Result<()> {
    /// let mut values = vec![0f32; 1024];
    /// let pinned = cuabi::HostMemory::register(context, &mut values, &cuabi::HostMemoryOptions::new())?;
    /// drop(values); // error[E0505]: cannot move out of `values` because it is borrowed
    /// drop(pinned);
    /// # Ok(()) }
    /// ```
    ///
    /// [`Status::InvalidArgument`] for an empty slice, write-combined flags, or memory that is
    /// already registered (also partly, e.g. by other code) or is not ordinary host memory;
    /// [`Status::OutOfHostMemory`] when the system cannot pin that much.
    pub fn register(context: &Context, data: &'a mut [T], options: &HostMemoryOptions) -> Result<HostMemory<'a, T>> {
        let (pointer, len) = (data.as_mut_ptr(), data.len());
        let mut raw = std::ptr::null_mut();
        call!(cuabi_host_memory_register(
            context.as_raw(),
            pointer.cast(),
            std::mem::size_of_val(data),
            &options.to_raw()?,
            &mut raw
        ))?;
        HostMemory::adopt(raw, len)
    }

    fn adopt(raw: *mut sys::cuabi_host_memory, len: usize) -> Result<HostMemory<'a, T>> {
        // Owned from here: an error below destroys the handle.
        let mut memory = HostMemory { raw, data: std::ptr::null_mut(), len: 0, borrowed: PhantomData };
        let mut pointer = std::ptr::null_mut();
        call!(cuabi_host_memory_get_pointer(raw, &mut pointer))?;
        let mut size = 0;
        call!(cuabi_host_memory_get_size(raw, &mut size))?;
        if pointer.is_null() || size != byte_size::<T>(len)? {
            return Err(Error::binding(
                Status::Internal,
                format!(
                    "cuabi reports host memory of {size} bytes at {pointer:?} for {len} values of {} bytes. Fix: report \
                     this cuabi bug",
                    std::mem::size_of::<T>()
                ),
            ));
        }
        (memory.data, memory.len) = (pointer.cast(), len);
        Ok(memory)
    }

    /// The size in bytes.
    pub fn size(&self) -> usize {
        std::mem::size_of_val(self.as_slice())
    }

    /// The values, as a slice (also through `Deref`).
    pub fn as_slice(&self) -> &[T] {
        // Safety: `data` holds `len` initialized values (zeroed at allocation, or the caller's
        // slice), owned or mutably borrowed by `self` for its whole life.
        unsafe { std::slice::from_raw_parts(self.data, self.len) }
    }

    /// The values, as a mutable slice (also through `DerefMut`).
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        // Safety: as for as_slice, and `&mut self` makes this the only access.
        unsafe { std::slice::from_raw_parts_mut(self.data, self.len) }
    }

    /// The device address at which kernels of the memory's context reach these values over the
    /// bus (zero-copy). [`Status::Unsupported`] unless pinned with
    /// [`HostMemoryOptions::device_mapped`]. Kernels writing there race with host code reading
    /// the slice: synchronize before reading.
    pub fn device_ptr(&self) -> Result<DevicePtr> {
        let mut address = 0;
        call!(cuabi_host_memory_get_device_address(self.raw, &mut address))?;
        Ok(DevicePtr(address))
    }

    /// The C handle, for the raw API. Owned by this value.
    pub fn as_raw(&self) -> *mut sys::cuabi_host_memory {
        self.raw
    }
}

/// `len` values of `T` in bytes, refused when it does not fit a `usize`.
fn byte_size<T>(len: usize) -> Result<usize> {
    len.checked_mul(std::mem::size_of::<T>()).ok_or_else(|| {
        Error::binding(
            Status::InvalidArgument,
            format!(
                "{len} values of {} bytes do not fit in the address space. Fix: pin fewer values",
                std::mem::size_of::<T>()
            ),
        )
    })
}

impl<T: DeviceCopy> Deref for HostMemory<'_, T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: DeviceCopy> DerefMut for HostMemory<'_, T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.as_mut_slice()
    }
}

impl<T: DeviceCopy> std::fmt::Debug for HostMemory<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostMemory").field("raw", &self.raw).field("data", &self.data).field("len", &self.len).finish()
    }
}

impl<T: DeviceCopy> Drop for HostMemory<'_, T> {
    /// Frees allocated memory, or unregisters the caller's (ending the borrow).
    fn drop(&mut self) {
        destroy!(cuabi_host_memory_destroy(self.raw));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_set_the_headers_flags() {
        assert_eq!(HostMemoryOptions::new().flags(), sys::CUABI_HOST_MEMORY_DEFAULT);
        let all = HostMemoryOptions::new().portable().device_mapped().write_combined();
        assert_eq!(
            all.flags(),
            sys::CUABI_HOST_MEMORY_PORTABLE
                | sys::CUABI_HOST_MEMORY_DEVICE_MAPPED
                | sys::CUABI_HOST_MEMORY_WRITE_COMBINED
        );
    }

    #[test]
    fn sizes_that_overflow_are_refused() {
        assert_eq!(byte_size::<f64>(3).unwrap(), 24);
        let error = byte_size::<f64>(usize::MAX / 4).unwrap_err();
        assert_eq!(error.status(), Status::InvalidArgument);
        assert!(error.message().contains("Fix:"), "{error}");
    }
}
