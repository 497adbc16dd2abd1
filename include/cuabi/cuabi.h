/*
 * cuabi.h -- compile, cache, launch and graph CUDA kernels through a stable C ABI.
 *
 * This is the only header a cuabi user includes. It is C99 and reads top to bottom as the manual:
 * each group opens with the lifetime and thread-safety rules of its object, each function says
 * what it does, which statuses it returns beyond the common ones, and who owns what it returns.
 *
 * Conventions that hold for every function (so they are not repeated below):
 *   - Functions that can fail return cuabi_status: CUABI_SUCCESS (0) or an error code. After a
 *     failure, cuabi_last_error_message() on the same thread says what was wrong, with the
 *     values involved, and ends in "Fix: ...".
 *   - Every function may return CUABI_ERROR_INVALID_ARGUMENT for a NULL pointer where one is
 *     required and CUABI_ERROR_INVALID_HANDLE for a NULL, destroyed, foreign or wrong-type handle.
 *     Functions that reach the GPU may return CUABI_ERROR_DRIVER_NOT_FOUND,
 *     CUABI_ERROR_DRIVER_TOO_OLD, CUABI_ERROR_NO_DEVICE and CUABI_ERROR_CUDA.
 *   - Output parameters are named out_*; they are written only on success.
 *   - Options structs begin with uint32_t struct_size. Fill them with the CUABI_*_INIT macro or
 *     the cuabi_*_init() function; a NULL options pointer means all defaults. A struct from an
 *     older, smaller header gets defaults for the fields it lacks; a larger one whose unknown
 *     tail is not all zero bytes is rejected with CUABI_ERROR_STRUCT_SIZE.
 *   - Variable-length results use two calls: pass a NULL buffer to learn the size in *out_size,
 *     then a buffer of that capacity. A too small buffer gives CUABI_ERROR_BUFFER_TOO_SMALL and
 *     still sets *out_size.
 *   - Every handle may be used from any thread unless its group says otherwise; cuabi makes the
 *     right CUDA context current itself. Every destroy function accepts NULL, and objects keep
 *     what they depend on alive, so handles may be destroyed in any order.
 *
 * Define CUABI_NO_PROTOTYPES before including this header to get only the types, constants and
 * PFN_cuabi_* function-pointer typedefs (for programs that dlopen libcuabi.so.1 and resolve
 * everything through cuabi_get_proc_address).
 */
#ifndef CUABI_H
#define CUABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CUABI_API marks exported functions. The library is built with hidden visibility. */
#if defined(CUABI_BUILDING) && defined(__GNUC__)
#define CUABI_API __attribute__((visibility("default")))
#else
#define CUABI_API
#endif

/* ============================================================================================
 * Versions
 *
 * The macros give the version this header belongs to; cuabi_version_number() gives the version
 * of the library actually loaded. As with SQLite, compare them at start-up if you depend on a
 * feature: a program built against 1.x runs with any later 1.y (same ABI major).
 * ========================================================================================== */
#define CUABI_VERSION_MAJOR 1
#define CUABI_VERSION_MINOR 0
#define CUABI_VERSION_PATCH 0
#define CUABI_VERSION_NUMBER (CUABI_VERSION_MAJOR * 10000 + CUABI_VERSION_MINOR * 100 + CUABI_VERSION_PATCH)
#define CUABI_VERSION_STRING "1.0.0"
/* The ABI major: the SONAME is libcuabi.so.<CUABI_ABI_VERSION>. */
#define CUABI_ABI_VERSION 1

/* ============================================================================================
 * Status codes
 *
 * Values are fixed forever and never reused; new codes are only added. docs/errors.md says when
 * each happens and what fixes it. cuabi_status_name() turns a code into its name.
 * ========================================================================================== */
typedef int32_t cuabi_status;

#define CUABI_SUCCESS 0
/* Generic: 1-19 */
#define CUABI_ERROR_INVALID_ARGUMENT 1
#define CUABI_ERROR_INVALID_HANDLE 2
#define CUABI_ERROR_STRUCT_SIZE 3
#define CUABI_ERROR_OUT_OF_HOST_MEMORY 4
#define CUABI_ERROR_BUFFER_TOO_SMALL 5
#define CUABI_ERROR_NOT_FOUND 6
#define CUABI_ERROR_UNSUPPORTED 7
#define CUABI_ERROR_NOT_READY 8
#define CUABI_ERROR_CONTEXT_MISMATCH 9
#define CUABI_ERROR_INTERNAL 10
/* Environment: 20-29 */
#define CUABI_ERROR_DRIVER_NOT_FOUND 20
#define CUABI_ERROR_DRIVER_TOO_OLD 21
#define CUABI_ERROR_NO_DEVICE 22
#define CUABI_ERROR_INVALID_DEVICE 23
#define CUABI_ERROR_NVRTC_NOT_FOUND 24
/* CUDA: 30-39 */
#define CUABI_ERROR_CUDA 30
#define CUABI_ERROR_DEVICE_OUT_OF_MEMORY 31
#define CUABI_ERROR_OUT_OF_BOUNDS 32
/* Compile and cache: 40-59 */
#define CUABI_ERROR_COMPILE 40
#define CUABI_ERROR_NVRTC 41
#define CUABI_ERROR_KERNEL_NOT_FOUND 42
#define CUABI_ERROR_INVALID_IMAGE 43
#define CUABI_ERROR_CACHE_UNSAFE 44
#define CUABI_ERROR_CACHE_IO 45
/* Launch: 60-79 */
#define CUABI_ERROR_LAUNCH_GRID 60
#define CUABI_ERROR_LAUNCH_BLOCK 61
#define CUABI_ERROR_LAUNCH_KERNEL_THREADS 62
#define CUABI_ERROR_LAUNCH_SHARED_MEMORY 63
#define CUABI_ERROR_LAUNCH_COOPERATIVE 64
#define CUABI_ERROR_LAUNCH_CLUSTER 65
#define CUABI_ERROR_ARGUMENT_COUNT 66
#define CUABI_ERROR_ARGUMENT_SIZE 67
#define CUABI_ERROR_LAUNCH_FAILED 68
/* Graphs: 80-99 */
#define CUABI_ERROR_CAPTURE 80
#define CUABI_ERROR_GRAPH_NODE 81
#define CUABI_ERROR_GRAPH_UPDATE 82
/* Profiler ranges: 100-109 */
#define CUABI_ERROR_RANGE 100

