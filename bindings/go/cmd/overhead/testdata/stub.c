/* A stand-in libcuabi whose every call the overhead benchmark makes succeeds at once, doing
 * nothing: it runs the benchmark end to end without a GPU (main_test.go), and its numbers then
 * show the Go package's own cost against a C loop, with cuabi's work taken out. The Python
 * package's bindings/python/bench/call_overhead.py uses it the same way. */
#include <string.h>

#include <cuabi/cuabi.h>

#define HANDLE(n) ((void*)(((uintptr_t)1 << 56) | (n)))

static uint32_t abi_version(void) { return 1; }
static uint32_t version_number(void) { return 10000; }
static const char* last_error_message(void) { return "the stub library failed. Fix: none"; }
static cuabi_status driver_get_version(int32_t* v) { *v = 13000; return 0; }
static cuabi_status device_info_init(uint32_t size, cuabi_device_info* i) {
    memset(i, 0, size);
    i->struct_size = size;
    return 0;
}
static cuabi_status compile_options_init(uint32_t size, cuabi_compile_options* o) {
    const cuabi_compile_options defaults = CUABI_COMPILE_OPTIONS_INIT;
    (void)size;
    *o = defaults;
    return 0;
}
static cuabi_status launch_config_init(uint32_t size, cuabi_launch_config* c) {
    const cuabi_launch_config defaults = CUABI_LAUNCH_CONFIG_INIT;
    (void)size;
    *c = defaults;
    return 0;
}
static cuabi_status context_create(const cuabi_context_options* o, cuabi_context** out) {
    (void)o;
    *out = HANDLE(1);
    return 0;
}
static cuabi_status context_get_device_info(cuabi_context* c, cuabi_device_info* i) {
    (void)c;
    strcpy(i->name, "stub device");
    i->compute_capability_major = 9;
    return 0;
}
static cuabi_status stream_create(cuabi_context* c, const cuabi_stream_options* o, cuabi_stream** out) {
    (void)c, (void)o;
    *out = HANDLE(2);
    return 0;
}
static cuabi_status stream_wrap(cuabi_context* c, void* native, cuabi_stream** out) {
    (void)c, (void)native;
    *out = HANDLE(3);
    return 0;
}
static cuabi_status stream_get_native(cuabi_stream* s, void** out) {
    (void)s;
    *out = (void*)0x1000;
    return 0;
}
static cuabi_status stream_synchronize(cuabi_stream* s) { (void)s; return 0; }
static cuabi_status module_compile(cuabi_context* c, const char* source, const cuabi_compile_options* o, cuabi_module** out) {
    (void)c, (void)source, (void)o;
    *out = HANDLE(4);
    return 0;
}
static cuabi_status module_get_kernel(cuabi_module* m, const char* name, cuabi_kernel** out) {
    (void)m, (void)name;
    *out = HANDLE(5);
    return 0;
}
static cuabi_status buffer_create(cuabi_context* c, size_t size, const cuabi_buffer_options* o, cuabi_buffer** out) {
    (void)c, (void)size, (void)o;
    *out = HANDLE(6);
    return 0;
}
static cuabi_status buffer_get_size(cuabi_buffer* b, size_t* out) { (void)b; *out = 256; return 0; }
static cuabi_status buffer_get_device_address(cuabi_buffer* b, uint64_t* out) { (void)b; *out = 0x7000; return 0; }
static cuabi_status param_count(cuabi_kernel* k, size_t* out) { (void)k; *out = 4; return 0; }
static cuabi_status param_info(cuabi_kernel* k, size_t index, size_t* offset, size_t* size) {
    static const size_t offsets[4] = {0, 8, 16, 24}, sizes[4] = {4, 8, 8, 4};
    (void)k;
    if (index >= 4) return CUABI_ERROR_OUT_OF_BOUNDS;
    *offset = offsets[index];
    *size = sizes[index];
    return 0;
}
static cuabi_status launch(cuabi_kernel* k, const cuabi_launch_config* c, const cuabi_kernel_arg* args, size_t count) {
    (void)k, (void)c, (void)args;
    return count == 4 ? 0 : CUABI_ERROR_ARGUMENT_COUNT;
}
static cuabi_status launch_packed(cuabi_kernel* k, const cuabi_launch_config* c, const void* packed, size_t size) {
    (void)k, (void)c, (void)packed;
    return size == 28 ? 0 : CUABI_ERROR_ARGUMENT_SIZE;
}
/* Each item as the packed launch above takes it, in order, stopping at the first refusal. */
static cuabi_status launch_batch(const cuabi_launch_item* items, size_t count, size_t* out_submitted) {
    for (*out_submitted = 0; *out_submitted < count; ++*out_submitted) {
        const cuabi_launch_item* item = &items[*out_submitted];
        cuabi_status status = launch_packed(item->kernel, item->config, item->packed, item->packed_size);
        if (status != 0) return status;
    }
    return 0;
}
static void destroy(void* handle) { (void)handle; }
static cuabi_status options_init(uint32_t size, void* options) {
    memset(options, 0, size);
    *(uint32_t*)options = size; /* struct_size, every options struct's first field */
    return 0;
}
static cuabi_status context_make_current(cuabi_context* context) {
    (void)context;
    return 0;
}

