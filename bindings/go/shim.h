/*
 * The C half of the Go package: loading libcuabi.so.1 with dlopen, the failure record every
 * trampoline returns, and the trampolines that cannot be generated (they build C-side tables and
 * structs from Go memory, or capture the compile log).
 *
 * Why trampolines: cuabi's last error is thread-local, and a goroutine may move to another OS
 * thread between two cgo calls. So each trampoline calls its cuabi function and, on failure,
 * copies the message, the CUresult, the nvrtcResult (and for compiles the NVRTC log) into a
 * cuabi_go_failure before it returns: the Go side never reads thread-local state.
 *
 * Why uintptr_t handles: cuabi handles are bit patterns, not addresses; Go keeps them in uintptr
 * fields so the garbage collector never inspects them as pointers.
 */
#ifndef CUABI_GO_SHIM_H
#define CUABI_GO_SHIM_H

#define CUABI_NO_PROTOTYPES
#include <cuabi/cuabi.h>

#include <stddef.h>
#include <stdint.h>

/* What a failed call left behind, copied on the thread that made the call. The message and log
 * live in the same allocation; cuabi_go_failure_free releases it. Quiet failures (a stream or
 * event still running, a graph-cache miss) are static records with owned == 0 and no message. */
typedef struct cuabi_go_failure {
    int32_t status;
    int32_t cu_result;
    int32_t nvrtc_result;
    uint32_t owned;
    const char* message;
    const char* log; /* the NVRTC log of a failed compile, NULL otherwise */
    size_t log_size; /* bytes of log, without a terminating NUL */
} cuabi_go_failure;

/* The failure of `status`, with this thread's message (and NVRTC log when with_log is 1). Never
 * NULL: when even the copy cannot be allocated, a static out-of-memory record comes back. */
cuabi_go_failure* cuabi_go_capture(cuabi_status status, int with_log);
/* A static, message-less record for statuses that answer a question rather than fail. */
cuabi_go_failure* cuabi_go_quiet(cuabi_status status);
/* CUABI_ERROR_UNSUPPORTED: the loaded library lacks function `name`. */
cuabi_go_failure* cuabi_go_missing(const char* name);
void cuabi_go_failure_free(cuabi_go_failure* failure);

/* dlopen()s `path` (RTLD_NOW: every symbol bound now, nothing lazily), resolves
 * cuabi_get_proc_address and through it every function, and checks the ABI major. Call once;
 * the library is never closed (finalizers may still release handles at exit). */
cuabi_go_failure* cuabi_go_load(const char* path);
/* The file the dynamic loader opened ("" before a successful load). */
const char* cuabi_go_library_path(void);

/* ---- Launch ---------------------------------------------------------------------------------
 * cuabi_launch_config without pointers (the stream crosses as uintptr_t), passed by value: a
 * pointer to Go memory passed to C escapes to the heap, so a by-value struct is what keeps a launch
 * free of allocations. */
typedef struct cuabi_go_launch_config {
    uint32_t flags;
    uint32_t grid[3];
    uint32_t block[3];
    uint32_t cluster[3];
    uint32_t shared_memory_bytes;
    int32_t priority; /* with CUABI_LAUNCH_PRIORITY */
    uintptr_t stream;
} cuabi_go_launch_config;

/* New end points of a memcpy node: handles and host addresses as integers (host memory is C
 * memory, never Go's: the graph keeps using it after the call). */
/* The C config from the Go one, over the loaded library's defaults. */
void cuabi_go_make_config(const cuabi_go_launch_config* in, cuabi_launch_config* out);

typedef struct cuabi_go_memcpy_update {
    uintptr_t dst_buffer, dst_host;
    uint64_t dst_offset;
    uintptr_t src_buffer, src_host;
    uint64_t src_offset;
    uint64_t size;
} cuabi_go_memcpy_update;

/* Packed launches small enough to travel by value, config and arguments together, in two sizes:
 * every byte crosses twice (into cgo's argument frame, then onto the C stack), so most kernels (up
 * to 8 pointers) take the small one. Larger argument lists are passed by pointer. */
#define CUABI_GO_SMALL_ARGS 64
#define CUABI_GO_LARGE_ARGS 256
typedef struct cuabi_go_small_launch {
    cuabi_go_launch_config config;
    uint64_t size; /* bytes of `bytes` in use */
    unsigned char bytes[CUABI_GO_SMALL_ARGS];
} cuabi_go_small_launch;
typedef struct cuabi_go_large_launch {
    cuabi_go_launch_config config;
    uint64_t size;
    unsigned char bytes[CUABI_GO_LARGE_ARGS];
} cuabi_go_large_launch;