/* ============================================================================================
 * Handles
 *
 * Every cuabi object is an opaque handle. A handle is not a pointer to memory: passing a
 * destroyed, made-up or wrong-type handle returns CUABI_ERROR_INVALID_HANDLE instead of
 * touching freed memory.
 * ========================================================================================== */
typedef struct cuabi_context cuabi_context;
typedef struct cuabi_stream cuabi_stream;
typedef struct cuabi_event cuabi_event;
typedef struct cuabi_buffer cuabi_buffer;
typedef struct cuabi_module cuabi_module;
typedef struct cuabi_kernel cuabi_kernel;
typedef struct cuabi_graph cuabi_graph;
typedef struct cuabi_range cuabi_range;

/* Generic function pointer returned by cuabi_get_proc_address(); cast to the PFN_cuabi_* type. */
typedef void (*cuabi_proc)(void);

/* ============================================================================================
 * Options and info structs
 * ========================================================================================== */

/* Context flags (cuabi_context_options.flags): none are defined yet; pass 0. */

/* Options for cuabi_context_create(). */
typedef struct cuabi_context_options {
    uint32_t struct_size;   /* sizeof(cuabi_context_options) */
    int32_t device_ordinal; /* CUDA device ordinal; default 0 */
    uint32_t flags;         /* reserved, must be 0 */
    uint32_t reserved;      /* must be 0 */
} cuabi_context_options;
#define CUABI_CONTEXT_OPTIONS_INIT {sizeof(cuabi_context_options), 0, 0, 0}

/* Facts about one device: identity, memory and every limit a launch is validated against.
 * An output struct: set struct_size to sizeof(cuabi_device_info) (the _INIT macro does) and
 * cuabi fills as much as fits. */
typedef struct cuabi_device_info {
    uint32_t struct_size;
    int32_t ordinal;
    char name[256];                 /* NUL-terminated */
    uint8_t uuid[16];
    int32_t compute_capability_major;
    int32_t compute_capability_minor;
    int32_t multiprocessor_count;
    int32_t warp_size;
    uint64_t total_memory_bytes;
    int32_t max_threads_per_block;
    int32_t max_block_dim[3];
    int32_t max_grid_dim[3];
    int32_t max_shared_memory_per_block;        /* bytes, without opt-in (usually 48 KiB) */
    int32_t max_shared_memory_per_block_optin;  /* bytes, with cuFuncSetAttribute opt-in */
    int32_t max_shared_memory_per_multiprocessor;
    int32_t max_registers_per_block;
    int32_t max_registers_per_multiprocessor;
    int32_t max_threads_per_multiprocessor;
    int32_t max_blocks_per_multiprocessor;
    uint32_t cooperative_launch;                /* boolean */
    uint32_t cluster_launch;                    /* boolean: thread block clusters (sm_90+) */
    int32_t pci_domain_id;
    int32_t pci_bus_id;
    int32_t pci_device_id;
    int32_t clock_rate_khz;
    int32_t memory_bus_width_bits;
    int32_t l2_cache_bytes;
    uint32_t reserved;
} cuabi_device_info;
/* Every field spelled out so that -Wextra (-Wmissing-field-initializers) stays quiet in C and C++. */
#define CUABI_DEVICE_INFO_INIT \
    {sizeof(cuabi_device_info), 0, {0}, {0}, 0, 0, 0, 0, 0, 0, {0, 0, 0}, {0, 0, 0}, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}

/* Stream flags (cuabi_stream_options.flags). Streams are non-blocking by default: they never
 * synchronize with CUDA's legacy default stream. */
#define CUABI_STREAM_DEFAULT 0x0u

/* Options for cuabi_stream_create(). */
typedef struct cuabi_stream_options {
    uint32_t struct_size; /* sizeof(cuabi_stream_options) */
    uint32_t flags;       /* CUABI_STREAM_* ; default 0 */
    int32_t priority;     /* lower is higher priority; 0 = default; clamped to the device range */
    uint32_t reserved;    /* must be 0 */
} cuabi_stream_options;
#define CUABI_STREAM_OPTIONS_INIT {sizeof(cuabi_stream_options), 0, 0, 0}

/* Event flags (cuabi_event_options.flags). */
#define CUABI_EVENT_DEFAULT 0x0u
#define CUABI_EVENT_DISABLE_TIMING 0x1u /* cheaper; cuabi_event_elapsed_ms() is then refused */
#define CUABI_EVENT_BLOCKING_SYNC 0x2u  /* synchronize by sleeping rather than spinning */

