//! Events: markers in a stream, to wait for and to time with.

use crate::context::Context;
use crate::error::{check, Result};
use crate::ffi::{call, defaults, destroy, raw};
use crate::stream::Stream;
use cuabi_sys as sys;

/// A marker in a stream: record it, wait for it, measure the time between two.
///
/// `Send + Sync`: cuabi's event functions are thread-safe.
#[derive(Debug)]
pub struct Event {
    raw: *mut sys::cuabi_event,
}

unsafe impl Send for Event {}
unsafe impl Sync for Event {}

/// How an [`Event`] behaves, for [`Event::with_options`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EventOptions {
    flags: u32,
}

impl EventOptions {
    /// Timing on, spinning synchronization: cuabi's defaults.
    pub fn new() -> EventOptions {
        EventOptions::default()
    }

    /// No timing: cheaper; [`Event::elapsed_ms`] is then refused.
    pub fn disable_timing(mut self) -> EventOptions {
        self.flags |= sys::CUABI_EVENT_DISABLE_TIMING;
        self
    }

    /// Synchronize by sleeping rather than spinning.
    pub fn blocking_sync(mut self) -> EventOptions {
        self.flags |= sys::CUABI_EVENT_BLOCKING_SYNC;
        self
    }
}

impl Event {
    /// A new event with timing.
    pub fn new(context: &Context) -> Result<Event> {
        Event::with_options(context, &EventOptions::new())
    }

    /// A new event with `options`.
    pub fn with_options(context: &Context, options: &EventOptions) -> Result<Event> {
        let mut raw_options: sys::cuabi_event_options = defaults()?;
        raw_options.flags = options.flags;
        let mut raw = std::ptr::null_mut();
        call!(cuabi_event_create(context.as_raw(), &raw_options, &mut raw))?;
        Ok(Event { raw })
    }

    /// Records the event at the current end of `stream`; `None` records on the calling thread's
    /// per-thread stream, where synchronous (`None`-stream) work runs.
    pub fn record(&self, stream: Option<&Stream>) -> Result<()> {
        call!(cuabi_event_record(self.raw, Stream::raw_or_null(stream)))
    }

    /// Waits until the event has completed.
    pub fn synchronize(&self) -> Result<()> {
        call!(cuabi_event_synchronize(self.raw))
    }

    /// Whether the event has completed (`cuabi_event_query`), without waiting.
    pub fn is_done(&self) -> Result<bool> {
        let status = raw!(cuabi_event_query(self.raw));
        if status == sys::CUABI_ERROR_NOT_READY {
            return Ok(false);
        }
        check(status).map(|()| true)
    }

    /// Milliseconds from `self` to `end`, both completed (resolution about 0.5 µs).
    /// [`Status::NotReady`](crate::Status::NotReady) when one has not completed.
    pub fn elapsed_ms(&self, end: &Event) -> Result<f32> {
        let mut ms = 0.0;
        call!(cuabi_event_get_elapsed_ms(self.raw, end.raw, &mut ms))?;
        Ok(ms)
    }

    /// The C handle, for the raw API. Owned by this value.
    pub fn as_raw(&self) -> *mut sys::cuabi_event {
        self.raw
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        destroy!(cuabi_event_destroy(self.raw));
    }
}
