//! Streams: ordered queues of GPU work.

use crate::context::Context;
use crate::error::{check, Result};
use crate::event::Event;
use crate::ffi::{call, defaults, destroy, raw};
use cuabi_sys as sys;
use std::os::raw::c_void;

/// An ordered queue of GPU work on one context: launches, transfers, event records and graph
/// replays enqueued on it run in order, asynchronously to the host. cuabi's streams are
/// non-blocking (they never wait for CUDA's legacy default stream).
///
/// Functions that take an `Option<&Stream>` run synchronously for `None`: on the calling thread's
/// per-thread stream, finished before they return.
///
/// `Send + Sync`: a stream may be shared between threads (work from several threads is ordered by
/// the enqueue order). A graph capture on it ([`Stream::begin_capture`]) is tied to one thread.
#[derive(Debug)]
pub struct Stream {
    raw: *mut sys::cuabi_stream,
}

unsafe impl Send for Stream {}
unsafe impl Sync for Stream {}

impl Stream {
    /// A new stream on the context, of default priority.
    pub fn new(context: &Context) -> Result<Stream> {
        Stream::with_priority(context, 0)
    }

    /// A new stream of `priority` (lower is higher priority; clamped to the device's range).
    pub fn with_priority(context: &Context, priority: i32) -> Result<Stream> {
        let mut options: sys::cuabi_stream_options = defaults()?;
        options.priority = priority;
        let mut raw = std::ptr::null_mut();
        call!(cuabi_stream_create(context.as_raw(), &options, &mut raw))?;
        Ok(Stream { raw })
    }

    /// Wraps a `CUstream` made by other CUDA code without taking ownership: dropping the
    /// `Stream` does not destroy it.
    ///
    /// # Safety
    /// `cu_stream` must be a stream of the context's CUDA context and outlive the returned value.
    /// (cuabi refuses the NULL, legacy and per-thread streams and a stream of another context.)
    pub unsafe fn wrap(context: &Context, cu_stream: *mut c_void) -> Result<Stream> {
        let mut raw = std::ptr::null_mut();
        call!(cuabi_stream_wrap(context.as_raw(), cu_stream, &mut raw))?;
        Ok(Stream { raw })
    }

    /// Waits until all work on the stream is done.
    pub fn synchronize(&self) -> Result<()> {
        call!(cuabi_stream_synchronize(self.raw))
    }

    /// Whether all work on the stream is done (`cuabi_stream_query`), without waiting.
    pub fn is_done(&self) -> Result<bool> {
        let status = raw!(cuabi_stream_query(self.raw));
        if status == sys::CUABI_ERROR_NOT_READY {
            return Ok(false);
        }
        check(status).map(|()| true)
    }

    /// Makes later work on this stream wait until `event` has completed (fork/join across streams).
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        call!(cuabi_stream_wait_event(self.raw, event.as_raw()))
    }

    /// The underlying `CUstream`. Not owned by the caller.
    pub fn native(&self) -> Result<*mut c_void> {
        let mut native = std::ptr::null_mut();
        call!(cuabi_stream_get_native(self.raw, &mut native))?;
        Ok(native)
    }

    /// The C handle, for the raw API. Owned by this value.
    pub fn as_raw(&self) -> *mut sys::cuabi_stream {
        self.raw
    }

    /// The C handle of an optional stream: NULL (synchronous) for `None`.
    pub(crate) fn raw_or_null(stream: Option<&Stream>) -> *mut sys::cuabi_stream {
        stream.map_or(std::ptr::null_mut(), Stream::as_raw)
    }
}

impl Drop for Stream {
    /// Destroys an owned stream once its queued work finishes (the drop does not wait); releases a
    /// wrapped one. A capture cuabi began on it is ended and discarded.
    fn drop(&mut self) {
        destroy!(cuabi_stream_destroy(self.raw));
    }
}
