#define _POSIX_C_SOURCE 200809L
#include "baseline.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define CUABI_NO_PROTOTYPES
#include <cuabi/cuabi.h>

static struct {
    PFN_cuabi_last_error_message last_error_message;
    PFN_cuabi_launch launch;
    PFN_cuabi_launch_packed launch_packed;
    PFN_cuabi_context_destroy context_destroy;
    PFN_cuabi_module_destroy module_destroy;
    PFN_cuabi_kernel_destroy kernel_destroy;
    PFN_cuabi_stream_destroy stream_destroy;
    cuabi_context* context;
    cuabi_module* module;
    cuabi_kernel* kernel;
    cuabi_stream* stream;
    cuabi_launch_config config;
    float a;
    uint64_t x, y;
    uint32_t n;
    cuabi_kernel_arg args[4];
    unsigned char packed[64];
    size_t packed_size;
} b;

static int fail(char* error, size_t capacity, const char* what) {
    snprintf(error, capacity, "%s: %s", what, b.last_error_message != NULL ? b.last_error_message() : "no message");
    return -1;
}

#define RESOLVE(type, name) ((type)get("cuabi_" #name))

int baseline_open(const char* library, const char* source, const char* name, void* cu_stream, uint64_t x, uint64_t y,
                  uint32_t n, char* error, size_t capacity) {
    void* handle = dlopen(library, RTLD_NOW | RTLD_NOLOAD);
    if (handle == NULL) {
        snprintf(error, capacity, "%s is not loaded: %s", library, dlerror());
        return -1;
    }
    PFN_cuabi_get_proc_address get = (PFN_cuabi_get_proc_address)dlsym(handle, "cuabi_get_proc_address");
    if (get == NULL) {
        snprintf(error, capacity, "%s has no cuabi_get_proc_address", library);
        return -1;
    }
    b.last_error_message = RESOLVE(PFN_cuabi_last_error_message, last_error_message);
    b.launch = RESOLVE(PFN_cuabi_launch, launch);
    b.launch_packed = RESOLVE(PFN_cuabi_launch_packed, launch_packed);
    b.context_destroy = RESOLVE(PFN_cuabi_context_destroy, context_destroy);
    b.module_destroy = RESOLVE(PFN_cuabi_module_destroy, module_destroy);
    b.kernel_destroy = RESOLVE(PFN_cuabi_kernel_destroy, kernel_destroy);
    b.stream_destroy = RESOLVE(PFN_cuabi_stream_destroy, stream_destroy);
    PFN_cuabi_context_create context_create = RESOLVE(PFN_cuabi_context_create, context_create);
    PFN_cuabi_module_compile module_compile = RESOLVE(PFN_cuabi_module_compile, module_compile);
    PFN_cuabi_module_get_kernel module_get_kernel = RESOLVE(PFN_cuabi_module_get_kernel, module_get_kernel);
    PFN_cuabi_stream_wrap stream_wrap = RESOLVE(PFN_cuabi_stream_wrap, stream_wrap);
    PFN_cuabi_kernel_get_param_info param_info = RESOLVE(PFN_cuabi_kernel_get_param_info, kernel_get_param_info);
    PFN_cuabi_launch_config_init config_init = RESOLVE(PFN_cuabi_launch_config_init, launch_config_init);
    if (b.last_error_message == NULL || b.launch == NULL || b.launch_packed == NULL || context_create == NULL ||
        module_compile == NULL || module_get_kernel == NULL || stream_wrap == NULL || param_info == NULL ||
        config_init == NULL) {
        snprintf(error, capacity, "%s lacks a function the baseline needs", library);
        return -1;
    }
    if (context_create(NULL, &b.context) != CUABI_SUCCESS) return fail(error, capacity, "cuabi_context_create");
    if (module_compile(b.context, source, NULL, &b.module) != CUABI_SUCCESS) return fail(error, capacity, "cuabi_module_compile");
    if (module_get_kernel(b.module, name, &b.kernel) != CUABI_SUCCESS) return fail(error, capacity, "cuabi_module_get_kernel");
    if (stream_wrap(b.context, cu_stream, &b.stream) != CUABI_SUCCESS) return fail(error, capacity, "cuabi_stream_wrap");

    if (config_init((uint32_t)sizeof b.config, &b.config) != CUABI_SUCCESS) return fail(error, capacity, "cuabi_launch_config_init");
    b.config.block[0] = 32;
    b.config.stream = b.stream;
    b.a = 1.0f;
    b.x = x;
    b.y = y;
    b.n = n;
    const void* values[4] = {&b.a, &b.x, &b.y, &b.n};
    const size_t sizes[4] = {sizeof b.a, sizeof b.x, sizeof b.y, sizeof b.n};
    for (size_t i = 0; i < 4; ++i) {
        size_t offset = 0, size = 0;
        b.args[i].value = values[i];
        b.args[i].size = sizes[i];
        if (param_info(b.kernel, i, &offset, &size) != CUABI_SUCCESS) return fail(error, capacity, "cuabi_kernel_get_param_info");
        if (offset + size > sizeof b.packed || size != sizes[i]) {
            snprintf(error, capacity, "parameter %zu: %zu bytes at %zu", i, size, offset);
            return -1;
        }
        memcpy(b.packed + offset, values[i], size);
        b.packed_size = offset + size;
    }
    return 0;
}

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

double baseline_table(int launches, char* error, size_t capacity) {
    double start = now_ns();
    for (int i = 0; i < launches; ++i)
        if (b.launch(b.kernel, &b.config, b.args, 4) != CUABI_SUCCESS) return fail(error, capacity, "cuabi_launch");
    return now_ns() - start;
}

double baseline_packed(int launches, char* error, size_t capacity) {
    double start = now_ns();
    for (int i = 0; i < launches; ++i)
        if (b.launch_packed(b.kernel, &b.config, b.packed, b.packed_size) != CUABI_SUCCESS)
            return fail(error, capacity, "cuabi_launch_packed");
    return now_ns() - start;
}

int baseline_launch_once(void) { return b.launch(b.kernel, &b.config, b.args, 4); }

void baseline_close(void) {
    if (b.stream_destroy != NULL) b.stream_destroy(b.stream);
    if (b.kernel_destroy != NULL) b.kernel_destroy(b.kernel);
    if (b.module_destroy != NULL) b.module_destroy(b.module);
    if (b.context_destroy != NULL) b.context_destroy(b.context);
}