static const struct {
    const char* name;
    cuabi_proc proc;
} functions[] = {
    {"cuabi_abi_version", (cuabi_proc)abi_version},
    {"cuabi_version_number", (cuabi_proc)version_number},
    {"cuabi_last_error_message", (cuabi_proc)last_error_message},
    {"cuabi_driver_get_version", (cuabi_proc)driver_get_version},
    {"cuabi_device_info_init", (cuabi_proc)device_info_init},
    {"cuabi_compile_options_init", (cuabi_proc)compile_options_init},
    {"cuabi_launch_config_init", (cuabi_proc)launch_config_init},
    {"cuabi_context_create", (cuabi_proc)context_create},
    {"cuabi_context_options_init", (cuabi_proc)options_init},
    {"cuabi_stream_options_init", (cuabi_proc)options_init},
    {"cuabi_buffer_options_init", (cuabi_proc)options_init},
    {"cuabi_context_make_current", (cuabi_proc)context_make_current},
    {"cuabi_context_get_device_info", (cuabi_proc)context_get_device_info},
    {"cuabi_stream_create", (cuabi_proc)stream_create},
    {"cuabi_stream_wrap", (cuabi_proc)stream_wrap},
    {"cuabi_stream_get_native", (cuabi_proc)stream_get_native},
    {"cuabi_stream_synchronize", (cuabi_proc)stream_synchronize},
    {"cuabi_module_compile", (cuabi_proc)module_compile},
    {"cuabi_module_get_kernel", (cuabi_proc)module_get_kernel},
    {"cuabi_buffer_create", (cuabi_proc)buffer_create},
    {"cuabi_buffer_get_size", (cuabi_proc)buffer_get_size},
    {"cuabi_buffer_get_device_address", (cuabi_proc)buffer_get_device_address},
    {"cuabi_kernel_get_param_count", (cuabi_proc)param_count},
    {"cuabi_kernel_get_param_info", (cuabi_proc)param_info},
    {"cuabi_launch", (cuabi_proc)launch},
    {"cuabi_launch_packed", (cuabi_proc)launch_packed},
    {"cuabi_launch_batch", (cuabi_proc)launch_batch},
    {"cuabi_context_destroy", (cuabi_proc)destroy},
    {"cuabi_stream_destroy", (cuabi_proc)destroy},
    {"cuabi_module_destroy", (cuabi_proc)destroy},
    {"cuabi_kernel_destroy", (cuabi_proc)destroy},
    {"cuabi_buffer_destroy", (cuabi_proc)destroy},
};

cuabi_proc cuabi_get_proc_address(const char* name) {
    if (name == NULL) return NULL;
    for (size_t i = 0; i < sizeof functions / sizeof functions[0]; ++i)
        if (strcmp(name, functions[i].name) == 0) return functions[i].proc;
    return NULL;
}