/* Options for cuabi_event_create(). */
typedef struct cuabi_event_options {
    uint32_t struct_size; /* sizeof(cuabi_event_options) */
    uint32_t flags;       /* CUABI_EVENT_* ; default 0 (timing enabled) */
} cuabi_event_options;
#define CUABI_EVENT_OPTIONS_INIT {sizeof(cuabi_event_options), 0}

/* Buffer flags (cuabi_buffer_options.flags). */
#define CUABI_BUFFER_DEFAULT 0x0u
#define CUABI_BUFFER_ZERO 0x1u /* fill the new buffer with zero bytes */

/* Options for cuabi_buffer_create(). */
typedef struct cuabi_buffer_options {
    uint32_t struct_size; /* sizeof(cuabi_buffer_options) */
    uint32_t flags;       /* CUABI_BUFFER_* ; default 0 */
} cuabi_buffer_options;
#define CUABI_BUFFER_OPTIONS_INIT {sizeof(cuabi_buffer_options), 0}

/* Per-context counters (DESIGN §9). An output struct: set struct_size. */
typedef struct cuabi_counters {
    uint32_t struct_size;
    uint32_t reserved;
    uint64_t launches;               /* every kernel launch through cuabi */
    uint64_t launches_packed;        /* of which: packed-argument form */
    uint64_t launches_cooperative;   /* of which: cooperative */
    uint64_t launches_cluster;       /* of which: with a thread block cluster */
    uint64_t synchronizations;       /* stream / event / context synchronizations */
    uint64_t graph_launches;
    uint64_t graph_instantiations;
    uint64_t graph_updates;
    uint64_t graph_reinstantiations;
    uint64_t compiles;               /* NVRTC compilations actually run */
    uint64_t compile_time_ns;        /* wall time spent in NVRTC */
    uint64_t memory_cache_hits;
    uint64_t memory_cache_misses;
    uint64_t disk_cache_hits;
    uint64_t disk_cache_misses;
    uint64_t disk_cache_corrupt_recovered;
    uint64_t disk_cache_evictions;
} cuabi_counters;
#define CUABI_COUNTERS_INIT {sizeof(cuabi_counters), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}

/* @@types:module@@ (insert module-group types above this line) */
/* @@types:launch@@ (insert launch-group types above this line) */
/* @@types:graph@@ (insert graph-group types above this line) */
/* @@types:range@@ (insert range-group types above this line) */
/* Statistics of the kernel cache (see the Cache group). An output struct: set struct_size.
 * Hit, miss, store and failure counts are this process's since it started; disk_entries and
 * disk_bytes are what the cache directory holds now, written by any process. */
typedef struct cuabi_cache_stats {
    uint32_t struct_size;
    uint32_t disk_enabled;            /* boolean: entries are looked up on disk */
    uint32_t disk_writable;           /* boolean: new entries are written to disk */
    uint32_t reserved;
    uint64_t memory_hits;
    uint64_t memory_misses;
    uint64_t memory_entries;
    uint64_t memory_bytes;            /* approximate heap bytes held by memory entries */
    uint64_t memory_max_bytes;        /* CUABI_CACHE_MEMORY_MAX_BYTES, default 256 MiB */
    uint64_t memory_evictions;
    uint64_t disk_hits;
    uint64_t disk_misses;
    uint64_t disk_entries;
    uint64_t disk_bytes;
    uint64_t disk_max_bytes;          /* CUABI_CACHE_MAX_BYTES, default 1 GiB */
    uint64_t disk_stores;             /* entries this process published */
    uint64_t disk_store_failures;     /* failed writes (full or read-only disk); see the reason */
    uint64_t disk_corrupt_recovered;  /* truncated or corrupt entries found and removed */
    uint64_t disk_evictions;          /* entries this process evicted to respect the size cap */
} cuabi_cache_stats;
#define CUABI_CACHE_STATS_INIT {sizeof(cuabi_cache_stats)}

/* Who chose a CUDA driver JIT cache setting (cuabi_driver_jit_cache_info). */
#define CUABI_SETTING_DRIVER_DEFAULT 0 /* nobody: the driver's default applies */
#define CUABI_SETTING_ENVIRONMENT 1    /* the operator, through the environment */
#define CUABI_SETTING_CUABI 2          /* cuabi, because the operator had not */

/* The CUDA driver's JIT cache settings in effect in this process. An output struct: set
 * struct_size. */
typedef struct cuabi_driver_jit_cache_info {
    uint32_t struct_size;
    uint32_t enabled;              /* boolean: 0 when CUDA_CACHE_DISABLE=1 */
    int32_t path_source;           /* CUABI_SETTING_*: who chose CUDA_CACHE_PATH */
    int32_t max_bytes_source;      /* CUABI_SETTING_*: who chose CUDA_CACHE_MAXSIZE */
    uint64_t max_bytes;            /* CUDA_CACHE_MAXSIZE in effect; 0 = the driver's default */
    uint32_t driver_started_first; /* boolean: the driver was initialized in this process before
                                      cuabi (e.g. by the CUDA runtime), so cuabi changed nothing */
    uint32_t reserved;
} cuabi_driver_jit_cache_info;
#define CUABI_DRIVER_JIT_CACHE_INFO_INIT {sizeof(cuabi_driver_jit_cache_info)}

/* @@types:cache@@ (insert cache-group types above this line) */

#ifndef CUABI_NO_PROTOTYPES

/* ============================================================================================
 * Errors
 *
 * The last error is thread-local: read it on the thread that made the failing call, before the
 * next cuabi call on that thread. (Goroutine runtimes must lock the OS thread around call and
 * read; the Go binding does.) It is not cleared by successful calls.
 * ========================================================================================== */

