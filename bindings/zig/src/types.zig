//! The header's constants as Zig types -- enumerations as `enum(i32)`, flags as
//! `packed struct(u32)` -- and the options and results of the calls.
//!
//! Each enumeration and flag set names the header prefix its values come from (`header_prefix`);
//! a test checks every value against the header and that the header has no value of that prefix
//! the type lacks. Output structs that hold only numbers are the header's own (translated)
//! structs; the others are Zig structs with typed fields.

const std = @import("std");
const c = @import("c.zig");

// ---- enumerations (int32 in the header) -----------------------------------------------------

/// What a module was loaded from (`CUABI_IMAGE_*`).
pub const ImageKind = enum(i32) {
    /// The header prefix of the values (a test compares the fields with the header).
    pub const header_prefix = "CUABI_IMAGE_";
    ptx = 1,
    cubin = 2,
    fatbin = 3,
    _,
};

/// Where a module's image came from (`CUABI_MODULE_ORIGIN_*`).
pub const ModuleOrigin = enum(i32) {
    /// The header prefix of the values (a test compares the fields with the header).
    pub const header_prefix = "CUABI_MODULE_ORIGIN_";
    compiled = 0,
    memory_cache = 1,
    disk_cache = 2,
    image = 3,
    /// A read-only cache layer or bundle (since 1.2).
    readonly_cache = 4,
    _,
};

/// An NVRTC setting that can be left to NVRTC (`CUABI_TRISTATE_*`).
pub const Tristate = enum(i32) {
    /// The header prefix of the values (a test compares the fields with the header).
    pub const header_prefix = "CUABI_TRISTATE_";
    default = -1,
    off = 0,
    on = 1,
};

/// Which unsafe CUDA calls a capture refuses, and where (`CUABI_CAPTURE_MODE_*`).
pub const CaptureMode = enum(i32) {
    /// The header prefix of the values (a test compares the fields with the header).
    pub const header_prefix = "CUABI_CAPTURE_MODE_";
    global = 0,
    thread_local = 1,
    relaxed = 2,
};

/// A stream's capture status (`CUABI_CAPTURE_STATUS_*`).
pub const CaptureStatus = enum(i32) {
    /// The header prefix of the values (a test compares the fields with the header).
    pub const header_prefix = "CUABI_CAPTURE_STATUS_";
    none = 0,
    active = 1,
    invalidated = 2,
    _,
};

/// The kind of a graph node (`CUABI_GRAPH_NODE_*`).
pub const GraphNodeKind = enum(i32) {
    /// The header prefix of the values (a test compares the fields with the header).
    pub const header_prefix = "CUABI_GRAPH_NODE_";
    other = 0,
    kernel = 1,
    memcpy = 2,
    memset = 3,
    host = 4,
    child_graph = 5,
    empty = 6,
    event_wait = 7,
    event_record = 8,
    ext_semaphore_signal = 9,
    ext_semaphore_wait = 10,
    mem_alloc = 11,
    mem_free = 12,
    batch_mem_op = 13,
    conditional = 14,
    _,
};

/// Where NVRTC stands for this process (`CUABI_NVRTC_STATE_*`).
pub const NvrtcState = enum(i32) {
    /// The header prefix of the values (a test compares the fields with the header).
    pub const header_prefix = "CUABI_NVRTC_STATE_";
    not_loaded = 0,
    loaded = 1,
    unavailable = 2,
    _,
};

/// Who chose a CUDA driver JIT cache setting (`CUABI_SETTING_*`).
pub const SettingSource = enum(i32) {
    /// The header prefix of the values (a test compares the fields with the header).
    pub const header_prefix = "CUABI_SETTING_";
    driver_default = 0,
    environment = 1,
    cuabi = 2,
    _,
};

/// An attribute `Kernel.setAttribute` sets (`CUABI_KERNEL_ATTRIBUTE_*`); the tag of
/// `KernelAttributeValue`.
pub const KernelAttribute = enum(i32) {
    /// The header prefix of the values (a test compares the fields with the header).
    pub const header_prefix = "CUABI_KERNEL_ATTRIBUTE_";
    shared_memory_carveout = 1,
    non_portable_cluster_size = 2,
    cache_config = 3,
};

