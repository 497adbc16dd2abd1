//! The function table: every cuabi function, resolved through `cuabi_get_proc_address`.

use crate::bindings::*;
use std::os::raw::c_char;

/// Declares [`Api`] with one field per function, in the header's order, and its resolver.
macro_rules! api_table {
    ($($name:ident: $pfn:ident,)*) => {
        /// Every cuabi function of the 1.x ABI this crate was generated from, as resolved from the
        /// loaded library. A field is `None` when that library does not export the function (an
        /// older 1.x, or a function removed from a build); calling code must then report
        /// `CUABI_ERROR_UNSUPPORTED` itself. Fields are named exactly as the C functions are.
        #[allow(non_snake_case)]
        #[derive(Clone, Copy)]
        pub struct Api {
            $(
                #[doc = concat!("`", stringify!($name), "`, or `None` when the loaded library lacks it.")]
                pub $name: $pfn,
            )*
        }

        impl Api {
            /// The C names of every function in the table, in the header's order.
            pub const NAMES: &'static [&'static str] = &[$(stringify!($name)),*];

            /// Resolves every function through `get_proc_address`.
            ///
            /// # Safety
            /// `get_proc_address` must be a loaded cuabi library's `cuabi_get_proc_address`: the
            /// pointer it returns for each name is taken to have that name's `PFN_` type.
            pub(crate) unsafe fn resolve(get_proc_address: unsafe extern "C" fn(*const c_char) -> cuabi_proc) -> Api {
                Api {
                    $(
                        $name: std::mem::transmute::<cuabi_proc, $pfn>(get_proc_address(
                            concat!(stringify!($name), "\0").as_ptr().cast(),
                        )),
                    )*
                }
            }
        }
    };
}

