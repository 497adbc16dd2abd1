//! cuabi for Zig: compile CUDA C++ at run time with NVRTC, cache it, launch kernels with every
//! limit and argument checked, capture and replay CUDA graphs, mark profiler ranges -- through
//! libcuabi.so.1, loaded when the program runs (no CUDA SDK needed to build).
//!
//!     var lib = try cuabi.Library.open(.{});             // libcuabi.so.1 or $CUABI_LIBRARY
//!     defer lib.close();
//!     const context = try lib.createContext(.{});
//!     defer context.deinit();
//!     const module = try context.compile(source, .{});
//!     defer module.deinit();
//!     const saxpy = try module.kernel("saxpy");
//!     defer saxpy.deinit();
//!     try saxpy.launch(.{ .grid = .{ 4096, 1, 1 }, .block = .{ 256, 1, 1 } }, .{ a, x_ptr, y_ptr, n });
//!
//! Failures are `cuabi.Error` values, one per cuabi status (`error.LaunchBlock`, ...); the
//! calling thread's `cuabi.lastError()` then holds what cuabi said: status name, message (ending
//! in "Fix: ..."), CUresult, nvrtcResult, and the compile log on request.
//!
//! Handles (`Context`, `Stream`, `Event`, `Buffer`, `HostMemory`, `Module`, `Kernel`, `Graph`)
//! are small values holding the C handle and a pointer to their `Library`; `deinit` releases
//! them, in any order, and is harmless to repeat because cuabi never accepts a released handle
//! again.

const std = @import("std");

/// The header's declarations as translated (types, constants, `PFN_cuabi_*`), for calls this
/// package does not wrap.
pub const c = @import("c.zig");
/// A loaded libcuabi.so.1 and its dispatch table.
pub const Library = @import("Library.zig");
/// The dispatch table type and the header's function list.
pub const dispatch = @import("dispatch.zig");
/// A device's primary context.
pub const Context = @import("Context.zig");
/// A queue of GPU work; also captures graphs.
pub const Stream = @import("Stream.zig");
/// A marker in a stream.
pub const Event = @import("Event.zig");
/// Device memory.
pub const Buffer = @import("Buffer.zig");
/// Page-locked host memory, allocated or registered.
pub const HostMemory = @import("HostMemory.zig");
/// A pool for stream-ordered buffers (`Buffer.createAsync`, `Buffer.freeAsync`).
pub const MemoryPool = @import("MemoryPool.zig");
/// A compiled or loaded image.
pub const Module = @import("Module.zig");
/// A kernel of a loaded module.
pub const Kernel = @import("Kernel.zig");
/// Batched launches: a slice of items in one call (1.2).
pub const Batch = @import("Batch.zig");
/// Compile batches: many compiles in parallel, with progress and cancel (cuabi 1.2).
pub const CompileBatch = @import("CompileBatch.zig");
/// A captured, instantiated graph.
pub const Graph = @import("Graph.zig");
/// The kernel cache functions (`Library.cache()`).
pub const Cache = @import("Cache.zig");
/// The graph cache's process-wide functions (`Library.graphCache()`).
pub const GraphCache = @import("GraphCache.zig");
/// The NVRTC queries (`Library.nvrtc()`).
pub const Nvrtc = @import("Nvrtc.zig");
/// The nvJitLink queries (`Library.nvJitLink()`).
pub const NvJitLink = @import("NvJitLink.zig");

const errors = @import("errors.zig");
/// One error per cuabi status.
pub const Error = errors.Error;
/// The errors of `Library.open`.
pub const OpenError = errors.OpenError;
/// What cuabi said about a failure.
pub const Diagnostics = errors.Diagnostics;
/// The calling thread's diagnostics of its last failure.
pub const lastError = errors.lastError;
/// The error for a status, and the status for an error.
pub const errorFromStatus = errors.errorFromStatus;
/// The status behind an error (null for `error.UnknownStatus`).
pub const statusFromError = errors.statusFromError;

const ranges_ = @import("ranges.zig");
/// The profiler range functions (`Library.ranges()`).
pub const Ranges = ranges_.Ranges;
/// A range that any thread may end.
pub const Range = ranges_.Range;
/// An entry of the catalog of cuabi's own ranges.
pub const RangeCatalogEntry = ranges_.CatalogEntry;

const launch = @import("launch.zig");
/// A device address, as a kernel's pointer parameter sees it.
pub const DevicePtr = launch.DevicePtr;
/// Geometry, shared memory, stream and flags of a launch.
pub const LaunchConfig = launch.LaunchConfig;
/// Why a type cannot be a kernel argument (null when it can).
pub const argumentRefusal = launch.argumentRefusal;