/// The preferred split of a multiprocessor's L1 cache and shared memory (`CUABI_CACHE_PREFER_*`).
pub const CachePreference = enum(i32) {
    /// The header prefix of the values (a test compares the fields with the header).
    pub const header_prefix = "CUABI_CACHE_PREFER_";
    none = 0,
    shared = 1,
    l1 = 2,
    equal = 3,
};

/// Which images are trial-loaded in the image verifier first (`CUABI_IMAGE_VERIFY_*`, since 1.2;
/// `cuabi_context_options.image_verification`).
pub const ImageVerification = enum(i32) {
    /// The header prefix of the values (a test compares the fields with the header).
    pub const header_prefix = "CUABI_IMAGE_VERIFY_";
    default = 0,
    untrusted = 1,
    all = 2,
    none = 3,
};

/// Every enumeration above, for the tests that compare them with the header.
pub const enumerations = .{ ImageKind, ModuleOrigin, Tristate, CaptureMode, CaptureStatus, GraphNodeKind, NvrtcState, SettingSource, KernelAttribute, CachePreference, ImageVerification };

/// One attribute `Kernel.setAttribute` sets, with its value: `.{ .cache_config = .shared }`.
pub const KernelAttributeValue = union(KernelAttribute) {
    /// The share of the L1/shared memory array to give shared memory, in percent (0..100; cuabi
    /// refuses more); null: no preference. A hint the driver may round.
    shared_memory_carveout: ?u8,
    /// Allow clusters above 8 blocks (up to 16 on sm_90) where the device has them.
    non_portable_cluster_size: bool,
    /// L1 versus shared memory.
    cache_config: CachePreference,

    /// The header's (attribute, value) pair.
    pub fn toC(self: KernelAttributeValue) struct { attribute: i32, value: i32 } {
        return .{ .attribute = @backingInt(std.meta.activeTag(self)), .value = switch (self) {
            .shared_memory_carveout => |percent| if (percent) |p| p else -1,
            .non_portable_cluster_size => |allow| @intFromBool(allow),
            .cache_config => |preference| @backingInt(preference),
        } };
    }
};

/// A CUdevice_attribute for `Library.deviceAttribute`: the number cuda.h gives it. The named
/// values are common ones (a test checks them against cuda.h); any other attribute the driver
/// knows is `@fromBackingInt(number)`, so new hardware needs no new package.
pub const DeviceAttribute = enum(i32) {
    max_threads_per_block = 1,
    max_block_dim_x = 2,
    max_block_dim_y = 3,
    max_block_dim_z = 4,
    max_grid_dim_x = 5,
    max_grid_dim_y = 6,
    max_grid_dim_z = 7,
    max_shared_memory_per_block = 8,
    total_constant_memory = 9,
    warp_size = 10,
    max_registers_per_block = 12,
    clock_rate = 13,
    multiprocessor_count = 16,
    can_map_host_memory = 19,
    compute_mode = 20,
    concurrent_kernels = 31,
    ecc_enabled = 32,
    pci_bus_id = 33,
    pci_device_id = 34,
    memory_clock_rate = 36,
    global_memory_bus_width = 37,
    l2_cache_size = 38,
    max_threads_per_multiprocessor = 39,
    async_engine_count = 40,
    unified_addressing = 41,
    pci_domain_id = 50,
    compute_capability_major = 75,
    compute_capability_minor = 76,
    stream_priorities_supported = 78,
    max_shared_memory_per_multiprocessor = 81,
    max_registers_per_multiprocessor = 82,
    managed_memory = 83,
    cooperative_launch = 95,
    max_shared_memory_per_block_optin = 97,
    host_register_supported = 99,
    max_blocks_per_multiprocessor = 106,
    memory_pools_supported = 115,
    cluster_launch = 120,
    _,

    /// cuda.h's name of a named value: "CU_DEVICE_ATTRIBUTE_" ++ the field in capitals.
    pub const cuda_prefix = "CU_DEVICE_ATTRIBUTE_";
};

// ---- flags (u-suffixed in the header) ---------------------------------------------------------

