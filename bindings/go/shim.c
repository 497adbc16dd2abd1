/* The hand-written half of the C shim: loading, failure records and the trampolines that build
 * C-side tables (see shim.h). The generated half, one trampoline per function, is zcalls.c. */
#define _GNU_SOURCE /* dlinfo */
#include <dlfcn.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zcalls.h"

static void* library;                 /* never closed */
/* The library's defaults for a launch config, read once at load (cuabi_launch_config_init). */
static cuabi_launch_config launch_defaults = CUABI_LAUNCH_CONFIG_INIT;
static char library_path[4096] = "";  /* what the dynamic loader actually opened */

/* ---- Failure records ----------------------------------------------------------------------- */

static cuabi_go_failure out_of_memory = {
    CUABI_ERROR_OUT_OF_HOST_MEMORY, 0, 0, 0,
    "the cuabi Go package could not allocate memory to copy an error message. Fix: free memory.", NULL, 0};
static cuabi_go_failure quiet_not_ready = {CUABI_ERROR_NOT_READY, 0, 0, 0, "", NULL, 0};
static cuabi_go_failure quiet_not_found = {CUABI_ERROR_NOT_FOUND, 0, 0, 0, "", NULL, 0};

/* One allocation: the record, then the message. */
static cuabi_go_failure* new_failure(cuabi_status status, const char* message, int32_t cu_result, int32_t nvrtc_result) {
    size_t size = strlen(message) + 1;
    cuabi_go_failure* failure = malloc(sizeof *failure + size);
    if (failure == NULL) return &out_of_memory;
    char* text = (char*)(failure + 1);
    memcpy(text, message, size);
    failure->status = status;
    failure->cu_result = cu_result;
    failure->nvrtc_result = nvrtc_result;
    failure->owned = 1;
    failure->message = text;
    failure->log = NULL;
    failure->log_size = 0;
    return failure;
}

/* A failure the shim itself reports (no cuabi call failed), message formatted like cuabi's. */
static cuabi_go_failure* shim_failure(cuabi_status status, const char* format, ...) {
    char message[8192];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    return new_failure(status, message, 0, 0);
}

/* The NVRTC log of this thread's last compile, or NULL when there is none. */
static char* copy_compile_log(size_t* out_length) {
    size_t size = 0;
    if (cuabi_go_fn.last_compile_log == NULL || cuabi_go_fn.last_compile_log(NULL, 0, &size) != CUABI_SUCCESS ||
        size <= 1)
        return NULL;
    char* log = malloc(size);
    if (log == NULL) return NULL;
    if (cuabi_go_fn.last_compile_log(log, size, &size) != CUABI_SUCCESS) {
        free(log);
        return NULL;
    }
    *out_length = strlen(log);
    return log;
}

cuabi_go_failure* cuabi_go_capture(cuabi_status status, int with_log) {
    /* Everything thread-local is read before anything else can run on this thread. */
    const char* message = cuabi_go_fn.last_error_message != NULL ? cuabi_go_fn.last_error_message() : NULL;
    int32_t cu_result = cuabi_go_fn.last_cu_result != NULL ? cuabi_go_fn.last_cu_result() : 0;
    int32_t nvrtc_result = cuabi_go_fn.last_nvrtc_result != NULL ? cuabi_go_fn.last_nvrtc_result() : 0;
    cuabi_go_failure* failure = new_failure(status, message != NULL ? message : "", cu_result, nvrtc_result);
    if (with_log && failure->owned) failure->log = copy_compile_log(&failure->log_size);
    return failure;
}

cuabi_go_failure* cuabi_go_quiet(cuabi_status status) {
    return status == CUABI_ERROR_NOT_FOUND ? &quiet_not_found : &quiet_not_ready;
}