/* The name of a status code ("CUABI_ERROR_INVALID_HANDLE"), or "CUABI_UNKNOWN_STATUS".
 * Thread-free: needs no state and never fails. The string is static. */
CUABI_API const char* cuabi_status_name(cuabi_status status);

/* The message of the last failure on this thread: what was wrong, with the values involved,
 * ending in "Fix: ...". Never NULL ("no error" before any failure). Valid until the next cuabi
 * call on this thread; copy it to keep it. */
CUABI_API const char* cuabi_last_error_message(void);

/* The CUresult behind the last CUABI_ERROR_CUDA (or other driver-caused) failure on this
 * thread, or 0 (CUDA_SUCCESS) if the last failure did not come from the driver. */
CUABI_API int32_t cuabi_last_cu_result(void);

/* The nvrtcResult behind the last NVRTC-caused failure on this thread, or 0. */
CUABI_API int32_t cuabi_last_nvrtc_result(void);

/* ============================================================================================
 * Library
 * ========================================================================================== */

/* The loaded library's version as CUABI_VERSION_NUMBER would spell it (10000*major + ...). */
CUABI_API uint32_t cuabi_version_number(void);

/* The loaded library's ABI major (the SONAME's number). */
CUABI_API uint32_t cuabi_abi_version(void);

/* The exported function called name ("cuabi_launch"), or NULL for any other name. This is the
 * one symbol a dlopen user needs; cast the result to the matching PFN_cuabi_* type.
 * Thread-free. */
CUABI_API cuabi_proc cuabi_get_proc_address(const char* name);

/* The CUDA driver's version (e.g. 13000 for 13.0). Loads the driver on first use.
 * Returns CUABI_ERROR_DRIVER_NOT_FOUND when libcuda.so.1 cannot be loaded (the message says
 * where cuabi looked and why it failed). */
CUABI_API cuabi_status cuabi_driver_version(int32_t* out_version);

/* The number of CUDA devices. Returns CUABI_ERROR_NO_DEVICE when the driver loads but sees none. */
CUABI_API cuabi_status cuabi_device_count(int32_t* out_count);

/* Facts about device `ordinal` without creating a context. info->struct_size must be set.
 * Returns CUABI_ERROR_INVALID_DEVICE for an ordinal outside [0, count). */
CUABI_API cuabi_status cuabi_device_info_get(int32_t ordinal, cuabi_device_info* info);

/* ============================================================================================
 * Context
 *
 * A context is one device's primary CUDA context (the one the CUDA runtime also uses), retained
 * for as long as the handle or anything made from it lives. Several contexts -- one per device,
 * or several handles on one device -- may exist at once. cuabi makes a context current on the
 * calling thread when a call needs it and leaves it current afterwards. Thread-safe.
 * ========================================================================================== */

/* Fills *options with defaults (device 0). Use instead of CUABI_CONTEXT_OPTIONS_INIT. */
CUABI_API void cuabi_context_options_init(cuabi_context_options* options);

/* Creates a context on options->device_ordinal (NULL options: device 0).
 * Returns CUABI_ERROR_INVALID_DEVICE for a bad ordinal, CUABI_ERROR_STRUCT_SIZE for a bad
 * options struct. The caller owns *out_context and releases it with cuabi_context_destroy(). */
CUABI_API cuabi_status cuabi_context_create(const cuabi_context_options* options, cuabi_context** out_context);

/* Releases the handle. Streams, buffers, modules... made from it keep the CUDA context alive
 * until they are destroyed too. NULL is accepted. */
CUABI_API void cuabi_context_destroy(cuabi_context* context);

/* Facts and launch limits of the context's device (see cuabi_device_info_get). */
CUABI_API cuabi_status cuabi_context_device_info(cuabi_context* context, cuabi_device_info* info);

/* Waits until all work on the context's device submitted by this process is done. */
CUABI_API cuabi_status cuabi_context_synchronize(cuabi_context* context);

/* The underlying CUcontext, for interoperating with other CUDA code. Not owned by the caller. */
CUABI_API cuabi_status cuabi_context_native(cuabi_context* context, void** out_cu_context);

/* Reads the context's counters into *counters (struct_size must be set). */
CUABI_API cuabi_status cuabi_context_counters(cuabi_context* context, cuabi_counters* counters);

/* ============================================================================================
 * Stream
 *
 * An ordered queue of GPU work. cuabi never uses CUDA's legacy default stream: its streams are
 * created non-blocking, and functions that take a stream treat NULL as "run synchronously"
 * (on the calling thread's per-thread stream, waiting for completion). A stream may be shared
 * between threads; work enqueued from several threads is ordered by the enqueue order.
 * ========================================================================================== */

CUABI_API void cuabi_stream_options_init(cuabi_stream_options* options);

/* Creates a non-blocking stream on the context. options->priority is clamped to the device's
 * range. The caller owns *out_stream. */
CUABI_API cuabi_status cuabi_stream_create(cuabi_context* context, const cuabi_stream_options* options, cuabi_stream** out_stream);

/* Wraps a CUstream created elsewhere (another CUDA library) without taking ownership: destroying
 * the handle does not destroy the stream. The stream must belong to the context's CUDA context
 * and outlive the handle. Returns CUABI_ERROR_INVALID_ARGUMENT for NULL (0), CU_STREAM_LEGACY or
 * CU_STREAM_PER_THREAD (pass NULL streams to cuabi functions instead) or a stream the driver does
 * not know, CUABI_ERROR_CONTEXT_MISMATCH when the stream belongs to another context. */
