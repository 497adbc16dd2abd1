//! Device memory: buffers, the values that may be copied in and out of them, device addresses.

use crate::context::Context;
use crate::error::{Error, Result, Status};
use crate::ffi::{call, defaults, destroy};
use crate::stream::Stream;
use cuabi_sys as sys;
use std::mem::size_of_val;

/// Plain data that may be copied to and from the device byte for byte, and passed to kernels.
///
/// # Safety
/// Every bit pattern of the type's size must be a valid value (reading device memory into it may
/// produce any), and the type must hold no pointers into host memory or references. Implement it
/// for `#[repr(C)]` structs of such fields whose layout matches the CUDA C++ type they stand for.
pub unsafe trait DeviceCopy: Copy + 'static {}

macro_rules! device_copy {
    ($($ty:ty),*) => { $(unsafe impl DeviceCopy for $ty {})* };
}
device_copy!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64, DevicePtr);
unsafe impl<T: DeviceCopy, const N: usize> DeviceCopy for [T; N] {}

/// A device address (a `CUdeviceptr`), e.g. to pass a pointer kernel parameter that is not a whole
/// [`Buffer`]. cuabi does not know what it points at: keep the memory alive while kernels use it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct DevicePtr(pub u64);

impl DevicePtr {
    /// The address `bytes` further on.
    pub fn offset(self, bytes: u64) -> DevicePtr {
        DevicePtr(self.0 + bytes)
    }
}

/// How [`Buffer::copy_from_peer`] copies between devices without peer access.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PeerCopy {
    /// Refuse the copy: peer access must be enabled.
    #[default]
    Direct,
    /// Let the driver stage the bytes through host memory (slower, but any two devices).
    Staged,
}

impl PeerCopy {
    fn flags(self) -> u32 {
        match self {
            PeerCopy::Direct => sys::CUABI_PEER_COPY_DEFAULT,
            PeerCopy::Staged => sys::CUABI_PEER_COPY_STAGED,
        }
    }
}

/// A value [`Buffer::fill`] can repeat: 1, 2 or 4 bytes.
pub trait FillValue: DeviceCopy + private::Sealed {
    /// The value's bytes in the low bits of a `u32`.
    fn bits(self) -> u32;
}

mod private {
    pub trait Sealed {}
}

macro_rules! fill_value {
    ($($ty:ty => $bits:expr),*) => {
        $(impl private::Sealed for $ty {}
        impl FillValue for $ty {
            fn bits(self) -> u32 {
                #[allow(clippy::redundant_closure_call)]
                ($bits)(self)
            }
        })*
    };
}
fill_value!(u8 => u32::from, u16 => u32::from, u32 => |v| v, i8 => |v: i8| u32::from(v as u8),
            i16 => |v: i16| u32::from(v as u16), i32 => |v: i32| v as u32, f32 => f32::to_bits);

/// Device memory of a fixed size on one context: owned (allocated by cuabi, freed on drop) or
/// wrapped (memory from elsewhere, never freed by cuabi). Every transfer is checked against the
/// buffer's bounds ([`Status::OutOfBounds`]). Offsets are in bytes.
///
/// A `Buffer` is itself a kernel argument: it passes its device address.
///
/// `Send + Sync`: cuabi's buffer functions are thread-safe (concurrent writes to the same bytes are
/// the caller's race, as in CUDA).
#[derive(Debug)]
pub struct Buffer {
    raw: *mut sys::cuabi_buffer,
    address: u64,
    size: usize,
}

unsafe impl Send for Buffer {}
unsafe impl Sync for Buffer {}

impl Buffer {
    /// `size` bytes of uninitialized device memory. [`Status::DeviceOutOfMemory`] when the device
    /// cannot hold it, [`Status::InvalidArgument`] for size 0.
    pub fn new(context: &Context, size: usize) -> Result<Buffer> {
        Buffer::create(context, size, sys::CUABI_BUFFER_DEFAULT)
    }

    /// `size` bytes of device memory filled with zero bytes.
    pub fn zeroed(context: &Context, size: usize) -> Result<Buffer> {
        Buffer::create(context, size, sys::CUABI_BUFFER_ZERO)
    }

    /// A buffer holding a copy of `data`.
    pub fn from_slice<T: DeviceCopy>(context: &Context, data: &[T]) -> Result<Buffer> {
        let buffer = Buffer::new(context, size_of_val(data))?;
        buffer.write(0, data)?;
        Ok(buffer)
    }

    fn create(context: &Context, size: usize, flags: u32) -> Result<Buffer> {
        let mut options: sys::cuabi_buffer_options = defaults()?;
        options.flags = flags;
        let mut raw = std::ptr::null_mut();
        call!(cuabi_buffer_create(context.as_raw(), size, &options, &mut raw))?;
        Buffer::adopt(raw)
    }

    /// Wraps `size` bytes at `address` (a `CUdeviceptr` from other CUDA code) without taking
    /// ownership. cuabi checks that the range is CUDA memory of the context.
    ///
    /// # Safety
    /// The memory must outlive the returned value (and every graph that uses it).
    pub unsafe fn wrap(context: &Context, address: DevicePtr, size: usize) -> Result<Buffer> {
        let mut raw = std::ptr::null_mut();
        call!(cuabi_buffer_wrap(context.as_raw(), address.0, size, &mut raw))?;
        Buffer::adopt(raw)
    }

    /// Takes ownership of a buffer handle made through the raw API, reading its address and size.
    ///
    /// # Safety
    /// `raw` must be a live buffer handle that nothing else destroys.
    pub unsafe fn from_raw(raw: *mut sys::cuabi_buffer) -> Result<Buffer> {
        Buffer::adopt(raw)
    }