cuabi_go_failure* cuabi_go_missing(const char* name) {
    if (library == NULL)
        return shim_failure(CUABI_ERROR_UNSUPPORTED, "%s was called before libcuabi was loaded. Fix: call cuabi.Load first.",
                            name);
    uint32_t version = cuabi_go_fn.version_number != NULL ? cuabi_go_fn.version_number() : 0;
    return shim_failure(CUABI_ERROR_UNSUPPORTED,
                        "%s is not in the loaded libcuabi (%s, version %u.%u.%u): a later 1.x release added it. "
                        "Fix: install a newer libcuabi 1.x, or point CUABI_LIBRARY at one.",
                        name, library_path, version / 10000, version / 100 % 100, version % 100);
}

void cuabi_go_failure_free(cuabi_go_failure* failure) {
    if (failure == NULL || !failure->owned) return;
    free((void*)failure->log);
    free(failure);
}

/* ---- Loading ------------------------------------------------------------------------------- */

cuabi_go_failure* cuabi_go_load(const char* path) {
    if (library != NULL) return NULL;
    dlerror();
    void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char* why = dlerror();
        return shim_failure(CUABI_ERROR_NOT_FOUND,
                            "could not load %s: %s. Fix: install libcuabi so the dynamic loader finds libcuabi.so.1 "
                            "(ldconfig or LD_LIBRARY_PATH), or set CUABI_LIBRARY to its full path.",
                            path, why != NULL ? why : "unknown reason");
    }
    PFN_cuabi_get_proc_address get = (PFN_cuabi_get_proc_address)dlsym(handle, "cuabi_get_proc_address");
    if (get == NULL) {
        dlclose(handle);
        return shim_failure(CUABI_ERROR_NOT_FOUND,
                            "%s has no cuabi_get_proc_address: it is not libcuabi. Fix: set CUABI_LIBRARY to the path "
                            "of libcuabi.so.1.",
                            path);
    }
    cuabi_go_resolve(get);
    if (cuabi_go_fn.get_proc_address == NULL) cuabi_go_fn.get_proc_address = get; /* found by dlsym already */
    uint32_t abi = cuabi_go_fn.abi_version != NULL ? cuabi_go_fn.abi_version() : 0;
    if (abi != CUABI_ABI_VERSION) {
        memset(&cuabi_go_fn, 0, sizeof cuabi_go_fn);
        dlclose(handle);
        return shim_failure(CUABI_ERROR_UNSUPPORTED,
                            "%s has ABI version %u; this Go package speaks ABI %u (libcuabi.so.%u). Fix: load a "
                            "libcuabi.so.%u, or use the Go package of the library's major version.",
                            path, abi, CUABI_ABI_VERSION, CUABI_ABI_VERSION, CUABI_ABI_VERSION);
    }
    struct link_map* map = NULL;
    const char* opened = dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != NULL && map->l_name[0] != '\0'
                             ? map->l_name
                             : path;
    snprintf(library_path, sizeof library_path, "%s", opened);
    if (cuabi_go_fn.launch_config_init != NULL) {
        cuabi_launch_config defaults;
        if (cuabi_go_fn.launch_config_init((uint32_t)sizeof defaults, &defaults) == CUABI_SUCCESS) launch_defaults = defaults;
    }
    library = handle;
    return NULL;
}

const char* cuabi_go_library_path(void) { return library_path; }

/* ---- Launch -------------------------------------------------------------------------------- */

/* The C config from the Go one, over the library's defaults. */
void cuabi_go_make_config(const cuabi_go_launch_config* in, cuabi_launch_config* out) {
    *out = launch_defaults;
    out->flags = in->flags;
    memcpy(out->grid, in->grid, sizeof out->grid);
    memcpy(out->block, in->block, sizeof out->block);
    memcpy(out->cluster, in->cluster, sizeof out->cluster);
    out->shared_memory_bytes = in->shared_memory_bytes;
    out->priority = in->priority;
    out->stream = (cuabi_stream*)in->stream;
}