/// Stream flags (`CUABI_STREAM_*`): none are defined yet.
pub const StreamFlags = packed struct(u32) {
    /// The header prefix of the values (a test compares the fields with the header).
    pub const header_prefix = "CUABI_STREAM_";
    _reserved: u32 = 0,
};

/// Event flags (`CUABI_EVENT_*`).
pub const EventFlags = packed struct(u32) {
    /// The header prefix of the values (a test compares the fields with the header).
    pub const header_prefix = "CUABI_EVENT_";
    /// Cheaper; `Event.elapsedMs` is then refused.
    disable_timing: bool = false,
    /// Synchronize by sleeping rather than spinning.
    blocking_sync: bool = false,
    _reserved: u30 = 0,
};

/// Buffer flags (`CUABI_BUFFER_*`).
pub const BufferFlags = packed struct(u32) {
    /// The header prefix of the values (a test compares the fields with the header).
    pub const header_prefix = "CUABI_BUFFER_";
    /// Fill the new buffer with zero bytes.
    zero: bool = false,
    _reserved: u31 = 0,
};

/// Compile flags (`CUABI_COMPILE_*`).
pub const CompileFlags = packed struct(u32) {
    /// The header prefix of the values (a test compares the fields with the header).
    pub const header_prefix = "CUABI_COMPILE_";
    /// Neither look up nor store in the kernel cache: always run NVRTC.
    no_cache: bool = false,
    /// Emit PTX for the target's compute_XY instead of a CUBIN.
    ptx: bool = false,
    /// Do not add the toolkit's include directories.
    no_toolkit_includes: bool = false,
    /// Run NVRTC in this process, not in cuabi's worker process.
    in_process: bool = false,
    /// Run NVRTC in the worker even where the process default says otherwise.
    isolated: bool = false,
    _reserved: u27 = 0,
};

/// Launch flags (`CUABI_LAUNCH_*`).
pub const LaunchFlags = packed struct(u32) {
    /// The header prefix of the values (a test compares the fields with the header).
    pub const header_prefix = "CUABI_LAUNCH_";
    /// All blocks resident at once, so the kernel may synchronize the whole grid.
    cooperative: bool = false,
    /// Wait until the kernel has finished before returning.
    synchronize: bool = false,
    /// Run at `LaunchConfig.priority` rather than the stream's priority (set for you when
    /// `priority` is not null).
    priority: bool = false,
    /// Programmatic dependent launch (sm_90+): the kernel may start before the previous kernel on
    /// the stream finishes, and must call cudaGridDependencySynchronize() before reading what
    /// that kernel writes.
    programmatic_dependent: bool = false,
    _reserved: u28 = 0,
};

/// Graph flags (`CUABI_GRAPH_*`), for `Stream.endCapture`.
pub const GraphFlags = packed struct(u32) {
    /// The header prefix of the values (a test compares the fields with the header).
    pub const header_prefix = "CUABI_GRAPH_";
    /// Memory allocated in the graph and not freed is freed before a relaunch.
    auto_free_on_launch: bool = false,
    /// Run kernel nodes at their captured stream priorities.
    use_node_priority: bool = false,
    /// Upload to the device on the capturing stream right after instantiation.
    upload: bool = false,
    _reserved: u29 = 0,
};

/// Whole-graph update flags (`CUABI_GRAPH_UPDATE_*`), for `Stream.endCaptureUpdate`.
pub const GraphUpdateFlags = packed struct(u32) {
    /// The header prefix of the values (a test compares the fields with the header).
    pub const header_prefix = "CUABI_GRAPH_UPDATE_";
    /// Fail with `error.GraphUpdate` instead of rebuilding the executable.
    no_reinstantiate: bool = false,
    _reserved: u31 = 0,
};

/// Host memory flags (`CUABI_HOST_MEMORY_*`).
pub const HostMemoryFlags = packed struct(u32) {
    /// The header prefix of the values (a test compares the fields with the header).
    pub const header_prefix = "CUABI_HOST_MEMORY_";
    /// Page-locked for every context, not only the one it was made with.
    portable: bool = false,
    /// Also mapped into the device's address space (`HostMemory.devicePtr`).
    device_mapped: bool = false,
    /// Allocation only: faster for the GPU to read across the bus, very slow for the CPU to read.
    write_combined: bool = false,
    _reserved: u29 = 0,
};