CUABI_API cuabi_status cuabi_stream_wrap(cuabi_context* context, void* cu_stream, cuabi_stream** out_stream);

/* Destroys an owned stream after its queued work finishes (CUDA semantics: the call does not
 * wait); releases a wrapped one. NULL is accepted. */
CUABI_API void cuabi_stream_destroy(cuabi_stream* stream);

/* Waits until all work on the stream is done. */
CUABI_API cuabi_status cuabi_stream_synchronize(cuabi_stream* stream);

/* CUABI_SUCCESS when all work on the stream is done, CUABI_ERROR_NOT_READY when some is still
 * running (this is not a failure: no error message is set). */
CUABI_API cuabi_status cuabi_stream_query(cuabi_stream* stream);

/* Makes future work on `stream` wait until `event` has completed (fork/join across streams).
 * Returns CUABI_ERROR_CONTEXT_MISMATCH when they belong to different contexts. */
CUABI_API cuabi_status cuabi_stream_wait_event(cuabi_stream* stream, cuabi_event* event);

/* The underlying CUstream. Not owned by the caller. */
CUABI_API cuabi_status cuabi_stream_native(cuabi_stream* stream, void** out_cu_stream);

/* ============================================================================================
 * Event
 *
 * A marker in a stream: record it, wait for it, time between two of them. Thread-safe.
 * ========================================================================================== */

CUABI_API void cuabi_event_options_init(cuabi_event_options* options);

/* Creates an event. The caller owns *out_event. Returns CUABI_ERROR_INVALID_ARGUMENT for
 * unknown flags. */
CUABI_API cuabi_status cuabi_event_create(cuabi_context* context, const cuabi_event_options* options, cuabi_event** out_event);

/* Destroys the event. NULL is accepted. */
CUABI_API void cuabi_event_destroy(cuabi_event* event);

/* Records the event at the current end of `stream`. A NULL stream records on the calling
 * thread's per-thread stream, where cuabi runs synchronous (NULL-stream) work, so two events
 * recorded with NULL time the synchronous calls between them. CUABI_ERROR_CONTEXT_MISMATCH when
 * event and stream belong to different contexts. */
CUABI_API cuabi_status cuabi_event_record(cuabi_event* event, cuabi_stream* stream);

/* Waits until the event has completed. */
CUABI_API cuabi_status cuabi_event_synchronize(cuabi_event* event);

/* CUABI_SUCCESS when the event has completed, CUABI_ERROR_NOT_READY when not (no message set). */
CUABI_API cuabi_status cuabi_event_query(cuabi_event* event);

/* Milliseconds between two completed events (resolution about 0.5 us). Returns
 * CUABI_ERROR_NOT_READY when one has not completed, CUABI_ERROR_INVALID_ARGUMENT when one was
 * created with CUABI_EVENT_DISABLE_TIMING or never recorded. */
CUABI_API cuabi_status cuabi_event_elapsed_ms(cuabi_event* start, cuabi_event* end, float* out_ms);

/* ============================================================================================
 * Buffer
 *
 * Device memory of a fixed size, owned (allocated by cuabi) or wrapped (a device pointer from
 * elsewhere, not freed by cuabi). Every copy is checked against the buffer's bounds. Functions
 * taking a stream enqueue the work and return; with a NULL stream they finish before returning.
 * Host memory passed to an enqueued copy must stay valid until the stream reaches the copy.
 * Thread-safe; concurrent writes to overlapping bytes are the caller's race, as in CUDA.
 * ========================================================================================== */

CUABI_API void cuabi_buffer_options_init(cuabi_buffer_options* options);

/* Allocates `size` bytes of device memory. Returns CUABI_ERROR_INVALID_ARGUMENT for size 0 or
 * unknown flags, CUABI_ERROR_DEVICE_OUT_OF_MEMORY when the device cannot hold it. The caller owns
 * *out_buffer. */
CUABI_API cuabi_status cuabi_buffer_create(cuabi_context* context, size_t size, const cuabi_buffer_options* options, cuabi_buffer** out_buffer);

/* Wraps `size` bytes at device address `device_address` (a CUdeviceptr from another library)
 * without taking ownership; the memory must outlive the handle. cuabi asks the driver whether the
 * address is CUDA memory (CUABI_ERROR_INVALID_ARGUMENT if not, or for address 0 or size 0),
 * whether it belongs to the context (CUABI_ERROR_CONTEXT_MISMATCH if not) and, where the driver
 * knows the allocation's extent, whether the range fits in it (CUABI_ERROR_OUT_OF_BOUNDS if not). */
CUABI_API cuabi_status cuabi_buffer_wrap(cuabi_context* context, uint64_t device_address, size_t size, cuabi_buffer** out_buffer);

/* Frees an owned buffer's memory (after work already queued on it, as CUDA's cuMemFree does
 * not wait: synchronize first if kernels may still use it) or releases a wrapped one. NULL is
 * accepted. */
CUABI_API void cuabi_buffer_destroy(cuabi_buffer* buffer);

/* The buffer's size in bytes. */
CUABI_API cuabi_status cuabi_buffer_size(cuabi_buffer* buffer, size_t* out_size);

/* The buffer's device address (a CUdeviceptr), e.g. to pass as a kernel argument. */
CUABI_API cuabi_status cuabi_buffer_device_address(cuabi_buffer* buffer, uint64_t* out_address);

/* Copies `size` bytes from host memory `src` to the buffer at byte `offset`.
 * CUABI_ERROR_OUT_OF_BOUNDS when offset + size exceeds the buffer. A size of 0 does nothing
 * (src may then be NULL). */
