//! Compile, cache, launch and graph CUDA kernels from Rust through libcuabi.
//!
//! ```no_run
//! use cuabi::{Buffer, CompileOptions, Context, LaunchConfig, Module, Stream};
//!
//! const SAXPY: &str = r#"
//! extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned n) {
//!     unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
//!     if (i < n) y[i] = a * x[i] + y[i];
//! }"#;
//!
//! fn main() -> cuabi::Result<()> {
//!     let n = 1u32 << 20;
//!     let context = Context::new()?; // device 0
//!     let module = Module::compile(&context, SAXPY, &CompileOptions::new())?; // NVRTC, or a cache hit
//!     let saxpy = module.kernel("saxpy")?;
//!     let x = Buffer::from_slice(&context, &(0..n).map(|i| i as f32).collect::<Vec<_>>())?;
//!     let y = Buffer::from_slice(&context, &vec![1.0f32; n as usize])?;
//!     let stream = Stream::new(&context)?;
//!     let config = LaunchConfig::new().grid(n / 256).block(256).stream(&stream);
//!     saxpy.launch(&config, &[&2.0f32, &x, &y, &n])?; // every limit and argument checked
//!     stream.synchronize()?;
//!     assert_eq!(y.to_vec::<f32>()?[3], 7.0);
//!     Ok(())
//! }
//! ```
//!
//! # Loading
//!
//! The crate has no link-time dependency: the first call loads `libcuabi.so.1` with `dlopen`
//! (the file named by `CUABI_LIBRARY` when it is set, else the dynamic linker's search), checks
//! its ABI major, and resolves every function through `cuabi_get_proc_address`. [`load`] chooses
//! another file. A function the loaded library lacks (an older 1.x) fails with
//! [`Status::Unsupported`] when called; it never stops the library from loading.
//!
//! # Errors
//!
//! Every fallible call returns [`Result`]. An [`Error`] carries cuabi's [`Status`] (an enum with
//! an [`Status::Unknown`] arm for codes newer than the binding), the status's name, the message
//! cuabi set on the calling thread (read right after the call, so no other call can replace it;
//! it names the values involved and ends in `Fix: ...`), the `CUresult` or `nvrtcResult` behind
//! it, and NVRTC's log for a failed compile. Without a GPU, the first GPU call fails with
//! [`Status::DriverNotFound`] or [`Status::NoDevice`] ([`Error::is_no_gpu`]).
//!
//! # Handles
//!
//! [`Context`], [`Stream`], [`Event`], [`Buffer`], [`HostMemory`], [`Module`], [`Kernel`],
//! [`Graph`] and [`Range`] own one C handle each and destroy it on drop. Children do not borrow their parents:
//! the C library keeps what each object needs alive (a kernel its module, a module its context, a
//! graph its kernels and the buffers its transfers touched), so handles may be dropped in any
//! order, stored freely and sent between threads. Each type's documentation says whether it is
//! `Send` and `Sync` and why; all are, except the two scopes tied to one thread:
//! [`Capture`] (a capture ends on the thread that began it) and [`RangeGuard`] (a pushed range
//! pops on its own thread).
//!
//! A [`HostMemory`] registered from the caller's slice borrows it mutably for as long as it is
//! registered: safe code can neither use nor free the slice meanwhile.
//!
//! What Rust cannot check is marked `unsafe`: asynchronous host transfers
//! ([`Buffer::write_async`], [`Buffer::read_async`]: the host memory must outlive the copy),
//! host end points of graph copies ([`MemcpyEnd::host`]: replays read or write them again),
//! wrapping foreign CUDA objects ([`Buffer::wrap`], [`Stream::wrap`]), and
//! [`cache::configure_driver_jit`] (it sets environment variables).
//!
//! # Since 1.1
//!
//! - [`device_attribute`]: any `CUdevice_attribute` ([`DeviceAttribute`]) without a context.
//! - [`MemoryPool`] ([`MemoryPoolOptions`], [`PoolAttribute`]): pools for stream-ordered buffers
//!   ([`Buffer::new_async`], [`Buffer::free_async`]; graph memory nodes inside a capture), and
//!   managed buffers ([`Buffer::managed`], [`Buffer::prefetch`] to a [`Location`], [`Buffer::advise`])
//! - [`HostMemory`]: pinned host memory as a slice, allocated or registered
//!   ([`HostMemoryOptions`]: portable, device-mapped for zero-copy kernels, write-combined); with
//!   it, stream transfers overlap with other streams' kernels.
//! - [`Module::global`]: a `__device__` or `__constant__` variable as a [`Buffer`].
//! - [`LaunchConfig::priority`] and [`LaunchConfig::programmatic_dependent`].
//! - [`Kernel::set_attribute`] ([`KernelAttribute`], [`Carveout`], [`CachePreference`]) and
//!   [`Kernel::max_active_clusters`].
//! - [`Graph::update_memcpy`] ([`MemcpyEnd`]), [`Graph::set_node_enabled`],
//!   [`Graph::node_enabled`], [`Graph::dot`] and [`Graph::write_dot`] ([`DotOptions`]).
//! - An [`Error`] the driver caused quotes the driver's error log in its message.
//!
//! With a 1.0 library these fail with [`Status::Unsupported`] (the function is missing), and a
//! [`LaunchConfig`] without priority or programmatic dependent launch works as before.
//!
//! # Coverage of the C API
//!
//! Every function of `cuabi.h` is reached through this crate; `tests/api_coverage.rs` checks it.
//! Two groups have no method of their own, on purpose:
//! - `cuabi_get_proc_address` is what the loader resolves everything else with; for a function
//!   newer than this crate use [`cuabi_sys::Library::get_proc_address`] on your own
//!   [`cuabi_sys::Library`].
//! - The `cuabi_*_init` functions fill every options and output struct this crate hands to the
//!   library (through scratch space of `CUABI_STRUCT_SIZE_MAX` bytes, so a newer library's larger
//!   struct cannot overrun ours); the builders ([`CompileOptions`], [`LaunchConfig`],
//!   [`GraphOptions`], [`EventOptions`], [`HostMemoryOptions`], [`DotOptions`], [`MemcpyEnd`])
//!   replace them for callers.
//!
//! [`raw_api`] gives the whole function table and each handle's `as_raw` its C handle, for
//! anything the safe API does not express.
#![warn(missing_docs)]