/// Graphviz DOT dump flags (`CUABI_GRAPH_DOT_*`), for `Graph.dot` and `Graph.writeDot`.
pub const GraphDotFlags = packed struct(u32) {
    /// The header prefix of the values (a test compares the fields with the header).
    pub const header_prefix = "CUABI_GRAPH_DOT_";
    /// Every parameter the driver knows of every node (default: kinds, kernel names, geometry
    /// and dependencies).
    verbose: bool = false,
    _reserved: u31 = 0,
};

/// Every flag set above, for the tests that compare them with the header.
pub const flag_sets = .{ StreamFlags, EventFlags, BufferFlags, HostMemoryFlags, CompileFlags, LaunchFlags, GraphFlags, GraphUpdateFlags, GraphDotFlags };

/// The header's name of a flag or enumeration value: prefix ++ the field name in capitals.
pub fn headerName(comptime T: type, comptime field: []const u8) []const u8 {
    return prefixedName(T.header_prefix, field);
}

/// `prefix` ++ `field` in capitals ("CUABI_LAUNCH_" ++ "cooperative" -> "CUABI_LAUNCH_COOPERATIVE").
pub fn prefixedName(comptime prefix: []const u8, comptime field: []const u8) []const u8 {
    return comptime name: {
        @setEvalBranchQuota(10_000);
        var upper: [field.len]u8 = undefined;
        _ = std.ascii.upperString(&upper, field);
        const frozen = upper;
        break :name prefix ++ &frozen;
    };
}

// ---- options ------------------------------------------------------------------------------

/// Options of `Library.createContext`.
pub const ContextOptions = struct {
    /// CUDA device ordinal.
    device: i32 = 0,
};

/// Options of `Context.createStream`.
pub const StreamOptions = struct {
    flags: StreamFlags = .{},
    /// Lower is higher priority; 0 is the default; clamped to the device's range.
    priority: i32 = 0,
};

/// Options of `Context.createEvent`.
pub const EventOptions = struct {
    flags: EventFlags = .{},
};

/// Options of `Context.createBuffer`.
pub const BufferOptions = struct {
    flags: BufferFlags = .{},
};

/// Options of `Context.allocHostMemory` and `Context.registerHostMemory`.
pub const HostMemoryOptions = struct {
    flags: HostMemoryFlags = .{},

    /// The header's struct for these options.
    pub fn toC(self: HostMemoryOptions) c.cuabi_host_memory_options {
        return .{ .struct_size = @sizeOf(c.cuabi_host_memory_options), .flags = @bitCast(self.flags) };
    }
};

/// Options of `Stream.endCapture`.
pub const GraphOptions = struct {
    flags: GraphFlags = .{},
};