CUABI_API cuabi_status cuabi_buffer_write(cuabi_buffer* buffer, size_t offset, const void* src, size_t size, cuabi_stream* stream);

/* Copies `size` bytes from the buffer at byte `offset` to host memory `dst`.
 * CUABI_ERROR_OUT_OF_BOUNDS when offset + size exceeds the buffer. A size of 0 does nothing
 * (dst may then be NULL). */
CUABI_API cuabi_status cuabi_buffer_read(cuabi_buffer* buffer, size_t offset, void* dst, size_t size, cuabi_stream* stream);

/* Copies `size` bytes between device buffers of one context. CUABI_ERROR_OUT_OF_BOUNDS when
 * either range exceeds its buffer, CUABI_ERROR_INVALID_ARGUMENT when the two ranges overlap in
 * device memory (also through wrapped buffers that alias), CUABI_ERROR_CONTEXT_MISMATCH when the
 * buffers belong to different devices. */
CUABI_API cuabi_status cuabi_buffer_copy(cuabi_buffer* dst, size_t dst_offset, cuabi_buffer* src, size_t src_offset, size_t size, cuabi_stream* stream);

/* Sets `count` elements of `element_size` bytes (1, 2 or 4) starting at byte `offset` to the low
 * element_size bytes of `value`. CUABI_ERROR_INVALID_ARGUMENT for another element_size or when
 * offset (or, for a wrapped buffer, the address) is not a multiple of element_size;
 * CUABI_ERROR_OUT_OF_BOUNDS when the range exceeds the buffer. */
CUABI_API cuabi_status cuabi_buffer_fill(cuabi_buffer* buffer, size_t offset, uint32_t value, uint32_t element_size, size_t count, cuabi_stream* stream);

/* @@functions:module@@ (insert module-group functions above this line) */
/* @@functions:kernel@@ (insert kernel-group functions above this line) */
/* ============================================================================================
 * Cache
 *
 * Compiled kernels are cached per process in memory and, across processes, on disk in
 * $CUABI_CACHE_DIR, else $XDG_CACHE_HOME/cuabi, else ~/.cache/cuabi (docs/cache.md has the
 * format and policy). The cache never fails a compile: when its directory is refused (owned by
 * another user, writable by group or others), read-only or full, it keeps entries in memory
 * only and says why in cuabi_cache_degradation_reason(). CUABI_CACHE_DISABLE=1 keeps it in
 * memory on purpose. All functions here are thread-safe and may run while other threads and
 * processes compile; those that change the directory take its lock.
 * ========================================================================================== */

/* Reads the cache statistics into *stats (struct_size must be set). Lists the cache directory
 * to count disk_entries / disk_bytes, so the call costs a directory scan. */
CUABI_API cuabi_status cuabi_cache_stats_get(cuabi_cache_stats* stats);

/* The cache directory (absolute, NUL-terminated) through the two-call pattern; *out_size counts
 * the terminating NUL. The path is reported even when the disk cache is off or refused. An empty
 * string means no location could be found (CUABI_CACHE_DIR, XDG_CACHE_HOME and HOME unset). */
CUABI_API cuabi_status cuabi_cache_directory(char* buffer, size_t capacity, size_t* out_size);

/* Why the disk cache is off, refused or not taking writes, with a "Fix: ..." (two-call pattern,
 * *out_size counts the NUL). The empty string while the disk cache works normally. */
CUABI_API cuabi_status cuabi_cache_degradation_reason(char* buffer, size_t capacity, size_t* out_size);

/* Removes least recently used disk entries until the directory holds at most max_bytes.
 * *out_removed_entries / *out_removed_bytes (each may be NULL) receive what was removed.
 * Returns CUABI_ERROR_CACHE_UNSAFE for a refused directory, CUABI_ERROR_CACHE_IO when entries
 * cannot be removed. With CUABI_CACHE_DISABLE=1 it succeeds and removes nothing. */
CUABI_API cuabi_status cuabi_cache_prune(uint64_t max_bytes, uint64_t* out_removed_entries, uint64_t* out_removed_bytes);

/* Empties this process's memory cache and removes every disk entry (of every process: other
 * processes then miss and compile again). Modules already loaded are unaffected. Statuses and
 * NULL-able outputs as for cuabi_cache_prune(). */
CUABI_API cuabi_status cuabi_cache_clear(uint64_t* out_removed_entries, uint64_t* out_removed_bytes);

/* Reads and checks every disk entry (header, sizes, checksum, key) and removes the bad ones.
 * *out_checked_entries and *out_removed_entries may be NULL. Statuses as for cuabi_cache_prune(). */
CUABI_API cuabi_status cuabi_cache_verify(uint64_t* out_checked_entries, uint64_t* out_removed_entries);

/* The CUDA driver JIT cache settings in effect (info->struct_size must be set). Before the
 * driver starts, cuabi sets CUDA_CACHE_PATH to <cache directory>/driver-jit and
 * CUDA_CACHE_MAXSIZE to 1 GiB where the operator has not set them, and changes nothing when
 * CUDA_CACHE_DISABLE=1 or the cuabi disk cache is off or refused. Loads the driver if it is not
 * loaded yet (so that what is shown is what the driver uses); works without one. */
CUABI_API cuabi_status cuabi_cache_driver_jit_info(cuabi_driver_jit_cache_info* info);

/* The CUDA driver JIT cache directory in effect (two-call pattern, *out_size counts the NUL):
 * CUDA_CACHE_PATH, or the driver's default ($HOME/.nv/ComputeCache) when it is unset. */