api_table! {
    cuabi_version_number: PFN_cuabi_version_number,
    cuabi_abi_version: PFN_cuabi_abi_version,
    cuabi_get_proc_address: PFN_cuabi_get_proc_address,
    cuabi_status_name: PFN_cuabi_status_name,
    cuabi_last_error_message: PFN_cuabi_last_error_message,
    cuabi_last_cu_result: PFN_cuabi_last_cu_result,
    cuabi_last_nvrtc_result: PFN_cuabi_last_nvrtc_result,
    cuabi_last_compile_log: PFN_cuabi_last_compile_log,
    cuabi_device_info_init: PFN_cuabi_device_info_init,
    cuabi_driver_get_version: PFN_cuabi_driver_get_version,
    cuabi_device_get_count: PFN_cuabi_device_get_count,
    cuabi_device_get_info: PFN_cuabi_device_get_info,
    cuabi_device_get_attribute: PFN_cuabi_device_get_attribute,
    cuabi_context_options_init: PFN_cuabi_context_options_init,
    cuabi_counters_init: PFN_cuabi_counters_init,
    cuabi_context_create: PFN_cuabi_context_create,
    cuabi_context_destroy: PFN_cuabi_context_destroy,
    cuabi_context_get_device_info: PFN_cuabi_context_get_device_info,
    cuabi_context_synchronize: PFN_cuabi_context_synchronize,
    cuabi_context_get_native: PFN_cuabi_context_get_native,
    cuabi_context_get_counters: PFN_cuabi_context_get_counters,
    cuabi_stream_options_init: PFN_cuabi_stream_options_init,
    cuabi_stream_create: PFN_cuabi_stream_create,
    cuabi_stream_wrap: PFN_cuabi_stream_wrap,
    cuabi_stream_destroy: PFN_cuabi_stream_destroy,
    cuabi_stream_synchronize: PFN_cuabi_stream_synchronize,
    cuabi_stream_query: PFN_cuabi_stream_query,
    cuabi_stream_wait_event: PFN_cuabi_stream_wait_event,
    cuabi_stream_get_native: PFN_cuabi_stream_get_native,
    cuabi_event_options_init: PFN_cuabi_event_options_init,
    cuabi_event_create: PFN_cuabi_event_create,
    cuabi_event_destroy: PFN_cuabi_event_destroy,
    cuabi_event_record: PFN_cuabi_event_record,
    cuabi_event_synchronize: PFN_cuabi_event_synchronize,
    cuabi_event_query: PFN_cuabi_event_query,
    cuabi_event_get_elapsed_ms: PFN_cuabi_event_get_elapsed_ms,
    cuabi_buffer_options_init: PFN_cuabi_buffer_options_init,
    cuabi_buffer_create: PFN_cuabi_buffer_create,
    cuabi_buffer_wrap: PFN_cuabi_buffer_wrap,
    cuabi_buffer_destroy: PFN_cuabi_buffer_destroy,
    cuabi_buffer_get_size: PFN_cuabi_buffer_get_size,
    cuabi_buffer_get_device_address: PFN_cuabi_buffer_get_device_address,
    cuabi_buffer_write: PFN_cuabi_buffer_write,
    cuabi_buffer_read: PFN_cuabi_buffer_read,
    cuabi_buffer_copy: PFN_cuabi_buffer_copy,
    cuabi_buffer_fill: PFN_cuabi_buffer_fill,
    cuabi_host_memory_options_init: PFN_cuabi_host_memory_options_init,
    cuabi_host_memory_create: PFN_cuabi_host_memory_create,
    cuabi_host_memory_register: PFN_cuabi_host_memory_register,
    cuabi_host_memory_destroy: PFN_cuabi_host_memory_destroy,
    cuabi_host_memory_get_pointer: PFN_cuabi_host_memory_get_pointer,
    cuabi_host_memory_get_size: PFN_cuabi_host_memory_get_size,
    cuabi_host_memory_get_device_address: PFN_cuabi_host_memory_get_device_address,
    cuabi_compile_options_init: PFN_cuabi_compile_options_init,
    cuabi_module_info_init: PFN_cuabi_module_info_init,
    cuabi_module_compile: PFN_cuabi_module_compile,
    cuabi_module_compile_offline: PFN_cuabi_module_compile_offline,
    cuabi_module_load_image: PFN_cuabi_module_load_image,
    cuabi_module_destroy: PFN_cuabi_module_destroy,
    cuabi_module_get_info: PFN_cuabi_module_get_info,
    cuabi_module_get_image: PFN_cuabi_module_get_image,
    cuabi_module_get_log: PFN_cuabi_module_get_log,
    cuabi_module_get_lowered_name: PFN_cuabi_module_get_lowered_name,
    cuabi_module_get_kernel: PFN_cuabi_module_get_kernel,
    cuabi_module_get_global: PFN_cuabi_module_get_global,
    cuabi_link_options_init: PFN_cuabi_link_options_init,
    cuabi_module_link: PFN_cuabi_module_link,
    cuabi_module_link_offline: PFN_cuabi_module_link_offline,
    cuabi_module_get_kernel_names: PFN_cuabi_module_get_kernel_names,
    cuabi_nvrtc_get_version: PFN_cuabi_nvrtc_get_version,
    cuabi_nvrtc_get_supported_archs: PFN_cuabi_nvrtc_get_supported_archs,
    cuabi_nvrtc_get_path: PFN_cuabi_nvrtc_get_path,
    cuabi_nvrtc_get_include_dirs: PFN_cuabi_nvrtc_get_include_dirs,
    cuabi_kernel_attributes_init: PFN_cuabi_kernel_attributes_init,
    cuabi_kernel_destroy: PFN_cuabi_kernel_destroy,
    cuabi_kernel_get_attributes: PFN_cuabi_kernel_get_attributes,
    cuabi_kernel_get_native: PFN_cuabi_kernel_get_native,
    cuabi_kernel_get_param_count: PFN_cuabi_kernel_get_param_count,
    cuabi_kernel_get_param_info: PFN_cuabi_kernel_get_param_info,
    cuabi_kernel_get_max_active_blocks_per_sm: PFN_cuabi_kernel_get_max_active_blocks_per_sm,
    cuabi_kernel_suggest_block_size: PFN_cuabi_kernel_suggest_block_size,
    cuabi_kernel_set_attribute: PFN_cuabi_kernel_set_attribute,
    cuabi_launch_config_init: PFN_cuabi_launch_config_init,
    cuabi_launch: PFN_cuabi_launch,
    cuabi_launch_packed: PFN_cuabi_launch_packed,
    cuabi_kernel_get_max_active_clusters: PFN_cuabi_kernel_get_max_active_clusters,
    cuabi_launch_batch: PFN_cuabi_launch_batch,
    cuabi_graph_options_init: PFN_cuabi_graph_options_init,
    cuabi_graph_node_info_init: PFN_cuabi_graph_node_info_init,
    cuabi_graph_update_info_init: PFN_cuabi_graph_update_info_init,
    cuabi_graph_memcpy_params_init: PFN_cuabi_graph_memcpy_params_init,
    cuabi_graph_capture_begin: PFN_cuabi_graph_capture_begin,
    cuabi_graph_capture_end: PFN_cuabi_graph_capture_end,
    cuabi_graph_capture_end_update: PFN_cuabi_graph_capture_end_update,
    cuabi_graph_capture_abort: PFN_cuabi_graph_capture_abort,
    cuabi_graph_capture_get_status: PFN_cuabi_graph_capture_get_status,
    cuabi_graph_destroy: PFN_cuabi_graph_destroy,
    cuabi_graph_launch: PFN_cuabi_graph_launch,
    cuabi_graph_upload: PFN_cuabi_graph_upload,
    cuabi_graph_retain_buffer: PFN_cuabi_graph_retain_buffer,
    cuabi_graph_get_native: PFN_cuabi_graph_get_native,
    cuabi_graph_get_node_count: PFN_cuabi_graph_get_node_count,
    cuabi_graph_get_node_info: PFN_cuabi_graph_get_node_info,
    cuabi_graph_get_node_kernel_name: PFN_cuabi_graph_get_node_kernel_name,
    cuabi_graph_get_node_param_info: PFN_cuabi_graph_get_node_param_info,
    cuabi_graph_update_kernel_args: PFN_cuabi_graph_update_kernel_args,
    cuabi_graph_update_kernel_args_packed: PFN_cuabi_graph_update_kernel_args_packed,
    cuabi_graph_update_kernel_geometry: PFN_cuabi_graph_update_kernel_geometry,
    cuabi_graph_update_memset_value: PFN_cuabi_graph_update_memset_value,
    cuabi_graph_update_memcpy: PFN_cuabi_graph_update_memcpy,
    cuabi_graph_set_node_enabled: PFN_cuabi_graph_set_node_enabled,
    cuabi_graph_get_node_enabled: PFN_cuabi_graph_get_node_enabled,
    cuabi_graph_write_dot: PFN_cuabi_graph_write_dot,
    cuabi_graph_get_dot: PFN_cuabi_graph_get_dot,
    cuabi_graph_cache_stats_init: PFN_cuabi_graph_cache_stats_init,
    cuabi_graph_cache_get_capacity_class: PFN_cuabi_graph_cache_get_capacity_class,
    cuabi_graph_cache_lookup: PFN_cuabi_graph_cache_lookup,
    cuabi_graph_cache_insert: PFN_cuabi_graph_cache_insert,
    cuabi_graph_cache_set_capacity: PFN_cuabi_graph_cache_set_capacity,
    cuabi_graph_cache_clear: PFN_cuabi_graph_cache_clear,
    cuabi_graph_cache_get_stats: PFN_cuabi_graph_cache_get_stats,
    cuabi_cache_stats_init: PFN_cuabi_cache_stats_init,
    cuabi_driver_jit_cache_info_init: PFN_cuabi_driver_jit_cache_info_init,
    cuabi_cache_get_stats: PFN_cuabi_cache_get_stats,
    cuabi_cache_get_directory: PFN_cuabi_cache_get_directory,
    cuabi_cache_get_degradation_reason: PFN_cuabi_cache_get_degradation_reason,
    cuabi_cache_prune: PFN_cuabi_cache_prune,
    cuabi_cache_clear: PFN_cuabi_cache_clear,
    cuabi_cache_verify: PFN_cuabi_cache_verify,
    cuabi_cache_add_readonly_layer: PFN_cuabi_cache_add_readonly_layer,
    cuabi_cache_export: PFN_cuabi_cache_export,
    cuabi_cache_import: PFN_cuabi_cache_import,
    cuabi_cache_configure_driver_jit: PFN_cuabi_cache_configure_driver_jit,
    cuabi_cache_get_driver_jit_info: PFN_cuabi_cache_get_driver_jit_info,
    cuabi_cache_get_driver_jit_path: PFN_cuabi_cache_get_driver_jit_path,
    cuabi_range_get_enabled: PFN_cuabi_range_get_enabled,
    cuabi_range_get_profiler_attached: PFN_cuabi_range_get_profiler_attached,
    cuabi_range_get_catalog_count: PFN_cuabi_range_get_catalog_count,
    cuabi_range_get_catalog_entry: PFN_cuabi_range_get_catalog_entry,
    cuabi_range_push: PFN_cuabi_range_push,
    cuabi_range_pop: PFN_cuabi_range_pop,
    cuabi_range_start: PFN_cuabi_range_start,
    cuabi_range_end: PFN_cuabi_range_end,
}
