//! Compile batches: many compiles in parallel on cuabi's worker pool, each ending with its own
//! module or error, with progress to poll and a cancel that works from any thread.

use crate::compile::CompileOptions;
use crate::context::Context;
use crate::error::{Error, Result, Status};
use crate::ffi::{c_string, call, destroy, raw};
use crate::module::Module;
use cuabi_sys as sys;

/// The most requests one batch takes (`CUABI_COMPILE_BATCH_MAX_REQUESTS`).
pub const MAX_COMPILE_REQUESTS: usize = sys::CUABI_COMPILE_BATCH_MAX_REQUESTS as usize;

/// One compile of a batch: a source with its options, for a context's device or offline (for the
/// options' target). Borrowed: the batch copies what it needs when it starts.
#[derive(Clone, Copy, Debug)]
pub struct CompileRequest<'a> {
    context: Option<&'a Context>,
    source: &'a str,
    options: &'a CompileOptions,
}

impl<'a> CompileRequest<'a> {
    /// A compile for the options' target without a context, as [`Module::compile_offline`].
    pub fn offline(source: &'a str, options: &'a CompileOptions) -> CompileRequest<'a> {
        CompileRequest { context: None, source, options }
    }

    /// A compile for `context`'s device, loaded there, as [`Module::compile`].
    pub fn for_context(context: &'a Context, source: &'a str, options: &'a CompileOptions) -> CompileRequest<'a> {
        CompileRequest { context: Some(context), source, options }
    }
}

/// Where a request of a batch is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequestState {
    /// Waiting for a thread of the batch.
    Queued,
    /// Being looked up below the memory cache or compiled.
    Compiling,
    /// Ended: `Ok(())` with a module, or the status it failed with.
    Done(std::result::Result<(), Status>),
}

/// A batch of compiles running in parallel (`cuabi_compile_batch`). Memory-cache hits are done
/// when it starts; the rest run on cuabi's compile workers, at most `CUABI_COMPILE_WORKERS` at
/// once. Dropping it cancels what is not done and waits for its threads.
///
/// `Send + Sync`: share it (e.g. with `std::thread::scope`) to poll or cancel from another thread.
#[derive(Debug)]
pub struct CompileBatch {
    raw: *mut sys::cuabi_compile_batch,
    len: usize,
}

unsafe impl Send for CompileBatch {}
unsafe impl Sync for CompileBatch {}

impl CompileBatch {
    /// Starts compiling `requests`, at most `jobs` at once (0: as many as the worker pool allows).
    /// Fails, starting nothing, for a request cuabi refuses (the message names it by index).
    pub fn start(requests: &[CompileRequest<'_>], jobs: u32) -> Result<CompileBatch> {
        let sources = requests.iter().map(|r| c_string(r.source, "a request's source")).collect::<Result<Vec<_>>>()?;
        let options = requests.iter().map(|r| r.options.to_raw()).collect::<Result<Vec<_>>>()?;
        let raw_requests: Vec<sys::cuabi_compile_request> = requests
            .iter()
            .zip(&sources)
            .zip(&options)
            .map(|((request, source), options)| sys::cuabi_compile_request {
                context: request.context.map_or(std::ptr::null_mut(), Context::as_raw),
                source: source.as_ptr(),
                options: &options.raw,
            })
            .collect();
        let mut raw = std::ptr::null_mut();
        call!(cuabi_compile_batch_start(raw_requests.as_ptr(), raw_requests.len(), jobs, &mut raw))?;
        let mut batch = CompileBatch { raw, len: 0 };
        call!(cuabi_compile_batch_get_count(batch.raw, &mut batch.len))?;
        Ok(batch)
    }

    /// The number of requests.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the batch has no requests.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Request `index`'s state, without waiting.
    pub fn state(&self, index: usize) -> Result<RequestState> {
        let mut state = 0i32;
        let mut status = 0;
        call!(cuabi_compile_batch_get_state(self.raw, index, &mut state, &mut status))?;
        Ok(match state {
            sys::CUABI_REQUEST_QUEUED => RequestState::Queued,
            sys::CUABI_REQUEST_COMPILING => RequestState::Compiling,
            sys::CUABI_REQUEST_DONE if status == sys::CUABI_SUCCESS => RequestState::Done(Ok(())),
            sys::CUABI_REQUEST_DONE => RequestState::Done(Err(Status::from_code(status))),
            other => return Err(Error::binding(Status::Internal, format!(
                "request {index} is in state {other}, which this binding does not know. Fix: use a cuabi binding as new as the library"
            ))),
        })
    }

    /// How many requests are done.
    pub fn done(&self) -> Result<usize> {
        let mut done = 0;
        for index in 0..self.len {
            done += matches!(self.state(index)?, RequestState::Done(_)) as usize;
        }
        Ok(done)
    }

    /// Waits for request `index` and returns its module, or its own error (status, message, log).
    pub fn module(&self, index: usize) -> Result<Module> {
        let mut raw = std::ptr::null_mut();
        let status = raw!(cuabi_compile_batch_get_module(self.raw, index, &mut raw));
        if status != sys::CUABI_SUCCESS {
            return Err(Error::last_compile(status));
        }
        Ok(Module::from_raw(raw))
    }

    /// Cancels every request not done: each ends with [`Status::Cancelled`]; a compile running in
    /// the worker ends within milliseconds. Returns without waiting.
    pub fn cancel(&self) -> Result<()> {
        call!(cuabi_compile_batch_cancel(self.raw))
    }

    /// Every request's result, in order, waiting for each.
    pub fn results(&self) -> impl Iterator<Item = Result<Module>> + '_ {
        (0..self.len).map(move |index| self.module(index))
    }
}

impl Drop for CompileBatch {
    fn drop(&mut self) {
        destroy!(cuabi_compile_batch_destroy(self.raw));
    }
}

/// Compiles `requests` in parallel and returns each one's module or error, in order. Fails as a
/// whole only when the batch cannot start.
pub fn compile_batch(requests: &[CompileRequest<'_>]) -> Result<Vec<Result<Module>>> {
    let batch = CompileBatch::start(requests, 0)?;
    Ok(batch.results().collect())
}