CUABI_API cuabi_status cuabi_cache_driver_jit_path(char* buffer, size_t capacity, size_t* out_size);

/* @@functions:cache@@ (insert cache-group functions above this line) */
/* @@functions:launch@@ (insert launch-group functions above this line) */
/* @@functions:graph@@ (insert graph-group functions above this line) */
/* ============================================================================================
 * Profiler ranges
 *
 * cuabi marks its own phases (compile, cache lookups, module load, launch, graph capture /
 * instantiate / update / launch, ...) with NVTX ranges in the "cuabi" domain, so Nsight Systems
 * and Nsight Compute show them; the catalog below lists every one. NVTX is header-only: nothing
 * is loaded unless a profiler injects itself, and with none attached a range costs a flag check.
 * Ranges are on by default; CUABI_NVTX=0 (read once, at the first range) switches them off.
 *
 * Users mark their own ranges two ways, in the "cuabi" domain (domain NULL) or one they name:
 * thread-scoped push/pop, which nest on the calling thread, and start/end ranges held by a
 * cuabi_range handle, which may end on another thread and overlap freely. Names are
 * NUL-terminated UTF-8 and are copied by the profiler during the call. All functions here are
 * thread-safe and need no GPU. The checks (names, push depth, ending twice) apply the same way
 * with or without a profiler attached.
 * ========================================================================================== */

/* 1 when cuabi emits NVTX ranges (the default), 0 when CUABI_NVTX=0 switched them off.
 * Thread-free after the first call. */
CUABI_API uint32_t cuabi_ranges_enabled(void);

/* 1 when ranges are enabled and a profiler (an NVTX tool such as Nsight Systems) is attached to
 * this process, else 0. A process that starts without one never gets one later. */
CUABI_API uint32_t cuabi_ranges_profiler_attached(void);

/* The number of entries in the catalog of cuabi's own ranges. */
CUABI_API cuabi_status cuabi_range_catalog_count(size_t* out_count);

/* Entry `index` of the catalog: its NVTX message ("cuabi.compile", unique, always "cuabi."-
 * prefixed; a range that carries a detail reads "cuabi.launch: saxpy") and a description of the
 * phase it covers. Returns CUABI_ERROR_NOT_FOUND for index >= the count. The strings are static:
 * never freed, valid for the life of the process. */
CUABI_API cuabi_status cuabi_range_catalog_entry(size_t index, const char** out_name, const char** out_description);

/* Opens range `name` on the calling thread, in `domain` (NULL: "cuabi"). Each domain is created
 * once per process, at its first use. Close it with cuabi_range_pop() on the same thread.
 * Returns CUABI_ERROR_INVALID_ARGUMENT for a NULL, empty or invalid-UTF-8 name or domain, and
 * CUABI_ERROR_RANGE when the process would use more than 256 domains. */
CUABI_API cuabi_status cuabi_range_push(const char* name, const char* domain);

/* Closes the innermost range the calling thread opened with cuabi_range_push(). Returns
 * CUABI_ERROR_RANGE when the thread has none open (cuabi's own ranges never count). */
CUABI_API cuabi_status cuabi_range_pop(void);

/* Starts range `name` in `domain` (NULL: "cuabi") and returns its handle; any thread may end it.
 * Same name and domain checks as cuabi_range_push(). The caller owns *out_range until it passes
 * it to cuabi_range_end(). */
CUABI_API cuabi_status cuabi_range_start(const char* name, const char* domain, cuabi_range** out_range);

/* Ends the range and frees its handle. Ending a range twice (or a NULL, made-up or other-type
 * handle) returns CUABI_ERROR_INVALID_HANDLE and changes nothing. */
CUABI_API cuabi_status cuabi_range_end(cuabi_range* range);

/* @@functions:range@@ (insert range-group functions above this line) */

#endif /* CUABI_NO_PROTOTYPES */

/* ============================================================================================
 * Function-pointer types, one per function, for dlopen users (see cuabi_get_proc_address).
 * ========================================================================================== */