cuabi_go_failure* cuabi_go_kernel_max_active_clusters(uintptr_t kernel, cuabi_go_launch_config config, uint32_t* out_clusters);
cuabi_go_failure* cuabi_go_graph_update_memcpy(uintptr_t graph, size_t index, cuabi_go_memcpy_update update);
cuabi_go_failure* cuabi_go_launch_small(uintptr_t kernel, cuabi_go_small_launch launch);
cuabi_go_failure* cuabi_go_launch_large(uintptr_t kernel, cuabi_go_large_launch launch);
cuabi_go_failure* cuabi_go_launch_packed(uintptr_t kernel, cuabi_go_launch_config config, const void* packed, size_t packed_size);
/* The argument-table forms: `values` holds each argument's bytes back to back, `sizes` their sizes;
 * the table of pointers into `values` is built here, since Go memory may not hold Go pointers. */
cuabi_go_failure* cuabi_go_launch(uintptr_t kernel, cuabi_go_launch_config config, const void* values, const size_t* sizes, size_t count);
cuabi_go_failure* cuabi_go_graph_update_kernel_args(uintptr_t graph, size_t index, const void* values, const size_t* sizes, size_t count);

/* The kernel's parameter layout in one crossing: *out_count parameters; for the first `capacity`,
 * offsets_sizes[2i] is the offset and offsets_sizes[2i+1] the size of parameter i. */
cuabi_go_failure* cuabi_go_kernel_layout(uintptr_t kernel, size_t* offsets_sizes, size_t capacity, size_t* out_count);

/* ---- Compile --------------------------------------------------------------------------------
 * The scalar compile options; the strings arrive in one block of NUL-terminated strings, in this
 * order: the source, target / cpp_standard / program_name (each only when its has_ flag is 1),
 * then the defines, include directories, header names, header sources, name expressions and extra
 * flags (counts below). The pointer arrays cuabi_compile_options needs are built here. */
typedef struct cuabi_go_compile_request {
    uint32_t flags;
    uint32_t has_target;
    uint32_t has_cpp_standard;
    uint32_t has_program_name;
    uint32_t fast_math;
    int32_t ftz;
    int32_t prec_div;
    int32_t prec_sqrt;
    int32_t fmad;
    uint32_t max_registers;
    uint32_t line_info;
    uint32_t device_debug;
    uint32_t timeout_ms;
    uint32_t define_count;
    uint32_t include_dir_count;
    uint32_t header_count;
    uint32_t name_expression_count;
    uint32_t extra_flag_count;
    uint64_t strings_size;
    uint64_t salt_size;
} cuabi_go_compile_request;

/* cuabi_module_compile (offline 0) or cuabi_module_compile_offline (offline 1; context unused).
 * A failure carries the NVRTC log. */
cuabi_go_failure* cuabi_go_module_compile(uintptr_t context, uint32_t offline, const cuabi_go_compile_request* request,
                                          const char* strings, const void* salt, uintptr_t* out_module);

/* A compile batch's requests, built one by one in C memory (a Go slice of requests would be Go
 * memory holding Go pointers, which cgo may not pass): each add copies the request's strings and
 * salt, so the Go side's may go away at once. NULL from _new: out of memory. */
typedef struct cuabi_go_batch_builder cuabi_go_batch_builder;
cuabi_go_batch_builder* cuabi_go_batch_builder_new(size_t count);
cuabi_go_failure* cuabi_go_batch_builder_add(cuabi_go_batch_builder* builder, uintptr_t context,
                                             const cuabi_go_compile_request* request, const char* strings,
                                             const void* salt);
cuabi_go_failure* cuabi_go_batch_builder_start(cuabi_go_batch_builder* builder, uint32_t jobs, uintptr_t* out_batch);
void cuabi_go_batch_builder_free(cuabi_go_batch_builder* builder);
/* cuabi_compile_batch_get_module, its failure with the request's NVRTC log. */
cuabi_go_failure* cuabi_go_compile_batch_result(uintptr_t batch, size_t index, uintptr_t* out_module);
/* cuabi_module_link (offline 0) or cuabi_module_link_offline (offline 1; context unused). The
 * inputs, the options and everything they point at are in C memory (the Go package allocates them:
 * Go memory passed to C may not hold pointers to Go memory). A failure carries nvJitLink's log. */
cuabi_go_failure* cuabi_go_module_link(uintptr_t context, uint32_t offline, const cuabi_link_input* inputs,
                                       size_t input_count, const cuabi_link_options* options, uintptr_t* out_module);

#endif
