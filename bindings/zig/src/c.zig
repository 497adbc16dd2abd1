// include/cuabi/cuabi.h as `zig translate-c` translates it, kept to the header's own
// declarations. Written by `zig build translate`: do not edit; after changing the header run
// `zig build translate` (the tests fail until the translation matches the header).

/// The digest of the header this translation was made from (see header_digest.zig).
pub const cuabi_header_digest = "2aca6e87d4c5457a483fdc479865d401412a2806f119c784523208361425a30e";
const __root = @This();
pub const __builtin = @import("std").zig.c_translation.builtins;
pub const __helpers = @import("std").zig.c_translation.helpers;
pub const cuabi_proc = ?*const fn () callconv(.c) void;
pub extern fn cuabi_version_number() u32;
pub extern fn cuabi_abi_version() u32;
pub extern fn cuabi_get_proc_address(name: [*c]const u8) cuabi_proc;
pub const cuabi_status = i32;
pub extern fn cuabi_status_name(status: cuabi_status) [*c]const u8;
pub extern fn cuabi_last_error_message() [*c]const u8;
pub extern fn cuabi_last_cu_result() i32;
pub extern fn cuabi_last_nvrtc_result() i32;
pub extern fn cuabi_last_compile_log(out_text: [*c]u8, capacity: usize, out_size: [*c]usize) cuabi_status;
pub const struct_cuabi_context = opaque {
    pub const cuabi_context_destroy = __root.cuabi_context_destroy;
    pub const cuabi_context_get_device_info = __root.cuabi_context_get_device_info;
    pub const cuabi_context_synchronize = __root.cuabi_context_synchronize;
    pub const cuabi_context_get_native = __root.cuabi_context_get_native;
    pub const cuabi_context_get_counters = __root.cuabi_context_get_counters;
    pub const cuabi_stream_create = __root.cuabi_stream_create;
    pub const cuabi_stream_wrap = __root.cuabi_stream_wrap;
    pub const cuabi_event_create = __root.cuabi_event_create;
    pub const cuabi_buffer_create = __root.cuabi_buffer_create;
    pub const cuabi_buffer_wrap = __root.cuabi_buffer_wrap;
    pub const cuabi_module_compile = __root.cuabi_module_compile;
    pub const cuabi_module_load_image = __root.cuabi_module_load_image;
    pub const cuabi_graph_cache_lookup = __root.cuabi_graph_cache_lookup;
    pub const cuabi_graph_cache_insert = __root.cuabi_graph_cache_insert;
    pub const cuabi_graph_cache_clear = __root.cuabi_graph_cache_clear;
    pub const destroy = __root.cuabi_context_destroy;
    pub const get_device_info = __root.cuabi_context_get_device_info;
    pub const synchronize = __root.cuabi_context_synchronize;
    pub const get_native = __root.cuabi_context_get_native;
    pub const get_counters = __root.cuabi_context_get_counters;
    pub const create = __root.cuabi_stream_create;
    pub const wrap = __root.cuabi_stream_wrap;
    pub const compile = __root.cuabi_module_compile;
    pub const image = __root.cuabi_module_load_image;
    pub const lookup = __root.cuabi_graph_cache_lookup;
    pub const insert = __root.cuabi_graph_cache_insert;
    pub const clear = __root.cuabi_graph_cache_clear;
};
pub const cuabi_context = struct_cuabi_context;
pub const struct_cuabi_stream = opaque {
    pub const cuabi_stream_destroy = __root.cuabi_stream_destroy;
    pub const cuabi_stream_synchronize = __root.cuabi_stream_synchronize;
    pub const cuabi_stream_query = __root.cuabi_stream_query;
    pub const cuabi_stream_wait_event = __root.cuabi_stream_wait_event;
    pub const cuabi_stream_get_native = __root.cuabi_stream_get_native;
    pub const cuabi_graph_capture_begin = __root.cuabi_graph_capture_begin;
    pub const cuabi_graph_capture_end = __root.cuabi_graph_capture_end;
    pub const cuabi_graph_capture_end_update = __root.cuabi_graph_capture_end_update;
    pub const cuabi_graph_capture_abort = __root.cuabi_graph_capture_abort;
    pub const cuabi_graph_capture_get_status = __root.cuabi_graph_capture_get_status;
    pub const destroy = __root.cuabi_stream_destroy;
    pub const synchronize = __root.cuabi_stream_synchronize;
    pub const query = __root.cuabi_stream_query;
    pub const wait_event = __root.cuabi_stream_wait_event;
    pub const get_native = __root.cuabi_stream_get_native;
    pub const begin = __root.cuabi_graph_capture_begin;
    pub const end = __root.cuabi_graph_capture_end;
    pub const update = __root.cuabi_graph_capture_end_update;
    pub const abort = __root.cuabi_graph_capture_abort;
    pub const status = __root.cuabi_graph_capture_get_status;
};
pub const cuabi_stream = struct_cuabi_stream;
pub const struct_cuabi_event = opaque {
    pub const cuabi_event_destroy = __root.cuabi_event_destroy;
    pub const cuabi_event_record = __root.cuabi_event_record;
    pub const cuabi_event_synchronize = __root.cuabi_event_synchronize;
    pub const cuabi_event_query = __root.cuabi_event_query;
    pub const cuabi_event_get_elapsed_ms = __root.cuabi_event_get_elapsed_ms;
    pub const destroy = __root.cuabi_event_destroy;
    pub const record = __root.cuabi_event_record;
    pub const synchronize = __root.cuabi_event_synchronize;
    pub const query = __root.cuabi_event_query;
    pub const get_elapsed_ms = __root.cuabi_event_get_elapsed_ms;
};
pub const cuabi_event = struct_cuabi_event;
pub const struct_cuabi_buffer = opaque {
    pub const cuabi_buffer_destroy = __root.cuabi_buffer_destroy;
    pub const cuabi_buffer_get_size = __root.cuabi_buffer_get_size;
    pub const cuabi_buffer_get_device_address = __root.cuabi_buffer_get_device_address;
    pub const cuabi_buffer_write = __root.cuabi_buffer_write;
    pub const cuabi_buffer_read = __root.cuabi_buffer_read;
    pub const cuabi_buffer_copy = __root.cuabi_buffer_copy;
    pub const cuabi_buffer_fill = __root.cuabi_buffer_fill;
    pub const destroy = __root.cuabi_buffer_destroy;
    pub const get_size = __root.cuabi_buffer_get_size;
    pub const get_device_address = __root.cuabi_buffer_get_device_address;
    pub const write = __root.cuabi_buffer_write;
    pub const read = __root.cuabi_buffer_read;
    pub const copy = __root.cuabi_buffer_copy;
    pub const fill = __root.cuabi_buffer_fill;
};
pub const cuabi_buffer = struct_cuabi_buffer;
pub const struct_cuabi_module = opaque {
    pub const cuabi_module_destroy = __root.cuabi_module_destroy;
    pub const cuabi_module_get_info = __root.cuabi_module_get_info;
    pub const cuabi_module_get_image = __root.cuabi_module_get_image;
    pub const cuabi_module_get_log = __root.cuabi_module_get_log;
    pub const cuabi_module_get_lowered_name = __root.cuabi_module_get_lowered_name;
    pub const cuabi_module_get_kernel = __root.cuabi_module_get_kernel;
    pub const destroy = __root.cuabi_module_destroy;
    pub const get_info = __root.cuabi_module_get_info;
    pub const get_image = __root.cuabi_module_get_image;
    pub const get_log = __root.cuabi_module_get_log;
    pub const get_lowered_name = __root.cuabi_module_get_lowered_name;
    pub const get_kernel = __root.cuabi_module_get_kernel;
};
pub const cuabi_module = struct_cuabi_module;
pub const struct_cuabi_kernel = opaque {
    pub const cuabi_kernel_destroy = __root.cuabi_kernel_destroy;
    pub const cuabi_kernel_get_attributes = __root.cuabi_kernel_get_attributes;
    pub const cuabi_kernel_get_native = __root.cuabi_kernel_get_native;
    pub const cuabi_kernel_get_param_count = __root.cuabi_kernel_get_param_count;
    pub const cuabi_kernel_get_param_info = __root.cuabi_kernel_get_param_info;
    pub const cuabi_kernel_get_max_active_blocks_per_sm = __root.cuabi_kernel_get_max_active_blocks_per_sm;
    pub const cuabi_kernel_suggest_block_size = __root.cuabi_kernel_suggest_block_size;
    pub const cuabi_launch = __root.cuabi_launch;
    pub const cuabi_launch_packed = __root.cuabi_launch_packed;
    pub const destroy = __root.cuabi_kernel_destroy;
    pub const get_attributes = __root.cuabi_kernel_get_attributes;
    pub const get_native = __root.cuabi_kernel_get_native;
    pub const get_param_count = __root.cuabi_kernel_get_param_count;
    pub const get_param_info = __root.cuabi_kernel_get_param_info;
    pub const get_max_active_blocks_per_sm = __root.cuabi_kernel_get_max_active_blocks_per_sm;
    pub const suggest_block_size = __root.cuabi_kernel_suggest_block_size;
    pub const launch = __root.cuabi_launch;
    pub const @"packed" = __root.cuabi_launch_packed;
};
pub const cuabi_kernel = struct_cuabi_kernel;
pub const struct_cuabi_graph = opaque {
    pub const cuabi_graph_destroy = __root.cuabi_graph_destroy;
    pub const cuabi_graph_launch = __root.cuabi_graph_launch;
    pub const cuabi_graph_upload = __root.cuabi_graph_upload;
    pub const cuabi_graph_retain_buffer = __root.cuabi_graph_retain_buffer;
    pub const cuabi_graph_get_native = __root.cuabi_graph_get_native;
    pub const cuabi_graph_get_node_count = __root.cuabi_graph_get_node_count;
    pub const cuabi_graph_get_node_info = __root.cuabi_graph_get_node_info;
    pub const cuabi_graph_get_node_kernel_name = __root.cuabi_graph_get_node_kernel_name;
    pub const cuabi_graph_get_node_param_info = __root.cuabi_graph_get_node_param_info;
    pub const cuabi_graph_update_kernel_args = __root.cuabi_graph_update_kernel_args;
    pub const cuabi_graph_update_kernel_args_packed = __root.cuabi_graph_update_kernel_args_packed;
    pub const cuabi_graph_update_kernel_geometry = __root.cuabi_graph_update_kernel_geometry;
    pub const cuabi_graph_update_memset_value = __root.cuabi_graph_update_memset_value;
    pub const destroy = __root.cuabi_graph_destroy;
    pub const launch = __root.cuabi_graph_launch;
    pub const upload = __root.cuabi_graph_upload;
    pub const retain_buffer = __root.cuabi_graph_retain_buffer;
    pub const get_native = __root.cuabi_graph_get_native;
    pub const get_node_count = __root.cuabi_graph_get_node_count;
    pub const get_node_info = __root.cuabi_graph_get_node_info;
    pub const get_node_kernel_name = __root.cuabi_graph_get_node_kernel_name;
    pub const get_node_param_info = __root.cuabi_graph_get_node_param_info;
    pub const update_kernel_args = __root.cuabi_graph_update_kernel_args;
    pub const update_kernel_args_packed = __root.cuabi_graph_update_kernel_args_packed;
    pub const update_kernel_geometry = __root.cuabi_graph_update_kernel_geometry;
    pub const update_memset_value = __root.cuabi_graph_update_memset_value;
};
pub const cuabi_graph = struct_cuabi_graph;
pub const struct_cuabi_range = opaque {
    pub const cuabi_range_end = __root.cuabi_range_end;
    pub const end = __root.cuabi_range_end;
};
pub const cuabi_range = struct_cuabi_range;
pub const struct_cuabi_device_info = extern struct {
    struct_size: u32 = 0,
    ordinal: i32 = 0,
    name: [256]u8 = @import("std").mem.zeroes([256]u8),
    uuid: [16]u8 = @import("std").mem.zeroes([16]u8),
    compute_capability_major: i32 = 0,
    compute_capability_minor: i32 = 0,
    multiprocessor_count: i32 = 0,
    warp_size: i32 = 0,
    total_memory_bytes: u64 = 0,
    max_threads_per_block: i32 = 0,
    max_block_dim: [3]i32 = @import("std").mem.zeroes([3]i32),
    max_grid_dim: [3]i32 = @import("std").mem.zeroes([3]i32),
    max_shared_memory_per_block: i32 = 0,
    max_shared_memory_per_block_optin: i32 = 0,
    max_shared_memory_per_multiprocessor: i32 = 0,
    max_registers_per_block: i32 = 0,
    max_registers_per_multiprocessor: i32 = 0,
    max_threads_per_multiprocessor: i32 = 0,
    max_blocks_per_multiprocessor: i32 = 0,
    cooperative_launch: u32 = 0,
    cluster_launch: u32 = 0,
    pci_domain_id: i32 = 0,
    pci_bus_id: i32 = 0,
    pci_device_id: i32 = 0,
    clock_rate_khz: i32 = 0,
    memory_bus_width_bits: i32 = 0,
    l2_cache_bytes: i32 = 0,
    reserved: [2]u32 = @import("std").mem.zeroes([2]u32),
    pub const cuabi_device_info_init = __root.cuabi_device_info_init;
    pub const init = __root.cuabi_device_info_init;
};
pub const cuabi_device_info = struct_cuabi_device_info;
pub extern fn cuabi_device_info_init(out_info: [*c]cuabi_device_info) void;
pub extern fn cuabi_driver_get_version(out_version: [*c]i32) cuabi_status;
pub extern fn cuabi_device_get_count(out_count: [*c]i32) cuabi_status;
pub extern fn cuabi_device_get_info(ordinal: i32, out_info: [*c]cuabi_device_info) cuabi_status;
pub const struct_cuabi_context_options = extern struct {
    struct_size: u32 = 0,
    device_ordinal: i32 = 0,
    flags: u32 = 0,
    reserved: u32 = 0,
    pub const cuabi_context_options_init = __root.cuabi_context_options_init;
    pub const cuabi_context_create = __root.cuabi_context_create;
    pub const init = __root.cuabi_context_options_init;
    pub const create = __root.cuabi_context_create;
};
pub const cuabi_context_options = struct_cuabi_context_options;
pub const struct_cuabi_counters = extern struct {
    struct_size: u32 = 0,
    reserved: u32 = 0,
    launches: u64 = 0,
    launches_packed: u64 = 0,
    launches_cooperative: u64 = 0,
    launches_cluster: u64 = 0,
    synchronizations: u64 = 0,
    graph_launches: u64 = 0,
    graph_instantiations: u64 = 0,
    graph_updates: u64 = 0,
    graph_reinstantiations: u64 = 0,
    compiles: u64 = 0,
    compile_time_ns: u64 = 0,
    memory_cache_hits: u64 = 0,
    memory_cache_misses: u64 = 0,
    disk_cache_hits: u64 = 0,
    disk_cache_misses: u64 = 0,
    disk_cache_corrupt_recovered: u64 = 0,
    disk_cache_evictions: u64 = 0,
    pub const cuabi_counters_init = __root.cuabi_counters_init;
    pub const init = __root.cuabi_counters_init;
};
pub const cuabi_counters = struct_cuabi_counters;
pub extern fn cuabi_context_options_init(out_options: [*c]cuabi_context_options) void;
pub extern fn cuabi_counters_init(out_counters: [*c]cuabi_counters) void;
pub extern fn cuabi_context_create(options: [*c]const cuabi_context_options, out_context: [*c]?*cuabi_context) cuabi_status;
pub extern fn cuabi_context_destroy(context: ?*cuabi_context) void;
pub extern fn cuabi_context_get_device_info(context: ?*cuabi_context, out_info: [*c]cuabi_device_info) cuabi_status;
pub extern fn cuabi_context_synchronize(context: ?*cuabi_context) cuabi_status;
pub extern fn cuabi_context_get_native(context: ?*cuabi_context, out_cu_context: [*c]?*anyopaque) cuabi_status;
pub extern fn cuabi_context_get_counters(context: ?*cuabi_context, out_counters: [*c]cuabi_counters) cuabi_status;
pub const struct_cuabi_stream_options = extern struct {
    struct_size: u32 = 0,
    flags: u32 = 0,
    priority: i32 = 0,
    reserved: u32 = 0,
    pub const cuabi_stream_options_init = __root.cuabi_stream_options_init;
    pub const init = __root.cuabi_stream_options_init;
};
pub const cuabi_stream_options = struct_cuabi_stream_options;
pub extern fn cuabi_stream_options_init(out_options: [*c]cuabi_stream_options) void;
pub extern fn cuabi_stream_create(context: ?*cuabi_context, options: [*c]const cuabi_stream_options, out_stream: [*c]?*cuabi_stream) cuabi_status;
pub extern fn cuabi_stream_wrap(context: ?*cuabi_context, cu_stream: ?*anyopaque, out_stream: [*c]?*cuabi_stream) cuabi_status;
pub extern fn cuabi_stream_destroy(stream: ?*cuabi_stream) void;
pub extern fn cuabi_stream_synchronize(stream: ?*cuabi_stream) cuabi_status;
pub extern fn cuabi_stream_query(stream: ?*cuabi_stream) cuabi_status;
pub extern fn cuabi_stream_wait_event(stream: ?*cuabi_stream, event: ?*cuabi_event) cuabi_status;
pub extern fn cuabi_stream_get_native(stream: ?*cuabi_stream, out_cu_stream: [*c]?*anyopaque) cuabi_status;
pub const struct_cuabi_event_options = extern struct {
    struct_size: u32 = 0,
    flags: u32 = 0,
    pub const cuabi_event_options_init = __root.cuabi_event_options_init;
    pub const init = __root.cuabi_event_options_init;
};
pub const cuabi_event_options = struct_cuabi_event_options;
pub extern fn cuabi_event_options_init(out_options: [*c]cuabi_event_options) void;
pub extern fn cuabi_event_create(context: ?*cuabi_context, options: [*c]const cuabi_event_options, out_event: [*c]?*cuabi_event) cuabi_status;
pub extern fn cuabi_event_destroy(event: ?*cuabi_event) void;
pub extern fn cuabi_event_record(event: ?*cuabi_event, stream: ?*cuabi_stream) cuabi_status;
pub extern fn cuabi_event_synchronize(event: ?*cuabi_event) cuabi_status;
pub extern fn cuabi_event_query(event: ?*cuabi_event) cuabi_status;
pub extern fn cuabi_event_get_elapsed_ms(start: ?*cuabi_event, end: ?*cuabi_event, out_ms: [*c]f32) cuabi_status;
pub const struct_cuabi_buffer_options = extern struct {
    struct_size: u32 = 0,
    flags: u32 = 0,
    pub const cuabi_buffer_options_init = __root.cuabi_buffer_options_init;
    pub const init = __root.cuabi_buffer_options_init;
};
pub const cuabi_buffer_options = struct_cuabi_buffer_options;
pub extern fn cuabi_buffer_options_init(out_options: [*c]cuabi_buffer_options) void;
pub extern fn cuabi_buffer_create(context: ?*cuabi_context, size: usize, options: [*c]const cuabi_buffer_options, out_buffer: [*c]?*cuabi_buffer) cuabi_status;
pub extern fn cuabi_buffer_wrap(context: ?*cuabi_context, device_address: u64, size: usize, out_buffer: [*c]?*cuabi_buffer) cuabi_status;
pub extern fn cuabi_buffer_destroy(buffer: ?*cuabi_buffer) void;
pub extern fn cuabi_buffer_get_size(buffer: ?*cuabi_buffer, out_size: [*c]usize) cuabi_status;
pub extern fn cuabi_buffer_get_device_address(buffer: ?*cuabi_buffer, out_address: [*c]u64) cuabi_status;
pub extern fn cuabi_buffer_write(buffer: ?*cuabi_buffer, offset: usize, data: ?*const anyopaque, size: usize, stream: ?*cuabi_stream) cuabi_status;
pub extern fn cuabi_buffer_read(buffer: ?*cuabi_buffer, offset: usize, out_data: ?*anyopaque, size: usize, stream: ?*cuabi_stream) cuabi_status;
pub extern fn cuabi_buffer_copy(dst: ?*cuabi_buffer, dst_offset: usize, src: ?*cuabi_buffer, src_offset: usize, size: usize, stream: ?*cuabi_stream) cuabi_status;
pub extern fn cuabi_buffer_fill(buffer: ?*cuabi_buffer, offset: usize, value: u32, element_size: u32, count: usize, stream: ?*cuabi_stream) cuabi_status;
pub const struct_cuabi_compile_options = extern struct {
    struct_size: u32 = 0,
    flags: u32 = 0,
    target: [*c]const u8 = null,
    cpp_standard: [*c]const u8 = null,
    program_name: [*c]const u8 = null,
    fast_math: u32 = 0,
    ftz: i32 = 0,
    prec_div: i32 = 0,
    prec_sqrt: i32 = 0,
    fmad: i32 = 0,
    max_registers: u32 = 0,
    line_info: u32 = 0,
    device_debug: u32 = 0,
    defines: [*c]const [*c]const u8 = null,
    define_count: usize = 0,
    include_dirs: [*c]const [*c]const u8 = null,
    include_dir_count: usize = 0,
    header_names: [*c]const [*c]const u8 = null,
    header_sources: [*c]const [*c]const u8 = null,
    header_count: usize = 0,
    name_expressions: [*c]const [*c]const u8 = null,
    name_expression_count: usize = 0,
    extra_flags: [*c]const [*c]const u8 = null,
    extra_flag_count: usize = 0,
    salt: ?*const anyopaque = null,
    salt_size: usize = 0,
    timeout_ms: u32 = 0,
    reserved: u32 = 0,
    pub const cuabi_compile_options_init = __root.cuabi_compile_options_init;
    pub const init = __root.cuabi_compile_options_init;
};
pub const cuabi_compile_options = struct_cuabi_compile_options;
pub const struct_cuabi_module_info = extern struct {
    struct_size: u32 = 0,
    image_kind: i32 = 0,
    origin: i32 = 0,
    loaded: u32 = 0,
    ptx_fallback: u32 = 0,
    name_expression_count: u32 = 0,
    image_size: u64 = 0,
    target: [32]u8 = @import("std").mem.zeroes([32]u8),
    cache_key: [40]u8 = @import("std").mem.zeroes([40]u8),
    pub const cuabi_module_info_init = __root.cuabi_module_info_init;
    pub const init = __root.cuabi_module_info_init;
};
pub const cuabi_module_info = struct_cuabi_module_info;
pub extern fn cuabi_compile_options_init(out_options: [*c]cuabi_compile_options) void;
pub extern fn cuabi_module_info_init(out_info: [*c]cuabi_module_info) void;
pub extern fn cuabi_module_compile(context: ?*cuabi_context, source: [*c]const u8, options: [*c]const cuabi_compile_options, out_module: [*c]?*cuabi_module) cuabi_status;
pub extern fn cuabi_module_compile_offline(source: [*c]const u8, options: [*c]const cuabi_compile_options, out_module: [*c]?*cuabi_module) cuabi_status;
pub extern fn cuabi_module_load_image(context: ?*cuabi_context, image: ?*const anyopaque, size: usize, out_module: [*c]?*cuabi_module) cuabi_status;
pub extern fn cuabi_module_destroy(module: ?*cuabi_module) void;
pub extern fn cuabi_module_get_info(module: ?*cuabi_module, out_info: [*c]cuabi_module_info) cuabi_status;
pub extern fn cuabi_module_get_image(module: ?*cuabi_module, out_image: ?*anyopaque, capacity: usize, out_size: [*c]usize) cuabi_status;
pub extern fn cuabi_module_get_log(module: ?*cuabi_module, out_text: [*c]u8, capacity: usize, out_size: [*c]usize) cuabi_status;
pub extern fn cuabi_module_get_lowered_name(module: ?*cuabi_module, expression: [*c]const u8, out_text: [*c]u8, capacity: usize, out_size: [*c]usize) cuabi_status;
pub extern fn cuabi_module_get_kernel(module: ?*cuabi_module, name_or_expression: [*c]const u8, out_kernel: [*c]?*cuabi_kernel) cuabi_status;
pub extern fn cuabi_nvrtc_get_version(out_major: [*c]i32, out_minor: [*c]i32) cuabi_status;
pub extern fn cuabi_nvrtc_get_supported_archs(out_archs: [*c]i32, capacity: usize, out_count: [*c]usize) cuabi_status;
pub extern fn cuabi_nvrtc_get_path(out_text: [*c]u8, capacity: usize, out_size: [*c]usize) cuabi_status;
pub extern fn cuabi_nvrtc_get_include_dirs(out_text: [*c]u8, capacity: usize, out_size: [*c]usize) cuabi_status;
pub const struct_cuabi_kernel_attributes = extern struct {
    struct_size: u32 = 0,
    registers_per_thread: i32 = 0,
    max_threads_per_block: i32 = 0,
    static_shared_memory_bytes: i32 = 0,
    constant_memory_bytes: i32 = 0,
    local_memory_bytes: i32 = 0,
    max_dynamic_shared_memory_bytes: i32 = 0,
    ptx_version: i32 = 0,
    binary_version: i32 = 0,
    reserved: u32 = 0,
    pub const cuabi_kernel_attributes_init = __root.cuabi_kernel_attributes_init;
    pub const init = __root.cuabi_kernel_attributes_init;
};
pub const cuabi_kernel_attributes = struct_cuabi_kernel_attributes;
pub extern fn cuabi_kernel_attributes_init(out_attributes: [*c]cuabi_kernel_attributes) void;
pub extern fn cuabi_kernel_destroy(kernel: ?*cuabi_kernel) void;
pub extern fn cuabi_kernel_get_attributes(kernel: ?*cuabi_kernel, out_attributes: [*c]cuabi_kernel_attributes) cuabi_status;
pub extern fn cuabi_kernel_get_native(kernel: ?*cuabi_kernel, out_cu_function: [*c]?*anyopaque) cuabi_status;
pub extern fn cuabi_kernel_get_param_count(kernel: ?*cuabi_kernel, out_count: [*c]usize) cuabi_status;
pub extern fn cuabi_kernel_get_param_info(kernel: ?*cuabi_kernel, index: usize, out_offset: [*c]usize, out_size: [*c]usize) cuabi_status;
pub extern fn cuabi_kernel_get_max_active_blocks_per_sm(kernel: ?*cuabi_kernel, block_threads: u32, shared_memory_bytes: u32, out_blocks: [*c]u32) cuabi_status;
pub extern fn cuabi_kernel_suggest_block_size(kernel: ?*cuabi_kernel, shared_memory_bytes: u32, out_block_threads: [*c]u32, out_min_grid_blocks: [*c]u32) cuabi_status;
pub const struct_cuabi_launch_config = extern struct {
    struct_size: u32 = 0,
    flags: u32 = 0,
    grid: [3]u32 = @import("std").mem.zeroes([3]u32),
    block: [3]u32 = @import("std").mem.zeroes([3]u32),
    cluster: [3]u32 = @import("std").mem.zeroes([3]u32),
    shared_memory_bytes: u32 = 0,
    stream: ?*cuabi_stream = null,
    pub const cuabi_launch_config_init = __root.cuabi_launch_config_init;
    pub const init = __root.cuabi_launch_config_init;
};
pub const cuabi_launch_config = struct_cuabi_launch_config;
pub const struct_cuabi_kernel_arg = extern struct {
    value: ?*const anyopaque = null,
    size: usize = 0,
};
pub const cuabi_kernel_arg = struct_cuabi_kernel_arg;
pub extern fn cuabi_launch_config_init(out_config: [*c]cuabi_launch_config) void;
pub extern fn cuabi_launch(kernel: ?*cuabi_kernel, config: [*c]const cuabi_launch_config, args: [*c]const cuabi_kernel_arg, arg_count: usize) cuabi_status;
pub extern fn cuabi_launch_packed(kernel: ?*cuabi_kernel, config: [*c]const cuabi_launch_config, @"packed": ?*const anyopaque, packed_size: usize) cuabi_status;
pub const struct_cuabi_graph_options = extern struct {
    struct_size: u32 = 0,
    flags: u32 = 0,
    pub const cuabi_graph_options_init = __root.cuabi_graph_options_init;
    pub const init = __root.cuabi_graph_options_init;
};
pub const cuabi_graph_options = struct_cuabi_graph_options;
pub const struct_cuabi_graph_node_info = extern struct {
    struct_size: u32 = 0,
    kind: i32 = 0,
    kernel: ?*cuabi_kernel = null,
    grid: [3]u32 = @import("std").mem.zeroes([3]u32),
    block: [3]u32 = @import("std").mem.zeroes([3]u32),
    shared_memory_bytes: u32 = 0,
    param_count: u32 = 0,
    param_bytes: u64 = 0,
    memset_value: u32 = 0,
    memset_element_size: u32 = 0,
    pub const cuabi_graph_node_info_init = __root.cuabi_graph_node_info_init;
    pub const init = __root.cuabi_graph_node_info_init;
};
pub const cuabi_graph_node_info = struct_cuabi_graph_node_info;
pub const struct_cuabi_graph_update_info = extern struct {
    struct_size: u32 = 0,
    reinstantiated: u32 = 0,
    driver_result: i32 = 0,
    has_error_node: u32 = 0,
    error_node_index: u64 = 0,
    reason: [512]u8 = @import("std").mem.zeroes([512]u8),
    pub const cuabi_graph_update_info_init = __root.cuabi_graph_update_info_init;
    pub const init = __root.cuabi_graph_update_info_init;
};
pub const cuabi_graph_update_info = struct_cuabi_graph_update_info;
pub extern fn cuabi_graph_options_init(out_options: [*c]cuabi_graph_options) void;
pub extern fn cuabi_graph_node_info_init(out_info: [*c]cuabi_graph_node_info) void;
pub extern fn cuabi_graph_update_info_init(out_info: [*c]cuabi_graph_update_info) void;
pub extern fn cuabi_graph_capture_begin(stream: ?*cuabi_stream, mode: i32) cuabi_status;
pub extern fn cuabi_graph_capture_end(stream: ?*cuabi_stream, options: [*c]const cuabi_graph_options, out_graph: [*c]?*cuabi_graph) cuabi_status;
pub extern fn cuabi_graph_capture_end_update(stream: ?*cuabi_stream, graph: ?*cuabi_graph, flags: u32, out_info: [*c]cuabi_graph_update_info) cuabi_status;
pub extern fn cuabi_graph_capture_abort(stream: ?*cuabi_stream) cuabi_status;
pub extern fn cuabi_graph_capture_get_status(stream: ?*cuabi_stream, out_status: [*c]i32) cuabi_status;
pub extern fn cuabi_graph_destroy(graph: ?*cuabi_graph) void;
pub extern fn cuabi_graph_launch(graph: ?*cuabi_graph, stream: ?*cuabi_stream) cuabi_status;
pub extern fn cuabi_graph_upload(graph: ?*cuabi_graph, stream: ?*cuabi_stream) cuabi_status;
pub extern fn cuabi_graph_retain_buffer(graph: ?*cuabi_graph, buffer: ?*cuabi_buffer) cuabi_status;
pub extern fn cuabi_graph_get_native(graph: ?*cuabi_graph, out_cu_graph: [*c]?*anyopaque, out_cu_graph_exec: [*c]?*anyopaque) cuabi_status;
pub extern fn cuabi_graph_get_node_count(graph: ?*cuabi_graph, out_count: [*c]usize) cuabi_status;
pub extern fn cuabi_graph_get_node_info(graph: ?*cuabi_graph, index: usize, out_info: [*c]cuabi_graph_node_info) cuabi_status;
pub extern fn cuabi_graph_get_node_kernel_name(graph: ?*cuabi_graph, index: usize, out_text: [*c]u8, capacity: usize, out_size: [*c]usize) cuabi_status;
pub extern fn cuabi_graph_get_node_param_info(graph: ?*cuabi_graph, index: usize, param_index: usize, out_offset: [*c]usize, out_size: [*c]usize) cuabi_status;
pub extern fn cuabi_graph_update_kernel_args(graph: ?*cuabi_graph, index: usize, args: [*c]const cuabi_kernel_arg, arg_count: usize) cuabi_status;
pub extern fn cuabi_graph_update_kernel_args_packed(graph: ?*cuabi_graph, index: usize, @"packed": ?*const anyopaque, packed_size: usize) cuabi_status;
pub extern fn cuabi_graph_update_kernel_geometry(graph: ?*cuabi_graph, index: usize, grid: [*c]const u32, block: [*c]const u32, shared_memory_bytes: u32) cuabi_status;
pub extern fn cuabi_graph_update_memset_value(graph: ?*cuabi_graph, index: usize, value: u32) cuabi_status;
pub const struct_cuabi_graph_cache_stats = extern struct {
    struct_size: u32 = 0,
    reserved: u32 = 0,
    entries: u64 = 0,
    capacity: u64 = 0,
    hits: u64 = 0,
    misses: u64 = 0,
    insertions: u64 = 0,
    evictions: u64 = 0,
    pub const cuabi_graph_cache_stats_init = __root.cuabi_graph_cache_stats_init;
    pub const cuabi_graph_cache_get_stats = __root.cuabi_graph_cache_get_stats;
    pub const init = __root.cuabi_graph_cache_stats_init;
    pub const stats = __root.cuabi_graph_cache_get_stats;
};
pub const cuabi_graph_cache_stats = struct_cuabi_graph_cache_stats;
pub extern fn cuabi_graph_cache_stats_init(out_stats: [*c]cuabi_graph_cache_stats) void;
pub extern fn cuabi_graph_cache_get_capacity_class(size: u64) u64;
pub extern fn cuabi_graph_cache_lookup(context: ?*cuabi_context, key: ?*const anyopaque, key_size: usize, size: u64, out_graph: [*c]?*cuabi_graph) cuabi_status;
pub extern fn cuabi_graph_cache_insert(context: ?*cuabi_context, key: ?*const anyopaque, key_size: usize, size: u64, graph: ?*cuabi_graph) cuabi_status;
pub extern fn cuabi_graph_cache_set_capacity(max_entries: usize) void;
pub extern fn cuabi_graph_cache_clear(context: ?*cuabi_context) cuabi_status;
pub extern fn cuabi_graph_cache_get_stats(out_stats: [*c]cuabi_graph_cache_stats) cuabi_status;
pub const struct_cuabi_cache_stats = extern struct {
    struct_size: u32 = 0,
    disk_enabled: u32 = 0,
    disk_writable: u32 = 0,
    nvrtc_state: i32 = 0,
    memory_hits: u64 = 0,
    memory_misses: u64 = 0,
    memory_entries: u64 = 0,
    memory_bytes: u64 = 0,
    memory_max_bytes: u64 = 0,
    memory_evictions: u64 = 0,
    disk_hits: u64 = 0,
    disk_misses: u64 = 0,
    disk_entries: u64 = 0,
    disk_bytes: u64 = 0,
    disk_max_bytes: u64 = 0,
    disk_stores: u64 = 0,
    disk_store_failures: u64 = 0,
    disk_corrupt_recovered: u64 = 0,
    disk_evictions: u64 = 0,
    disk_lock_timeouts: u64 = 0,
    disk_temp_files_removed: u64 = 0,
    compiles: u64 = 0,
    compiles_joined: u64 = 0,
    pub const cuabi_cache_stats_init = __root.cuabi_cache_stats_init;
    pub const cuabi_cache_get_stats = __root.cuabi_cache_get_stats;
    pub const init = __root.cuabi_cache_stats_init;
    pub const stats = __root.cuabi_cache_get_stats;
};
pub const cuabi_cache_stats = struct_cuabi_cache_stats;
pub const struct_cuabi_driver_jit_cache_info = extern struct {
    struct_size: u32 = 0,
    enabled: u32 = 0,
    path_source: i32 = 0,
    max_bytes_source: i32 = 0,
    max_bytes: u64 = 0,
    driver_started_first: u32 = 0,
    reserved: u32 = 0,
    pub const cuabi_driver_jit_cache_info_init = __root.cuabi_driver_jit_cache_info_init;
    pub const cuabi_cache_get_driver_jit_info = __root.cuabi_cache_get_driver_jit_info;
    pub const init = __root.cuabi_driver_jit_cache_info_init;
    pub const info = __root.cuabi_cache_get_driver_jit_info;
};
pub const cuabi_driver_jit_cache_info = struct_cuabi_driver_jit_cache_info;
pub extern fn cuabi_cache_stats_init(out_stats: [*c]cuabi_cache_stats) void;
pub extern fn cuabi_driver_jit_cache_info_init(out_info: [*c]cuabi_driver_jit_cache_info) void;
pub extern fn cuabi_cache_get_stats(out_stats: [*c]cuabi_cache_stats) cuabi_status;
pub extern fn cuabi_cache_get_directory(out_text: [*c]u8, capacity: usize, out_size: [*c]usize) cuabi_status;
pub extern fn cuabi_cache_get_degradation_reason(out_text: [*c]u8, capacity: usize, out_size: [*c]usize) cuabi_status;
pub extern fn cuabi_cache_prune(max_bytes: u64, out_removed_entries: [*c]u64, out_removed_bytes: [*c]u64) cuabi_status;
pub extern fn cuabi_cache_clear(out_removed_entries: [*c]u64, out_removed_bytes: [*c]u64) cuabi_status;
pub extern fn cuabi_cache_verify(out_checked_entries: [*c]u64, out_removed_entries: [*c]u64) cuabi_status;
pub extern fn cuabi_cache_configure_driver_jit() cuabi_status;
pub extern fn cuabi_cache_get_driver_jit_info(out_info: [*c]cuabi_driver_jit_cache_info) cuabi_status;
pub extern fn cuabi_cache_get_driver_jit_path(out_text: [*c]u8, capacity: usize, out_size: [*c]usize) cuabi_status;
pub extern fn cuabi_range_get_enabled() u32;
pub extern fn cuabi_range_get_profiler_attached() u32;
pub extern fn cuabi_range_get_catalog_count(out_count: [*c]usize) cuabi_status;
pub extern fn cuabi_range_get_catalog_entry(index: usize, out_name: [*c][*c]const u8, out_description: [*c][*c]const u8) cuabi_status;
pub extern fn cuabi_range_push(name: [*c]const u8, domain: [*c]const u8) cuabi_status;
pub extern fn cuabi_range_pop() cuabi_status;
pub extern fn cuabi_range_start(name: [*c]const u8, domain: [*c]const u8, out_range: [*c]?*cuabi_range) cuabi_status;
pub extern fn cuabi_range_end(range: ?*cuabi_range) cuabi_status;
pub const PFN_cuabi_version_number = ?*const fn () callconv(.c) u32;
pub const PFN_cuabi_abi_version = ?*const fn () callconv(.c) u32;
pub const PFN_cuabi_get_proc_address = ?*const fn (name: [*c]const u8) callconv(.c) cuabi_proc;
pub const PFN_cuabi_status_name = ?*const fn (status: cuabi_status) callconv(.c) [*c]const u8;
pub const PFN_cuabi_last_error_message = ?*const fn () callconv(.c) [*c]const u8;
pub const PFN_cuabi_last_cu_result = ?*const fn () callconv(.c) i32;
pub const PFN_cuabi_last_nvrtc_result = ?*const fn () callconv(.c) i32;
pub const PFN_cuabi_last_compile_log = ?*const fn (out_text: [*c]u8, capacity: usize, out_size: [*c]usize) callconv(.c) cuabi_status;
pub const PFN_cuabi_device_info_init = ?*const fn (out_info: [*c]cuabi_device_info) callconv(.c) void;
pub const PFN_cuabi_driver_get_version = ?*const fn (out_version: [*c]i32) callconv(.c) cuabi_status;
pub const PFN_cuabi_device_get_count = ?*const fn (out_count: [*c]i32) callconv(.c) cuabi_status;
pub const PFN_cuabi_device_get_info = ?*const fn (ordinal: i32, out_info: [*c]cuabi_device_info) callconv(.c) cuabi_status;
pub const PFN_cuabi_context_options_init = ?*const fn (out_options: [*c]cuabi_context_options) callconv(.c) void;
pub const PFN_cuabi_counters_init = ?*const fn (out_counters: [*c]cuabi_counters) callconv(.c) void;
pub const PFN_cuabi_context_create = ?*const fn (options: [*c]const cuabi_context_options, out_context: [*c]?*cuabi_context) callconv(.c) cuabi_status;
pub const PFN_cuabi_context_destroy = ?*const fn (context: ?*cuabi_context) callconv(.c) void;
pub const PFN_cuabi_context_get_device_info = ?*const fn (context: ?*cuabi_context, out_info: [*c]cuabi_device_info) callconv(.c) cuabi_status;
pub const PFN_cuabi_context_synchronize = ?*const fn (context: ?*cuabi_context) callconv(.c) cuabi_status;
pub const PFN_cuabi_context_get_native = ?*const fn (context: ?*cuabi_context, out_cu_context: [*c]?*anyopaque) callconv(.c) cuabi_status;
pub const PFN_cuabi_context_get_counters = ?*const fn (context: ?*cuabi_context, out_counters: [*c]cuabi_counters) callconv(.c) cuabi_status;
pub const PFN_cuabi_stream_options_init = ?*const fn (out_options: [*c]cuabi_stream_options) callconv(.c) void;
pub const PFN_cuabi_stream_create = ?*const fn (context: ?*cuabi_context, options: [*c]const cuabi_stream_options, out_stream: [*c]?*cuabi_stream) callconv(.c) cuabi_status;
pub const PFN_cuabi_stream_wrap = ?*const fn (context: ?*cuabi_context, cu_stream: ?*anyopaque, out_stream: [*c]?*cuabi_stream) callconv(.c) cuabi_status;
pub const PFN_cuabi_stream_destroy = ?*const fn (stream: ?*cuabi_stream) callconv(.c) void;
pub const PFN_cuabi_stream_synchronize = ?*const fn (stream: ?*cuabi_stream) callconv(.c) cuabi_status;
pub const PFN_cuabi_stream_query = ?*const fn (stream: ?*cuabi_stream) callconv(.c) cuabi_status;
pub const PFN_cuabi_stream_wait_event = ?*const fn (stream: ?*cuabi_stream, event: ?*cuabi_event) callconv(.c) cuabi_status;
pub const PFN_cuabi_stream_get_native = ?*const fn (stream: ?*cuabi_stream, out_cu_stream: [*c]?*anyopaque) callconv(.c) cuabi_status;
pub const PFN_cuabi_event_options_init = ?*const fn (out_options: [*c]cuabi_event_options) callconv(.c) void;
pub const PFN_cuabi_event_create = ?*const fn (context: ?*cuabi_context, options: [*c]const cuabi_event_options, out_event: [*c]?*cuabi_event) callconv(.c) cuabi_status;
pub const PFN_cuabi_event_destroy = ?*const fn (event: ?*cuabi_event) callconv(.c) void;
pub const PFN_cuabi_event_record = ?*const fn (event: ?*cuabi_event, stream: ?*cuabi_stream) callconv(.c) cuabi_status;
pub const PFN_cuabi_event_synchronize = ?*const fn (event: ?*cuabi_event) callconv(.c) cuabi_status;
pub const PFN_cuabi_event_query = ?*const fn (event: ?*cuabi_event) callconv(.c) cuabi_status;
pub const PFN_cuabi_event_get_elapsed_ms = ?*const fn (start: ?*cuabi_event, end: ?*cuabi_event, out_ms: [*c]f32) callconv(.c) cuabi_status;
pub const PFN_cuabi_buffer_options_init = ?*const fn (out_options: [*c]cuabi_buffer_options) callconv(.c) void;
pub const PFN_cuabi_buffer_create = ?*const fn (context: ?*cuabi_context, size: usize, options: [*c]const cuabi_buffer_options, out_buffer: [*c]?*cuabi_buffer) callconv(.c) cuabi_status;
pub const PFN_cuabi_buffer_wrap = ?*const fn (context: ?*cuabi_context, device_address: u64, size: usize, out_buffer: [*c]?*cuabi_buffer) callconv(.c) cuabi_status;
pub const PFN_cuabi_buffer_destroy = ?*const fn (buffer: ?*cuabi_buffer) callconv(.c) void;
pub const PFN_cuabi_buffer_get_size = ?*const fn (buffer: ?*cuabi_buffer, out_size: [*c]usize) callconv(.c) cuabi_status;
pub const PFN_cuabi_buffer_get_device_address = ?*const fn (buffer: ?*cuabi_buffer, out_address: [*c]u64) callconv(.c) cuabi_status;
pub const PFN_cuabi_buffer_write = ?*const fn (buffer: ?*cuabi_buffer, offset: usize, data: ?*const anyopaque, size: usize, stream: ?*cuabi_stream) callconv(.c) cuabi_status;
pub const PFN_cuabi_buffer_read = ?*const fn (buffer: ?*cuabi_buffer, offset: usize, out_data: ?*anyopaque, size: usize, stream: ?*cuabi_stream) callconv(.c) cuabi_status;
pub const PFN_cuabi_buffer_copy = ?*const fn (dst: ?*cuabi_buffer, dst_offset: usize, src: ?*cuabi_buffer, src_offset: usize, size: usize, stream: ?*cuabi_stream) callconv(.c) cuabi_status;
pub const PFN_cuabi_buffer_fill = ?*const fn (buffer: ?*cuabi_buffer, offset: usize, value: u32, element_size: u32, count: usize, stream: ?*cuabi_stream) callconv(.c) cuabi_status;
pub const PFN_cuabi_compile_options_init = ?*const fn (out_options: [*c]cuabi_compile_options) callconv(.c) void;
pub const PFN_cuabi_module_info_init = ?*const fn (out_info: [*c]cuabi_module_info) callconv(.c) void;
pub const PFN_cuabi_module_compile = ?*const fn (context: ?*cuabi_context, source: [*c]const u8, options: [*c]const cuabi_compile_options, out_module: [*c]?*cuabi_module) callconv(.c) cuabi_status;
pub const PFN_cuabi_module_compile_offline = ?*const fn (source: [*c]const u8, options: [*c]const cuabi_compile_options, out_module: [*c]?*cuabi_module) callconv(.c) cuabi_status;
pub const PFN_cuabi_module_load_image = ?*const fn (context: ?*cuabi_context, image: ?*const anyopaque, size: usize, out_module: [*c]?*cuabi_module) callconv(.c) cuabi_status;
pub const PFN_cuabi_module_destroy = ?*const fn (module: ?*cuabi_module) callconv(.c) void;
pub const PFN_cuabi_module_get_info = ?*const fn (module: ?*cuabi_module, out_info: [*c]cuabi_module_info) callconv(.c) cuabi_status;
pub const PFN_cuabi_module_get_image = ?*const fn (module: ?*cuabi_module, out_image: ?*anyopaque, capacity: usize, out_size: [*c]usize) callconv(.c) cuabi_status;
pub const PFN_cuabi_module_get_log = ?*const fn (module: ?*cuabi_module, out_text: [*c]u8, capacity: usize, out_size: [*c]usize) callconv(.c) cuabi_status;
pub const PFN_cuabi_module_get_lowered_name = ?*const fn (module: ?*cuabi_module, expression: [*c]const u8, out_text: [*c]u8, capacity: usize, out_size: [*c]usize) callconv(.c) cuabi_status;
pub const PFN_cuabi_module_get_kernel = ?*const fn (module: ?*cuabi_module, name_or_expression: [*c]const u8, out_kernel: [*c]?*cuabi_kernel) callconv(.c) cuabi_status;
pub const PFN_cuabi_nvrtc_get_version = ?*const fn (out_major: [*c]i32, out_minor: [*c]i32) callconv(.c) cuabi_status;
pub const PFN_cuabi_nvrtc_get_supported_archs = ?*const fn (out_archs: [*c]i32, capacity: usize, out_count: [*c]usize) callconv(.c) cuabi_status;
pub const PFN_cuabi_nvrtc_get_path = ?*const fn (out_text: [*c]u8, capacity: usize, out_size: [*c]usize) callconv(.c) cuabi_status;
pub const PFN_cuabi_nvrtc_get_include_dirs = ?*const fn (out_text: [*c]u8, capacity: usize, out_size: [*c]usize) callconv(.c) cuabi_status;
pub const PFN_cuabi_kernel_attributes_init = ?*const fn (out_attributes: [*c]cuabi_kernel_attributes) callconv(.c) void;
pub const PFN_cuabi_kernel_destroy = ?*const fn (kernel: ?*cuabi_kernel) callconv(.c) void;
pub const PFN_cuabi_kernel_get_attributes = ?*const fn (kernel: ?*cuabi_kernel, out_attributes: [*c]cuabi_kernel_attributes) callconv(.c) cuabi_status;
pub const PFN_cuabi_kernel_get_native = ?*const fn (kernel: ?*cuabi_kernel, out_cu_function: [*c]?*anyopaque) callconv(.c) cuabi_status;
pub const PFN_cuabi_kernel_get_param_count = ?*const fn (kernel: ?*cuabi_kernel, out_count: [*c]usize) callconv(.c) cuabi_status;
pub const PFN_cuabi_kernel_get_param_info = ?*const fn (kernel: ?*cuabi_kernel, index: usize, out_offset: [*c]usize, out_size: [*c]usize) callconv(.c) cuabi_status;
pub const PFN_cuabi_kernel_get_max_active_blocks_per_sm = ?*const fn (kernel: ?*cuabi_kernel, block_threads: u32, shared_memory_bytes: u32, out_blocks: [*c]u32) callconv(.c) cuabi_status;
pub const PFN_cuabi_kernel_suggest_block_size = ?*const fn (kernel: ?*cuabi_kernel, shared_memory_bytes: u32, out_block_threads: [*c]u32, out_min_grid_blocks: [*c]u32) callconv(.c) cuabi_status;
pub const PFN_cuabi_launch_config_init = ?*const fn (out_config: [*c]cuabi_launch_config) callconv(.c) void;
pub const PFN_cuabi_launch = ?*const fn (kernel: ?*cuabi_kernel, config: [*c]const cuabi_launch_config, args: [*c]const cuabi_kernel_arg, arg_count: usize) callconv(.c) cuabi_status;
pub const PFN_cuabi_launch_packed = ?*const fn (kernel: ?*cuabi_kernel, config: [*c]const cuabi_launch_config, @"packed": ?*const anyopaque, packed_size: usize) callconv(.c) cuabi_status;
pub const PFN_cuabi_graph_options_init = ?*const fn (out_options: [*c]cuabi_graph_options) callconv(.c) void;
pub const PFN_cuabi_graph_node_info_init = ?*const fn (out_info: [*c]cuabi_graph_node_info) callconv(.c) void;
pub const PFN_cuabi_graph_update_info_init = ?*const fn (out_info: [*c]cuabi_graph_update_info) callconv(.c) void;
pub const PFN_cuabi_graph_capture_begin = ?*const fn (stream: ?*cuabi_stream, mode: i32) callconv(.c) cuabi_status;
pub const PFN_cuabi_graph_capture_end = ?*const fn (stream: ?*cuabi_stream, options: [*c]const cuabi_graph_options, out_graph: [*c]?*cuabi_graph) callconv(.c) cuabi_status;
pub const PFN_cuabi_graph_capture_end_update = ?*const fn (stream: ?*cuabi_stream, graph: ?*cuabi_graph, flags: u32, out_info: [*c]cuabi_graph_update_info) callconv(.c) cuabi_status;
pub const PFN_cuabi_graph_capture_abort = ?*const fn (stream: ?*cuabi_stream) callconv(.c) cuabi_status;
pub const PFN_cuabi_graph_capture_get_status = ?*const fn (stream: ?*cuabi_stream, out_status: [*c]i32) callconv(.c) cuabi_status;
pub const PFN_cuabi_graph_destroy = ?*const fn (graph: ?*cuabi_graph) callconv(.c) void;
pub const PFN_cuabi_graph_launch = ?*const fn (graph: ?*cuabi_graph, stream: ?*cuabi_stream) callconv(.c) cuabi_status;
pub const PFN_cuabi_graph_upload = ?*const fn (graph: ?*cuabi_graph, stream: ?*cuabi_stream) callconv(.c) cuabi_status;
pub const PFN_cuabi_graph_retain_buffer = ?*const fn (graph: ?*cuabi_graph, buffer: ?*cuabi_buffer) callconv(.c) cuabi_status;
pub const PFN_cuabi_graph_get_native = ?*const fn (graph: ?*cuabi_graph, out_cu_graph: [*c]?*anyopaque, out_cu_graph_exec: [*c]?*anyopaque) callconv(.c) cuabi_status;
pub const PFN_cuabi_graph_get_node_count = ?*const fn (graph: ?*cuabi_graph, out_count: [*c]usize) callconv(.c) cuabi_status;
pub const PFN_cuabi_graph_get_node_info = ?*const fn (graph: ?*cuabi_graph, index: usize, out_info: [*c]cuabi_graph_node_info) callconv(.c) cuabi_status;
pub const PFN_cuabi_graph_get_node_kernel_name = ?*const fn (graph: ?*cuabi_graph, index: usize, out_text: [*c]u8, capacity: usize, out_size: [*c]usize) callconv(.c) cuabi_status;
pub const PFN_cuabi_graph_get_node_param_info = ?*const fn (graph: ?*cuabi_graph, index: usize, param_index: usize, out_offset: [*c]usize, out_size: [*c]usize) callconv(.c) cuabi_status;
pub const PFN_cuabi_graph_update_kernel_args = ?*const fn (graph: ?*cuabi_graph, index: usize, args: [*c]const cuabi_kernel_arg, arg_count: usize) callconv(.c) cuabi_status;
pub const PFN_cuabi_graph_update_kernel_args_packed = ?*const fn (graph: ?*cuabi_graph, index: usize, @"packed": ?*const anyopaque, packed_size: usize) callconv(.c) cuabi_status;
pub const PFN_cuabi_graph_update_kernel_geometry = ?*const fn (graph: ?*cuabi_graph, index: usize, grid: [*c]const u32, block: [*c]const u32, shared_memory_bytes: u32) callconv(.c) cuabi_status;
pub const PFN_cuabi_graph_update_memset_value = ?*const fn (graph: ?*cuabi_graph, index: usize, value: u32) callconv(.c) cuabi_status;
pub const PFN_cuabi_graph_cache_stats_init = ?*const fn (out_stats: [*c]cuabi_graph_cache_stats) callconv(.c) void;
pub const PFN_cuabi_graph_cache_get_capacity_class = ?*const fn (size: u64) callconv(.c) u64;
pub const PFN_cuabi_graph_cache_lookup = ?*const fn (context: ?*cuabi_context, key: ?*const anyopaque, key_size: usize, size: u64, out_graph: [*c]?*cuabi_graph) callconv(.c) cuabi_status;
pub const PFN_cuabi_graph_cache_insert = ?*const fn (context: ?*cuabi_context, key: ?*const anyopaque, key_size: usize, size: u64, graph: ?*cuabi_graph) callconv(.c) cuabi_status;
pub const PFN_cuabi_graph_cache_set_capacity = ?*const fn (max_entries: usize) callconv(.c) void;
pub const PFN_cuabi_graph_cache_clear = ?*const fn (context: ?*cuabi_context) callconv(.c) cuabi_status;
pub const PFN_cuabi_graph_cache_get_stats = ?*const fn (out_stats: [*c]cuabi_graph_cache_stats) callconv(.c) cuabi_status;
pub const PFN_cuabi_cache_stats_init = ?*const fn (out_stats: [*c]cuabi_cache_stats) callconv(.c) void;
pub const PFN_cuabi_driver_jit_cache_info_init = ?*const fn (out_info: [*c]cuabi_driver_jit_cache_info) callconv(.c) void;
pub const PFN_cuabi_cache_get_stats = ?*const fn (out_stats: [*c]cuabi_cache_stats) callconv(.c) cuabi_status;
pub const PFN_cuabi_cache_get_directory = ?*const fn (out_text: [*c]u8, capacity: usize, out_size: [*c]usize) callconv(.c) cuabi_status;
pub const PFN_cuabi_cache_get_degradation_reason = ?*const fn (out_text: [*c]u8, capacity: usize, out_size: [*c]usize) callconv(.c) cuabi_status;
pub const PFN_cuabi_cache_prune = ?*const fn (max_bytes: u64, out_removed_entries: [*c]u64, out_removed_bytes: [*c]u64) callconv(.c) cuabi_status;
pub const PFN_cuabi_cache_clear = ?*const fn (out_removed_entries: [*c]u64, out_removed_bytes: [*c]u64) callconv(.c) cuabi_status;
pub const PFN_cuabi_cache_verify = ?*const fn (out_checked_entries: [*c]u64, out_removed_entries: [*c]u64) callconv(.c) cuabi_status;
pub const PFN_cuabi_cache_configure_driver_jit = ?*const fn () callconv(.c) cuabi_status;
pub const PFN_cuabi_cache_get_driver_jit_info = ?*const fn (out_info: [*c]cuabi_driver_jit_cache_info) callconv(.c) cuabi_status;
pub const PFN_cuabi_cache_get_driver_jit_path = ?*const fn (out_text: [*c]u8, capacity: usize, out_size: [*c]usize) callconv(.c) cuabi_status;
pub const PFN_cuabi_range_get_enabled = ?*const fn () callconv(.c) u32;
pub const PFN_cuabi_range_get_profiler_attached = ?*const fn () callconv(.c) u32;
pub const PFN_cuabi_range_get_catalog_count = ?*const fn (out_count: [*c]usize) callconv(.c) cuabi_status;
pub const PFN_cuabi_range_get_catalog_entry = ?*const fn (index: usize, out_name: [*c][*c]const u8, out_description: [*c][*c]const u8) callconv(.c) cuabi_status;
pub const PFN_cuabi_range_push = ?*const fn (name: [*c]const u8, domain: [*c]const u8) callconv(.c) cuabi_status;
pub const PFN_cuabi_range_pop = ?*const fn () callconv(.c) cuabi_status;
pub const PFN_cuabi_range_start = ?*const fn (name: [*c]const u8, domain: [*c]const u8, out_range: [*c]?*cuabi_range) callconv(.c) cuabi_status;
pub const PFN_cuabi_range_end = ?*const fn (range: ?*cuabi_range) callconv(.c) cuabi_status;