    fn adopt(raw: *mut sys::cuabi_buffer) -> Result<Buffer> {
        let mut buffer = Buffer { raw, address: 0, size: 0 };
        call!(cuabi_buffer_get_device_address(raw, &mut buffer.address))?;
        call!(cuabi_buffer_get_size(raw, &mut buffer.size))?;
        Ok(buffer)
    }

    /// The buffer's size in bytes.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The buffer's device address.
    pub fn device_ptr(&self) -> DevicePtr {
        DevicePtr(self.address)
    }

    /// Copies `data` to the buffer at byte `offset`, finished before returning.
    pub fn write<T: DeviceCopy>(&self, offset: usize, data: &[T]) -> Result<()> {
        call!(cuabi_buffer_write(self.raw, offset, data.as_ptr().cast(), size_of_val(data), std::ptr::null_mut()))
    }

    /// Copies from the buffer at byte `offset` into `out`, finished before returning.
    pub fn read<T: DeviceCopy>(&self, offset: usize, out: &mut [T]) -> Result<()> {
        call!(cuabi_buffer_read(self.raw, offset, out.as_mut_ptr().cast(), size_of_val(out), std::ptr::null_mut()))
    }

    /// The whole buffer as values of `T` (its size must be a multiple of `T`'s).
    pub fn to_vec<T: DeviceCopy + Default>(&self) -> Result<Vec<T>> {
        let element = std::mem::size_of::<T>();
        if element == 0 || self.size % element != 0 {
            return Err(Error::binding(
                Status::InvalidArgument,
                format!(
                    "the buffer's {} bytes are not a whole number of {}-byte values. Fix: read it as a type whose size \
                     divides the buffer's, or use Buffer::read",
                    self.size, element
                ),
            ));
        }
        let mut values = vec![T::default(); self.size / element];
        self.read(0, &mut values)?;
        Ok(values)
    }

    /// Enqueues a copy of `data` to the buffer at byte `offset` on `stream` and returns.
    ///
    /// # Safety
    /// `data` must stay valid and unchanged until the stream reaches the copy (synchronize it, or an
    /// event recorded after). While the stream captures a graph, every replay reads `data` again:
    /// it must then outlive the graph.
    pub unsafe fn write_async<T: DeviceCopy>(&self, offset: usize, data: &[T], stream: &Stream) -> Result<()> {
        call!(cuabi_buffer_write(self.raw, offset, data.as_ptr().cast(), size_of_val(data), stream.as_raw()))
    }

    /// Enqueues a copy from the buffer at byte `offset` into `out` on `stream` and returns.
    ///
    /// # Safety
    /// `out` must stay valid, and must not be read or written, until the stream has finished the
    /// copy. While the stream captures a graph, every replay writes `out` again.
    pub unsafe fn read_async<T: DeviceCopy>(&self, offset: usize, out: &mut [T], stream: &Stream) -> Result<()> {
        call!(cuabi_buffer_read(self.raw, offset, out.as_mut_ptr().cast(), size_of_val(out), stream.as_raw()))
    }

    /// Copies `size` bytes from `source` at `source_offset` to this buffer at `offset`, on `stream`
    /// (`None`: finished before returning). Both buffers must be of one device; the ranges must not
    /// overlap.
    pub fn copy_from(
        &self,
        offset: usize,
        source: &Buffer,
        source_offset: usize,
        size: usize,
        stream: Option<&Stream>,
    ) -> Result<()> {
        call!(cuabi_buffer_copy(self.raw, offset, source.raw, source_offset, size, Stream::raw_or_null(stream)))
    }

    /// Copies `size` bytes from `source` at `source_offset`, on any device, to this buffer at
    /// `offset`, on `stream` (of either buffer's device; `None`: this buffer's device, finished
    /// before returning). Between devices, the stream's device needs peer access to the other
    /// ([`Context::enable_peer_access`]) unless `mode` is [`PeerCopy::Staged`]; otherwise the copy
    /// is refused with [`Status::ContextMismatch`] naming both devices.
    pub fn copy_from_peer(
        &self,
        offset: usize,
        source: &Buffer,
        source_offset: usize,
        size: usize,
        mode: PeerCopy,
        stream: Option<&Stream>,
    ) -> Result<()> {
        call!(cuabi_buffer_copy_peer(
            self.raw,
            offset,
            source.raw,
            source_offset,
            size,
            mode.flags(),
            Stream::raw_or_null(stream)
        ))
    }

    /// Sets `count` values starting at byte `offset` to `value` (1, 2 or 4 bytes; the offset must be
    /// a multiple of its size), on `stream` (`None`: finished before returning).
    pub fn fill<T: FillValue>(&self, offset: usize, value: T, count: usize, stream: Option<&Stream>) -> Result<()> {
        let element_size = std::mem::size_of::<T>() as u32;
        call!(cuabi_buffer_fill(self.raw, offset, value.bits(), element_size, count, Stream::raw_or_null(stream)))
    }

    /// The C handle, for the raw API. Owned by this value.
    pub fn as_raw(&self) -> *mut sys::cuabi_buffer {
        self.raw
    }

    /// Where the device address is stored, for passing the buffer as a kernel argument.
    pub(crate) fn address_slot(&self) -> &u64 {
        &self.address
    }
}

impl Drop for Buffer {
    /// Releases the handle. Owned memory is freed once no graph keeps it alive; like `cuMemFree`,
    /// the drop does not wait for kernels still using it (synchronize first).
    fn drop(&mut self) {
        destroy!(cuabi_buffer_destroy(self.raw));
    }
}
