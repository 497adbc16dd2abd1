//! Profiler ranges (NVTX): your own, as guards, and the catalog of cuabi's.
//!
//! Ranges show in Nsight Systems and Nsight Compute. With no profiler attached a range costs a
//! flag check; `CUABI_NVTX=0` turns them off. Names go in the `cuabi` domain unless you name one.

use crate::error::{static_text, Result};
use crate::ffi::{c_ptr, c_string, call, raw};
use cuabi_sys as sys;
use std::marker::PhantomData;

/// Opens range `name` in the `cuabi` domain on this thread until the guard drops:
///
/// ```no_run
/// # fn main() -> cuabi::Result<()> {
/// let _range = cuabi::range("load weights")?;
/// // ... work that shows in the profiler under "load weights"
/// # Ok(()) }
/// ```
pub fn range(name: &str) -> Result<RangeGuard> {
    RangeGuard::push(name, None)
}

/// Like [`range`], in `domain`.
pub fn range_in(domain: &str, name: &str) -> Result<RangeGuard> {
    RangeGuard::push(name, Some(domain))
}

/// A range open on this thread ([`range`]); dropping it closes it.
///
/// Not `Send`: a pushed range must be popped on the thread that pushed it. For a range that ends on
/// another thread, use [`Range`].
#[must_use = "the range closes when the guard drops"]
#[derive(Debug)]
pub struct RangeGuard {
    open: bool,
    thread: PhantomData<*const ()>,
}

impl RangeGuard {
    fn push(name: &str, domain: Option<&str>) -> Result<RangeGuard> {
        push(name, domain)?;
        Ok(RangeGuard { open: true, thread: PhantomData })
    }

    /// Closes the range now, reporting a failure (which dropping cannot).
    pub fn end(mut self) -> Result<()> {
        self.open = false;
        pop()
    }
}

impl Drop for RangeGuard {
    fn drop(&mut self) {
        if self.open {
            // A guard pops the range it pushed; nothing else can have popped it.
            let _ = pop();
        }
    }
}

/// Opens range `name` on this thread (`cuabi_range_push`), in `domain` (`None`: `cuabi`). Prefer
/// [`range`], whose guard pops it. [`Status::InvalidArgument`](crate::Status::InvalidArgument) for
/// an empty name or domain.
pub fn push(name: &str, domain: Option<&str>) -> Result<()> {
    let name = c_string(name, "the range name")?;
    let domain = domain.map(|domain| c_string(domain, "the range domain")).transpose()?;
    call!(cuabi_range_push(name.as_ptr(), c_ptr(domain.as_ref())))
}

/// Closes the innermost range this thread pushed (`cuabi_range_pop`).
/// [`Status::Range`](crate::Status::Range) when there is none.
pub fn pop() -> Result<()> {
    call!(cuabi_range_pop())
}

/// A range that may end on another thread and overlap others freely (`cuabi_range_start` /
/// `cuabi_range_end`). It ends when dropped, or with [`Range::end`].
///
/// `Send + Sync`: any thread may end it.
#[must_use = "the range ends when dropped"]
#[derive(Debug)]
pub struct Range {
    raw: *mut sys::cuabi_range,
}

unsafe impl Send for Range {}
unsafe impl Sync for Range {}

impl Range {
    /// Starts range `name` in the `cuabi` domain.
    pub fn start(name: &str) -> Result<Range> {
        Range::start_in_domain(name, None)
    }

    /// Starts range `name` in `domain`.
    pub fn start_in(domain: &str, name: &str) -> Result<Range> {
        Range::start_in_domain(name, Some(domain))
    }

    fn start_in_domain(name: &str, domain: Option<&str>) -> Result<Range> {
        let name = c_string(name, "the range name")?;
        let domain = domain.map(|domain| c_string(domain, "the range domain")).transpose()?;
        let mut raw = std::ptr::null_mut();
        call!(cuabi_range_start(name.as_ptr(), c_ptr(domain.as_ref()), &mut raw))?;
        Ok(Range { raw })
    }

    /// Ends the range now, reporting a failure (which dropping cannot).
    pub fn end(self) -> Result<()> {
        let raw = self.raw;
        std::mem::forget(self);
        call!(cuabi_range_end(raw))
    }

    /// The C handle, for the raw API. Owned by this value.
    pub fn as_raw(&self) -> *mut sys::cuabi_range {
        self.raw
    }
}

impl Drop for Range {
    fn drop(&mut self) {
        if let Ok(api) = crate::library::api() {
            if let Some(end) = api.cuabi_range_end {
                // Safety: the handle came from cuabi_range_start and is ended once.
                unsafe { end(self.raw) };
            }
        }
    }
}

/// Whether cuabi emits NVTX ranges (`CUABI_NVTX=0` switches them off).
pub fn enabled() -> Result<bool> {
    Ok(raw!(cuabi_range_get_enabled()) != 0)
}

/// Whether ranges are enabled and a profiler is attached to this process.
pub fn profiler_attached() -> Result<bool> {
    Ok(raw!(cuabi_range_get_profiler_attached()) != 0)
}

/// One of cuabi's own ranges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CatalogEntry {
    /// Its NVTX message ("cuabi.compile"), unique, always `cuabi.`-prefixed.
    pub name: &'static str,
    /// The phase it covers.
    pub description: &'static str,
}

/// Every range cuabi marks its own phases with.
pub fn catalog() -> Result<Vec<CatalogEntry>> {
    let mut count = 0;
    call!(cuabi_range_get_catalog_count(&mut count))?;
    (0..count)
        .map(|index| {
            let (mut name, mut description) = (std::ptr::null(), std::ptr::null());
            call!(cuabi_range_get_catalog_entry(index, &mut name, &mut description))?;
            // Safety: catalog strings are static in the library, which is never unloaded.
            Ok(unsafe { CatalogEntry { name: static_text(name), description: static_text(description) } })
        })
        .collect()
}