static cuabi_go_failure* launch_packed(uintptr_t kernel, const cuabi_go_launch_config* config, const void* packed,
                                       size_t packed_size) {
    if (cuabi_go_fn.launch_packed == NULL) return cuabi_go_missing("cuabi_launch_packed");
    cuabi_launch_config c;
    cuabi_go_make_config(config, &c);
    cuabi_status status = cuabi_go_fn.launch_packed((cuabi_kernel*)kernel, &c, packed, packed_size);
    return status == CUABI_SUCCESS ? NULL : cuabi_go_capture(status, 0);
}

cuabi_go_failure* cuabi_go_kernel_max_active_clusters(uintptr_t kernel, cuabi_go_launch_config config,
                                                      uint32_t* out_clusters) {
    if (cuabi_go_fn.kernel_get_max_active_clusters == NULL) return cuabi_go_missing("cuabi_kernel_get_max_active_clusters");
    cuabi_launch_config c;
    cuabi_go_make_config(&config, &c);
    cuabi_status status = cuabi_go_fn.kernel_get_max_active_clusters((cuabi_kernel*)kernel, &c, out_clusters);
    return status == CUABI_SUCCESS ? NULL : cuabi_go_capture(status, 0);
}

cuabi_go_failure* cuabi_go_graph_update_memcpy(uintptr_t graph, size_t index, cuabi_go_memcpy_update update) {
    if (cuabi_go_fn.graph_update_memcpy == NULL) return cuabi_go_missing("cuabi_graph_update_memcpy");
    cuabi_graph_memcpy_params params = CUABI_GRAPH_MEMCPY_PARAMS_INIT;
    if (cuabi_go_fn.graph_memcpy_params_init != NULL)  /* the library's defaults, for its version */
        cuabi_go_fn.graph_memcpy_params_init((uint32_t)sizeof params, &params);
    params.dst_buffer = (cuabi_buffer*)update.dst_buffer;
    params.dst_host = (void*)update.dst_host;
    params.dst_offset = update.dst_offset;
    params.src_buffer = (cuabi_buffer*)update.src_buffer;
    params.src_host = (const void*)update.src_host;
    params.src_offset = update.src_offset;
    params.size = update.size;
    cuabi_status status = cuabi_go_fn.graph_update_memcpy((cuabi_graph*)graph, index, &params);
    return status == CUABI_SUCCESS ? NULL : cuabi_go_capture(status, 0);
}

cuabi_go_failure* cuabi_go_launch_small(uintptr_t kernel, cuabi_go_small_launch launch) {
    return launch_packed(kernel, &launch.config, launch.bytes, (size_t)launch.size);
}

cuabi_go_failure* cuabi_go_launch_large(uintptr_t kernel, cuabi_go_large_launch launch) {
    return launch_packed(kernel, &launch.config, launch.bytes, (size_t)launch.size);
}

cuabi_go_failure* cuabi_go_launch_packed(uintptr_t kernel, cuabi_go_launch_config config, const void* packed, size_t packed_size) {
    return launch_packed(kernel, &config, packed, packed_size);
}

/* An argument table pointing into `values` (each argument's bytes back to back): on the stack up
 * to STACK_ARGS arguments, else allocated. */
#define STACK_ARGS 64
typedef struct {
    cuabi_kernel_arg stack[STACK_ARGS];
    cuabi_kernel_arg* items; /* NULL for no arguments */
} arg_table;

/* Builds the table; 0 when it cannot be allocated. */
static int table_build(arg_table* t, const void* values, const size_t* sizes, size_t count) {
    t->items = count == 0 ? NULL : count <= STACK_ARGS ? t->stack : malloc(count * sizeof(cuabi_kernel_arg));
    if (count != 0 && t->items == NULL) return 0;
    const unsigned char* at = values;
    for (size_t i = 0; i < count; ++i) {
        t->items[i].value = at;
        t->items[i].size = sizes[i];
        at += sizes[i];
    }
    return 1;
}

static void table_free(arg_table* t) {
    if (t->items != t->stack) free(t->items);
}

static cuabi_go_failure* table_out_of_memory(size_t count) {
    return shim_failure(CUABI_ERROR_OUT_OF_HOST_MEMORY,
                        "no memory for a table of %zu kernel arguments. Fix: free memory, or pass fewer arguments.", count);
}