const types = @import("types.zig");
/// What a module was loaded from.
pub const ImageKind = types.ImageKind;
/// Where a module's image came from.
pub const ModuleOrigin = types.ModuleOrigin;
/// What the bytes or file of a link input are.
pub const LinkInputKind = types.LinkInputKind;
/// Link flags.
pub const LinkFlags = types.LinkFlags;
/// An NVRTC setting that can be left to NVRTC.
pub const Tristate = types.Tristate;
/// Which unsafe CUDA calls a capture refuses.
pub const CaptureMode = types.CaptureMode;
/// A stream's capture status.
pub const CaptureStatus = types.CaptureStatus;
/// The kind of a graph node.
pub const GraphNodeKind = types.GraphNodeKind;
/// Where NVRTC stands for this process.
pub const NvrtcState = types.NvrtcState;
/// Where a request of a compile batch is (`CUABI_REQUEST_*`).
pub const RequestState = types.RequestState;
/// Who chose a driver JIT cache setting.
pub const SettingSource = types.SettingSource;
/// Stream flags.
pub const StreamFlags = types.StreamFlags;
/// Event flags.
pub const EventFlags = types.EventFlags;
/// Buffer flags.
pub const BufferFlags = types.BufferFlags;
/// Compile flags.
pub const CompileFlags = types.CompileFlags;
/// Launch flags.
pub const LaunchFlags = types.LaunchFlags;
/// Graph flags.
pub const GraphFlags = types.GraphFlags;
/// Whole-graph update flags.
pub const GraphUpdateFlags = types.GraphUpdateFlags;
/// What a conditional node does with its bodies (if, while, switch).
pub const GraphConditionalType = types.GraphConditionalType;
/// Flags of `Stream.createCondition`.
pub const GraphConditionFlags = types.GraphConditionFlags;
/// The value a conditional node tests, passed to kernels as an 8-byte argument.
pub const Condition = Stream.Condition;
/// Which images a context verifies before loading them (`CUABI_IMAGE_VERIFY_*`).
pub const ImageVerification = types.ImageVerification;
/// Options of `Library.createContext`.
pub const ContextOptions = types.ContextOptions;
/// Options of `Context.createStream`.
pub const StreamOptions = types.StreamOptions;
/// Options of `Context.createEvent`.
pub const EventOptions = types.EventOptions;
/// Options of `Context.createBuffer`.
pub const BufferOptions = types.BufferOptions;
/// Options of `Stream.endCapture`.
pub const GraphOptions = types.GraphOptions;
/// Options of `Context.allocHostMemory` and `Context.registerHostMemory`.
pub const HostMemoryOptions = types.HostMemoryOptions;
/// Host memory flags.
pub const HostMemoryFlags = types.HostMemoryFlags;
/// Where managed memory is prefetched to or advised for (`.host`, or a device ordinal).
pub const Location = types.Location;
/// Advice for `Buffer.advise`.
pub const Advice = types.Advice;
/// Flags of `Buffer.createManaged`.
pub const ManagedFlags = types.ManagedFlags;
/// What `MemoryPool.attribute` reads.
pub const MemoryPoolAttribute = types.MemoryPoolAttribute;
/// Graphviz DOT dump flags.
pub const GraphDotFlags = types.GraphDotFlags;
/// How `Buffer.copyFromPeer` copies between devices without peer access.
pub const PeerCopyFlags = types.PeerCopyFlags;
/// What `Buffer.tensorMap` encodes.
pub const TensorMapParams = types.TensorMapParams;
/// The most dimensions a tensor map has.
pub const tensor_map_max_rank = types.tensor_map_max_rank;
/// An encoded tensor map (a kernel argument).
pub const TensorMap = types.TensorMap;
/// The element type of a tensor map.
pub const TensorDataType = types.TensorDataType;
/// A tensor map's interleaved layout.
pub const TensorInterleave = types.TensorInterleave;
/// A tensor map's shared memory swizzle.
pub const TensorSwizzle = types.TensorSwizzle;
/// A tensor map's L2 promotion.
pub const TensorL2Promotion = types.TensorL2Promotion;
/// What a tensor map's out-of-bounds elements read as.
pub const TensorOobFill = types.TensorOobFill;
/// A CUdevice_attribute, for `Library.deviceAttribute`.
pub const DeviceAttribute = types.DeviceAttribute;
/// An attribute `Kernel.setAttribute` sets.
pub const KernelAttribute = types.KernelAttribute;
/// An attribute with its value, for `Kernel.setAttribute`.
pub const KernelAttributeValue = types.KernelAttributeValue;
/// L1 cache versus shared memory (`KernelAttributeValue.cache_config`).
pub const CachePreference = types.CachePreference;
/// Compile options.
pub const CompileOptions = types.CompileOptions;
/// Link options.
pub const LinkOptions = types.LinkOptions;
/// One input of a link.
pub const LinkInput = Module.LinkInput;
/// Facts about a device.
pub const DeviceInfo = types.DeviceInfo;
/// A context's counters.
pub const Counters = types.Counters;
/// A kernel's attributes.
pub const KernelAttributes = types.KernelAttributes;
/// The graph cache's counters.
pub const GraphCacheStats = types.GraphCacheStats;
/// Facts about a module.
pub const ModuleInfo = types.ModuleInfo;
/// The kernel cache's statistics.
pub const CacheStats = types.CacheStats;
/// The read-only tier's counts (`CacheStats.readOnly`).
pub const ReadOnlyTier = types.ReadOnlyTier;
/// The remote tier's state and counts (`CacheStats.remote`).
pub const RemoteTier = types.RemoteTier;
/// The driver JIT cache settings.
pub const DriverJitCacheInfo = types.DriverJitCacheInfo;

test {
    std.testing.refAllDecls(@This());
    _ = errors;
}