/// Compile options (`Context.compile`, `Library.compileOffline`); the defaults are the header's.
/// Nothing here must outlive the call: cuabi copies what it keeps.
pub const CompileOptions = struct {
    flags: CompileFlags = .{},
    /// "sm_90" (CUBIN), "compute_90" (PTX), with optional 'a'/'f' suffix; null: the context's
    /// device (required for `compileOffline`).
    target: ?[*:0]const u8 = null,
    /// "c++17", "c++20" (or "17", "20"); null: NVRTC's default.
    cpp_standard: ?[*:0]const u8 = null,
    /// File name used in the log and line info; null: "kernel.cu".
    program_name: ?[*:0]const u8 = null,
    /// --use_fast_math (implies ftz, approximate division and square root, fmad).
    fast_math: bool = false,
    /// Flush denormals to zero.
    ftz: Tristate = .default,
    /// IEEE-rounded division.
    prec_div: Tristate = .default,
    /// IEEE-rounded square root.
    prec_sqrt: Tristate = .default,
    /// Contract multiply-add into FMA.
    fmad: Tristate = .default,
    /// --maxrregcount; 0: no limit.
    max_registers: u32 = 0,
    /// --generate-line-info (source lines for profilers).
    line_info: bool = false,
    /// --device-debug (-G: unoptimized, debuggable).
    device_debug: bool = false,
    /// "NAME" or "NAME=VALUE", as -D.
    defines: []const [*:0]const u8 = &.{},
    /// Searched in order for #include, before the toolkit's own (not tracked by the cache key:
    /// see `salt`).
    include_dirs: []const [*:0]const u8 = &.{},
    /// In-memory headers: the names #include uses, and (same length) their contents.
    header_names: []const [*:0]const u8 = &.{},
    header_sources: []const [*:0]const u8 = &.{},
    /// C++ names of kernels to look up later: "reduce<float, 256>".
    name_expressions: []const [*:0]const u8 = &.{},
    /// Further NVRTC options, passed as given.
    extra_flags: []const [*:0]const u8 = &.{},
    /// Caller bytes mixed into the cache key (e.g. a hash of files reached through include_dirs).
    salt: []const u8 = &.{},
    /// Deadline for NVRTC in the worker; 0: the default (120 s or $CUABI_COMPILE_TIMEOUT_MS).
    timeout_ms: u32 = 0,

    /// The header's struct for these options. `header_names` and `header_sources` must have the
    /// same length (the caller checks).
    pub fn toC(self: CompileOptions) c.cuabi_compile_options {
        var out = std.mem.zeroes(c.cuabi_compile_options);
        out.struct_size = @sizeOf(c.cuabi_compile_options);
        out.flags = @bitCast(self.flags);
        out.target = self.target;
        out.cpp_standard = self.cpp_standard;
        out.program_name = self.program_name;
        out.fast_math = @intFromBool(self.fast_math);
        out.ftz = @backingInt(self.ftz);
        out.prec_div = @backingInt(self.prec_div);
        out.prec_sqrt = @backingInt(self.prec_sqrt);
        out.fmad = @backingInt(self.fmad);
        out.max_registers = self.max_registers;
        out.line_info = @intFromBool(self.line_info);
        out.device_debug = @intFromBool(self.device_debug);
        out.defines = strings(self.defines);
        out.define_count = self.defines.len;
        out.include_dirs = strings(self.include_dirs);
        out.include_dir_count = self.include_dirs.len;
        out.header_names = strings(self.header_names);
        out.header_sources = strings(self.header_sources);
        out.header_count = self.header_names.len;
        out.name_expressions = strings(self.name_expressions);
        out.name_expression_count = self.name_expressions.len;
        out.extra_flags = strings(self.extra_flags);
        out.extra_flag_count = self.extra_flags.len;
        out.salt = if (self.salt.len == 0) null else self.salt.ptr;
        out.salt_size = self.salt.len;
        out.timeout_ms = self.timeout_ms;
        return out;
    }

    /// A list for the C struct: NULL when empty, as the header's defaults have it.
    fn strings(list: []const [*:0]const u8) [*c]const [*c]const u8 {
        return if (list.len == 0) null else @ptrCast(list.ptr);
    }
};

// ---- results ------------------------------------------------------------------------------

/// Facts about a device: identity, memory and every limit a launch is checked against
/// (the header's struct; `name` is NUL-terminated: `std.mem.sliceTo(&info.name, 0)`).
pub const DeviceInfo = c.cuabi_device_info;
/// Per-context counters of work done through cuabi (the header's struct).
pub const Counters = c.cuabi_counters;
/// A kernel's registers, thread limit, memory use and versions (the header's struct).
pub const KernelAttributes = c.cuabi_kernel_attributes;
/// The graph cache's counters (the header's struct).
pub const GraphCacheStats = c.cuabi_graph_cache_stats;

/// An output struct of type T with its struct_size set and everything else zero, as the
/// header's `cuabi_*_init()` functions prepare them.
pub fn outputStruct(comptime T: type) T {
    var value = std.mem.zeroes(T);
    value.struct_size = @sizeOf(T);
    return value;
}