cuabi_go_failure* cuabi_go_launch(uintptr_t kernel, cuabi_go_launch_config config, const void* values, const size_t* sizes, size_t count) {
    if (cuabi_go_fn.launch == NULL) return cuabi_go_missing("cuabi_launch");
    arg_table table;
    if (!table_build(&table, values, sizes, count)) return table_out_of_memory(count);
    cuabi_launch_config c;
    cuabi_go_make_config(&config, &c);
    cuabi_status status = cuabi_go_fn.launch((cuabi_kernel*)kernel, &c, table.items, count);
    cuabi_go_failure* failure = status == CUABI_SUCCESS ? NULL : cuabi_go_capture(status, 0);
    table_free(&table);
    return failure;
}

cuabi_go_failure* cuabi_go_graph_update_kernel_args(uintptr_t graph, size_t index, const void* values, const size_t* sizes, size_t count) {
    if (cuabi_go_fn.graph_update_kernel_args == NULL) return cuabi_go_missing("cuabi_graph_update_kernel_args");
    arg_table table;
    if (!table_build(&table, values, sizes, count)) return table_out_of_memory(count);
    cuabi_status status = cuabi_go_fn.graph_update_kernel_args((cuabi_graph*)graph, index, table.items, count);
    cuabi_go_failure* failure = status == CUABI_SUCCESS ? NULL : cuabi_go_capture(status, 0);
    table_free(&table);
    return failure;
}

cuabi_go_failure* cuabi_go_kernel_layout(uintptr_t kernel, size_t* offsets_sizes, size_t capacity, size_t* out_count) {
    if (cuabi_go_fn.kernel_get_param_count == NULL) return cuabi_go_missing("cuabi_kernel_get_param_count");
    if (cuabi_go_fn.kernel_get_param_info == NULL) return cuabi_go_missing("cuabi_kernel_get_param_info");
    size_t count = 0;
    cuabi_status status = cuabi_go_fn.kernel_get_param_count((cuabi_kernel*)kernel, &count);
    for (size_t i = 0; status == CUABI_SUCCESS && i < count && i < capacity; ++i)
        status = cuabi_go_fn.kernel_get_param_info((cuabi_kernel*)kernel, i, &offsets_sizes[2 * i], &offsets_sizes[2 * i + 1]);
    if (status != CUABI_SUCCESS) return cuabi_go_capture(status, 0);
    *out_count = count;
    return NULL;
}

/* ---- Compile ------------------------------------------------------------------------------- */

/* The next NUL-terminated string of the block, or NULL when the block ends first. */
static const char* next_string(const char** cursor, const char* end) {
    const char* text = *cursor;
    size_t room = (size_t)(end - text);
    size_t length = strnlen(text, room);
    if (length == room) return NULL;
    *cursor = text + length + 1;
    return text;
}

/* Fills `count` entries of `list` from the block; 0 when it ends first. */
static int next_strings(const char** cursor, const char* end, const char** list, uint32_t count) {
    for (uint32_t i = 0; i < count; ++i)
        if ((list[i] = next_string(cursor, end)) == NULL) return 0;
    return 1;
}

/* Points *o (defaults first) and *source into `strings` as request r lays them out; *lists holds
 * the pointer arrays (free it). */
