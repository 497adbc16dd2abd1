//! Batched launches: many launches in one call (`cuabi_launch_batch`), each checked as one
//! [`Kernel::launch_packed`] would be.

use crate::error::{Error, Result};
use crate::ffi::raw;
use crate::kernel::Kernel;
use crate::launch::{LaunchConfig, PackedArgs};
use cuabi_sys as sys;
use std::marker::PhantomData;

/// The most items one [`launch_batch`] call takes (`CUABI_LAUNCH_BATCH_MAX_ITEMS`).
pub const MAX_BATCH_ITEMS: usize = sys::CUABI_LAUNCH_BATCH_MAX_ITEMS as usize;

/// One launch of a batch: a kernel, its config and its packed arguments, all borrowed. It has the
/// layout of the C `cuabi_launch_item`, so a slice of items goes to the library as it is: building
/// and launching a batch allocates nothing.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct LaunchItem<'a> {
    raw: sys::cuabi_launch_item,
    borrows: PhantomData<(&'a Kernel, &'a LaunchConfig<'a>, &'a [u8])>,
}

// Safety: an item only holds what it borrows, and every borrowed type is Sync.
unsafe impl Send for LaunchItem<'_> {}
unsafe impl Sync for LaunchItem<'_> {}

impl<'a> LaunchItem<'a> {
    /// A launch of `kernel` with `config` and arguments packed as [`PackedArgs`] lays them out.
    pub fn new(kernel: &'a Kernel, config: &'a LaunchConfig<'a>, args: &'a PackedArgs) -> LaunchItem<'a> {
        LaunchItem::with_raw(kernel, config, args.as_ptr(), args.len())
    }

    /// A launch with a packed buffer laid out by the caller at [`Kernel::params`]' offsets.
    pub fn bytes(kernel: &'a Kernel, config: &'a LaunchConfig<'a>, packed: &'a [u8]) -> LaunchItem<'a> {
        LaunchItem::with_raw(kernel, config, packed.as_ptr().cast(), packed.len())
    }

    fn with_raw(
        kernel: &'a Kernel,
        config: &'a LaunchConfig<'a>,
        packed: *const std::os::raw::c_void,
        size: usize,
    ) -> LaunchItem<'a> {
        // A non-NULL pointer selects the packed form, also for a kernel without parameters.
        let packed = if packed.is_null() { std::ptr::NonNull::<u8>::dangling().as_ptr().cast() } else { packed };
        LaunchItem {
            raw: sys::cuabi_launch_item {
                kernel: kernel.as_raw(),
                config: config.as_raw(),
                args: std::ptr::null(),
                arg_count: 0,
                packed,
                packed_size: size,
            },
            borrows: PhantomData,
        }
    }
}

impl std::fmt::Debug for LaunchItem<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LaunchItem")
            .field("kernel", &self.raw.kernel)
            .field("packed_size", &self.raw.packed_size)
            .finish()
    }
}

/// A refused batch: launches `0..index` were submitted, launch `index` was refused with `error`
/// (whose message begins "cuabi_launch_batch item index of n: "), and nothing after it ran.
#[derive(Debug)]
pub struct BatchError {
    /// The refused item's index: also how many items were submitted before it.
    pub index: usize,
    /// Why it was refused.
    pub error: Error,
}

impl std::fmt::Display for BatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for BatchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl From<BatchError> for Error {
    fn from(batch: BatchError) -> Error {
        batch.error
    }
}

/// Launches `items` in order with one call, each checked and submitted as one
/// [`Kernel::launch_packed`] would be (counters, profiler ranges and capture included). An empty
/// slice launches nothing. At most [`MAX_BATCH_ITEMS`] items; more is refused, with index 0, before
/// any runs. Allocates nothing on success.
pub fn launch_batch(items: &[LaunchItem<'_>]) -> std::result::Result<(), BatchError> {
    let mut submitted = 0usize;
    let status = submit(items, &mut submitted).map_err(|error| BatchError { index: 0, error })?;
    if status == sys::CUABI_SUCCESS {
        return Ok(());
    }
    Err(BatchError { index: submitted, error: Error::last(status) })
}

fn submit(items: &[LaunchItem<'_>], submitted: &mut usize) -> Result<sys::cuabi_status> {
    // LaunchItem is repr(transparent) over cuabi_launch_item.
    let pointer = if items.is_empty() { std::ptr::null() } else { items.as_ptr().cast::<sys::cuabi_launch_item>() };
    Ok(raw!(cuabi_launch_batch(pointer, items.len(), submitted)))
}