/// Facts about a module.
pub const ModuleInfo = struct {
    /// PTX, CUBIN or fatbin.
    image_kind: ImageKind,
    /// Compiled now, from the memory or disk cache, or the caller's image.
    origin: ModuleOrigin,
    /// False for modules compiled offline.
    loaded: bool,
    /// NVRTC does not know the device's architecture, so the image is PTX for the newest
    /// compute_XY it supports (JIT-compiled at load).
    ptx_fallback: bool,
    /// Entries of the lowered-name map.
    name_expression_count: u32,
    /// Bytes, as `Module.image` returns them.
    image_size: u64,
    /// NUL-terminated; read it with `target()`.
    target_buffer: [32]u8,
    /// NUL-terminated; read it with `cacheKey()`.
    cache_key_buffer: [40]u8,

    /// "sm_90", "compute_90"; "" when unknown (a fatbin).
    pub fn target(self: *const ModuleInfo) []const u8 {
        return std.mem.sliceTo(&self.target_buffer, 0);
    }

    /// 32 hex digits of the kernel-cache key; "" for loaded images.
    pub fn cacheKey(self: *const ModuleInfo) []const u8 {
        return std.mem.sliceTo(&self.cache_key_buffer, 0);
    }

    /// From the header's struct.
    pub fn fromC(raw: c.cuabi_module_info) ModuleInfo {
        return .{
            .image_kind = @fromBackingInt(raw.image_kind),
            .origin = @fromBackingInt(raw.origin),
            .loaded = raw.loaded != 0,
            .ptx_fallback = raw.ptx_fallback != 0,
            .name_expression_count = raw.name_expression_count,
            .image_size = raw.image_size,
            .target_buffer = @bitCast(raw.target),
            .cache_key_buffer = @bitCast(raw.cache_key),
        };
    }
};

/// Statistics of the kernel cache (see the header's cuabi_cache_stats for each count).
pub const CacheStats = struct {
    /// The header's struct, every count included.
    raw: c.cuabi_cache_stats,

    /// Whether entries are looked up on disk.
    pub fn diskEnabled(self: CacheStats) bool {
        return self.raw.disk_enabled != 0;
    }

    /// Whether new entries are written to disk.
    pub fn diskWritable(self: CacheStats) bool {
        return self.raw.disk_writable != 0;
    }

    /// Where NVRTC stands for this process.
    pub fn nvrtcState(self: CacheStats) NvrtcState {
        return @fromBackingInt(self.raw.nvrtc_state);
    }

    /// The read-only tier (since 1.2; zero from an older library, whose struct is shorter): layers
    /// open, lookups they served and missed, entries refused there, hits copied to disk.
    pub fn readOnly(self: CacheStats) ReadOnlyTier {
        return .{
            .layers = self.raw.readonly_layers,
            .hits = self.raw.readonly_hits,
            .misses = self.raw.readonly_misses,
            .refused = self.raw.readonly_refused,
            .copies = self.raw.readonly_copies,
        };
    }
};

/// The read-only tier's counts (`CacheStats.readOnly`).
pub const ReadOnlyTier = struct {
    layers: u64,
    hits: u64,
    misses: u64,
    refused: u64,
    copies: u64,
};

/// The CUDA driver's JIT cache settings in effect in this process.
pub const DriverJitCacheInfo = struct {
    /// False when CUDA_CACHE_DISABLE=1.
    enabled: bool,
    /// Who chose CUDA_CACHE_PATH.
    path_source: SettingSource,
    /// Who chose CUDA_CACHE_MAXSIZE.
    max_bytes_source: SettingSource,
    /// CUDA_CACHE_MAXSIZE in effect; 0: the driver's default.
    max_bytes: u64,
    /// The driver started before `Cache.configureDriverJit` ran, so it changed nothing.
    driver_started_first: bool,

    /// From the header's struct.
    pub fn fromC(raw: c.cuabi_driver_jit_cache_info) DriverJitCacheInfo {
        return .{
            .enabled = raw.enabled != 0,
            .path_source = @fromBackingInt(raw.path_source),
            .max_bytes_source = @fromBackingInt(raw.max_bytes_source),
            .max_bytes = raw.max_bytes,
            .driver_started_first = raw.driver_started_first != 0,
        };
    }
};