static cuabi_go_failure* decode_compile(const cuabi_go_compile_request* r, const char* strings, const void* salt,
                                        cuabi_compile_options* o, const char** source, const char*** lists_out) {
    if (cuabi_go_fn.compile_options_init == NULL) return cuabi_go_missing("cuabi_compile_options_init");
    cuabi_status prepared = cuabi_go_fn.compile_options_init((uint32_t)sizeof *o, o);
    if (prepared != CUABI_SUCCESS) return cuabi_go_capture(prepared, 0);

    size_t list_count = (size_t)r->define_count + r->include_dir_count + 2 * (size_t)r->header_count +
                        r->name_expression_count + r->extra_flag_count;
    const char** lists = list_count != 0 ? malloc(list_count * sizeof(const char*)) : NULL;
    if (list_count != 0 && lists == NULL) return table_out_of_memory(list_count);
    const char* cursor = strings;
    const char* end = strings + r->strings_size;
    *source = next_string(&cursor, end);
    int ok = *source != NULL;
    if (ok && r->has_target) ok = (o->target = next_string(&cursor, end)) != NULL;
    if (ok && r->has_cpp_standard) ok = (o->cpp_standard = next_string(&cursor, end)) != NULL;
    if (ok && r->has_program_name) ok = (o->program_name = next_string(&cursor, end)) != NULL;
    const uint32_t counts[6] = {r->define_count, r->include_dir_count, r->header_count, r->header_count,
                                r->name_expression_count, r->extra_flag_count};
    const char* const* starts[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
    for (size_t i = 0, first = 0; i < 6; first += counts[i], ++i) {
        if (counts[i] == 0) continue;
        starts[i] = lists + first;
        if (ok) ok = next_strings(&cursor, end, lists + first, counts[i]);
    }
    if (!ok) {
        free(lists);
        return shim_failure(CUABI_ERROR_INTERNAL,
                            "the Go package sent a compile request whose strings do not match its counts. Fix: report "
                            "this bug in cuabi's Go package.");
    }
    o->flags = r->flags;
    o->fast_math = r->fast_math;
    o->ftz = r->ftz;
    o->prec_div = r->prec_div;
    o->prec_sqrt = r->prec_sqrt;
    o->fmad = r->fmad;
    o->max_registers = r->max_registers;
    o->line_info = r->line_info;
    o->device_debug = r->device_debug;
    o->timeout_ms = r->timeout_ms;
    o->defines = starts[0];
    o->define_count = r->define_count;
    o->include_dirs = starts[1];
    o->include_dir_count = r->include_dir_count;
    o->header_names = starts[2];
    o->header_sources = starts[3];
    o->header_count = r->header_count;
    o->name_expressions = starts[4];
    o->name_expression_count = r->name_expression_count;
    o->extra_flags = starts[5];
    o->extra_flag_count = r->extra_flag_count;
    o->salt = r->salt_size != 0 ? salt : NULL;
    o->salt_size = (size_t)r->salt_size;
    *lists_out = lists;
    return NULL;
}

cuabi_go_failure* cuabi_go_module_compile(uintptr_t context, uint32_t offline, const cuabi_go_compile_request* r,
                                          const char* strings, const void* salt, uintptr_t* out_module) {
    if (offline && cuabi_go_fn.module_compile_offline == NULL) return cuabi_go_missing("cuabi_module_compile_offline");
    if (!offline && cuabi_go_fn.module_compile == NULL) return cuabi_go_missing("cuabi_module_compile");
    cuabi_compile_options o;
    const char* source = NULL;
    const char** lists = NULL;
    cuabi_go_failure* failure = decode_compile(r, strings, salt, &o, &source, &lists);
    if (failure != NULL) return failure;
    cuabi_module* module = NULL;
    cuabi_status status = offline ? cuabi_go_fn.module_compile_offline(source, &o, &module)
                                  : cuabi_go_fn.module_compile((cuabi_context*)context, source, &o, &module);
    failure = status == CUABI_SUCCESS ? NULL : cuabi_go_capture(status, 1);
    free(lists);
    if (failure == NULL) *out_module = (uintptr_t)module;
    return failure;
}

/* One request of a batch being built: C copies of the Go side's strings and salt. */
typedef struct batch_entry {
    cuabi_compile_options options;
    char* strings;
    void* salt;
    const char** lists;
} batch_entry;

struct cuabi_go_batch_builder {
    size_t count, added;
    batch_entry* entries;
    cuabi_compile_request* requests;
};

cuabi_go_batch_builder* cuabi_go_batch_builder_new(size_t count) {
    cuabi_go_batch_builder* b = calloc(1, sizeof *b);
    if (b == NULL) return NULL;
    b->count = count;
    b->entries = count != 0 ? calloc(count, sizeof *b->entries) : NULL;
    b->requests = count != 0 ? calloc(count, sizeof *b->requests) : NULL;
    if (count != 0 && (b->entries == NULL || b->requests == NULL)) {
        cuabi_go_batch_builder_free(b);
        return NULL;
    }
    return b;
}

cuabi_go_failure* cuabi_go_batch_builder_add(cuabi_go_batch_builder* b, uintptr_t context,
                                             const cuabi_go_compile_request* r, const char* strings, const void* salt) {
    if (b->added == b->count)
        return shim_failure(CUABI_ERROR_INTERNAL, "the Go package added more requests than it sized the batch for. "
                                                  "Fix: report this bug in cuabi's Go package.");
    batch_entry* e = &b->entries[b->added];
    e->strings = malloc(r->strings_size != 0 ? r->strings_size : 1);
    e->salt = r->salt_size != 0 ? malloc(r->salt_size) : NULL;
    if (e->strings == NULL || (r->salt_size != 0 && e->salt == NULL)) return table_out_of_memory(r->strings_size);
    memcpy(e->strings, strings, r->strings_size);
    if (r->salt_size != 0) memcpy(e->salt, salt, r->salt_size);
    const char* source = NULL;
    cuabi_go_failure* failure = decode_compile(r, e->strings, e->salt, &e->options, &source, &e->lists);
    if (failure != NULL) return failure;
    b->requests[b->added].context = (cuabi_context*)context;
    b->requests[b->added].source = source;
    b->requests[b->added].options = &e->options;
    ++b->added;
    return NULL;
}

cuabi_go_failure* cuabi_go_batch_builder_start(cuabi_go_batch_builder* b, uint32_t jobs, uintptr_t* out_batch) {
    if (cuabi_go_fn.compile_batch_start == NULL) return cuabi_go_missing("cuabi_compile_batch_start");
    cuabi_compile_batch* batch = NULL;
    cuabi_status status = cuabi_go_fn.compile_batch_start(b->requests, b->added, jobs, &batch);
    if (status != CUABI_SUCCESS) return cuabi_go_capture(status, 0);
    *out_batch = (uintptr_t)batch;
    return NULL;
}

void cuabi_go_batch_builder_free(cuabi_go_batch_builder* b) {
    if (b == NULL) return;
    for (size_t i = 0; b->entries != NULL && i < b->count; ++i) {
        free(b->entries[i].strings);
        free(b->entries[i].salt);
        free(b->entries[i].lists);
    }
    free(b->entries);
    free(b->requests);
    free(b);
}

cuabi_go_failure* cuabi_go_compile_batch_result(uintptr_t batch, size_t index, uintptr_t* out_module) {
    if (cuabi_go_fn.compile_batch_get_module == NULL) return cuabi_go_missing("cuabi_compile_batch_get_module");
    cuabi_module* module = NULL;
    cuabi_status status = cuabi_go_fn.compile_batch_get_module((cuabi_compile_batch*)batch, index, &module);
    if (status != CUABI_SUCCESS) return cuabi_go_capture(status, 1);
    *out_module = (uintptr_t)module;
    return NULL;
}

cuabi_go_failure* cuabi_go_module_link(uintptr_t context, uint32_t offline, const cuabi_link_input* inputs,
                                       size_t input_count, const cuabi_link_options* options, uintptr_t* out_module) {
    if (offline && cuabi_go_fn.module_link_offline == NULL) return cuabi_go_missing("cuabi_module_link_offline");
    if (!offline && cuabi_go_fn.module_link == NULL) return cuabi_go_missing("cuabi_module_link");
    cuabi_module* module = NULL;
    cuabi_status status = offline ? cuabi_go_fn.module_link_offline(inputs, input_count, options, &module)
                                  : cuabi_go_fn.module_link((cuabi_context*)context, inputs, input_count, options, &module);
    if (status != CUABI_SUCCESS) return cuabi_go_capture(status, 1);
    *out_module = (uintptr_t)module;
    return NULL;
}