typedef const char* (*PFN_cuabi_status_name)(cuabi_status status);
typedef const char* (*PFN_cuabi_last_error_message)(void);
typedef int32_t (*PFN_cuabi_last_cu_result)(void);
typedef int32_t (*PFN_cuabi_last_nvrtc_result)(void);
typedef uint32_t (*PFN_cuabi_version_number)(void);
typedef uint32_t (*PFN_cuabi_abi_version)(void);
typedef cuabi_proc (*PFN_cuabi_get_proc_address)(const char* name);
typedef cuabi_status (*PFN_cuabi_driver_version)(int32_t* out_version);
typedef cuabi_status (*PFN_cuabi_device_count)(int32_t* out_count);
typedef cuabi_status (*PFN_cuabi_device_info_get)(int32_t ordinal, cuabi_device_info* info);
typedef void (*PFN_cuabi_context_options_init)(cuabi_context_options* options);
typedef cuabi_status (*PFN_cuabi_context_create)(const cuabi_context_options* options, cuabi_context** out_context);
typedef void (*PFN_cuabi_context_destroy)(cuabi_context* context);
typedef cuabi_status (*PFN_cuabi_context_device_info)(cuabi_context* context, cuabi_device_info* info);
typedef cuabi_status (*PFN_cuabi_context_synchronize)(cuabi_context* context);
typedef cuabi_status (*PFN_cuabi_context_native)(cuabi_context* context, void** out_cu_context);
typedef cuabi_status (*PFN_cuabi_context_counters)(cuabi_context* context, cuabi_counters* counters);
typedef void (*PFN_cuabi_stream_options_init)(cuabi_stream_options* options);
typedef cuabi_status (*PFN_cuabi_stream_create)(cuabi_context* context, const cuabi_stream_options* options, cuabi_stream** out_stream);
typedef cuabi_status (*PFN_cuabi_stream_wrap)(cuabi_context* context, void* cu_stream, cuabi_stream** out_stream);
typedef void (*PFN_cuabi_stream_destroy)(cuabi_stream* stream);
typedef cuabi_status (*PFN_cuabi_stream_synchronize)(cuabi_stream* stream);
typedef cuabi_status (*PFN_cuabi_stream_query)(cuabi_stream* stream);
typedef cuabi_status (*PFN_cuabi_stream_wait_event)(cuabi_stream* stream, cuabi_event* event);
typedef cuabi_status (*PFN_cuabi_stream_native)(cuabi_stream* stream, void** out_cu_stream);
typedef void (*PFN_cuabi_event_options_init)(cuabi_event_options* options);
typedef cuabi_status (*PFN_cuabi_event_create)(cuabi_context* context, const cuabi_event_options* options, cuabi_event** out_event);
typedef void (*PFN_cuabi_event_destroy)(cuabi_event* event);
typedef cuabi_status (*PFN_cuabi_event_record)(cuabi_event* event, cuabi_stream* stream);
typedef cuabi_status (*PFN_cuabi_event_synchronize)(cuabi_event* event);
typedef cuabi_status (*PFN_cuabi_event_query)(cuabi_event* event);
typedef cuabi_status (*PFN_cuabi_event_elapsed_ms)(cuabi_event* start, cuabi_event* end, float* out_ms);
typedef void (*PFN_cuabi_buffer_options_init)(cuabi_buffer_options* options);
typedef cuabi_status (*PFN_cuabi_buffer_create)(cuabi_context* context, size_t size, const cuabi_buffer_options* options, cuabi_buffer** out_buffer);
typedef cuabi_status (*PFN_cuabi_buffer_wrap)(cuabi_context* context, uint64_t device_address, size_t size, cuabi_buffer** out_buffer);
typedef void (*PFN_cuabi_buffer_destroy)(cuabi_buffer* buffer);
typedef cuabi_status (*PFN_cuabi_buffer_size)(cuabi_buffer* buffer, size_t* out_size);
typedef cuabi_status (*PFN_cuabi_buffer_device_address)(cuabi_buffer* buffer, uint64_t* out_address);
typedef cuabi_status (*PFN_cuabi_buffer_write)(cuabi_buffer* buffer, size_t offset, const void* src, size_t size, cuabi_stream* stream);
typedef cuabi_status (*PFN_cuabi_buffer_read)(cuabi_buffer* buffer, size_t offset, void* dst, size_t size, cuabi_stream* stream);
typedef cuabi_status (*PFN_cuabi_buffer_copy)(cuabi_buffer* dst, size_t dst_offset, cuabi_buffer* src, size_t src_offset, size_t size, cuabi_stream* stream);
typedef cuabi_status (*PFN_cuabi_buffer_fill)(cuabi_buffer* buffer, size_t offset, uint32_t value, uint32_t element_size, size_t count, cuabi_stream* stream);
/* @@pfn:module@@ (insert module-group pfn above this line) */
/* @@pfn:kernel@@ (insert kernel-group pfn above this line) */
typedef cuabi_status (*PFN_cuabi_cache_stats_get)(cuabi_cache_stats* stats);
typedef cuabi_status (*PFN_cuabi_cache_directory)(char* buffer, size_t capacity, size_t* out_size);
typedef cuabi_status (*PFN_cuabi_cache_degradation_reason)(char* buffer, size_t capacity, size_t* out_size);
typedef cuabi_status (*PFN_cuabi_cache_prune)(uint64_t max_bytes, uint64_t* out_removed_entries, uint64_t* out_removed_bytes);
typedef cuabi_status (*PFN_cuabi_cache_clear)(uint64_t* out_removed_entries, uint64_t* out_removed_bytes);
typedef cuabi_status (*PFN_cuabi_cache_verify)(uint64_t* out_checked_entries, uint64_t* out_removed_entries);
typedef cuabi_status (*PFN_cuabi_cache_driver_jit_info)(cuabi_driver_jit_cache_info* info);
typedef cuabi_status (*PFN_cuabi_cache_driver_jit_path)(char* buffer, size_t capacity, size_t* out_size);
/* @@pfn:cache@@ (insert cache-group pfn above this line) */
/* @@pfn:launch@@ (insert launch-group pfn above this line) */
/* @@pfn:graph@@ (insert graph-group pfn above this line) */
typedef uint32_t (*PFN_cuabi_ranges_enabled)(void);
typedef uint32_t (*PFN_cuabi_ranges_profiler_attached)(void);
typedef cuabi_status (*PFN_cuabi_range_catalog_count)(size_t* out_count);
typedef cuabi_status (*PFN_cuabi_range_catalog_entry)(size_t index, const char** out_name, const char** out_description);
typedef cuabi_status (*PFN_cuabi_range_push)(const char* name, const char* domain);
typedef cuabi_status (*PFN_cuabi_range_pop)(void);
typedef cuabi_status (*PFN_cuabi_range_start)(const char* name, const char* domain, cuabi_range** out_range);
typedef cuabi_status (*PFN_cuabi_range_end)(cuabi_range* range);
/* @@pfn:range@@ (insert range-group pfn above this line) */

#ifdef __cplusplus
}
#endif

#endif /* CUABI_H */