pub const CUABI_H = "";
pub const CUABI_API = "";
pub const CUABI_VERSION_MAJOR = @as(c_uint, 1);
pub const CUABI_VERSION_MINOR = @as(c_uint, 0);
pub const CUABI_VERSION_PATCH = @as(c_uint, 0);
pub const CUABI_VERSION_NUMBER = @as(c_uint, 10000);
pub const CUABI_VERSION_STRING = "1.0.0";
pub const CUABI_ABI_VERSION = @as(c_uint, 1);
pub const CUABI_STRUCT_SIZE_MAX = @as(c_uint, 4096);
pub const CUABI_SUCCESS = @as(c_int, 0);
pub const CUABI_ERROR_INVALID_ARGUMENT = @as(c_int, 1);
pub const CUABI_ERROR_INVALID_HANDLE = @as(c_int, 2);
pub const CUABI_ERROR_STRUCT_SIZE = @as(c_int, 3);
pub const CUABI_ERROR_OUT_OF_HOST_MEMORY = @as(c_int, 4);
pub const CUABI_ERROR_BUFFER_TOO_SMALL = @as(c_int, 5);
pub const CUABI_ERROR_NOT_FOUND = @as(c_int, 6);
pub const CUABI_ERROR_UNSUPPORTED = @as(c_int, 7);
pub const CUABI_ERROR_NOT_READY = @as(c_int, 8);
pub const CUABI_ERROR_CONTEXT_MISMATCH = @as(c_int, 9);
pub const CUABI_ERROR_INTERNAL = @as(c_int, 10);
pub const CUABI_ERROR_FORKED = @as(c_int, 11);
pub const CUABI_ERROR_TIMEOUT = @as(c_int, 12);
pub const CUABI_ERROR_DRIVER_NOT_FOUND = @as(c_int, 20);
pub const CUABI_ERROR_DRIVER_TOO_OLD = @as(c_int, 21);
pub const CUABI_ERROR_NO_DEVICE = @as(c_int, 22);
pub const CUABI_ERROR_INVALID_DEVICE = @as(c_int, 23);
pub const CUABI_ERROR_NVRTC_NOT_FOUND = @as(c_int, 24);
pub const CUABI_ERROR_CUDA = @as(c_int, 30);
pub const CUABI_ERROR_DEVICE_OUT_OF_MEMORY = @as(c_int, 31);
pub const CUABI_ERROR_OUT_OF_BOUNDS = @as(c_int, 32);
pub const CUABI_ERROR_COMPILE = @as(c_int, 40);
pub const CUABI_ERROR_NVRTC = @as(c_int, 41);
pub const CUABI_ERROR_KERNEL_NOT_FOUND = @as(c_int, 42);
pub const CUABI_ERROR_INVALID_IMAGE = @as(c_int, 43);
pub const CUABI_ERROR_CACHE_UNSAFE = @as(c_int, 44);
pub const CUABI_ERROR_CACHE_IO = @as(c_int, 45);
pub const CUABI_ERROR_LAUNCH_GRID = @as(c_int, 60);
pub const CUABI_ERROR_LAUNCH_BLOCK = @as(c_int, 61);
pub const CUABI_ERROR_LAUNCH_KERNEL_THREADS = @as(c_int, 62);
pub const CUABI_ERROR_LAUNCH_SHARED_MEMORY = @as(c_int, 63);
pub const CUABI_ERROR_LAUNCH_COOPERATIVE = @as(c_int, 64);
pub const CUABI_ERROR_LAUNCH_CLUSTER = @as(c_int, 65);
pub const CUABI_ERROR_ARGUMENT_COUNT = @as(c_int, 66);
pub const CUABI_ERROR_ARGUMENT_SIZE = @as(c_int, 67);
pub const CUABI_ERROR_LAUNCH_FAILED = @as(c_int, 68);
pub const CUABI_ERROR_CAPTURE = @as(c_int, 80);
pub const CUABI_ERROR_GRAPH_NODE = @as(c_int, 81);
pub const CUABI_ERROR_GRAPH_UPDATE = @as(c_int, 82);
pub const CUABI_ERROR_RANGE = @as(c_int, 100);
pub const CUABI_DEVICE_INFO_INIT = @compileError("unable to translate C expr: unexpected token '{'");
pub const CUABI_CONTEXT_OPTIONS_INIT = @compileError("unable to translate C expr: unexpected token '{'");
pub const CUABI_COUNTERS_INIT = @compileError("unable to translate C expr: unexpected token '{'");
pub const CUABI_STREAM_DEFAULT = @as(c_uint, 0x0);
pub const CUABI_STREAM_OPTIONS_INIT = @compileError("unable to translate C expr: unexpected token '{'");
pub const CUABI_EVENT_DEFAULT = @as(c_uint, 0x0);
pub const CUABI_EVENT_DISABLE_TIMING = @as(c_uint, 0x1);
pub const CUABI_EVENT_BLOCKING_SYNC = @as(c_uint, 0x2);
pub const CUABI_EVENT_OPTIONS_INIT = @compileError("unable to translate C expr: unexpected token '{'");
pub const CUABI_BUFFER_DEFAULT = @as(c_uint, 0x0);
pub const CUABI_BUFFER_ZERO = @as(c_uint, 0x1);
pub const CUABI_BUFFER_OPTIONS_INIT = @compileError("unable to translate C expr: unexpected token '{'");
pub const CUABI_IMAGE_PTX = @as(c_int, 1);
pub const CUABI_IMAGE_CUBIN = @as(c_int, 2);
pub const CUABI_IMAGE_FATBIN = @as(c_int, 3);
pub const CUABI_COMPILE_DEFAULT = @as(c_uint, 0x0);
pub const CUABI_COMPILE_NO_CACHE = @as(c_uint, 0x1);
pub const CUABI_COMPILE_PTX = @as(c_uint, 0x2);
pub const CUABI_COMPILE_NO_TOOLKIT_INCLUDES = @as(c_uint, 0x4);
pub const CUABI_COMPILE_IN_PROCESS = @as(c_uint, 0x8);
pub const CUABI_COMPILE_ISOLATED = @as(c_uint, 0x10);
pub const CUABI_TRISTATE_DEFAULT = -@as(c_int, 1);
pub const CUABI_TRISTATE_OFF = @as(c_int, 0);
pub const CUABI_TRISTATE_ON = @as(c_int, 1);
pub const CUABI_COMPILE_OPTIONS_INIT = @compileError("unable to translate C expr: unexpected token '{'");
pub const CUABI_MODULE_ORIGIN_COMPILED = @as(c_int, 0);
pub const CUABI_MODULE_ORIGIN_MEMORY_CACHE = @as(c_int, 1);
pub const CUABI_MODULE_ORIGIN_DISK_CACHE = @as(c_int, 2);
pub const CUABI_MODULE_ORIGIN_IMAGE = @as(c_int, 3);
pub const CUABI_MODULE_INFO_INIT = @compileError("unable to translate C expr: unexpected token '{'");
pub const CUABI_KERNEL_ATTRIBUTES_INIT = @compileError("unable to translate C expr: unexpected token '{'");
pub const CUABI_LAUNCH_DEFAULT = @as(c_uint, 0x0);
pub const CUABI_LAUNCH_COOPERATIVE = @as(c_uint, 0x1);
pub const CUABI_LAUNCH_SYNCHRONIZE = @as(c_uint, 0x2);
pub const CUABI_LAUNCH_CONFIG_INIT = @compileError("unable to translate C expr: unexpected token '{'");
pub const CUABI_CAPTURE_MODE_GLOBAL = @as(c_int, 0);
pub const CUABI_CAPTURE_MODE_THREAD_LOCAL = @as(c_int, 1);
pub const CUABI_CAPTURE_MODE_RELAXED = @as(c_int, 2);
pub const CUABI_CAPTURE_STATUS_NONE = @as(c_int, 0);
pub const CUABI_CAPTURE_STATUS_ACTIVE = @as(c_int, 1);
pub const CUABI_CAPTURE_STATUS_INVALIDATED = @as(c_int, 2);
pub const CUABI_GRAPH_DEFAULT = @as(c_uint, 0x0);
pub const CUABI_GRAPH_AUTO_FREE_ON_LAUNCH = @as(c_uint, 0x1);
pub const CUABI_GRAPH_USE_NODE_PRIORITY = @as(c_uint, 0x2);
pub const CUABI_GRAPH_UPLOAD = @as(c_uint, 0x4);
pub const CUABI_GRAPH_OPTIONS_INIT = @compileError("unable to translate C expr: unexpected token '{'");
pub const CUABI_GRAPH_NODE_OTHER = @as(c_int, 0);
pub const CUABI_GRAPH_NODE_KERNEL = @as(c_int, 1);
pub const CUABI_GRAPH_NODE_MEMCPY = @as(c_int, 2);
pub const CUABI_GRAPH_NODE_MEMSET = @as(c_int, 3);
pub const CUABI_GRAPH_NODE_HOST = @as(c_int, 4);
pub const CUABI_GRAPH_NODE_CHILD_GRAPH = @as(c_int, 5);
pub const CUABI_GRAPH_NODE_EMPTY = @as(c_int, 6);
pub const CUABI_GRAPH_NODE_EVENT_WAIT = @as(c_int, 7);
pub const CUABI_GRAPH_NODE_EVENT_RECORD = @as(c_int, 8);
pub const CUABI_GRAPH_NODE_EXT_SEMAPHORE_SIGNAL = @as(c_int, 9);
pub const CUABI_GRAPH_NODE_EXT_SEMAPHORE_WAIT = @as(c_int, 10);
pub const CUABI_GRAPH_NODE_MEM_ALLOC = @as(c_int, 11);
pub const CUABI_GRAPH_NODE_MEM_FREE = @as(c_int, 12);
pub const CUABI_GRAPH_NODE_BATCH_MEM_OP = @as(c_int, 13);
pub const CUABI_GRAPH_NODE_CONDITIONAL = @as(c_int, 14);
pub const CUABI_GRAPH_PARAM_COUNT_UNKNOWN = __helpers.promoteIntLiteral(c_uint, 0xFFFFFFFF, .hex);
pub const CUABI_GRAPH_NODE_INFO_INIT = @compileError("unable to translate C expr: unexpected token '{'");
pub const CUABI_GRAPH_UPDATE_DEFAULT = @as(c_uint, 0x0);
pub const CUABI_GRAPH_UPDATE_NO_REINSTANTIATE = @as(c_uint, 0x1);
pub const CUABI_GRAPH_UPDATE_INFO_INIT = @compileError("unable to translate C expr: unexpected token '{'");
pub const CUABI_GRAPH_CACHE_STATS_INIT = @compileError("unable to translate C expr: unexpected token '{'");
pub const CUABI_NVRTC_STATE_NOT_LOADED = @as(c_int, 0);
pub const CUABI_NVRTC_STATE_LOADED = @as(c_int, 1);
pub const CUABI_NVRTC_STATE_UNAVAILABLE = @as(c_int, 2);
pub const CUABI_CACHE_STATS_INIT = @compileError("unable to translate C expr: unexpected token '{'");
pub const CUABI_SETTING_DRIVER_DEFAULT = @as(c_int, 0);
pub const CUABI_SETTING_ENVIRONMENT = @as(c_int, 1);
pub const CUABI_SETTING_CUABI = @as(c_int, 2);
pub const CUABI_DRIVER_JIT_CACHE_INFO_INIT = @compileError("unable to translate C expr: unexpected token '{'");