mod batch;
mod buffer;
pub mod cache;
mod compile;
mod compile_batch;
mod context;
mod device;
mod error;
mod event;
mod ffi;
mod graph;
pub mod graph_cache;
mod graph_conditional;
mod graph_dot;
mod host_memory;
mod kernel;
mod launch;
mod library;
mod link;
mod memory;
mod module;
pub mod nvjitlink;
pub mod nvrtc;
pub mod ranges;
mod stream;
mod tensor_map;

pub use batch::{launch_batch, BatchError, LaunchItem, MAX_BATCH_ITEMS};
pub use buffer::{Buffer, DeviceCopy, DevicePtr, FillValue, PeerCopy};
pub use compile::CompileOptions;
pub use compile_batch::{compile_batch, CompileBatch, CompileRequest, RequestState, MAX_COMPILE_REQUESTS};
pub use context::{Context, ContextOptions, Counters, ImageVerification};
pub use device::{device_attribute, device_count, device_info, DeviceAttribute, DeviceInfo};
pub use error::{status_name, Error, Result, Status};
pub use event::{Event, EventOptions};
pub use graph::{
    Capture, CaptureMode, CaptureStatus, Graph, GraphOptions, MemcpyEnd, NodeInfo, NodeKind, Reinstantiate, UpdateInfo,
};
pub use graph_conditional::{Condition, ConditionReset, ConditionalBody, ConditionalType};
pub use graph_dot::DotOptions;
pub use host_memory::{HostMemory, HostMemoryOptions};
pub use kernel::{BlockSizeSuggestion, CachePreference, Carveout, Kernel, KernelAttribute, KernelAttributes};
pub use launch::{Dim3, KernelArg, LaunchConfig, PackedArgs, Param};
pub use library::{
    abi_version, driver_version, environment_problems, library_path, load, raw_api, version, Version, BINDING_VERSION,
};
pub use link::{LinkInput, LinkInputKind, LinkOptions, MAX_LINK_INPUTS};
pub use memory::{Advice, Location, ManagedAttach, MemoryPool, MemoryPoolOptions, PoolAttribute};
pub use module::{last_compile_log, ImageKind, Module, ModuleInfo, Origin};
pub use ranges::{range, range_in, Range, RangeGuard};
pub use stream::Stream;
pub use tensor_map::{
    TensorDataType, TensorInterleave, TensorL2Promotion, TensorMap, TensorMapParams, TensorOobFill, TensorSwizzle,
    TENSOR_MAP_MAX_RANK,
};

/// The raw layer: generated declarations of `cuabi.h` and the loader.
pub use cuabi_sys as sys;

/// The README's examples, compiled as doc tests so that it cannot drift from the crate.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
