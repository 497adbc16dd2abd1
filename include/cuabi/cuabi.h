/*
 * cuabi.h -- compile, cache, launch and graph CUDA kernels through a stable C ABI.
 *
 * This is the only header a cuabi user includes. It is C99 and reads top to bottom as the manual:
 * each group opens with the lifetime and thread-safety rules of its object, then its constants and
 * structs, then its functions; each function says what it does, which statuses it returns beyond
 * the common ones, and who owns what it returns. The longer documents installed with the library
 * (share/doc/cuabi/: errors.md, safety.md, compile.md, cache.md, device.md, multi-gpu.md,
 * tensor-maps.md, profiling.md, abi-policy.md, performance.md) add background only.
 *
 * Conventions that hold for every function (so they are not repeated below):
 *   - Names: cuabi_<object>_<verb> (cuabi_stream_create, cuabi_graph_launch); a getter is
 *     cuabi_<object>_get_<noun> (cuabi_buffer_get_size); a function of the library as a whole has
 *     no object (cuabi_version_number), and the thread's last-failure accessors are cuabi_last_*.
 *   - Functions that can fail return cuabi_status: CUABI_SUCCESS (0) or an error code. After a
 *     failure, cuabi_last_error_message() on the same thread says what was wrong, with the
 *     values involved, and ends in "Fix: ...". No C++ exception and no signal ever leaves a call.
 *     A thread cancelled (pthread_cancel) inside a call ends there as asked, and the call releases
 *     what it held on the way out; the process goes on.
 *   - Every function may return CUABI_ERROR_INVALID_ARGUMENT for a NULL pointer where one is
 *     required, CUABI_ERROR_INVALID_HANDLE for a NULL, destroyed, made-up or wrong-type handle,
 *     CUABI_ERROR_OUT_OF_HOST_MEMORY when the host cannot allocate, and CUABI_ERROR_INTERNAL for a
 *     cuabi bug (the message says what to report). Functions that reach the GPU may also return
 *     CUABI_ERROR_DRIVER_NOT_FOUND, CUABI_ERROR_DRIVER_TOO_OLD, CUABI_ERROR_NO_DEVICE,
 *     CUABI_ERROR_FORKED and CUABI_ERROR_CUDA.
 *   - Output parameters are named out_*; they are written only on success (the two-call pattern
 *     below also writes *out_size on CUABI_ERROR_BUFFER_TOO_SMALL).
 *   - Structs begin with uint32_t struct_size: sizeof the struct as the caller's header declares it.
 *     Each struct has an init function, cuabi_<struct>_init(struct_size, out): it fills the
 *     caller's struct_size bytes -- defaults for the fields this library knows, zeros for any
 *     newer ones -- and sets struct_size, so it never writes past a struct from an older header.
 *     C callers may use the CUABI_*_INIT macro instead. For options, a NULL pointer means all
 *     defaults.
 *     A struct from an older, smaller header gets defaults for the fields it lacks. struct_size
 *     must be the size of a release of the struct, or larger (a newer header): any other size,
 *     one claiming more than CUABI_STRUCT_SIZE_MAX bytes, or a larger options struct whose unknown
 *     tail is not all zero bytes is refused with CUABI_ERROR_STRUCT_SIZE (naming the struct, the
 *     size and the released sizes), by the calls that take the struct and by its init function.
 *     Output structs are filled up to struct_size.
 *     Fields named reserved must be zero. No struct has implicit padding.
 *   - Constants: enumerated values (statuses, kinds, modes) are int32_t and written as plain
 *     decimal numbers; flags and other unsigned values are written with a u suffix and go into
 *     uint32_t or uint64_t fields. Booleans are uint32_t, 0 or 1.
 *   - Variable-length results use two calls: pass a NULL buffer (capacity 0) to learn the size in
 *     *out_size, then a buffer of that capacity. A too small buffer gives
 *     CUABI_ERROR_BUFFER_TOO_SMALL and still sets *out_size. Text counts its terminating NUL.
 *   - Every handle may be used from any thread unless its group says otherwise; cuabi makes the
 *     right CUDA context current itself. A handle value is never valid twice: once destroyed it
 *     stays invalid however many objects are created later, also across dlclose and reloading
 *     (where a handle kept from the earlier load is refused except with a chance of 1 in 2^31).
 *   - Every destroy function accepts NULL and any invalid handle, returns nothing and leaves the
 *     thread's last error untouched. Objects keep what they depend on alive, so handles may be
 *     destroyed in any order.
 *   - Strings are NUL-terminated UTF-8 and are copied by cuabi when it keeps them; nothing passed
 *     in must outlive the call unless its function says so.
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
#elif defined(CUABI_ABI_MODEL) && defined(__clang__)
#define CUABI_API __attribute__((annotate("cuabi:api"))) /* the ABI model sees what is exported */
#else
#define CUABI_API
#endif

/* Annotations: facts about parameters, fields and declarations that the C types cannot say, for
 * cuabi's ABI model, the description of this header that its bindings and ABI checks read. They
 * expand to nothing for every compiler and generator; only the model tool (clang with
 * CUABI_ABI_MODEL defined) sees them, as __attribute__((annotate("cuabi:..."))).
 *   CUABI_OUT, CUABI_INOUT   the call writes through the pointer (INOUT: and reads it first, such as
 *                            an output struct whose struct_size the caller sets). Unmarked: input.
 *   CUABI_NULLABLE           NULL is accepted (its meaning is in the documentation). Unmarked
 *                            pointers must not be NULL.
 *   CUABI_OWNED              an output the caller now owns and must destroy or free.
 *   CUABI_BORROWED           valid only while its parent lives; the receiver must not destroy it
 *                            (a native handle, a handle inside an output struct, a static string).
 *   CUABI_TRANSFERRED        the caller's ownership moves into cuabi (destroy functions).
 *                            Unmarked input pointers are borrowed for the call: cuabi copies what
 *                            it keeps. Unmarked non-pointers are plain values.
 *   CUABI_SINCE(1.1)         the release that added a function (written after its parameter list),
 *                            struct, field, handle or family; unmarked: 1.0 (a field: its struct's).
 *   CUABI_ENUM_FAMILY("P_")  on an int32_t typedef: the type of the enumerated constants named P_*
 *   CUABI_FLAGS_FAMILY("P_") on a uint32_t typedef: the type of the flag constants named P_*
 *                            (several prefixes or whole names may be listed, space-separated; a
 *                            constant belongs to the family whose entry matches it longest).
 * The constants stay plain #define literals, so C code keeps using them in case labels and #if. */
#if defined(CUABI_ABI_MODEL) && defined(__clang__)
#define CUABI_OUT __attribute__((annotate("cuabi:direction=out")))
#define CUABI_INOUT __attribute__((annotate("cuabi:direction=inout")))
#define CUABI_NULLABLE __attribute__((annotate("cuabi:nullable")))
#define CUABI_OWNED __attribute__((annotate("cuabi:ownership=owned")))
#define CUABI_BORROWED __attribute__((annotate("cuabi:ownership=borrowed")))
#define CUABI_TRANSFERRED __attribute__((annotate("cuabi:ownership=transferred")))
#define CUABI_SINCE(version) __attribute__((annotate("cuabi:since=" #version)))
#define CUABI_ENUM_FAMILY(prefixes) __attribute__((annotate("cuabi:family=enum:" prefixes)))
#define CUABI_FLAGS_FAMILY(prefixes) __attribute__((annotate("cuabi:family=flags:" prefixes)))
#else
#define CUABI_OUT
#define CUABI_INOUT
#define CUABI_NULLABLE
#define CUABI_OWNED
#define CUABI_BORROWED
#define CUABI_TRANSFERRED
#define CUABI_SINCE(version)
#define CUABI_ENUM_FAMILY(prefixes)
#define CUABI_FLAGS_FAMILY(prefixes)
#endif

/* ============================================================================================
 * Library
 *
 * The macros give the version this header belongs to; cuabi_version_number() gives the version
 * of the library actually loaded. Compare them at start-up if you depend on a feature: a program
 * built against 1.x runs with any later 1.y (same ABI major), and a function added in 1.y is
 * found by cuabi_get_proc_address() only in libraries of 1.y or later. Thread-free.
 * ========================================================================================== */
#define CUABI_VERSION_MAJOR 1u
#define CUABI_VERSION_MINOR 2u
#define CUABI_VERSION_PATCH 0u
/* 10000 * major + 100 * minor + patch. */
#define CUABI_VERSION_NUMBER 10200u
#define CUABI_VERSION_STRING "1.2.0"
/* The ABI major: the SONAME is libcuabi.so.<CUABI_ABI_VERSION>. */
#define CUABI_ABI_VERSION 1u
/* The most bytes any struct_size may claim (a larger value is an uninitialized struct). */
#define CUABI_STRUCT_SIZE_MAX 4096u

/* Generic function pointer returned by cuabi_get_proc_address(); cast to the PFN_cuabi_* type. */
typedef void (*cuabi_proc)(void);

#ifndef CUABI_NO_PROTOTYPES

/* The loaded library's version as CUABI_VERSION_NUMBER spells it (10000 * major + ...). */
CUABI_API uint32_t cuabi_version_number(void);

/* The loaded library's ABI major (the SONAME's number). */
CUABI_API uint32_t cuabi_abi_version(void);

/* The exported function called `name` ("cuabi_launch"), or NULL for any other name (NULL
 * included). This is the one symbol a dlopen user needs; cast the result to the matching
 * PFN_cuabi_* type. */
CUABI_API cuabi_proc cuabi_get_proc_address(CUABI_NULLABLE const char* name);

#endif /* CUABI_NO_PROTOTYPES */

/* ============================================================================================
 * Status codes and errors
 *
 * Values are fixed forever and never reused; new codes are only added, in their group's range.
 * share/doc/cuabi/errors.md says when each happens and what fixes it.
 *
 * The last error is thread-local: read it on the thread that made the failing call, before the
 * next cuabi call on that thread. Successful calls do not clear it. A runtime that moves
 * goroutines or tasks between OS threads must read it inside the same native call (or pin the
 * thread around call and read).
 * ========================================================================================== */
/* What a call did: CUABI_SUCCESS (0) or one of the CUABI_ERROR_* codes below. */
typedef int32_t cuabi_status CUABI_ENUM_FAMILY("CUABI_ERROR_ CUABI_SUCCESS");

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
#define CUABI_ERROR_FORKED 11 /* this process is a fork() child of one that started CUDA */
#define CUABI_ERROR_TIMEOUT 12 /* a deadline passed (a compile, the cache lock) */
#define CUABI_ERROR_CANCELLED 13 /* Since 1.2. The caller cancelled the work (cuabi_compile_batch_cancel) */
/* Environment: 20-29 */
#define CUABI_ERROR_DRIVER_NOT_FOUND 20
#define CUABI_ERROR_DRIVER_TOO_OLD 21
#define CUABI_ERROR_NO_DEVICE 22
#define CUABI_ERROR_INVALID_DEVICE 23
#define CUABI_ERROR_NVRTC_NOT_FOUND 24
#define CUABI_ERROR_NVJITLINK_NOT_FOUND 25 /* Since 1.2. libnvJitLink cannot be loaded, or is too old */
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
#define CUABI_ERROR_LINK 46 /* Since 1.2. nvJitLink refused the inputs (undefined symbols, ...): see the log */
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
#define CUABI_ERROR_GRAPH_MEMORY 83 /* since 1.2: a replay while the graph's allocation from the last one is unfreed */
/* Profiler ranges: 100-109 */
#define CUABI_ERROR_RANGE 100

#ifndef CUABI_NO_PROTOTYPES

/* The name of a status code ("CUABI_ERROR_INVALID_HANDLE"), or "CUABI_UNKNOWN_STATUS".
 * Thread-free: needs no state and never fails. The string is static. */
CUABI_API const char* cuabi_status_name(cuabi_status status);

/* The message of the last failure on this thread: what was wrong, with the values involved,
 * ending in "Fix: ...". Never NULL ("no error" before any failure). Valid until the next cuabi
 * call on this thread; copy it to keep it. Since 1.1, when the driver caused the failure and keeps
 * an error log (CUDA 12.9 and later), the message also quotes what the driver logged about it
 * ("Driver log: ..."), read only after the failure, so successful calls pay nothing for it. */
CUABI_API const char* cuabi_last_error_message(void);

/* The CUresult behind the last CUABI_ERROR_CUDA (or other driver-caused) failure on this
 * thread, or 0 (CUDA_SUCCESS) if the last failure did not come from the driver. */
CUABI_API int32_t cuabi_last_cu_result(void);

/* The nvrtcResult behind the last NVRTC-caused failure on this thread, or 0. */
CUABI_API int32_t cuabi_last_nvrtc_result(void);

/* The NVRTC log of the last cuabi_module_compile() / cuabi_module_compile_offline() on this
 * thread, failed or not: the one way to read the log of a compile that produced no module.
 * Since 1.2 also nvJitLink's log of the last cuabi_module_link() / cuabi_module_link_offline().
 * "" when that call failed before NVRTC ran. Two-call. Thread-local, like the message. */
CUABI_API cuabi_status cuabi_last_compile_log(CUABI_OUT CUABI_NULLABLE char* out_text, size_t capacity, CUABI_OUT size_t* out_size);

/* Since 1.2. The CUABI_* environment variables whose values cuabi cannot use, one line each: a
 * sentence naming the variable, its value, what it accepts and what is used instead
 * ("CUABI_COMPILE_TIMEOUT_MS='abc' is not a whole number from 1 to 4294967295; 600000 is used."),
 * "" when there are none. Reads every setting first, so the list is complete. Each such value
 * also fails the first call it affects, once, with CUABI_ERROR_INVALID_ARGUMENT naming it --
 * except the kernel cache's settings and CUABI_NVTX, which fail no call (the cache says them in
 * cuabi_cache_get_degradation_reason()). Two-call text. Thread-safe. */
CUABI_API cuabi_status cuabi_environment_get_problems(CUABI_OUT CUABI_NULLABLE char* out_text, size_t capacity, CUABI_OUT size_t* out_size) CUABI_SINCE(1.2);

#endif /* CUABI_NO_PROTOTYPES */

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
typedef struct cuabi_host_memory cuabi_host_memory CUABI_SINCE(1.1);
typedef struct cuabi_memory_pool cuabi_memory_pool CUABI_SINCE(1.2);
typedef struct cuabi_compile_batch cuabi_compile_batch CUABI_SINCE(1.2);

/* ============================================================================================
 * Driver and devices
 *
 * libcuda.so.1 is loaded on first use, never linked. These functions need no context.
 * Thread-safe.
 * ========================================================================================== */

/* Facts about one device: identity, memory and every limit a launch is validated against.
 * An output struct: cuabi_device_info_init() prepares it and cuabi fills as much as fits. */
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
    uint32_t reserved[2];
} cuabi_device_info;
/* Every field spelled out so that -Wextra (-Wmissing-field-initializers) stays quiet in C and C++. */
#define CUABI_DEVICE_INFO_INIT \
    {sizeof(cuabi_device_info), 0, {0}, {0}, 0, 0, 0, 0, 0, 0, {0, 0, 0}, {0, 0, 0}, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, {0, 0}}

#ifndef CUABI_NO_PROTOTYPES

/* Prepares *out_info for a call that fills it (see "Structs" above). */
CUABI_API cuabi_status cuabi_device_info_init(uint32_t struct_size, CUABI_OUT cuabi_device_info* out_info);

/* The CUDA driver's version (e.g. 13000 for 13.0). Returns CUABI_ERROR_DRIVER_NOT_FOUND when
 * libcuda.so.1 cannot be loaded (the message says where cuabi looked and why it failed). */
CUABI_API cuabi_status cuabi_driver_get_version(CUABI_OUT int32_t* out_version);

/* The number of CUDA devices. Returns CUABI_ERROR_NO_DEVICE when the driver loads but sees none. */
CUABI_API cuabi_status cuabi_device_get_count(CUABI_OUT int32_t* out_count);

/* Facts about device `ordinal` without creating a context (set out_info->struct_size first).
 * Returns CUABI_ERROR_INVALID_DEVICE for an ordinal outside [0, count). */
CUABI_API cuabi_status cuabi_device_get_info(int32_t ordinal, CUABI_INOUT cuabi_device_info* out_info);

/* Since 1.1. The value of any CUdevice_attribute (`attribute` is its number in cuda.h, e.g. 16 =
 * CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT) of device `ordinal`, without creating a context: the
 * escape hatch for facts cuabi_device_info lacks, so new hardware needs no new cuabi.
 * CUABI_ERROR_INVALID_DEVICE for an ordinal outside [0, count), CUABI_ERROR_INVALID_ARGUMENT for an
 * attribute this driver does not know (cuabi_last_cu_result() has the CUresult). */
CUABI_API cuabi_status cuabi_device_get_attribute(int32_t ordinal, int32_t attribute, CUABI_OUT int32_t* out_value) CUABI_SINCE(1.1);

#endif /* CUABI_NO_PROTOTYPES */

/* ============================================================================================
 * Context
 *
 * A context is one device's primary CUDA context (the one the CUDA runtime also uses), retained
 * for as long as the handle or anything made from it lives. Several contexts -- one per device,
 * or several handles on one device -- may exist at once. cuabi makes a context current on the
 * calling thread when a call needs it and leaves it current afterwards. Launches and graph replays
 * on a cuabi stream do not need it (the driver takes the context from the stream) and leave the
 * thread's current context as it was. Thread-safe.
 * ========================================================================================== */

/* Options for cuabi_context_create(). */
typedef struct cuabi_context_options {
    uint32_t struct_size;   /* sizeof(cuabi_context_options) */
    int32_t device_ordinal; /* CUDA device ordinal; default 0 */
    uint32_t flags;         /* none are defined yet: must be 0 */
    uint32_t reserved;
    /* Since 1.2: which images are trial-loaded in cuabi's image verifier process before this
     * context loads them (CUABI_IMAGE_VERIFY_*); a struct_size from an older header means
     * CUABI_IMAGE_VERIFY_DEFAULT. */
    CUABI_SINCE(1.2) int32_t image_verification;
} cuabi_context_options;
#define CUABI_CONTEXT_OPTIONS_INIT {sizeof(cuabi_context_options), 0, 0u, 0u, 0}

/* Since 1.2. Image verification policies (cuabi_context_options.image_verification). The CUDA
 * driver's loader trusts what is inside an image, and a damaged one can crash or hang the process
 * inside it; a verified image was first loaded, every kernel looked up, in a separate process with
 * its own CUDA context and a deadline ($CUABI_IMAGE_VERIFY_TIMEOUT_MS, default 30000), so a crash
 * or hang there costs CUABI_ERROR_INVALID_IMAGE instead. Verdicts are remembered by content. */
typedef int32_t cuabi_image_verification CUABI_ENUM_FAMILY("CUABI_IMAGE_VERIFY_") CUABI_SINCE(1.2);
#define CUABI_IMAGE_VERIFY_DEFAULT 0   /* $CUABI_IMAGE_VERIFY (untrusted, all, none), else UNTRUSTED */
#define CUABI_IMAGE_VERIFY_UNTRUSTED 1 /* images cuabi did not compile: cuabi_module_load_image() */
#define CUABI_IMAGE_VERIFY_ALL 2       /* also cuabi's own compiles and cache entries */
#define CUABI_IMAGE_VERIFY_NONE 3      /* none: trusts every image's source with the process */

/* Per-context counters of work done through cuabi. An output struct: cuabi_counters_init(). */
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
    uint64_t compiles;               /* NVRTC compilations actually run for this context */
    uint64_t compile_time_ns;        /* wall time spent in them */
    uint64_t memory_cache_hits;
    uint64_t memory_cache_misses;
    uint64_t disk_cache_hits;
    uint64_t disk_cache_misses;
    uint64_t disk_cache_corrupt_recovered;
    uint64_t disk_cache_evictions;
} cuabi_counters;
#define CUABI_COUNTERS_INIT {sizeof(cuabi_counters), 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u}

#ifndef CUABI_NO_PROTOTYPES

/* Fills *out_options with defaults (device 0, CUABI_IMAGE_VERIFY_DEFAULT). */
CUABI_API cuabi_status cuabi_context_options_init(uint32_t struct_size, CUABI_OUT cuabi_context_options* out_options);

/* Prepares *out_counters for a call that fills it (see "Structs" above). */
CUABI_API cuabi_status cuabi_counters_init(uint32_t struct_size, CUABI_OUT cuabi_counters* out_counters);

/* Creates a context on options->device_ordinal (NULL options: device 0).
 * Returns CUABI_ERROR_INVALID_DEVICE for a bad ordinal, CUABI_ERROR_STRUCT_SIZE for a bad
 * options struct, CUABI_ERROR_INVALID_ARGUMENT for an unknown image_verification. The caller owns *out_context and releases it with cuabi_context_destroy(). */
CUABI_API cuabi_status cuabi_context_create(CUABI_NULLABLE const cuabi_context_options* options, CUABI_OUT CUABI_OWNED cuabi_context** out_context);

/* Releases the handle and drops the graph-cache entries inserted under it (graphs whose own
 * handles are still held stay valid). Streams, buffers, modules, graphs... made from it keep the
 * CUDA context alive until they are destroyed too. */
CUABI_API void cuabi_context_destroy(CUABI_NULLABLE CUABI_TRANSFERRED cuabi_context* context);

/* Facts and launch limits of the context's device (see cuabi_device_get_info). */
CUABI_API cuabi_status cuabi_context_get_device_info(cuabi_context* context, CUABI_INOUT cuabi_device_info* out_info);

/* Waits until all work on the context's device submitted by this process is done. */
CUABI_API cuabi_status cuabi_context_synchronize(cuabi_context* context);

/* The underlying CUcontext, for interoperating with other CUDA code. Not owned by the caller. */
CUABI_API cuabi_status cuabi_context_get_native(cuabi_context* context, CUABI_OUT CUABI_BORROWED void** out_cu_context);

/* Reads the context's counters (set out_counters->struct_size first). */
CUABI_API cuabi_status cuabi_context_get_counters(cuabi_context* context, CUABI_INOUT cuabi_counters* out_counters);

#endif /* CUABI_NO_PROTOTYPES */

/* ============================================================================================
 * Several GPUs (since 1.2)
 *
 * Each device has its own contexts (cuabi_context_options.device_ordinal). Kernels and copies of
 * one device reach another device's memory only through peer access, which the hardware offers
 * between some pairs of devices (NVLink, or PCIe with peer-to-peer support) and which is enabled
 * in one direction at a time: from a context to the memory of a peer's device. Peer access belongs
 * to the devices' primary contexts, so it is shared with every other user of them in this process
 * (the CUDA runtime, other cuabi handles of the same devices) and lasts until it is disabled or the
 * primary context ends. cuabi remembers what it enabled; copies between devices ask that record,
 * never the hardware, so a copy that works does so at the speed peer access gives, or is refused
 * (unless staged through host memory on request). Refusals name both devices, by ordinal and
 * name. Two contexts of one device share its memory: nothing needs enabling between them.
 * Thread-safe.
 * ========================================================================================== */

/* Since 1.2. Flags of cuabi_buffer_copy_peer(). */
typedef uint32_t cuabi_peer_copy_flags CUABI_FLAGS_FAMILY("CUABI_PEER_COPY_") CUABI_SINCE(1.2);
#define CUABI_PEER_COPY_DEFAULT 0x0u /* refuse a copy between devices without peer access */
#define CUABI_PEER_COPY_STAGED 0x1u  /* without peer access, let the driver stage the bytes through
                                        host memory (slower, but any two devices) */

#ifndef CUABI_NO_PROTOTYPES

/* Since 1.2. Whether `context`'s device can be given access to the memory of `peer`'s device:
 * *out_can_access is 1 or 0 (cuDeviceCanAccessPeer); 1 for two contexts of one device. Says
 * nothing about whether access is enabled (cuabi_context_get_peer_access). */
CUABI_API cuabi_status cuabi_context_can_access_peer(cuabi_context* context, cuabi_context* peer, CUABI_OUT uint32_t* out_can_access) CUABI_SINCE(1.2);

/* Since 1.2. Enables peer access from `context` to the memory of `peer`'s device (one direction:
 * call it with the two swapped for the other). Idempotent: access enabled before -- by cuabi or by
 * other code -- is success, as are two contexts of one device. CUABI_ERROR_UNSUPPORTED when the
 * devices cannot be peers, CUABI_ERROR_CUDA when the driver refuses (e.g. CUDA_ERROR_TOO_MANY_PEERS;
 * cuabi_last_cu_result() has it); both messages name the two devices. */
CUABI_API cuabi_status cuabi_context_enable_peer_access(cuabi_context* context, cuabi_context* peer) CUABI_SINCE(1.2);

/* Since 1.2. Disables peer access from `context` to `peer`'s device. Idempotent: access not enabled
 * is success. Work already queued that uses the peer's memory must have finished (synchronize
 * first): the driver does not wait for it. */
CUABI_API cuabi_status cuabi_context_disable_peer_access(cuabi_context* context, cuabi_context* peer) CUABI_SINCE(1.2);

/* Since 1.2. Whether peer access from `context` to `peer`'s device is enabled as cuabi knows it:
 * *out_enabled is 1 after cuabi_context_enable_peer_access() (and until a disable), 1 for two
 * contexts of one device, else 0 -- also when other code enabled it without telling cuabi. */
CUABI_API cuabi_status cuabi_context_get_peer_access(cuabi_context* context, cuabi_context* peer, CUABI_OUT uint32_t* out_enabled) CUABI_SINCE(1.2);

/* Since 1.2. Copies `size` bytes from `src` at src_offset to `dst` at dst_offset, the buffers on any
 * two devices (on one device: as cuabi_buffer_copy()). The copy runs on `stream`, which belongs to
 * either buffer's device (NULL: dst's device, and the call waits); that device issues the copy and
 * needs peer access enabled to the other one, unless flags has CUABI_PEER_COPY_STAGED.
 * CUABI_ERROR_OUT_OF_BOUNDS when either range exceeds its buffer, CUABI_ERROR_CONTEXT_MISMATCH when
 * peer access is not enabled or the stream belongs to a third device (naming the devices),
 * CUABI_ERROR_INVALID_ARGUMENT for unknown flags. A graph that captures the copy keeps both buffers
 * alive. */
CUABI_API cuabi_status cuabi_buffer_copy_peer(cuabi_buffer* dst, size_t dst_offset, cuabi_buffer* src, size_t src_offset, size_t size, uint32_t flags, CUABI_NULLABLE cuabi_stream* stream) CUABI_SINCE(1.2);

#endif /* CUABI_NO_PROTOTYPES */

/* ============================================================================================
 * Stream
 *
 * An ordered queue of GPU work. cuabi never uses CUDA's legacy default stream: its streams are
 * created non-blocking. Every function that enqueues work -- buffer transfers, launches, event
 * records, graph launches and uploads -- accepts a NULL stream, meaning "run synchronously": on
 * the calling thread's per-thread stream, waiting for completion before returning. Functions about
 * one stream's own state (synchronize, query, wait_event, get_native, and graph capture, which
 * cannot capture a synchronous call) need a real stream and return CUABI_ERROR_INVALID_HANDLE
 * for NULL. A stream may be shared between threads; work enqueued from several threads is ordered
 * by the enqueue order.
 * ========================================================================================== */

/* Stream flags (cuabi_stream_options.flags). */
typedef uint32_t cuabi_stream_flags CUABI_FLAGS_FAMILY("CUABI_STREAM_") CUABI_SINCE(1.2);
#define CUABI_STREAM_DEFAULT 0x0u

/* Options for cuabi_stream_create(). */
typedef struct cuabi_stream_options {
    uint32_t struct_size; /* sizeof(cuabi_stream_options) */
    uint32_t flags;       /* CUABI_STREAM_*; default 0 */
    int32_t priority;     /* lower is higher priority; 0 = default; clamped to the device range */
    uint32_t reserved;
} cuabi_stream_options;
#define CUABI_STREAM_OPTIONS_INIT {sizeof(cuabi_stream_options), CUABI_STREAM_DEFAULT, 0, 0u}

#ifndef CUABI_NO_PROTOTYPES

/* Fills *out_options with defaults. */
CUABI_API cuabi_status cuabi_stream_options_init(uint32_t struct_size, CUABI_OUT cuabi_stream_options* out_options);

/* Creates a non-blocking stream on the context. options->priority is clamped to the device's
 * range. The caller owns *out_stream. */
CUABI_API cuabi_status cuabi_stream_create(cuabi_context* context, CUABI_NULLABLE const cuabi_stream_options* options, CUABI_OUT CUABI_OWNED cuabi_stream** out_stream);

/* Wraps a CUstream created elsewhere (another CUDA library) without taking ownership: destroying
 * the handle does not destroy the stream. The stream must belong to the context's CUDA context
 * and outlive the handle. Returns CUABI_ERROR_INVALID_ARGUMENT for NULL (0), CU_STREAM_LEGACY or
 * CU_STREAM_PER_THREAD (pass NULL streams to cuabi functions instead) or a stream the driver does
 * not know, CUABI_ERROR_CONTEXT_MISMATCH when the stream belongs to another context. */
CUABI_API cuabi_status cuabi_stream_wrap(cuabi_context* context, void* cu_stream, CUABI_OUT CUABI_OWNED cuabi_stream** out_stream);

/* Destroys an owned stream after its queued work finishes (CUDA semantics: the call does not
 * wait); releases a wrapped one. A capture cuabi began on the stream is ended and discarded. */
CUABI_API void cuabi_stream_destroy(CUABI_NULLABLE CUABI_TRANSFERRED cuabi_stream* stream);

/* Waits until all work on the stream is done. */
CUABI_API cuabi_status cuabi_stream_synchronize(cuabi_stream* stream);

/* CUABI_SUCCESS when all work on the stream is done, CUABI_ERROR_NOT_READY when some is still
 * running (this is not a failure: no error message is set). */
CUABI_API cuabi_status cuabi_stream_query(cuabi_stream* stream);

/* Makes future work on `stream` wait until `event` has completed (fork/join across streams).
 * Returns CUABI_ERROR_CONTEXT_MISMATCH when they belong to different contexts. */
CUABI_API cuabi_status cuabi_stream_wait_event(cuabi_stream* stream, cuabi_event* event);

/* The underlying CUstream. Not owned by the caller. */
CUABI_API cuabi_status cuabi_stream_get_native(cuabi_stream* stream, CUABI_OUT CUABI_BORROWED void** out_cu_stream);

#endif /* CUABI_NO_PROTOTYPES */

/* ============================================================================================
 * Event
 *
 * A marker in a stream: record it, wait for it, time between two of them. Thread-safe.
 * ========================================================================================== */

/* Event flags (cuabi_event_options.flags). */
typedef uint32_t cuabi_event_flags CUABI_FLAGS_FAMILY("CUABI_EVENT_") CUABI_SINCE(1.2);
#define CUABI_EVENT_DEFAULT 0x0u
#define CUABI_EVENT_DISABLE_TIMING 0x1u /* cheaper; cuabi_event_get_elapsed_ms() is then refused */
#define CUABI_EVENT_BLOCKING_SYNC 0x2u  /* synchronize by sleeping rather than spinning */

/* Options for cuabi_event_create(). */
typedef struct cuabi_event_options {
    uint32_t struct_size; /* sizeof(cuabi_event_options) */
    uint32_t flags;       /* CUABI_EVENT_*; default 0 (timing enabled) */
} cuabi_event_options;
#define CUABI_EVENT_OPTIONS_INIT {sizeof(cuabi_event_options), CUABI_EVENT_DEFAULT}

#ifndef CUABI_NO_PROTOTYPES

/* Fills *out_options with defaults. */
CUABI_API cuabi_status cuabi_event_options_init(uint32_t struct_size, CUABI_OUT cuabi_event_options* out_options);

/* Creates an event. The caller owns *out_event. Returns CUABI_ERROR_INVALID_ARGUMENT for
 * unknown flags. */
CUABI_API cuabi_status cuabi_event_create(cuabi_context* context, CUABI_NULLABLE const cuabi_event_options* options, CUABI_OUT CUABI_OWNED cuabi_event** out_event);

/* Destroys the event. */
CUABI_API void cuabi_event_destroy(CUABI_NULLABLE CUABI_TRANSFERRED cuabi_event* event);

/* Records the event at the current end of `stream`. A NULL stream records on the calling
 * thread's per-thread stream, where cuabi runs synchronous (NULL-stream) work, so two events
 * recorded with NULL time the synchronous calls between them. CUABI_ERROR_CONTEXT_MISMATCH when
 * event and stream belong to different contexts. */
CUABI_API cuabi_status cuabi_event_record(cuabi_event* event, CUABI_NULLABLE cuabi_stream* stream);

/* Waits until the event has completed. */
CUABI_API cuabi_status cuabi_event_synchronize(cuabi_event* event);

/* CUABI_SUCCESS when the event has completed, CUABI_ERROR_NOT_READY when not (no message set). */
CUABI_API cuabi_status cuabi_event_query(cuabi_event* event);

/* Milliseconds between two completed events (resolution about 0.5 us). Returns
 * CUABI_ERROR_NOT_READY when one has not completed, CUABI_ERROR_INVALID_ARGUMENT when one was
 * created with CUABI_EVENT_DISABLE_TIMING or never recorded. */
CUABI_API cuabi_status cuabi_event_get_elapsed_ms(cuabi_event* start, cuabi_event* end, CUABI_OUT float* out_ms);

#endif /* CUABI_NO_PROTOTYPES */

/* ============================================================================================
 * Buffer
 *
 * Device memory of a fixed size, owned (allocated by cuabi) or wrapped (a device pointer from
 * elsewhere, not freed by cuabi). Every copy is checked against the buffer's bounds. Functions
 * taking a stream enqueue the work and return; with a NULL stream they finish before returning.
 * Host memory passed to an enqueued copy must stay valid until the stream reaches the copy.
 * A graph that captured a transfer of a buffer keeps that buffer alive (see the Graph group).
 * Thread-safe; concurrent writes to overlapping bytes are the caller's race, as in CUDA.
 * ========================================================================================== */

/* Buffer flags (cuabi_buffer_options.flags). */
typedef uint32_t cuabi_buffer_flags CUABI_FLAGS_FAMILY("CUABI_BUFFER_") CUABI_SINCE(1.2);
#define CUABI_BUFFER_DEFAULT 0x0u
#define CUABI_BUFFER_ZERO 0x1u /* fill the new buffer with zero bytes */

/* Options for cuabi_buffer_create(). */
typedef struct cuabi_buffer_options {
    uint32_t struct_size; /* sizeof(cuabi_buffer_options) */
    uint32_t flags;       /* CUABI_BUFFER_*; default 0 */
} cuabi_buffer_options;
#define CUABI_BUFFER_OPTIONS_INIT {sizeof(cuabi_buffer_options), CUABI_BUFFER_DEFAULT}

#ifndef CUABI_NO_PROTOTYPES

/* Fills *out_options with defaults. */
CUABI_API cuabi_status cuabi_buffer_options_init(uint32_t struct_size, CUABI_OUT cuabi_buffer_options* out_options);

/* Allocates `size` bytes of device memory. Returns CUABI_ERROR_INVALID_ARGUMENT for size 0 or
 * unknown flags, CUABI_ERROR_DEVICE_OUT_OF_MEMORY when the device cannot hold it. The caller owns
 * *out_buffer. */
CUABI_API cuabi_status cuabi_buffer_create(cuabi_context* context, size_t size, CUABI_NULLABLE const cuabi_buffer_options* options, CUABI_OUT CUABI_OWNED cuabi_buffer** out_buffer);

/* Wraps `size` bytes at device address `device_address` (a CUdeviceptr from another library)
 * without taking ownership; the memory must outlive the handle. cuabi asks the driver whether the
 * address is CUDA memory (CUABI_ERROR_INVALID_ARGUMENT if not, or for address 0 or size 0),
 * whether it belongs to the context (CUABI_ERROR_CONTEXT_MISMATCH if not) and, where the driver
 * knows the allocation's extent, whether the range fits in it (CUABI_ERROR_OUT_OF_BOUNDS if not). */
CUABI_API cuabi_status cuabi_buffer_wrap(cuabi_context* context, uint64_t device_address, size_t size, CUABI_OUT CUABI_OWNED cuabi_buffer** out_buffer);

/* Releases the handle. An owned buffer's memory is freed once no graph keeps it alive, after work
 * already queued on it (as CUDA's cuMemFree, it does not wait: synchronize first if kernels may
 * still use it); a wrapped buffer's memory stays its owner's. */
CUABI_API void cuabi_buffer_destroy(CUABI_NULLABLE CUABI_TRANSFERRED cuabi_buffer* buffer);

/* The buffer's size in bytes. */
CUABI_API cuabi_status cuabi_buffer_get_size(cuabi_buffer* buffer, CUABI_OUT size_t* out_size);

/* The buffer's device address (a CUdeviceptr), e.g. to pass as a kernel argument. */
CUABI_API cuabi_status cuabi_buffer_get_device_address(cuabi_buffer* buffer, CUABI_OUT uint64_t* out_address);

/* Copies `size` bytes from host memory `data` to the buffer at byte `offset`.
 * CUABI_ERROR_OUT_OF_BOUNDS when offset + size exceeds the buffer. A size of 0 does nothing
 * (data may then be NULL). On a stream, pageable host memory (malloc, the stack) is staged by the
 * driver: the call returns once `data` has been read, and the copy does not overlap with kernels
 * of other streams. Page-locked memory (a cuabi_host_memory, allocated or registered) is copied by
 * the GPU's copy engine while the call returns at once: the copy overlaps with other streams' work,
 * and `data` must stay unchanged until the stream reaches the copy. */
CUABI_API cuabi_status cuabi_buffer_write(cuabi_buffer* buffer, size_t offset, CUABI_NULLABLE const void* data, size_t size, CUABI_NULLABLE cuabi_stream* stream);

/* Copies `size` bytes from the buffer at byte `offset` to host memory `out_data`.
 * CUABI_ERROR_OUT_OF_BOUNDS when offset + size exceeds the buffer. A size of 0 does nothing
 * (out_data may then be NULL). On a stream, a read into pageable host memory returns only once
 * the data has arrived (the driver stages it, so it does not overlap); a read into page-locked
 * memory (a cuabi_host_memory) is enqueued and returns at once: the bytes are there when the
 * stream has reached the copy (synchronize the stream or an event recorded after it). */
CUABI_API cuabi_status cuabi_buffer_read(cuabi_buffer* buffer, size_t offset, CUABI_OUT CUABI_NULLABLE void* out_data, size_t size, CUABI_NULLABLE cuabi_stream* stream);

/* Copies `size` bytes between device buffers of one context. CUABI_ERROR_OUT_OF_BOUNDS when
 * either range exceeds its buffer, CUABI_ERROR_INVALID_ARGUMENT when the two ranges overlap in
 * device memory (also through wrapped buffers that alias), CUABI_ERROR_CONTEXT_MISMATCH when the
 * buffers belong to different devices. */
CUABI_API cuabi_status cuabi_buffer_copy(cuabi_buffer* dst, size_t dst_offset, cuabi_buffer* src, size_t src_offset, size_t size, CUABI_NULLABLE cuabi_stream* stream);

/* Sets `count` elements of `element_size` bytes (1, 2 or 4) starting at byte `offset` to the low
 * element_size bytes of `value`. CUABI_ERROR_INVALID_ARGUMENT for another element_size or when
 * offset (or, for a wrapped buffer, the address) is not a multiple of element_size;
 * CUABI_ERROR_OUT_OF_BOUNDS when the range exceeds the buffer. */
CUABI_API cuabi_status cuabi_buffer_fill(cuabi_buffer* buffer, size_t offset, uint32_t value, uint32_t element_size, size_t count, CUABI_NULLABLE cuabi_stream* stream);

#endif /* CUABI_NO_PROTOTYPES */

/* ============================================================================================
 * Host memory (since 1.1)
 *
 * Page-locked ("pinned") host memory: the GPU's copy engines read and write it directly, so
 * cuabi_buffer_write/_read on a stream overlap with kernels running on other streams, and copies
 * run at full bus speed. Either allocated by cuabi (cuMemHostAlloc; freed on destroy) or the
 * caller's own memory registered with the driver (cuMemHostRegister; unregistered on destroy, never
 * freed by cuabi: it must outlive the handle). Pinning takes physical memory from the system: pin
 * what transfers use, not everything. The handle keeps its context alive. Thread-safe; the bytes
 * themselves are plain host memory, so concurrent access is the caller's race.
 * ========================================================================================== */

/* Host memory flags (cuabi_host_memory_options.flags). */
typedef uint32_t cuabi_host_memory_flags CUABI_FLAGS_FAMILY("CUABI_HOST_MEMORY_") CUABI_SINCE(1.2);
#define CUABI_HOST_MEMORY_DEFAULT 0x0u
#define CUABI_HOST_MEMORY_PORTABLE 0x1u       /* page-locked for every context, not only this one */
#define CUABI_HOST_MEMORY_DEVICE_MAPPED 0x2u  /* also mapped into the device's address space:
                                                 cuabi_host_memory_get_device_address() */
#define CUABI_HOST_MEMORY_WRITE_COMBINED 0x4u /* allocation only: faster for the GPU to read across
                                                 the bus, very slow for the CPU to read */

/* Options for cuabi_host_memory_create() and _register(). */
typedef struct CUABI_SINCE(1.1) cuabi_host_memory_options {
    uint32_t struct_size; /* sizeof(cuabi_host_memory_options) */
    uint32_t flags;       /* CUABI_HOST_MEMORY_*; default 0 */
} cuabi_host_memory_options;
#define CUABI_HOST_MEMORY_OPTIONS_INIT {sizeof(cuabi_host_memory_options), CUABI_HOST_MEMORY_DEFAULT}

#ifndef CUABI_NO_PROTOTYPES

/* Fills *out_options with defaults. */
CUABI_API cuabi_status cuabi_host_memory_options_init(uint32_t struct_size, CUABI_OUT cuabi_host_memory_options* out_options) CUABI_SINCE(1.1);

/* Allocates `size` bytes of page-locked host memory for `context`'s device. Returns
 * CUABI_ERROR_INVALID_ARGUMENT for size 0 or unknown flags, CUABI_ERROR_OUT_OF_HOST_MEMORY when the
 * system cannot pin that much. The bytes are not initialized. The caller owns *out_memory. */
CUABI_API cuabi_status cuabi_host_memory_create(cuabi_context* context, size_t size, CUABI_NULLABLE const cuabi_host_memory_options* options, CUABI_OUT CUABI_OWNED cuabi_host_memory** out_memory) CUABI_SINCE(1.1);

/* Page-locks `size` bytes of the caller's memory at `pointer` (any alignment; the driver pins
 * whole pages around it) without taking ownership: `pointer` must stay allocated until the handle
 * is destroyed. CUABI_ERROR_INVALID_ARGUMENT for NULL, size 0, flags other than PORTABLE and
 * DEVICE_MAPPED, or memory that is already registered (also partly) or is not ordinary host
 * memory; CUABI_ERROR_OUT_OF_HOST_MEMORY when the system cannot pin that much. */
CUABI_API cuabi_status cuabi_host_memory_register(cuabi_context* context, void* pointer, size_t size, CUABI_NULLABLE const cuabi_host_memory_options* options, CUABI_OUT CUABI_OWNED cuabi_host_memory** out_memory) CUABI_SINCE(1.1);

/* Releases the handle: allocated memory is freed, registered memory unregistered (and stays the
 * caller's). Like cuabi_buffer_destroy it does not wait for copies already enqueued on streams:
 * synchronize them first. */
CUABI_API void cuabi_host_memory_destroy(CUABI_NULLABLE CUABI_TRANSFERRED cuabi_host_memory* memory) CUABI_SINCE(1.1);

/* The host address of the memory (the allocation's start, or the pointer that was registered). */
CUABI_API cuabi_status cuabi_host_memory_get_pointer(cuabi_host_memory* memory, CUABI_OUT CUABI_BORROWED void** out_pointer) CUABI_SINCE(1.1);

/* The size in bytes (as created or registered). */
CUABI_API cuabi_status cuabi_host_memory_get_size(cuabi_host_memory* memory, CUABI_OUT size_t* out_size) CUABI_SINCE(1.1);

/* The device address at which kernels of the memory's context reach these bytes over the bus
 * (zero-copy). CUABI_ERROR_UNSUPPORTED unless created or registered with
 * CUABI_HOST_MEMORY_DEVICE_MAPPED. */
CUABI_API cuabi_status cuabi_host_memory_get_device_address(cuabi_host_memory* memory, CUABI_OUT uint64_t* out_address) CUABI_SINCE(1.1);

#endif /* CUABI_NO_PROTOTYPES */

/* ============================================================================================
 * Stream-ordered and managed memory (since 1.2)
 *
 * Memory pools: the device's default pool (cuabi_memory_pool_get_default) or pools created by
 * cuabi_memory_pool_create. A pool keeps memory that stream-ordered buffers gave back, up to its
 * release threshold, so that later allocations reuse it without asking the operating system;
 * cuabi_memory_pool_trim gives the rest back. A pool handle keeps its context alive, and every
 * buffer allocated from a pool keeps the pool alive: destroying the handle of a created pool
 * destroys the pool once its last buffer is freed.
 *
 * Stream-ordered buffers (cuabi_buffer_create_async): ordinary cuabi_buffer handles -- bounds-checked
 * transfers, kernel arguments, graph retention -- whose memory exists from the point where the
 * stream reaches the allocation until the point where a stream reaches the free. Lifetime rules:
 *   - cuabi_buffer_free_async enqueues the free and destroys the handle at once: every later use of
 *     the handle returns CUABI_ERROR_INVALID_HANDLE. Work enqueued before the free may still use the
 *     memory; work on other streams must be ordered before the free by the caller (events).
 *   - cuabi_buffer_destroy of a stream-ordered buffer frees it at once (cuMemFree, which does not
 *     wait for queued work: synchronize first), or, while a graph keeps the buffer alive, when the
 *     last such graph dies. cuabi_buffer_free_async refuses a buffer that a graph keeps alive.
 * Graph memory nodes: a buffer allocated on a stream that captures becomes a memory allocation
 * node of the captured graph, and its cuabi_buffer_free_async in the same capture a free node.
 *   - Its address is fixed at capture, but the memory exists only while a replay has allocated it:
 *     use the handle only in work ordered after a replay (or inside the capture).
 *   - Freed in the capture: each replay allocates and frees; the graph replays any number of times.
 *   - Not freed in the capture: after a replay the memory lives until the caller frees it with
 *     cuabi_buffer_free_async (on any stream, after the replay). Replaying again before that fails
 *     with CUABI_ERROR_GRAPH_MEMORY, unless the graph was made with CUABI_GRAPH_AUTO_FREE_ON_LAUNCH,
 *     which frees the previous replay's allocation at each relaunch. cuabi_buffer_destroy of such a
 *     handle never frees the memory (cuabi cannot tell whether a replay allocated it).
 *   - A buffer not allocated in a capture cannot be freed inside one (the driver only frees graph
 *     allocations there): CUABI_ERROR_INVALID_ARGUMENT.
 *   - The driver allows one executable per graph that holds memory nodes and no cloning; cuabi's
 *     graph has exactly one.
 *
 * Managed memory (cuabi_buffer_create_managed): one address valid on the host and on the device
 * (cuabi_buffer_get_host_pointer); pages migrate on access, or ahead of it through
 * cuabi_buffer_prefetch, and cuabi_buffer_advise tells the driver how the range is used.
 * Locations: a device ordinal (>= 0) or CUABI_LOCATION_HOST.
 *
 * Thread-safe. Freeing a buffer while another thread uses its handle is the caller's race, as
 * destroying it would be.
 * ========================================================================================== */

/* Where managed memory is prefetched to or advised for: a device ordinal, or this constant. */
typedef int32_t cuabi_location CUABI_ENUM_FAMILY("CUABI_LOCATION_") CUABI_SINCE(1.2);
#define CUABI_LOCATION_HOST -1 /* the host's memory */

/* Advice for a range of managed memory (cuabi_buffer_advise); the values are CUmem_advise's. */
typedef int32_t cuabi_advice CUABI_ENUM_FAMILY("CUABI_ADVICE_") CUABI_SINCE(1.2);
#define CUABI_ADVICE_SET_READ_MOSTLY 1          /* mostly read: devices that read it get a copy */
#define CUABI_ADVICE_UNSET_READ_MOSTLY 2
#define CUABI_ADVICE_SET_PREFERRED_LOCATION 3   /* keep the pages at `location` where possible */
#define CUABI_ADVICE_UNSET_PREFERRED_LOCATION 4
#define CUABI_ADVICE_SET_ACCESSED_BY 5          /* keep the pages mapped for `location` */
#define CUABI_ADVICE_UNSET_ACCESSED_BY 6

/* Managed buffer flags (cuabi_buffer_create_managed). */
typedef uint32_t cuabi_managed_flags CUABI_FLAGS_FAMILY("CUABI_MANAGED_") CUABI_SINCE(1.2);
#define CUABI_MANAGED_DEFAULT 0x0u       /* attached globally: any stream of any device may access it */
#define CUABI_MANAGED_ATTACH_HOST 0x1u   /* attached to the host until a stream attaches it; on
                                            devices without concurrent managed access only the host
                                            may touch it meanwhile */

/* What cuabi_memory_pool_get_attribute reads; each a byte count. */
typedef int32_t cuabi_memory_pool_attribute CUABI_ENUM_FAMILY("CUABI_MEMORY_POOL_") CUABI_SINCE(1.2);
#define CUABI_MEMORY_POOL_RELEASE_THRESHOLD 1 /* memory kept on synchronization before giving it back */
#define CUABI_MEMORY_POOL_RESERVED_CURRENT 2  /* memory the pool holds from the system now */
#define CUABI_MEMORY_POOL_RESERVED_HIGH 3     /* the most it held since the pool was made */
#define CUABI_MEMORY_POOL_USED_CURRENT 4      /* memory allocated to buffers now */
#define CUABI_MEMORY_POOL_USED_HIGH 5         /* the most allocated since the pool was made */

/* Options for cuabi_memory_pool_create(). */
typedef struct CUABI_SINCE(1.2) cuabi_memory_pool_options {
    uint32_t struct_size;       /* sizeof(cuabi_memory_pool_options) */
    uint32_t reserved;          /* 0 */
    uint64_t max_size;          /* the most the pool may hold, in bytes; 0 (default): the driver's limit */
    uint64_t release_threshold; /* bytes kept when a synchronization finds them unused; default 0 */
} cuabi_memory_pool_options;
#define CUABI_MEMORY_POOL_OPTIONS_INIT {sizeof(cuabi_memory_pool_options), 0u, 0u, 0u}

#ifndef CUABI_NO_PROTOTYPES

/* Since 1.2. Fills *out_options with defaults. */
CUABI_API cuabi_status cuabi_memory_pool_options_init(uint32_t struct_size, CUABI_OUT cuabi_memory_pool_options* out_options) CUABI_SINCE(1.2);

/* Since 1.2. Creates a memory pool of device memory on `context`'s device (cuMemPoolCreate).
 * CUABI_ERROR_INVALID_ARGUMENT for a non-zero reserved field, CUABI_ERROR_UNSUPPORTED when the
 * device has no stream-ordered allocator. The caller owns *out_pool. */
CUABI_API cuabi_status cuabi_memory_pool_create(cuabi_context* context, CUABI_NULLABLE const cuabi_memory_pool_options* options, CUABI_OUT CUABI_OWNED cuabi_memory_pool** out_pool) CUABI_SINCE(1.2);

/* Since 1.2. A handle on the device's default pool (the one cuabi_buffer_create_async uses for a
 * NULL pool). CUABI_ERROR_UNSUPPORTED as for _create. The caller owns *out_pool; destroying it
 * leaves the driver's pool as it is. Each call returns a new handle. */
CUABI_API cuabi_status cuabi_memory_pool_get_default(cuabi_context* context, CUABI_OUT CUABI_OWNED cuabi_memory_pool** out_pool) CUABI_SINCE(1.2);

/* Since 1.2. Releases the handle; a created pool is destroyed once no buffer of it is left. */
CUABI_API void cuabi_memory_pool_destroy(CUABI_NULLABLE CUABI_TRANSFERRED cuabi_memory_pool* pool) CUABI_SINCE(1.2);

/* Since 1.2. How many unused bytes the pool keeps when a stream, event or context
 * synchronization finds memory free (CU_MEMPOOL_ATTR_RELEASE_THRESHOLD; UINT64_MAX: all). */
CUABI_API cuabi_status cuabi_memory_pool_set_release_threshold(cuabi_memory_pool* pool, uint64_t bytes) CUABI_SINCE(1.2);

/* Since 1.2. Gives memory the pool holds unused back to the system until it holds at most
 * `min_bytes_to_keep` reserved bytes (memory in use by buffers stays). */
CUABI_API cuabi_status cuabi_memory_pool_trim(cuabi_memory_pool* pool, uint64_t min_bytes_to_keep) CUABI_SINCE(1.2);

/* Since 1.2. Reads a CUABI_MEMORY_POOL_* attribute (bytes). CUABI_ERROR_INVALID_ARGUMENT for
 * another attribute. */
CUABI_API cuabi_status cuabi_memory_pool_get_attribute(cuabi_memory_pool* pool, cuabi_memory_pool_attribute attribute, CUABI_OUT uint64_t* out_value) CUABI_SINCE(1.2);

/* Since 1.2. Allocates `size` bytes in stream order on `stream` (NULL: the calling thread's
 * per-thread stream, and the call returns once the allocation is done) from `pool` (NULL: the
 * device's default pool). Options as for cuabi_buffer_create (CUABI_BUFFER_ZERO fills on the
 * stream). On a stream that captures, the allocation becomes a graph memory node (see above).
 * CUABI_ERROR_INVALID_ARGUMENT for size 0 or unknown flags, CUABI_ERROR_CONTEXT_MISMATCH for a
 * pool or stream of another device, CUABI_ERROR_DEVICE_OUT_OF_MEMORY when the device or the
 * pool's max_size cannot hold it, CUABI_ERROR_UNSUPPORTED without a stream-ordered allocator.
 * The caller owns *out_buffer; it keeps the pool alive. */
CUABI_API cuabi_status cuabi_buffer_create_async(cuabi_context* context, size_t size, CUABI_NULLABLE cuabi_memory_pool* pool, CUABI_NULLABLE const cuabi_buffer_options* options, CUABI_NULLABLE cuabi_stream* stream, CUABI_OUT CUABI_OWNED cuabi_buffer** out_buffer) CUABI_SINCE(1.2);

/* Since 1.2. Frees a stream-ordered buffer when `stream` (NULL: the per-thread stream, waited
 * for) reaches this point, and destroys the handle now: later calls with it return
 * CUABI_ERROR_INVALID_HANDLE. On failure the handle stays valid. CUABI_ERROR_INVALID_ARGUMENT for
 * a buffer not made by cuabi_buffer_create_async, one a graph keeps alive, or a buffer allocated
 * outside a capture freed on a capturing stream; CUABI_ERROR_CONTEXT_MISMATCH for a stream of
 * another device. */
CUABI_API cuabi_status cuabi_buffer_free_async(CUABI_TRANSFERRED cuabi_buffer* buffer, CUABI_NULLABLE cuabi_stream* stream) CUABI_SINCE(1.2);

/* Since 1.2. Allocates `size` bytes of managed memory (cuMemAllocManaged) with CUABI_MANAGED_*
 * `flags`. CUABI_ERROR_INVALID_ARGUMENT for size 0 or unknown flags,
 * CUABI_ERROR_DEVICE_OUT_OF_MEMORY for more than the device holds, CUABI_ERROR_UNSUPPORTED when
 * the device cannot allocate managed memory. The caller owns *out_buffer (freed on destroy). */
CUABI_API cuabi_status cuabi_buffer_create_managed(cuabi_context* context, size_t size, uint32_t flags, CUABI_OUT CUABI_OWNED cuabi_buffer** out_buffer) CUABI_SINCE(1.2);

/* Since 1.2. The host address of a managed buffer (the same bytes as its device address); the
 * host may read and write them while no kernel that can reach them runs (or at any time on
 * devices with concurrent managed access). CUABI_ERROR_UNSUPPORTED for a buffer that is not
 * managed. */
CUABI_API cuabi_status cuabi_buffer_get_host_pointer(cuabi_buffer* buffer, CUABI_OUT CUABI_BORROWED void** out_pointer) CUABI_SINCE(1.2);

/* Since 1.2. Migrates bytes [offset, offset + size) of a managed buffer to `location` (a device
 * ordinal or CUABI_LOCATION_HOST) on `stream` (NULL: per-thread stream, waited for). Size 0 does
 * nothing. CUABI_ERROR_UNSUPPORTED for a buffer that is not managed or a device without
 * concurrent managed access, CUABI_ERROR_OUT_OF_BOUNDS past the buffer, CUABI_ERROR_INVALID_DEVICE
 * for a location that is no device, CUABI_ERROR_CONTEXT_MISMATCH for a stream of another device. */
CUABI_API cuabi_status cuabi_buffer_prefetch(cuabi_buffer* buffer, size_t offset, size_t size, cuabi_location location, CUABI_NULLABLE cuabi_stream* stream) CUABI_SINCE(1.2);

/* Since 1.2. Gives CUABI_ADVICE_* `advice` for bytes [offset, offset + size) of a managed buffer;
 * `location` (a device ordinal or CUABI_LOCATION_HOST) is ignored by the READ_MOSTLY advice.
 * Size 0 does nothing. CUABI_ERROR_INVALID_ARGUMENT for unknown advice, other errors as for
 * cuabi_buffer_prefetch. */
CUABI_API cuabi_status cuabi_buffer_advise(cuabi_buffer* buffer, size_t offset, size_t size, cuabi_advice advice, cuabi_location location) CUABI_SINCE(1.2);

#endif /* CUABI_NO_PROTOTYPES */

/* ============================================================================================
 * Module
 *
 * A module is one compiled or loaded image (CUBIN, PTX or fatbin) with its NVRTC log and the
 * lowered names of the name expressions it was compiled with. Compiling goes through the kernel
 * cache (see the Cache group): a memory hit costs a hash and a lookup; a disk hit loads no NVRTC.
 * NVRTC itself runs, by default, in a worker process that cuabi starts and keeps, so that a crash
 * or hang inside NVRTC costs a status rather than the calling process. The toolkit's own headers
 * (cooperative_groups.h, cuda/std, CUB, cuda_fp16.h, ...) are found without include options, as
 * nvcc finds them. Modules of the same image in the same device share one loaded copy in the
 * driver (cuModuleLoadDataEx). A module keeps its context alive; its kernels keep it
 * alive. Thread-safe: a module may be used and compiled from any thread; compiles of different
 * sources run concurrently, and identical compiles requested at once run NVRTC once.
 * ========================================================================================== */

/* Image kinds: what a module was loaded from (cuabi_module_info.image_kind). */
typedef int32_t cuabi_image_kind CUABI_ENUM_FAMILY("CUABI_IMAGE_") CUABI_SINCE(1.2);
#define CUABI_IMAGE_PTX 1    /* PTX text (NUL-terminated), JIT-compiled by the driver at load */
#define CUABI_IMAGE_CUBIN 2  /* an ELF binary for one GPU architecture: loads without a JIT */
#define CUABI_IMAGE_FATBIN 3 /* a fat binary (nvcc -fatbin): CUBINs and/or PTX for several targets */
#define CUABI_IMAGE_LTOIR 4  /* Since 1.2. LTO-IR (CUABI_COMPILE_LTO_IR): an input to linking, never loaded */

/* Compile flags (cuabi_compile_options.flags). */
typedef uint32_t cuabi_compile_flags CUABI_FLAGS_FAMILY("CUABI_COMPILE_") CUABI_SINCE(1.2);
#define CUABI_COMPILE_DEFAULT 0x0u
#define CUABI_COMPILE_NO_CACHE 0x1u            /* neither look up nor store in the kernel cache: always run NVRTC */
#define CUABI_COMPILE_PTX 0x2u                 /* emit PTX for the target's compute_XY instead of a CUBIN */
#define CUABI_COMPILE_NO_TOOLKIT_INCLUDES 0x4u /* do not add the toolkit's include directories */
#define CUABI_COMPILE_IN_PROCESS 0x8u          /* run NVRTC in this process, not in the worker */
#define CUABI_COMPILE_ISOLATED 0x10u           /* run NVRTC in the worker even where the process
                                                  default (CUABI_COMPILE_ISOLATION) says otherwise */
#define CUABI_COMPILE_NO_PCH 0x20u             /* Since 1.2. never create nor use a precompiled header for this
                                                  compile (CUABI_PCH=off: for none in the process) */
#define CUABI_COMPILE_LTO_IR 0x40u             /* Since 1.2. emit LTO-IR (-dlto, relocatable) for
                                                  cuabi_module_link() instead of a CUBIN; the module
                                                  is not loaded */
#define CUABI_COMPILE_RELOCATABLE 0x80u        /* Since 1.2. relocatable device code (-rdc): a CUBIN or
                                                  PTX that may call extern __device__ functions
                                                  defined in other link inputs */

/* Tri-state settings (cuabi_compile_options.ftz, prec_div, prec_sqrt, fmad). */
typedef int32_t cuabi_tristate CUABI_ENUM_FAMILY("CUABI_TRISTATE_") CUABI_SINCE(1.2);
#define CUABI_TRISTATE_DEFAULT -1 /* NVRTC's default, which fast_math changes */
#define CUABI_TRISTATE_OFF 0
#define CUABI_TRISTATE_ON 1

/* Options for cuabi_module_compile() and cuabi_module_compile_offline(). Fill with
 * cuabi_compile_options_init(): the tri-state fields default to -1, so a zero-filled struct asks
 * for "off" rather than "default". Arrays are (pointer, count) pairs; a count of 0 allows a NULL
 * pointer. cuabi copies what it needs: nothing here must outlive the call. The cache key covers
 * every field that changes the output (share/doc/cuabi/compile.md lists each option's NVRTC flag). */
typedef struct cuabi_compile_options {
    uint32_t struct_size;       /* sizeof(cuabi_compile_options) */
    uint32_t flags;             /* CUABI_COMPILE_*; default 0 */
    CUABI_NULLABLE const char* target;       /* "sm_90" (CUBIN), "compute_90" (PTX), with optional 'a'/'f' suffix;
                                   NULL or "": the context device (see cuabi_module_compile) */
    CUABI_NULLABLE const char* cpp_standard;   /* "c++17", "c++20" (or "17", "20"); NULL: NVRTC's default */
    CUABI_NULLABLE const char* program_name;   /* file name used in the log and line info; NULL: "kernel.cu" */
    uint32_t fast_math;         /* boolean: --use_fast_math (implies ftz, approximate div/sqrt, fmad) */
    int32_t ftz;                /* CUABI_TRISTATE_*: flush denormals to zero */
    int32_t prec_div;           /* CUABI_TRISTATE_*: IEEE-rounded division */
    int32_t prec_sqrt;          /* CUABI_TRISTATE_*: IEEE-rounded square root */
    int32_t fmad;               /* CUABI_TRISTATE_*: contract multiply-add into FMA */
    uint32_t max_registers;     /* --maxrregcount; 0: no limit */
    uint32_t line_info;         /* boolean: --generate-line-info (source lines for profilers) */
    uint32_t device_debug;      /* boolean: --device-debug (-G: unoptimized, debuggable) */
    CUABI_NULLABLE const char* const* defines; /* "NAME" or "NAME=VALUE" (as -D) */
    size_t define_count;
    CUABI_NULLABLE const char* const* include_dirs; /* searched in order for #include, before the toolkit's own
                                        (files found here are not tracked by the cache key: see salt) */
    size_t include_dir_count;
    CUABI_NULLABLE const char* const* header_names;   /* in-memory headers: the name #include uses ... */
    CUABI_NULLABLE const char* const* header_sources; /* ... and its contents */
    size_t header_count;
    CUABI_NULLABLE const char* const* name_expressions; /* C++ names of kernels to look up later: "reduce<float, 256>" */
    size_t name_expression_count;
    CUABI_NULLABLE const char* const* extra_flags;      /* further NVRTC options, passed as given */
    size_t extra_flag_count;
    CUABI_NULLABLE const void* salt;                    /* caller bytes mixed into the cache key (e.g. a hash of the
                                            files reached through include_dirs) */
    size_t salt_size;
    uint32_t timeout_ms;                 /* deadline for NVRTC in the worker, after which the compile
                                            fails with CUABI_ERROR_TIMEOUT; 0: the default, 600000 or
                                            $CUABI_COMPILE_TIMEOUT_MS. In-process compiles have none. */
    uint32_t reserved;
} cuabi_compile_options;
#define CUABI_COMPILE_OPTIONS_INIT                                                                          \
    {sizeof(cuabi_compile_options), CUABI_COMPILE_DEFAULT, NULL, NULL, NULL, 0u, CUABI_TRISTATE_DEFAULT,    \
     CUABI_TRISTATE_DEFAULT, CUABI_TRISTATE_DEFAULT, CUABI_TRISTATE_DEFAULT, 0u, 0u, 0u, NULL, 0, NULL, 0,   \
     NULL, NULL, 0, NULL, 0, NULL, 0, NULL, 0, 0u, 0u}

/* Where a module's image came from (cuabi_module_info.origin). */
typedef int32_t cuabi_module_origin CUABI_ENUM_FAMILY("CUABI_MODULE_ORIGIN_") CUABI_SINCE(1.2);
#define CUABI_MODULE_ORIGIN_COMPILED 0     /* NVRTC ran for this call */
#define CUABI_MODULE_ORIGIN_MEMORY_CACHE 1 /* the in-process cache: no NVRTC, no disk */
#define CUABI_MODULE_ORIGIN_DISK_CACHE 2   /* the on-disk cache: no NVRTC */
#define CUABI_MODULE_ORIGIN_IMAGE 3        /* cuabi_module_load_image(): the caller's bytes */
#define CUABI_MODULE_ORIGIN_READONLY_CACHE 4 /* Since 1.2. A read-only cache layer or bundle: no NVRTC */

/* Facts about a module. An output struct: cuabi_module_info_init(). */
typedef struct cuabi_module_info {
    uint32_t struct_size;
    int32_t image_kind;             /* CUABI_IMAGE_* */
    int32_t origin;                 /* CUABI_MODULE_ORIGIN_* */
    uint32_t loaded;                /* boolean: 0 for cuabi_module_compile_offline() modules */
    uint32_t ptx_fallback;          /* boolean: NVRTC does not know the device's architecture, so the
                                       module is PTX for the newest compute_XY it supports (JIT at load) */
    uint32_t name_expression_count; /* entries of the lowered-name map */
    uint64_t image_size;            /* bytes, as cuabi_module_get_image() returns them */
    char target[32];                /* "sm_90", "compute_90"; "" when unknown (a fatbin) */
    char cache_key[40];             /* 32 hex digits of the kernel-cache key; "" for loaded images */
} cuabi_module_info;
#define CUABI_MODULE_INFO_INIT {sizeof(cuabi_module_info), 0, 0, 0u, 0u, 0u, 0u, {0}, {0}}

#ifndef CUABI_NO_PROTOTYPES

/* Fills *out_options with defaults (the tri-states to CUABI_TRISTATE_DEFAULT, everything else 0/NULL). */
CUABI_API cuabi_status cuabi_compile_options_init(uint32_t struct_size, CUABI_OUT cuabi_compile_options* out_options);

/* Prepares *out_info for a call that fills it (see "Structs" above). */
CUABI_API cuabi_status cuabi_module_info_init(uint32_t struct_size, CUABI_OUT cuabi_module_info* out_info);

/* Compiles CUDA C++ `source` with NVRTC for the context's device and loads it.
 * Without options->target the image is a CUBIN for the device's sm_XY, or -- when NVRTC is older
 * than the device -- PTX for the newest compute_XY NVRTC supports (cuabi_module_info.ptx_fallback).
 * Identical requests are served by the kernel cache, also when NVRTC cannot be loaded. Returns
 * CUABI_ERROR_COMPILE for errors in the source (the message quotes the first error and, for a
 * missing #include, every directory searched; cuabi_last_compile_log() has the whole log) and for
 * a name expression that names no kernel (the message names name_expressions[i] and the kernels
 * the source declares),
 * CUABI_ERROR_INVALID_ARGUMENT for a bad option (including options NVRTC refuses),
 * CUABI_ERROR_NVRTC_NOT_FOUND when the cache has no entry and libnvrtc cannot be loaded,
 * CUABI_ERROR_INVALID_IMAGE when an explicit target cannot run on the device, CUABI_ERROR_TIMEOUT
 * when NVRTC ran past options->timeout_ms, CUABI_ERROR_NVRTC when NVRTC failed otherwise (also
 * when it crashed in the worker). The caller owns *out_module. */
CUABI_API cuabi_status cuabi_module_compile(cuabi_context* context, const char* source, CUABI_NULLABLE const cuabi_compile_options* options, CUABI_OUT CUABI_OWNED cuabi_module** out_module);

/* Compiles `source` for options->target (required) without a context, driver or GPU: for
 * ahead-of-time builds. The module is not loaded: read it with cuabi_module_get_image(),
 * cuabi_module_get_log() and cuabi_module_get_lowered_name(); cuabi_module_get_kernel() refuses it.
 * Goes through the kernel cache too, so it warms the cache for later cuabi_module_compile() calls
 * with the same options on a device of that architecture. Statuses as cuabi_module_compile(). */
CUABI_API cuabi_status cuabi_module_compile_offline(const char* source, const cuabi_compile_options* options, CUABI_OUT CUABI_OWNED cuabi_module** out_module);

/* Loads `size` bytes of PTX (text; a terminating NUL is optional), a CUBIN or a fatbin into the
 * context. The bytes are checked before the driver sees them (every header, table and section
 * must lie within `size`) and copied: the caller may free them on return. Returns
 * CUABI_ERROR_INVALID_IMAGE for bytes that are none of these or are damaged, for a CUBIN of
 * another architecture or PTX newer than the device, and when the driver refuses the image (the
 * message carries the JIT error log). Since 1.2, unless the context's image_verification is
 * CUABI_IMAGE_VERIFY_NONE, the image is first trial-loaded in cuabi's image verifier process (see
 * CUABI_IMAGE_VERIFY_*; the first such load in a process starts it): CUABI_ERROR_INVALID_IMAGE
 * when it crashed or hung there (the message names the signal or the time), CUABI_ERROR_UNSUPPORTED
 * when no verifier can be started. The caller owns *out_module. */
CUABI_API cuabi_status cuabi_module_load_image(cuabi_context* context, const void* image, size_t size, CUABI_OUT CUABI_OWNED cuabi_module** out_module);

/* Releases the module. Kernels taken from it stay usable until they are destroyed. */
CUABI_API void cuabi_module_destroy(CUABI_NULLABLE CUABI_TRANSFERRED cuabi_module* module);

/* Facts about the module: image kind and size, target, where it came from, the cache key
 * (set out_info->struct_size first). */
CUABI_API cuabi_status cuabi_module_get_info(cuabi_module* module, CUABI_INOUT cuabi_module_info* out_info);

/* The module's image, two-call: the CUBIN, the PTX including its terminating NUL, or the fatbin.
 * Write it to a file and load it later with cuabi_module_load_image(). */
CUABI_API cuabi_status cuabi_module_get_image(cuabi_module* module, CUABI_OUT CUABI_NULLABLE void* out_image, size_t capacity, CUABI_OUT size_t* out_size);

/* The NVRTC log of the compile that produced the module (warnings), "" for loaded images and for
 * clean compiles. Two-call. On a cache hit it is the log stored with the image. */
CUABI_API cuabi_status cuabi_module_get_log(cuabi_module* module, CUABI_OUT CUABI_NULLABLE char* out_text, size_t capacity, CUABI_OUT size_t* out_size);

/* The mangled symbol that the name expression `expression` (as given in
 * cuabi_compile_options.name_expressions, e.g. "reduce<float, 256>") lowered to, as NVRTC's
 * nvrtcGetLoweredName reported it. Two-call. Returns CUABI_ERROR_KERNEL_NOT_FOUND for an
 * expression the module was not compiled with. */
CUABI_API cuabi_status cuabi_module_get_lowered_name(cuabi_module* module, const char* expression, CUABI_OUT CUABI_NULLABLE char* out_text, size_t capacity, CUABI_OUT size_t* out_size);

/* Finds a kernel by symbol name ("saxpy" for an extern "C" kernel, or a mangled name) or by a
 * C++ name expression the module was compiled with ("reduce<float, 256>"), resolved through the
 * module's stored lowered-name map -- without NVRTC, also on a cache hit. Returns
 * CUABI_ERROR_KERNEL_NOT_FOUND, listing the module's expressions and kernels, when there is no
 * such kernel; CUABI_ERROR_INVALID_ARGUMENT for a module compiled offline; CUABI_ERROR_INVALID_IMAGE
 * when the driver cannot load the image on the device. The caller owns *out_kernel. */
CUABI_API cuabi_status cuabi_module_get_kernel(cuabi_module* module, const char* name_or_expression, CUABI_OUT CUABI_OWNED cuabi_kernel** out_kernel);

/* Since 1.1. A __device__ or __constant__ variable of the module as a buffer handle covering
 * exactly the variable's bytes (cuModuleGetGlobal), found by name ("scale") or by a name
 * expression registered at compile time ("table<float>", lowered through the module's name map,
 * which a cache hit restores too). Read and write it with the cuabi_buffer_* functions: bounds are
 * the variable's size, writes on a stream are ordered with kernels on that stream, and
 * __constant__ memory written this way is seen by kernels launched after the write. Passing its
 * device address as a kernel argument works for __device__ variables. The buffer does not own the
 * memory (destroying it frees nothing) and keeps the module loaded while it lives. Each call
 * returns a new handle; the caller owns it. CUABI_ERROR_NOT_FOUND when the module has no such
 * variable (the message lists the name expressions it knows), CUABI_ERROR_UNSUPPORTED for a module
 * from cuabi_module_compile_offline() (it is not loaded on a device). */
CUABI_API cuabi_status cuabi_module_get_global(cuabi_module* module, const char* name_or_expression, CUABI_OUT CUABI_OWNED cuabi_buffer** out_buffer) CUABI_SINCE(1.1);

#endif /* CUABI_NO_PROTOTYPES */

/* ============================================================================================
 * Linking (since 1.2)
 *
 * cuabi_module_link() joins several device-code objects into one module through nvJitLink:
 * modules compiled with CUABI_COMPILE_LTO_IR or CUABI_COMPILE_RELOCATABLE, and the caller's
 * device libraries and objects (LTO-IR, CUBIN, fatbin, PTX, nvcc host objects and static
 * libraries), as bytes or files. With CUABI_LINK_LTO, LTO-IR inputs are optimized together
 * (link-time optimization). Linking works without a GPU (cuabi_module_link_offline()).
 *
 * nvJitLink is loaded at run time, never linked: libnvJitLink.so.<major> of the same major as the
 * NVRTC cuabi uses first (13, then 12), or $CUABI_NVJITLINK_PATH. By default it runs in a worker
 * process started for the link (the compile worker's executable), so that a crash or hang inside
 * nvJitLink costs a status, not the calling process; CUABI_LINK_IN_PROCESS runs it here.
 * Linked images are kernel-cache entries like compiled ones: the key covers every input's bytes,
 * kind and name, every option, the target and the nvJitLink file, so a repeated link is served
 * from memory or disk without NVRTC or nvJitLink (also where nvJitLink cannot be loaded).
 * The caller's bytes and files are untrusted: CUBIN, fatbin and PTX inputs get the image checks
 * of cuabi_module_load_image(), LTO-IR inputs a header and size check, host objects and
 * libraries their file magic, before nvJitLink sees them. Every link replaces the calling
 * thread's cuabi_last_compile_log() with nvJitLink's log (information and errors), on success
 * and failure; a linked module's cuabi_module_get_log() returns it too. Thread-safe: links may
 * run from any thread at once.
 * ========================================================================================== */

/* Link input kinds (cuabi_link_input.kind); the values are nvJitLink's. */
typedef int32_t cuabi_link_input_kind CUABI_ENUM_FAMILY("CUABI_LINK_INPUT_") CUABI_SINCE(1.2);
#define CUABI_LINK_INPUT_CUBIN 1   /* a CUBIN (relocatable or not) for the link's architecture */
#define CUABI_LINK_INPUT_PTX 2     /* PTX text, compiled by nvJitLink for the link's architecture */
#define CUABI_LINK_INPUT_LTOIR 3   /* LTO-IR (NVRTC -dlto, nvcc -dlto -dc); needs CUABI_LINK_LTO */
#define CUABI_LINK_INPUT_FATBIN 4  /* a fatbin (nvcc -fatbin, also -dlto -dc -fatbin) */
#define CUABI_LINK_INPUT_OBJECT 5  /* a host object file with embedded device code (nvcc -dc -c) */
#define CUABI_LINK_INPUT_LIBRARY 6 /* a static library of such objects (nvcc -lib, ar) */

/* Link flags (cuabi_link_options.flags). */
typedef uint32_t cuabi_link_flags CUABI_FLAGS_FAMILY("CUABI_LINK_") CUABI_SINCE(1.2);
#define CUABI_LINK_DEFAULT 0x0u
#define CUABI_LINK_LTO 0x1u        /* link-time optimization (-lto): required when an input is LTO-IR */
#define CUABI_LINK_NO_CACHE 0x2u   /* neither look up nor store in the kernel cache: always run nvJitLink */
#define CUABI_LINK_PTX 0x4u        /* emit PTX for compute_XY instead of a CUBIN (needs CUABI_LINK_LTO) */
#define CUABI_LINK_IN_PROCESS 0x8u /* run nvJitLink in this process, not in a worker process */

/* Options for cuabi_module_link() and cuabi_module_link_offline(). Fill with
 * cuabi_link_options_init(). cuabi copies what it needs: nothing here must outlive the call. */
typedef struct CUABI_SINCE(1.2) cuabi_link_options {
    uint32_t struct_size;        /* sizeof(cuabi_link_options) */
    uint32_t flags;              /* CUABI_LINK_*; default 0 */
    CUABI_NULLABLE const char* target; /* "sm_90" (with optional 'a'/'f' suffix); NULL or "": the context
                                          device (required for cuabi_module_link_offline) */
    int32_t optimization_level;  /* -O0 to -O3 for LTO; -1 (the default): nvJitLink's own */
    uint32_t max_registers;      /* -maxrregcount; 0: no limit */
    CUABI_NULLABLE const char* const* extra_options; /* further nvJitLink options, passed as given
                                                        ("-ftz=1", "-lineinfo", ...) */
    size_t extra_option_count;
    uint32_t timeout_ms;         /* deadline for nvJitLink in its worker; 0: the compile default
                                    (600000 or $CUABI_COMPILE_TIMEOUT_MS). In-process links have none. */
    uint32_t reserved;
} cuabi_link_options;
#define CUABI_LINK_OPTIONS_INIT {sizeof(cuabi_link_options), CUABI_LINK_DEFAULT, NULL, -1, 0u, NULL, 0, 0u, 0u}

/* One input of a link: exactly one of `module`, `data` (with `size`) or `path`; zero the rest.
 * An array element, not a versioned struct: it has no struct_size and never changes. */
typedef struct CUABI_SINCE(1.2) cuabi_link_input {
    int32_t kind;                         /* CUABI_LINK_INPUT_* for data and path; 0 for a module */
    uint32_t reserved;                    /* 0 */
    CUABI_NULLABLE const void* data;      /* the input's bytes, copied during the call ... */
    size_t size;                          /* ... and their count */
    CUABI_NULLABLE const char* path;      /* a file to read (a regular file; at most 1 GiB) */
    CUABI_NULLABLE cuabi_module* module;  /* a module of this library: its image (LTO-IR, CUBIN, PTX) */
    CUABI_NULLABLE const char* name;      /* the input's name in nvJitLink's log; NULL: derived */
} cuabi_link_input;
/* Since 1.2. The most inputs one link takes. */
#define CUABI_LINK_MAX_INPUTS 4096u

#ifndef CUABI_NO_PROTOTYPES

/* Since 1.2. Fills *out_options with defaults (optimization_level -1, everything else 0/NULL). */
CUABI_API cuabi_status cuabi_link_options_init(uint32_t struct_size, CUABI_OUT cuabi_link_options* out_options) CUABI_SINCE(1.2);

/* Since 1.2. Links `input_count` inputs (at least one) with nvJitLink for the context's device (or
 * options->target) and loads the result. Returns CUABI_ERROR_INVALID_ARGUMENT for a malformed
 * input (more than CUABI_LINK_MAX_INPUTS, a non-zero reserved field, NULL or empty data, none or several of module/data/path, an unknown kind, a module kind
 * that cannot be linked, LTO-IR without CUABI_LINK_LTO) or option, CUABI_ERROR_INVALID_IMAGE for
 * damaged bytes (checked before nvJitLink sees them), CUABI_ERROR_NOT_FOUND for a path that is no
 * readable regular file, CUABI_ERROR_LINK when nvJitLink refused the link (undefined or duplicate
 * symbols, architecture mismatch: the message quotes its first error, cuabi_last_compile_log()
 * has the whole log), CUABI_ERROR_NVJITLINK_NOT_FOUND when the cache has no entry and nvJitLink
 * cannot be loaded or is older than an input needs, CUABI_ERROR_TIMEOUT when it ran past
 * options->timeout_ms, CUABI_ERROR_INTERNAL when its worker crashed. The caller owns *out_module;
 * it holds no reference to the input modules. */
CUABI_API cuabi_status cuabi_module_link(cuabi_context* context, const cuabi_link_input* inputs, size_t input_count, CUABI_NULLABLE const cuabi_link_options* options, CUABI_OUT CUABI_OWNED cuabi_module** out_module) CUABI_SINCE(1.2);

/* Since 1.2. As cuabi_module_link() for options->target (required), without a context, driver or
 * GPU. The module is not loaded: read it with cuabi_module_get_image(), cuabi_module_get_log()
 * and cuabi_module_get_kernel_names(). */
CUABI_API cuabi_status cuabi_module_link_offline(const cuabi_link_input* inputs, size_t input_count, const cuabi_link_options* options, CUABI_OUT CUABI_OWNED cuabi_module** out_module) CUABI_SINCE(1.2);

/* Since 1.2. The names of the module's kernels (__global__ entry points), one per line in the
 * order of the image's symbol table, read from a CUBIN without a GPU (two-call; "" for a module
 * without kernels). Returns CUABI_ERROR_UNSUPPORTED for PTX, fatbin and LTO-IR modules. */
CUABI_API cuabi_status cuabi_module_get_kernel_names(cuabi_module* module, CUABI_OUT CUABI_NULLABLE char* out_text, size_t capacity, CUABI_OUT size_t* out_size) CUABI_SINCE(1.2);

/* Since 1.2. The version of the nvJitLink cuabi links with, loading it in this process when it is
 * not loaded yet (as cuabi_nvrtc_get_version() loads NVRTC). Returns
 * CUABI_ERROR_NVJITLINK_NOT_FOUND, saying where cuabi looked or why the file could not be loaded,
 * when there is none. Thread-safe. */
CUABI_API cuabi_status cuabi_nvjitlink_get_version(CUABI_OUT int32_t* out_major, CUABI_OUT int32_t* out_minor) CUABI_SINCE(1.2);

/* Since 1.2. The path of the nvJitLink library cuabi links with, located without loading it
 * (two-call). Returns CUABI_ERROR_NVJITLINK_NOT_FOUND, saying where cuabi looked, when there is
 * none. Thread-safe. */
CUABI_API cuabi_status cuabi_nvjitlink_get_path(CUABI_OUT CUABI_NULLABLE char* out_text, size_t capacity, CUABI_OUT size_t* out_size) CUABI_SINCE(1.2);

#endif /* CUABI_NO_PROTOTYPES */

/* ============================================================================================
 * NVRTC
 *
 * NVRTC is loaded on the first compile that misses the cache, never linked: libnvrtc.so.<major>
 * for the newest major the installed driver can load (13, then 12), or $CUABI_NVRTC_PATH.
 * These functions load it (in this process) when it is not loaded yet. Thread-safe.
 * ========================================================================================== */

#ifndef CUABI_NO_PROTOTYPES

/* The version of the NVRTC cuabi uses. Returns CUABI_ERROR_NVRTC_NOT_FOUND, saying where cuabi
 * looked, when there is none. */
CUABI_API cuabi_status cuabi_nvrtc_get_version(CUABI_OUT int32_t* out_major, CUABI_OUT int32_t* out_minor);

/* The architectures NVRTC compiles for, ascending (75 for sm_75, ...). Two-call counted in
 * elements: *out_count receives the number; `out_archs` holds `capacity` elements.
 * Returns CUABI_ERROR_NVRTC_NOT_FOUND when NVRTC cannot be loaded. */
CUABI_API cuabi_status cuabi_nvrtc_get_supported_archs(CUABI_OUT CUABI_NULLABLE int32_t* out_archs, size_t capacity, CUABI_OUT size_t* out_count);

/* The path of the NVRTC library cuabi loaded or would load (two-call). Returns
 * CUABI_ERROR_NVRTC_NOT_FOUND, saying where cuabi looked, when there is none. */
CUABI_API cuabi_status cuabi_nvrtc_get_path(CUABI_OUT CUABI_NULLABLE char* out_text, size_t capacity, CUABI_OUT size_t* out_size);

/* The toolkit include directories cuabi gives NVRTC unless CUABI_COMPILE_NO_TOOLKIT_INCLUDES is
 * set, one per line in search order (two-call; "" when no toolkit headers were found). They come
 * from $CUABI_CUDA_INCLUDE_PATH, $CUDA_HOME / $CUDA_PATH, the toolkit NVRTC was loaded from, the
 * usual install locations and pip's nvidia-* packages. Needs no GPU and does not load NVRTC. */
CUABI_API cuabi_status cuabi_nvrtc_get_include_dirs(CUABI_OUT CUABI_NULLABLE char* out_text, size_t capacity, CUABI_OUT size_t* out_size);

#endif /* CUABI_NO_PROTOTYPES */

/* ============================================================================================
 * Compile batches (since 1.2)
 *
 * A batch compiles many requests -- variants of a kernel (other -D values, other template
 * arguments in name expressions), or several sources -- in parallel, each through the kernel
 * cache exactly as cuabi_module_compile() or cuabi_module_compile_offline() would. Starting a
 * batch serves its memory-cache hits at once, in the calling thread; the rest are compiled by
 * threads of the batch on the compile-worker pool, at most $CUABI_COMPILE_WORKERS at once (1 to
 * 64; default: the cores the process may run on, at least 2), and an identical compile running
 * elsewhere in the process is joined rather than repeated. The call returns at once; each request
 * then ends on its own with a module, or with its own status, message and compile log.
 *
 * Progress is polled (cuabi_compile_batch_get_state), never called back, so any language can watch
 * it from any thread. cuabi_compile_batch_cancel() ends every request not yet done with
 * CUABI_ERROR_CANCELLED: a compile running in the worker is ended by killing the worker. A single
 * long compile is cancellable as a batch of one. Thread-safe: a batch may be read, waited on and
 * cancelled from any thread at once.
 * ========================================================================================== */

/* Since 1.2. Where a request of a batch is (cuabi_compile_batch_get_state). */
typedef int32_t cuabi_request_state CUABI_ENUM_FAMILY("CUABI_REQUEST_") CUABI_SINCE(1.2);
#define CUABI_REQUEST_QUEUED 0    /* waiting for a thread of the batch */
#define CUABI_REQUEST_COMPILING 1 /* looked up below the memory cache, or compiled by NVRTC */
#define CUABI_REQUEST_DONE 2      /* ended: its status says how */

/* Since 1.2. One request of a batch: what one cuabi_module_compile() (context set) or
 * cuabi_module_compile_offline() (context NULL: options->target is required) call takes. An array
 * element, not a versioned struct: it has no struct_size and never changes (the options it points
 * to carry theirs). cuabi copies what it needs: nothing here must outlive the start call. */
typedef struct CUABI_SINCE(1.2) cuabi_compile_request {
    CUABI_NULLABLE CUABI_BORROWED cuabi_context* context; /* NULL: compile offline, for options->target */
    const char* source;                                  /* CUDA C++, NUL-terminated */
    CUABI_NULLABLE const cuabi_compile_options* options; /* NULL: the defaults; program_name and
                                                            name_expressions are per request */
} cuabi_compile_request;

/* Since 1.2. The most requests one cuabi_compile_batch_start() call takes. */
#define CUABI_COMPILE_BATCH_MAX_REQUESTS 4096u

#ifndef CUABI_NO_PROTOTYPES

/* Since 1.2. Starts compiling requests[0..count) and returns at once with the batch in
 * *out_batch; memory-cache hits are done before it returns. `jobs` bounds the requests this batch
 * compiles at once (0: as many as $CUABI_COMPILE_WORKERS allows; more than that is capped to it).
 * count 0 gives an empty batch. A request's own compile failure is not the call's: it is that
 * request's result. The call fails, starting nothing, with CUABI_ERROR_INVALID_ARGUMENT for
 * requests NULL with count > 0, count > CUABI_COMPILE_BATCH_MAX_REQUESTS, a request whose source
 * is NULL or whose options are invalid (CUABI_ERROR_STRUCT_SIZE for a bad options->struct_size),
 * CUABI_ERROR_INVALID_HANDLE for a request's bad context -- the message then begins
 * "cuabi_compile_batch_start request k of count: " -- and, once, CUABI_ERROR_INVALID_ARGUMENT for a
 * $CUABI_COMPILE_WORKERS that is not a number from 1 to 64 (naming the value; later batches use
 * the default). Replaces this thread's last compile log. The caller owns *out_batch. */
CUABI_API cuabi_status cuabi_compile_batch_start(CUABI_NULLABLE const cuabi_compile_request* requests, size_t count, uint32_t jobs, CUABI_OUT CUABI_OWNED cuabi_compile_batch** out_batch) CUABI_SINCE(1.2);

/* Since 1.2. The number of requests of the batch. */
CUABI_API cuabi_status cuabi_compile_batch_get_count(cuabi_compile_batch* batch, CUABI_OUT size_t* out_count) CUABI_SINCE(1.2);

/* Since 1.2. Request `index`'s state (CUABI_REQUEST_*) without waiting, and its status once it is
 * CUABI_REQUEST_DONE (CUABI_SUCCESS before). CUABI_ERROR_INVALID_ARGUMENT for an index out of
 * range. */
CUABI_API cuabi_status cuabi_compile_batch_get_state(cuabi_compile_batch* batch, size_t index, CUABI_OUT int32_t* out_state, CUABI_OUT cuabi_status* out_status) CUABI_SINCE(1.2);

/* Since 1.2. Waits until request `index` is done and returns its status: its module in
 * *out_module (a new handle each call; the caller owns it), or its failure -- the statuses of
 * cuabi_module_compile(), and CUABI_ERROR_CANCELLED -- with its own message, nvrtcResult and
 * compile log on this thread (cuabi_last_error_message(), cuabi_last_compile_log()). On success
 * cuabi_last_compile_log() is the module's log. CUABI_ERROR_INVALID_ARGUMENT for an index out of
 * range. */
CUABI_API cuabi_status cuabi_compile_batch_get_module(cuabi_compile_batch* batch, size_t index, CUABI_OUT CUABI_OWNED cuabi_module** out_module) CUABI_SINCE(1.2);

/* Since 1.2. Cancels every request of the batch that is not done: each ends with
 * CUABI_ERROR_CANCELLED -- one whose NVRTC runs in the compile worker within milliseconds (the
 * worker is killed); one whose NVRTC runs in this process (CUABI_COMPILE_IN_PROCESS) only after
 * NVRTC returns. Returns without waiting. Requests already done keep their results; an identical
 * compile of another caller that this batch was sharing is compiled again for that caller. */
CUABI_API cuabi_status cuabi_compile_batch_cancel(cuabi_compile_batch* batch) CUABI_SINCE(1.2);

/* Since 1.2. Cancels what is not done, waits for the batch's threads (milliseconds, or an
 * in-process NVRTC run) and releases the batch; modules taken from it stay valid. Accepts NULL. */
CUABI_API void cuabi_compile_batch_destroy(CUABI_NULLABLE CUABI_TRANSFERRED cuabi_compile_batch* batch) CUABI_SINCE(1.2);

#endif /* CUABI_NO_PROTOTYPES */

/* ============================================================================================
 * Kernel
 *
 * A kernel is one __global__ function of a loaded module, in the module's context, taken with
 * cuabi_module_get_kernel(). It keeps its module alive. Thread-safe: one kernel may be launched
 * from several threads at once.
 * ========================================================================================== */

/* Facts about a kernel on its context's device (cuFuncGetAttribute). An output struct:
 * cuabi_kernel_attributes_init(). */
typedef struct cuabi_kernel_attributes {
    uint32_t struct_size;
    int32_t registers_per_thread;
    int32_t max_threads_per_block;           /* the kernel's own limit: <= the device's */
    int32_t static_shared_memory_bytes;
    int32_t constant_memory_bytes;
    int32_t local_memory_bytes;              /* per thread */
    int32_t max_dynamic_shared_memory_bytes; /* current limit for dynamic shared memory */
    int32_t ptx_version;                     /* virtual architecture it was compiled for: 90 = compute_90 */
    int32_t binary_version;                  /* architecture of the binary: 90 = sm_90 */
    uint32_t reserved;
} cuabi_kernel_attributes;
#define CUABI_KERNEL_ATTRIBUTES_INIT {sizeof(cuabi_kernel_attributes), 0, 0, 0, 0, 0, 0, 0, 0, 0u}

/* Attributes a caller may set on a kernel (cuabi_kernel_set_attribute), since 1.1. */
typedef int32_t cuabi_kernel_attribute CUABI_ENUM_FAMILY("CUABI_KERNEL_ATTRIBUTE_") CUABI_SINCE(1.2);
#define CUABI_KERNEL_ATTRIBUTE_SHARED_MEMORY_CARVEOUT 1 /* preferred share of the L1/shared memory
                                                           array for shared memory, in percent 0..100,
                                                           or -1 for no preference; a hint */
#define CUABI_KERNEL_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE 2 /* 1: allow clusters above 8 blocks (up to
                                                              16 on sm_90) where the device has them */
#define CUABI_KERNEL_ATTRIBUTE_CACHE_CONFIG 3 /* CUABI_CACHE_PREFER_*: L1 vs shared memory split */

/* Values of CUABI_KERNEL_ATTRIBUTE_CACHE_CONFIG (CUfunc_cache). */
typedef int32_t cuabi_cache_config CUABI_ENUM_FAMILY("CUABI_CACHE_PREFER_") CUABI_SINCE(1.2);
#define CUABI_CACHE_PREFER_NONE 0
#define CUABI_CACHE_PREFER_SHARED 1
#define CUABI_CACHE_PREFER_L1 2
#define CUABI_CACHE_PREFER_EQUAL 3

#ifndef CUABI_NO_PROTOTYPES

/* Prepares *out_attributes for a call that fills it (see "Structs" above). */
CUABI_API cuabi_status cuabi_kernel_attributes_init(uint32_t struct_size, CUABI_OUT cuabi_kernel_attributes* out_attributes);

/* Releases the kernel. */
CUABI_API void cuabi_kernel_destroy(CUABI_NULLABLE CUABI_TRANSFERRED cuabi_kernel* kernel);

/* The kernel's registers, thread limit, static shared/constant/local memory and PTX/binary
 * versions on its device (set out_attributes->struct_size first). */
CUABI_API cuabi_status cuabi_kernel_get_attributes(cuabi_kernel* kernel, CUABI_INOUT cuabi_kernel_attributes* out_attributes);

/* The underlying CUfunction (of the kernel's context), for interoperating with other CUDA code.
 * Not owned by the caller; valid while the kernel handle lives. */
CUABI_API cuabi_status cuabi_kernel_get_native(cuabi_kernel* kernel, CUABI_OUT CUABI_BORROWED void** out_cu_function);

/* The number of parameters `kernel` takes. CUABI_ERROR_UNSUPPORTED when the driver is older than
 * CUDA 12.4 (no cuFuncGetParamInfo). */
CUABI_API cuabi_status cuabi_kernel_get_param_count(cuabi_kernel* kernel, CUABI_OUT size_t* out_count);

/* Where parameter `index` lies in the kernel's parameter buffer: its byte offset and size (the
 * layout cuabi_launch_packed() expects). CUABI_ERROR_OUT_OF_BOUNDS for index >= the parameter count,
 * CUABI_ERROR_UNSUPPORTED as for cuabi_kernel_get_param_count(). */
CUABI_API cuabi_status cuabi_kernel_get_param_info(cuabi_kernel* kernel, size_t index, CUABI_OUT size_t* out_offset, CUABI_OUT size_t* out_size);

/* How many blocks of `block_threads` threads with `shared_memory_bytes` of dynamic shared memory
 * can be resident on one multiprocessor at once (the driver's occupancy calculator; 0 when none
 * fits). A cooperative grid may have at most this times the multiprocessor count blocks.
 * CUABI_ERROR_LAUNCH_BLOCK / _KERNEL_THREADS / _SHARED_MEMORY for values no launch could use. */
CUABI_API cuabi_status cuabi_kernel_get_max_active_blocks_per_sm(cuabi_kernel* kernel, uint32_t block_threads, uint32_t shared_memory_bytes, CUABI_OUT uint32_t* out_blocks);

/* The block size (threads) that gives `kernel` the highest occupancy with `shared_memory_bytes` of
 * dynamic shared memory per block, and the smallest grid (blocks) that fills the device with it. */
CUABI_API cuabi_status cuabi_kernel_suggest_block_size(cuabi_kernel* kernel, uint32_t shared_memory_bytes, CUABI_OUT uint32_t* out_block_threads, CUABI_OUT uint32_t* out_min_grid_blocks);

/* Since 1.1. Sets one CUABI_KERNEL_ATTRIBUTE_* of the kernel's function for every later launch
 * (and every kernel handle of the same function in this context), checked against the device:
 * CUABI_ERROR_INVALID_ARGUMENT for an unknown attribute or a value outside its range,
 * CUABI_ERROR_UNSUPPORTED for a non-portable cluster size on a device without clusters. Launches
 * already checked keep their results; the next launch re-reads the limits the attribute changes
 * (the largest cluster it may use). Thread-safe, but racing launches may see either setting. */
CUABI_API cuabi_status cuabi_kernel_set_attribute(cuabi_kernel* kernel, int32_t attribute, int32_t value) CUABI_SINCE(1.1);

#endif /* CUABI_NO_PROTOTYPES */

/* ============================================================================================
 * Launch
 *
 * A launch is checked before the driver sees it: grid, block and cluster dimensions against the
 * device, threads per block against the kernel's own limit (launch bounds, registers), shared
 * memory against the device's opt-in maximum, cooperative grids against co-residency, and every
 * argument against the kernel's real parameter layout. Each failed check has its own status and a
 * message naming the kernel, the values and the limit. The check uses facts cached per kernel on
 * its first launch, so later launches allocate nothing and take no lock; a plain launch on a cuabi
 * stream (no flags, no cluster) then costs within a few percent of cuLaunchKernel itself
 * (share/doc/cuabi/performance.md). Launches are thread-safe: any number of threads may launch the
 * same kernel, each on its own stream or on a shared one.
 *
 * Statuses of the launch functions beyond the common ones:
 *   CUABI_ERROR_LAUNCH_GRID / _BLOCK      a dimension is 0 or above the device's limit
 *   CUABI_ERROR_LAUNCH_KERNEL_THREADS     more threads per block than this kernel allows
 *   CUABI_ERROR_LAUNCH_SHARED_MEMORY      static + dynamic shared memory above the device's maximum
 *   CUABI_ERROR_LAUNCH_COOPERATIVE        cooperative launch unsupported, or the grid cannot be resident
 *   CUABI_ERROR_LAUNCH_CLUSTER            cluster unsupported, malformed, or too large for the kernel
 *   CUABI_ERROR_ARGUMENT_COUNT / _SIZE    arguments do not match the kernel's parameters
 *   CUABI_ERROR_CONTEXT_MISMATCH          the stream belongs to another device than the kernel
 *   CUABI_ERROR_LAUNCH_FAILED             the driver refused the launch (cuabi_last_cu_result() has the
 *                                         CUresult; an earlier kernel's fault also surfaces here)
 * Without cuFuncGetParamInfo (drivers before CUDA 12.4) argument counts and sizes cannot be
 * checked; only NULL values and zero sizes are. A launch refused on a stream that captures ends
 * the capture if cuabi began it (see the Graph group).
 * ========================================================================================== */

/* Launch flags (cuabi_launch_config.flags). */
typedef uint32_t cuabi_launch_flags CUABI_FLAGS_FAMILY("CUABI_LAUNCH_") CUABI_SINCE(1.2);
#define CUABI_LAUNCH_DEFAULT 0x0u
#define CUABI_LAUNCH_COOPERATIVE 0x1u /* all blocks resident at once, so the kernel may sync the whole grid */
#define CUABI_LAUNCH_SYNCHRONIZE 0x2u /* wait until the kernel has finished before returning */
/* Since 1.1 (both go through cuLaunchKernelEx): */
#define CUABI_LAUNCH_PRIORITY 0x4u /* run at cuabi_launch_config.priority instead of the stream's */
#define CUABI_LAUNCH_PROGRAMMATIC_DEPENDENT 0x8u /* programmatic dependent launch (sm_90+): this kernel
                                                    may start before the previous kernel on the stream
                                                    finishes; it must call cudaGridDependencySynchronize()
                                                    before reading what that kernel writes */

/* How to launch a kernel: geometry, shared memory, stream and flags. Fill it with
 * cuabi_launch_config_init() (one block of one thread, no cluster, no dynamic shared memory,
 * NULL stream), then set what you need. */
typedef struct cuabi_launch_config {
    uint32_t struct_size;         /* sizeof(cuabi_launch_config) */
    uint32_t flags;               /* CUABI_LAUNCH_*; default 0 */
    uint32_t grid[3];             /* blocks in x, y, z; every dimension >= 1 */
    uint32_t block[3];            /* threads per block in x, y, z; every dimension >= 1 */
    uint32_t cluster[3];          /* blocks per thread block cluster (sm_90+); {0,0,0} = no cluster */
    uint32_t shared_memory_bytes; /* dynamic shared memory per block; above 48 KiB cuabi opts the kernel in */
    CUABI_NULLABLE cuabi_stream* stream; /* NULL: run on the calling thread's per-thread stream and wait */
    /* Since 1.1; a struct_size from a 1.0 header means 0 for both. */
    CUABI_SINCE(1.1) int32_t priority; /* with CUABI_LAUNCH_PRIORITY: lower runs first, 0 is the default;
                                     clamped to the device's range as stream priorities are */
    CUABI_SINCE(1.1) uint32_t reserved;
} cuabi_launch_config;
#define CUABI_LAUNCH_CONFIG_INIT {sizeof(cuabi_launch_config), CUABI_LAUNCH_DEFAULT, {1u, 1u, 1u}, {1u, 1u, 1u}, {0u, 0u, 0u}, 0u, NULL, 0, 0u}

/* One kernel argument for cuabi_launch(): the address of the value and its size in bytes (a
 * device pointer is passed as the address of a variable holding it, size 8). An array element,
 * not a versioned struct: it has no struct_size and never changes. */
typedef struct cuabi_kernel_arg {
    const void* value;
    size_t size;
} cuabi_kernel_arg;

#ifndef CUABI_NO_PROTOTYPES

/* Fills *out_config with the defaults of CUABI_LAUNCH_CONFIG_INIT. */
CUABI_API cuabi_status cuabi_launch_config_init(uint32_t struct_size, CUABI_OUT cuabi_launch_config* out_config);

/* Launches `kernel` with one cuabi_kernel_arg per kernel parameter, in declaration order
 * (arg_count <= 256; use cuabi_launch_packed for more). config NULL means the defaults. The values
 * are copied before the call returns. With a NULL config->stream, or CUABI_LAUNCH_SYNCHRONIZE, the
 * call waits for the kernel to finish. */
CUABI_API cuabi_status cuabi_launch(cuabi_kernel* kernel, CUABI_NULLABLE const cuabi_launch_config* config, CUABI_NULLABLE const cuabi_kernel_arg* args, size_t arg_count);

/* Like cuabi_launch(), with all arguments in one buffer of packed_size bytes, each at the offset
 * cuabi_kernel_get_param_info() reports; packed_size is where the last parameter ends. For callers
 * that cannot build pointer tables (cgo). The buffer is copied before the call returns. */
CUABI_API cuabi_status cuabi_launch_packed(cuabi_kernel* kernel, CUABI_NULLABLE const cuabi_launch_config* config, CUABI_NULLABLE const void* packed, size_t packed_size);

/* Since 1.1. How many clusters of config->cluster blocks, each block of config->block threads
 * with config->shared_memory_bytes of dynamic shared memory, can be resident on the device at
 * once (cuOccupancyMaxActiveClusters; 0 when none fits). config->grid, stream and flags are
 * ignored. CUABI_ERROR_LAUNCH_CLUSTER when the device has no clusters or the cluster is malformed
 * or above the kernel's limit, CUABI_ERROR_LAUNCH_BLOCK / _KERNEL_THREADS / _SHARED_MEMORY as for
 * a launch. */
CUABI_API cuabi_status cuabi_kernel_get_max_active_clusters(cuabi_kernel* kernel, const cuabi_launch_config* config, CUABI_OUT uint32_t* out_clusters) CUABI_SINCE(1.1);

#endif /* CUABI_NO_PROTOTYPES */

/* Since 1.2. One launch of a batch (cuabi_launch_batch): what one cuabi_launch() or
 * cuabi_launch_packed() call takes. The item uses the packed form when `packed` is not NULL (args
 * must then be NULL and arg_count 0), the table form otherwise. An array element, not a versioned
 * struct: it has no struct_size and never changes. */
typedef struct CUABI_SINCE(1.2) cuabi_launch_item {
    cuabi_kernel* kernel;
    CUABI_NULLABLE const cuabi_launch_config* config; /* NULL: the defaults, as for cuabi_launch() */
    CUABI_NULLABLE const cuabi_kernel_arg* args;      /* table form: arg_count entries */
    size_t arg_count;
    CUABI_NULLABLE const void* packed;                /* packed form: packed_size bytes */
    size_t packed_size;
} cuabi_launch_item;

/* Since 1.2. The most items one cuabi_launch_batch() call takes. */
#define CUABI_LAUNCH_BATCH_MAX_ITEMS 4096u

#ifndef CUABI_NO_PROTOTYPES

/* Since 1.2. Launches items[0..count) in order, each checked and submitted exactly as
 * cuabi_launch() / cuabi_launch_packed() would (same statuses, counters, profiler ranges; on a
 * capturing stream each becomes a node, in order). When item k is refused, items 0..k-1 stay
 * submitted, nothing after k is, the call returns k's status, *out_submitted is k and the message
 * begins "cuabi_launch_batch item k of count: ". *out_submitted is written on every return (count
 * on success, 0 for a refused batch). count 0 succeeds and does nothing. CUABI_ERROR_INVALID_ARGUMENT
 * for items NULL with count > 0, count > CUABI_LAUNCH_BATCH_MAX_ITEMS, or an item with both args
 * and packed. Allocates nothing after each kernel's first launch. Thread-safe as cuabi_launch(). */
CUABI_API cuabi_status cuabi_launch_batch(CUABI_NULLABLE const cuabi_launch_item* items, size_t count, CUABI_OUT size_t* out_submitted) CUABI_SINCE(1.2);

#endif /* CUABI_NO_PROTOTYPES */

/* ============================================================================================
 * Tensor maps (since 1.2)
 *
 * A tensor map describes a tile-by-tile view of a tensor in a cuabi buffer for the Tensor Memory
 * Accelerator (TMA) of compute capability 9.0 and later: kernels take it by value as a
 * `const __grid_constant__ CUtensorMap` parameter and copy tiles with cp.async.bulk.tensor. cuabi
 * checks each of the driver's rules before the driver sees them and names the rule and the values
 * it broke; the launch checks know the parameter (128 bytes, at the offset the compiler gave it)
 * like any other. A tensor map is a plain value: it holds the buffer's device address, not the
 * buffer, so the buffer must outlive every kernel that uses it, and a graph that launches such a
 * kernel does not keep the buffer alive (cuabi_graph_retain_buffer() does). Thread-safe.
 * ========================================================================================== */

/* Since 1.2. Element types of a tensor map (cuabi_tensor_map_params.data_type); the values are
 * those of CUtensorMapDataType. */
typedef int32_t cuabi_tensor_data_type CUABI_ENUM_FAMILY("CUABI_TENSOR_DATA_") CUABI_SINCE(1.2);
#define CUABI_TENSOR_DATA_UINT8 0
#define CUABI_TENSOR_DATA_UINT16 1
#define CUABI_TENSOR_DATA_UINT32 2
#define CUABI_TENSOR_DATA_INT32 3
#define CUABI_TENSOR_DATA_UINT64 4
#define CUABI_TENSOR_DATA_INT64 5
#define CUABI_TENSOR_DATA_FLOAT16 6
#define CUABI_TENSOR_DATA_FLOAT32 7
#define CUABI_TENSOR_DATA_FLOAT64 8
#define CUABI_TENSOR_DATA_BFLOAT16 9
#define CUABI_TENSOR_DATA_FLOAT32_FTZ 10
#define CUABI_TENSOR_DATA_TFLOAT32 11
#define CUABI_TENSOR_DATA_TFLOAT32_FTZ 12

/* Since 1.2. Interleaved layouts (cuabi_tensor_map_params.interleave); CUtensorMapInterleave. */
typedef int32_t cuabi_tensor_interleave CUABI_ENUM_FAMILY("CUABI_TENSOR_INTERLEAVE_") CUABI_SINCE(1.2);
#define CUABI_TENSOR_INTERLEAVE_NONE 0
#define CUABI_TENSOR_INTERLEAVE_16B 1
#define CUABI_TENSOR_INTERLEAVE_32B 2

/* Since 1.2. Shared memory swizzles (cuabi_tensor_map_params.swizzle); CUtensorMapSwizzle. */
typedef int32_t cuabi_tensor_swizzle CUABI_ENUM_FAMILY("CUABI_TENSOR_SWIZZLE_") CUABI_SINCE(1.2);
#define CUABI_TENSOR_SWIZZLE_NONE 0
#define CUABI_TENSOR_SWIZZLE_32B 1
#define CUABI_TENSOR_SWIZZLE_64B 2
#define CUABI_TENSOR_SWIZZLE_128B 3
#define CUABI_TENSOR_SWIZZLE_128B_ATOM_32B 4
#define CUABI_TENSOR_SWIZZLE_128B_ATOM_32B_FLIP_8B 5
#define CUABI_TENSOR_SWIZZLE_128B_ATOM_64B 6

/* Since 1.2. L2 fetch sizes (cuabi_tensor_map_params.l2_promotion); CUtensorMapL2promotion. */
typedef int32_t cuabi_tensor_l2_promotion CUABI_ENUM_FAMILY("CUABI_TENSOR_L2_PROMOTION_") CUABI_SINCE(1.2);
#define CUABI_TENSOR_L2_PROMOTION_NONE 0
#define CUABI_TENSOR_L2_PROMOTION_64B 1
#define CUABI_TENSOR_L2_PROMOTION_128B 2
#define CUABI_TENSOR_L2_PROMOTION_256B 3

/* Since 1.2. What out-of-bounds elements read as (cuabi_tensor_map_params.oob_fill);
 * CUtensorMapFloatOOBfill. */
typedef int32_t cuabi_tensor_oob_fill CUABI_ENUM_FAMILY("CUABI_TENSOR_OOB_FILL_") CUABI_SINCE(1.2);
#define CUABI_TENSOR_OOB_FILL_ZERO 0            /* zeros */
#define CUABI_TENSOR_OOB_FILL_NAN_REQUEST_ZERO_FMA 1 /* a NaN that FMA treats as zero; floating-point types only */

/* Since 1.2. The most dimensions a tensor map has. */
#define CUABI_TENSOR_MAP_MAX_RANK 5u

/* Since 1.2. A tiled tensor map over a buffer, for cuabi_tensor_map_encode_tiled(). Dimension 0 is
 * the innermost (contiguous) one; entries at and after `rank` are ignored. The driver's rules, each
 * checked by cuabi: rank 1 to 5 (at least 3 with interleave); every global_dims[i] 1 to 2^32; the
 * rank - 1 global_strides (bytes; [i] is dimension i + 1's) each a non-zero multiple of 16 (32 with
 * CUABI_TENSOR_INTERLEAVE_32B) below 2^40; every box_dims[i] 1 to 256 and, without interleave,
 * box_dims[0] * element size a multiple of 16 bytes and no more than the swizzle's span (32, 64 or
 * 128 bytes); every element_strides[i] 1 to 8; CUABI_TENSOR_INTERLEAVE_32B only with
 * CUABI_TENSOR_SWIZZLE_32B; the NaN fill only for floating-point types. The tensor's address
 * (buffer address + offset) must be 16-byte aligned (32 with CUABI_TENSOR_INTERLEAVE_32B) and
 * every element it spans must lie inside the buffer. */
typedef struct CUABI_SINCE(1.2) cuabi_tensor_map_params {
    uint32_t struct_size;           /* sizeof(cuabi_tensor_map_params) */
    int32_t data_type;              /* CUABI_TENSOR_DATA_*; default FLOAT32 */
    uint32_t rank;                  /* dimensions, 1 to CUABI_TENSOR_MAP_MAX_RANK; default 0: must be set */
    int32_t interleave;             /* CUABI_TENSOR_INTERLEAVE_*; default NONE */
    int32_t swizzle;                /* CUABI_TENSOR_SWIZZLE_*; default NONE */
    int32_t l2_promotion;           /* CUABI_TENSOR_L2_PROMOTION_*; default NONE */
    int32_t oob_fill;               /* CUABI_TENSOR_OOB_FILL_*; default ZERO */
    uint32_t reserved;              /* must be 0 */
    uint64_t offset;                /* bytes into the buffer where element (0, ..., 0) lies */
    uint64_t global_dims[5];        /* elements along each dimension */
    uint64_t global_strides[4];     /* bytes from one index of dimension i + 1 to the next */
    uint32_t box_dims[5];           /* elements of one tile (box) along each dimension */
    uint32_t element_strides[5];    /* traversal step along each dimension; default 1 */
} cuabi_tensor_map_params;
#define CUABI_TENSOR_MAP_PARAMS_INIT                                                                         \
    {sizeof(cuabi_tensor_map_params), CUABI_TENSOR_DATA_FLOAT32, 0u, CUABI_TENSOR_INTERLEAVE_NONE,            \
     CUABI_TENSOR_SWIZZLE_NONE, CUABI_TENSOR_L2_PROMOTION_NONE, CUABI_TENSOR_OOB_FILL_ZERO, 0u, 0u, {0u, 0u, 0u, 0u, 0u}, \
     {0u, 0u, 0u, 0u}, {0u, 0u, 0u, 0u, 0u}, {1u, 1u, 1u, 1u, 1u}}

/* Since 1.2. An encoded tensor map: the driver's 128-byte CUtensorMap, opaque, passed to a kernel
 * as the value of its CUtensorMap parameter (a cuabi_kernel_arg {&map, sizeof map}, or copied into
 * a packed buffer at the parameter's offset). A value, not a versioned struct: it has no struct_size
 * and never changes. It is 8-byte aligned, not 64 like CUtensorMap: cuabi encodes into aligned
 * memory and copies out, and a launch copies argument bytes from any address, so no compiler
 * extension is needed; C++ code that wants a CUtensorMap object copies the bytes into one. */
typedef struct CUABI_SINCE(1.2) cuabi_tensor_map {
    uint64_t opaque[16];
} cuabi_tensor_map;

#ifndef CUABI_NO_PROTOTYPES

/* Since 1.2. Fills *out_params with the defaults of CUABI_TENSOR_MAP_PARAMS_INIT. */
CUABI_API cuabi_status cuabi_tensor_map_params_init(uint32_t struct_size, CUABI_OUT cuabi_tensor_map_params* out_params) CUABI_SINCE(1.2);

/* Since 1.2. Encodes a tiled tensor map over `buffer` (cuTensorMapEncodeTiled) into *out_map.
 * The rules on *params (see cuabi_tensor_map_params) are checked first, then the buffer:
 * CUABI_ERROR_INVALID_ARGUMENT for a broken rule or a misaligned address, CUABI_ERROR_OUT_OF_BOUNDS
 * when the tensor reaches past the buffer -- each message names the rule and its values --,
 * CUABI_ERROR_UNSUPPORTED on a device before compute capability 9.0 or a driver without tensor
 * maps, CUABI_ERROR_CUDA when the driver still refuses. The map stays valid while the buffer lives. */
CUABI_API cuabi_status cuabi_tensor_map_encode_tiled(cuabi_buffer* buffer, const cuabi_tensor_map_params* params, CUABI_OUT cuabi_tensor_map* out_map) CUABI_SINCE(1.2);

#endif /* CUABI_NO_PROTOTYPES */

/* ============================================================================================
 * Graph
 *
 * Capture a sequence of cuabi (or raw CUDA) calls on a stream once, then replay it with one call:
 *
 *     cuabi_graph_capture_begin(stream, CUABI_CAPTURE_MODE_THREAD_LOCAL);
 *     cuabi_launch(...); cuabi_buffer_fill(...); ...      (enqueued, not run: the stream captures)
 *     cuabi_graph_capture_end(stream, NULL, &graph);      (the captured graph, instantiated)
 *     cuabi_graph_launch(graph, stream);                  (replay, as often as needed)
 *
 * A cuabi_graph owns both the captured graph and its executable. Launches into a capturing stream
 * are validated exactly as always. When a cuabi call on a stream that captures fails -- a launch
 * refused by validation, an invalid capture, a bad argument to capture_end -- and cuabi began that
 * capture, cuabi ends and discards it, so the stream never stays capturing, and the message says
 * so. A capture begun by other code (cuStreamBeginCapture on a wrapped stream) is never ended by
 * cuabi: the failure is reported and the capture left to its owner. (A global or thread-local
 * capture can also only be ended on the thread that began it.)
 *
 * Nodes are numbered in the order the driver lists them, which is the order they were captured;
 * every node comes after the nodes it depends on, and two captures of the same sequence number
 * their nodes alike. The executable can be updated in place: a kernel node's arguments and
 * geometry (validated like a launch; cuabi keeps a copy of the arguments, since the executable
 * cannot report them), a memset node's value, or everything at once from a new capture.
 *
 * What a graph keeps alive: its context; the cuabi kernels it launches; every cuabi buffer that a
 * captured cuabi transfer (write, read, copy, fill) touches; since 1.2, every cuabi-allocated
 * buffer that a pointer-sized (8-byte) argument of a cuabi launch points into, captured while a
 * capture begun by cuabi_graph_capture_begin runs, or set by cuabi_graph_update_kernel_args; and
 * every buffer passed to cuabi_graph_retain_buffer(). A buffer reached otherwise -- an address
 * inside a struct argument or in device memory, a launch into a capture other code began, wrapped
 * memory -- is not known to cuabi: retain it explicitly, or keep it alive yourself, for as long as
 * the graph may replay. Kernels and memory from other libraries stay their owner's responsibility.
 * A captured transfer's buffer is handed to the CUDA graph being captured (a CUDA user object),
 * also when other code began the capture: it then lives as long as that graph and every graph
 * cloned or instantiated from it, replays in flight included, and its memory is freed at cuabi's
 * next call that allocates or destroys after the last of them dies.
 * Thread safety: any thread may use a graph; calls on one graph are serialized by a per-graph
 * lock (uncontended unless threads really share it).
 * ========================================================================================== */

/* Capture modes (cuabi_graph_capture_begin): which CUDA calls that are unsafe while a stream
 * captures (synchronous allocation, synchronizing the device, ...) are refused, and where. */
typedef int32_t cuabi_capture_mode CUABI_ENUM_FAMILY("CUABI_CAPTURE_MODE_") CUABI_SINCE(1.2);
#define CUABI_CAPTURE_MODE_GLOBAL 0       /* refused on every thread of the process */
#define CUABI_CAPTURE_MODE_THREAD_LOCAL 1 /* refused on the thread that began the capture */
#define CUABI_CAPTURE_MODE_RELAXED 2      /* never refused; the capture may end on any thread */

/* A stream's capture status (cuabi_graph_capture_get_status). */
typedef int32_t cuabi_capture_status CUABI_ENUM_FAMILY("CUABI_CAPTURE_STATUS_") CUABI_SINCE(1.2);
#define CUABI_CAPTURE_STATUS_NONE 0        /* the stream does not capture */
#define CUABI_CAPTURE_STATUS_ACTIVE 1      /* the stream captures */
#define CUABI_CAPTURE_STATUS_INVALIDATED 2 /* the capture was invalidated and still needs ending */

/* Graph flags (cuabi_graph_options.flags). */
typedef uint32_t cuabi_graph_flags CUABI_FLAGS_FAMILY("CUABI_GRAPH_") CUABI_SINCE(1.2);
#define CUABI_GRAPH_DEFAULT 0x0u
#define CUABI_GRAPH_AUTO_FREE_ON_LAUNCH 0x1u /* memory allocated in the graph and not freed is freed before a relaunch */
#define CUABI_GRAPH_USE_NODE_PRIORITY 0x2u   /* run kernel nodes at their captured stream priorities */
#define CUABI_GRAPH_UPLOAD 0x4u              /* upload to the device on the capturing stream right after instantiation */

/* Options for cuabi_graph_capture_end(). */
typedef struct cuabi_graph_options {
    uint32_t struct_size; /* sizeof(cuabi_graph_options) */
    uint32_t flags;       /* CUABI_GRAPH_*; default 0 */
} cuabi_graph_options;
#define CUABI_GRAPH_OPTIONS_INIT {sizeof(cuabi_graph_options), CUABI_GRAPH_DEFAULT}

/* Node kinds (cuabi_graph_node_info.kind). */
typedef int32_t cuabi_graph_node_kind CUABI_ENUM_FAMILY("CUABI_GRAPH_NODE_") CUABI_SINCE(1.2);
#define CUABI_GRAPH_NODE_OTHER 0              /* a kind this version of cuabi does not know */
#define CUABI_GRAPH_NODE_KERNEL 1
#define CUABI_GRAPH_NODE_MEMCPY 2
#define CUABI_GRAPH_NODE_MEMSET 3
#define CUABI_GRAPH_NODE_HOST 4
#define CUABI_GRAPH_NODE_CHILD_GRAPH 5
#define CUABI_GRAPH_NODE_EMPTY 6
#define CUABI_GRAPH_NODE_EVENT_WAIT 7
#define CUABI_GRAPH_NODE_EVENT_RECORD 8
#define CUABI_GRAPH_NODE_EXT_SEMAPHORE_SIGNAL 9
#define CUABI_GRAPH_NODE_EXT_SEMAPHORE_WAIT 10
#define CUABI_GRAPH_NODE_MEM_ALLOC 11
#define CUABI_GRAPH_NODE_MEM_FREE 12
#define CUABI_GRAPH_NODE_BATCH_MEM_OP 13
#define CUABI_GRAPH_NODE_CONDITIONAL 14

/* cuabi_graph_node_info.param_count when the driver cannot tell the layout (cuFuncGetParamInfo
 * needs a CUDA 12.4 driver). */
#define CUABI_GRAPH_PARAM_COUNT_UNKNOWN 0xFFFFFFFFu

/* One node of a graph (cuabi_graph_get_node_info). An output struct: cuabi_graph_node_info_init().
 * Fields that do not apply to the node's kind are zero. */
typedef struct cuabi_graph_node_info {
    uint32_t struct_size;
    int32_t kind;                 /* CUABI_GRAPH_NODE_* */
    /* Kernel nodes: */
    CUABI_NULLABLE CUABI_BORROWED cuabi_kernel* kernel; /* the cuabi kernel it launches, or NULL when it did not come from cuabi
                                     (borrowed: valid while the graph lives and launches that kernel,
                                     the same handle on every call; do not destroy it) */
    uint32_t grid[3];
    uint32_t block[3];
    uint32_t shared_memory_bytes; /* dynamic shared memory per block */
    uint32_t param_count;         /* CUABI_GRAPH_PARAM_COUNT_UNKNOWN when the driver cannot tell */
    uint64_t param_bytes;         /* size of the packed argument buffer (cuabi_graph_update_kernel_args_packed) */
    /* Memset nodes: */
    uint32_t memset_value;
    uint32_t memset_element_size; /* 1, 2 or 4 bytes */
    /* Conditional nodes (since 1.2; a smaller struct_size leaves them out): */
    CUABI_SINCE(1.2) int32_t conditional_type;   /* CUABI_GRAPH_CONDITIONAL_* */
    CUABI_SINCE(1.2) uint32_t conditional_body_count; /* body graphs: 1 for while, 1 or 2 for if, n for switch */
    CUABI_SINCE(1.2) uint64_t condition;         /* the condition (cuabi_graph_condition_create) the node tests */
    CUABI_SINCE(1.2) uint64_t conditional_body_nodes; /* nodes in its bodies, nested bodies included */
} cuabi_graph_node_info;
#define CUABI_GRAPH_NODE_INFO_INIT {sizeof(cuabi_graph_node_info), 0, NULL, {0u, 0u, 0u}, {0u, 0u, 0u}, 0u, 0u, 0u, 0u, 0u, 0, 0u, 0u, 0u}

/* Conditional node types (cuabi_graph_capture_conditional_begin, cuabi_graph_node_info), since 1.2. */
typedef int32_t cuabi_graph_conditional_type CUABI_ENUM_FAMILY("CUABI_GRAPH_CONDITIONAL_") CUABI_SINCE(1.2);
#define CUABI_GRAPH_CONDITIONAL_IF 1     /* body 0 runs once when the condition is non-zero; body 1 (if any) when it is zero */
#define CUABI_GRAPH_CONDITIONAL_WHILE 2  /* the body runs again and again while the condition is non-zero */
#define CUABI_GRAPH_CONDITIONAL_SWITCH 3 /* body n runs once when the condition is n; none when it is >= the body count */

/* Condition flags (cuabi_graph_condition_create), since 1.2. */
typedef uint32_t cuabi_graph_condition_flags CUABI_FLAGS_FAMILY("CUABI_GRAPH_CONDITION_") CUABI_SINCE(1.2);
#define CUABI_GRAPH_CONDITION_DEFAULT 0x0u        /* the condition keeps its value from one replay to the next */
#define CUABI_GRAPH_CONDITION_ASSIGN_DEFAULT 0x1u /* every replay starts with the condition at default_value */

/* Whole-graph update flags (cuabi_graph_capture_end_update). */
typedef uint32_t cuabi_graph_update_flags CUABI_FLAGS_FAMILY("CUABI_GRAPH_UPDATE_") CUABI_SINCE(1.2);
#define CUABI_GRAPH_UPDATE_DEFAULT 0x0u
#define CUABI_GRAPH_UPDATE_NO_REINSTANTIATE 0x1u /* fail with CUABI_ERROR_GRAPH_UPDATE instead of rebuilding */

/* DOT dump flags (cuabi_graph_write_dot, cuabi_graph_get_dot), since 1.1. */
typedef uint32_t cuabi_graph_dot_flags CUABI_FLAGS_FAMILY("CUABI_GRAPH_DOT_") CUABI_SINCE(1.2);
#define CUABI_GRAPH_DOT_DEFAULT 0x0u /* node kinds, kernel names, geometry and dependencies */
#define CUABI_GRAPH_DOT_VERBOSE 0x1u /* every parameter the driver knows of every node */

/* New end points for a memcpy node (cuabi_graph_update_memcpy), since 1.1: a range of a cuabi
 * buffer, or host memory, on each side -- exactly one of dst_buffer / dst_host, and one of
 * src_buffer / src_host. The direction (host to device, device to host, device to device) must
 * be the captured node's. Host memory must stay valid while the graph may replay. */
typedef struct CUABI_SINCE(1.1) cuabi_graph_memcpy_params {
    uint32_t struct_size;     /* sizeof(cuabi_graph_memcpy_params) */
    uint32_t reserved;
    CUABI_NULLABLE cuabi_buffer* dst_buffer; /* destination buffer, or NULL for dst_host */
    CUABI_NULLABLE void* dst_host;         /* destination host memory, or NULL for dst_buffer */
    uint64_t dst_offset;      /* bytes into dst_buffer; 0 with dst_host */
    CUABI_NULLABLE cuabi_buffer* src_buffer; /* source buffer, or NULL for src_host */
    CUABI_NULLABLE const void* src_host;   /* source host memory, or NULL for src_buffer */
    uint64_t src_offset;      /* bytes into src_buffer; 0 with src_host */
    uint64_t size;            /* bytes to copy, >= 1 */
} cuabi_graph_memcpy_params;
#define CUABI_GRAPH_MEMCPY_PARAMS_INIT {sizeof(cuabi_graph_memcpy_params), 0u, NULL, NULL, 0u, NULL, NULL, 0u, 0u}

/* What a whole-graph update did (cuabi_graph_capture_end_update). An output struct:
 * cuabi_graph_update_info_init(). */
typedef struct cuabi_graph_update_info {
    uint32_t struct_size;
    uint32_t reinstantiated;   /* boolean: the executable could not be updated in place and was rebuilt */
    int32_t driver_result;     /* the driver's CUgraphExecUpdateResult; 0 when updated in place, or when
                                  cuabi refused before asking the driver (node kinds differ) */
    uint32_t has_error_node;   /* boolean: error_node_index names the node the refusal is about */
    uint64_t error_node_index; /* that node of the new capture; 0 when has_error_node is 0 */
    char reason[512];          /* why it was not updated in place (NUL-terminated), "" when it was */
} cuabi_graph_update_info;
#define CUABI_GRAPH_UPDATE_INFO_INIT {sizeof(cuabi_graph_update_info), 0u, 0, 0u, 0u, {0}}

#ifndef CUABI_NO_PROTOTYPES

/* Fills *out_options with defaults (no flags). */
CUABI_API cuabi_status cuabi_graph_options_init(uint32_t struct_size, CUABI_OUT cuabi_graph_options* out_options);

/* Prepares *out_info for a call that fills it (see "Structs" above). */
CUABI_API cuabi_status cuabi_graph_node_info_init(uint32_t struct_size, CUABI_OUT cuabi_graph_node_info* out_info);

/* Prepares *out_info for a call that fills it (see "Structs" above). */
CUABI_API cuabi_status cuabi_graph_update_info_init(uint32_t struct_size, CUABI_OUT cuabi_graph_update_info* out_info);

/* Since 1.1. Fills *out_params with CUABI_GRAPH_MEMCPY_PARAMS_INIT (no end points, size 0). */
CUABI_API cuabi_status cuabi_graph_memcpy_params_init(uint32_t struct_size, CUABI_OUT cuabi_graph_memcpy_params* out_params) CUABI_SINCE(1.1);

/* Starts capturing `stream` in `mode` (CUABI_CAPTURE_MODE_*): work enqueued on it is recorded,
 * not run. Returns CUABI_ERROR_INVALID_ARGUMENT for an unknown mode, CUABI_ERROR_CAPTURE when the
 * stream already captures. */
CUABI_API cuabi_status cuabi_graph_capture_begin(cuabi_stream* stream, int32_t mode);

/* Ends the capture on `stream` and instantiates it into *out_graph (owned by the caller; release
 * it with cuabi_graph_destroy). On every failure a capture cuabi began is ended and discarded.
 * Returns CUABI_ERROR_CAPTURE when the stream was not capturing, when cuabi did not begin the
 * capture (it is left to the code that did), when the capture was invalidated by an operation not
 * allowed during capture, when forked streams never joined back, or when called on another thread
 * than a global / thread-local capture began on (the stream then still captures).
 * CUABI_ERROR_STRUCT_SIZE / INVALID_ARGUMENT for bad options. */
CUABI_API cuabi_status cuabi_graph_capture_end(cuabi_stream* stream, CUABI_NULLABLE const cuabi_graph_options* options, CUABI_OUT CUABI_OWNED cuabi_graph** out_graph);

/* Ends the capture on `stream` and updates `graph`'s executable from it in place when the new
 * capture has the same topology (cuGraphExecUpdate); otherwise instantiates the new capture and
 * makes it the graph, unless flags has CUABI_GRAPH_UPDATE_NO_REINSTANTIATE. out_info (may be NULL;
 * set its struct_size) says whether it re-instantiated and why it could not update in place.
 * Existing handles of the graph see the result. Returns CUABI_ERROR_GRAPH_UPDATE when it could not
 * update in place and was told not to re-instantiate (the graph is unchanged; out_info says why),
 * CUABI_ERROR_CONTEXT_MISMATCH when stream and graph belong to different contexts, and the
 * statuses of cuabi_graph_capture_end. */
CUABI_API cuabi_status cuabi_graph_capture_end_update(cuabi_stream* stream, cuabi_graph* graph, uint32_t flags, CUABI_INOUT CUABI_NULLABLE cuabi_graph_update_info* out_info);

/* Ends and discards the capture cuabi began on `stream`, if any (for when the caller's own code
 * fails between begin and end). Succeeds when the stream was not capturing. Returns
 * CUABI_ERROR_CAPTURE, ending nothing, for a capture cuabi did not begin. */
CUABI_API cuabi_status cuabi_graph_capture_abort(cuabi_stream* stream);

/* The stream's capture status, CUABI_CAPTURE_STATUS_*, whoever began the capture. */
CUABI_API cuabi_status cuabi_graph_capture_get_status(cuabi_stream* stream, CUABI_OUT int32_t* out_status);

/* Releases the handle. The graph dies with its last handle and graph-cache entry, and with it the
 * references it holds (context, kernels, buffers); replays still running finish first. */
CUABI_API void cuabi_graph_destroy(CUABI_NULLABLE CUABI_TRANSFERRED cuabi_graph* graph);

/* Enqueues one replay of the graph on `stream`, any stream of the graph's context; NULL replays on
 * the calling thread's per-thread stream and waits for it. CUABI_ERROR_CONTEXT_MISMATCH for a
 * stream of another context, CUABI_ERROR_LAUNCH_FAILED when the driver refuses. Allocates nothing. */
CUABI_API cuabi_status cuabi_graph_launch(cuabi_graph* graph, CUABI_NULLABLE cuabi_stream* stream);

/* Prepares the graph's device resources on `stream` (NULL: as for cuabi_graph_launch) ahead of its
 * first launch, so that launch is as fast as later ones. CUABI_ERROR_CONTEXT_MISMATCH as for
 * cuabi_graph_launch. */
CUABI_API cuabi_status cuabi_graph_upload(cuabi_graph* graph, CUABI_NULLABLE cuabi_stream* stream);

/* Makes the graph keep `buffer`'s memory alive for as long as the graph lives, as it does for
 * buffers its captured transfers and pointer-sized kernel arguments reach: for buffers its kernels
 * reach through addresses cuabi cannot see (inside a struct argument, in device memory). The
 * caller may destroy its own handle at once. Retaining a buffer twice is harmless.
 * CUABI_ERROR_CONTEXT_MISMATCH when the buffer belongs to another device's context. */
CUABI_API cuabi_status cuabi_graph_retain_buffer(cuabi_graph* graph, cuabi_buffer* buffer);

/* The underlying CUgraph (out_cu_graph may be NULL) and CUgraphExec, for interoperating with
 * other CUDA code; owned by the graph, valid until it dies or a capture_end_update re-instantiates
 * it. Changes made through the driver are not seen by cuabi's inventory. */
CUABI_API cuabi_status cuabi_graph_get_native(cuabi_graph* graph, CUABI_OUT CUABI_NULLABLE CUABI_BORROWED void** out_cu_graph, CUABI_OUT CUABI_BORROWED void** out_cu_graph_exec);

/* The number of nodes in the graph. */
CUABI_API cuabi_status cuabi_graph_get_node_count(cuabi_graph* graph, CUABI_OUT size_t* out_count);

/* Describes node `index` (see the order above; set out_info->struct_size first). Reflects updates
 * made through cuabi. CUABI_ERROR_GRAPH_NODE for index >= the node count. */
CUABI_API cuabi_status cuabi_graph_get_node_info(cuabi_graph* graph, size_t index, CUABI_INOUT cuabi_graph_node_info* out_info);

/* Two-call: the name of kernel node `index`'s kernel -- for a cuabi kernel the name or expression
 * it was looked up by, otherwise the driver's (mangled) function name. CUABI_ERROR_GRAPH_NODE for
 * a bad index or a node that is not a kernel node. */
CUABI_API cuabi_status cuabi_graph_get_node_kernel_name(cuabi_graph* graph, size_t index, CUABI_OUT CUABI_NULLABLE char* out_text, size_t capacity, CUABI_OUT size_t* out_size);

/* Offset and size in bytes of parameter `param_index` of kernel node `index`: the layout
 * cuabi_graph_update_kernel_args_packed expects. CUABI_ERROR_OUT_OF_BOUNDS for a bad parameter
 * index, CUABI_ERROR_GRAPH_NODE for a bad node index or a node that is not a kernel node,
 * CUABI_ERROR_UNSUPPORTED when the driver cannot tell the layout (before CUDA 12.4). */
CUABI_API cuabi_status cuabi_graph_get_node_param_info(cuabi_graph* graph, size_t index, size_t param_index, CUABI_OUT size_t* out_offset, CUABI_OUT size_t* out_size);

/* Replaces every argument of kernel node `index` for the following replays, checked against the
 * kernel's parameters exactly as cuabi_launch checks them (CUABI_ERROR_ARGUMENT_COUNT,
 * CUABI_ERROR_ARGUMENT_SIZE). The values are copied; replays already enqueued are not affected.
 * CUABI_ERROR_GRAPH_NODE for a bad index or a node that is not a kernel node,
 * CUABI_ERROR_UNSUPPORTED when the driver cannot tell the layout, CUABI_ERROR_GRAPH_UPDATE
 * when the driver refuses (the node keeps its previous arguments). Since 1.2 the graph keeps alive
 * every cuabi-allocated buffer a pointer-sized argument points into (until the graph is destroyed);
 * it allocates only to remember a buffer it did not hold yet. */
CUABI_API cuabi_status cuabi_graph_update_kernel_args(cuabi_graph* graph, size_t index, CUABI_NULLABLE const cuabi_kernel_arg* args, size_t arg_count);

/* Like cuabi_graph_update_kernel_args, with all arguments in one buffer laid out as
 * cuabi_graph_get_node_param_info says (packed_size must be the node's param_bytes). */
CUABI_API cuabi_status cuabi_graph_update_kernel_args_packed(cuabi_graph* graph, size_t index, CUABI_NULLABLE const void* packed, size_t packed_size);

/* Changes kernel node `index`'s grid, block (3 values each) and dynamic shared memory for the
 * following replays, checked as a launch checks them (CUABI_ERROR_LAUNCH_GRID, _BLOCK,
 * _KERNEL_THREADS, _SHARED_MEMORY, _CLUSTER); above 48 KiB of shared memory cuabi opts the kernel
 * in. Other statuses as for cuabi_graph_update_kernel_args. */
CUABI_API cuabi_status cuabi_graph_update_kernel_geometry(cuabi_graph* graph, size_t index, const uint32_t* grid, const uint32_t* block, uint32_t shared_memory_bytes);

/* Changes the value memset node `index` writes (it must fit the node's element size:
 * CUABI_ERROR_INVALID_ARGUMENT otherwise). CUABI_ERROR_GRAPH_NODE for a bad index or a node that is
 * not a memset node, CUABI_ERROR_GRAPH_UPDATE when the driver refuses. */
CUABI_API cuabi_status cuabi_graph_update_memset_value(cuabi_graph* graph, size_t index, uint32_t value);

/* Since 1.1. Points memcpy node `index` at new end points for the following replays, each checked
 * against its buffer's bounds (CUABI_ERROR_OUT_OF_BOUNDS); the graph then keeps the new buffers
 * alive (as cuabi_graph_retain_buffer). CUABI_ERROR_INVALID_ARGUMENT for params without exactly
 * one end point per side, size 0, or a direction other than the node's; CUABI_ERROR_CONTEXT_MISMATCH
 * for a buffer of another device; CUABI_ERROR_GRAPH_NODE for a bad index or a node that is not a
 * memcpy node; CUABI_ERROR_GRAPH_UPDATE when the driver refuses (the node keeps its end points). */
CUABI_API cuabi_status cuabi_graph_update_memcpy(cuabi_graph* graph, size_t index, const cuabi_graph_memcpy_params* params) CUABI_SINCE(1.1);

/* Since 1.1. Turns node `index` of the executable off (enabled 0: replays skip it, as if it had no
 * work) or back on (1), for the following replays; its dependencies still order the nodes around
 * it. Only kernel, memcpy and memset nodes can be turned off: CUABI_ERROR_GRAPH_NODE for other
 * kinds and bad indexes, CUABI_ERROR_INVALID_ARGUMENT for enabled other than 0 or 1. A
 * capture_end_update that re-instantiates turns every node back on. */
CUABI_API cuabi_status cuabi_graph_set_node_enabled(cuabi_graph* graph, size_t index, uint32_t enabled) CUABI_SINCE(1.1);

/* Since 1.1. Whether node `index` runs on replay (1) or is turned off (0). Errors as for
 * cuabi_graph_set_node_enabled. */
CUABI_API cuabi_status cuabi_graph_get_node_enabled(cuabi_graph* graph, size_t index, CUABI_OUT uint32_t* out_enabled) CUABI_SINCE(1.1);

/* Since 1.1. Writes the graph as Graphviz DOT text (cuGraphDebugDotPrint; CUABI_GRAPH_DOT_* flags)
 * to the file at `path`, created or replaced as open(2) with O_CREAT|O_TRUNC would (the caller
 * chooses the path, so links in it are followed). CUABI_ERROR_INVALID_ARGUMENT for unknown flags,
 * CUABI_ERROR_CUDA when the file cannot be written (the message names the path). */
CUABI_API cuabi_status cuabi_graph_write_dot(cuabi_graph* graph, const char* path, uint32_t flags) CUABI_SINCE(1.1);

/* Since 1.1. Two-call: the graph as DOT text (as cuabi_graph_write_dot), without touching the file
 * system. The text is the same for both calls of the pattern. */
CUABI_API cuabi_status cuabi_graph_get_dot(cuabi_graph* graph, uint32_t flags, CUABI_OUT CUABI_NULLABLE char* out_text, size_t capacity, CUABI_OUT size_t* out_size) CUABI_SINCE(1.1);

/* Conditional nodes, since 1.2 (CUDA 12.3 drivers; switch nodes and if nodes with an else body
 * need CUDA 12.8). Inside a capture begun by cuabi_graph_capture_begin, a conditional node runs
 * its body graphs once, repeatedly or not at all depending on a condition: a 32-bit value on the
 * device that kernels set with cudaGraphSetConditional(condition, value). The bodies are captured
 * on the same stream, between cuabi_graph_capture_conditional_begin and _end:
 *
 *     cuabi_graph_condition_create(stream, 1, CUABI_GRAPH_CONDITION_ASSIGN_DEFAULT, &condition);
 *     cuabi_graph_capture_conditional_begin(stream, condition, CUABI_GRAPH_CONDITIONAL_WHILE, 1);
 *     cuabi_launch(...);       (captured into the body; one kernel passes `condition` as an
 *                               8-byte argument and calls cudaGraphSetConditional(condition, 0))
 *     cuabi_graph_capture_conditional_end(stream);
 *     cuabi_graph_capture_end(stream, NULL, &graph);
 *
 * Under NVRTC a kernel declares the device function itself (the toolkit header that declares it
 * is not NVRTC's): extern "C" __device__ __cudart_builtin__ void cudaGraphSetConditional(
 * cudaGraphConditionalHandle handle, unsigned int value);
 * Conditionals nest (a body may hold conditional nodes). A body may hold kernels, transfers and
 * fills, and nested conditionals -- not events, waits on other streams or host work. What a graph
 * keeps alive (see the group's introduction) covers what its bodies use. Each fails, beyond the
 * common statuses, with CUABI_ERROR_UNSUPPORTED when the driver is too old (the message names the
 * version needed), CUABI_ERROR_CAPTURE when the stream is not in a capture cuabi began (or not in
 * a body, for _next and _end), and on every failure ends and discards a capture cuabi began, as
 * capture calls do. Thread safety: as capture calls (one thread per capturing stream). */

/* Since 1.2. Creates a condition for the graph `stream` captures into now -- the capture itself,
 * or the body being captured -- and returns its value in *out_condition: an opaque 64-bit value
 * to pass to kernels (as an 8-byte argument) and to cuabi_graph_capture_conditional_begin in the
 * same graph. It starts each replay at default_value with CUABI_GRAPH_CONDITION_ASSIGN_DEFAULT.
 * CUABI_ERROR_INVALID_ARGUMENT for unknown flags. It lives as long as the graph. */
CUABI_API cuabi_status cuabi_graph_condition_create(cuabi_stream* stream, uint32_t default_value, uint32_t flags, CUABI_OUT uint64_t* out_condition) CUABI_SINCE(1.2);

/* Since 1.2. Adds a conditional node (CUABI_GRAPH_CONDITIONAL_*) that tests `condition` after
 * the work captured so far, and makes the stream capture its first body. body_count must be 1 for
 * while, 1 or 2 for if, at least 1 for switch. CUABI_ERROR_INVALID_ARGUMENT for another type or
 * count, and for a condition that cuabi_graph_condition_create did not make for the graph the
 * stream captures into now (one of another capture or of another body: the message says which). */
CUABI_API cuabi_status cuabi_graph_capture_conditional_begin(cuabi_stream* stream, uint64_t condition, int32_t type, uint32_t body_count) CUABI_SINCE(1.2);

/* Since 1.2. Ends the body being captured and makes the stream capture the node's next body (the
 * else body of an if, body n+1 of a switch). CUABI_ERROR_OUT_OF_BOUNDS when it was the last. */
CUABI_API cuabi_status cuabi_graph_capture_conditional_next(cuabi_stream* stream) CUABI_SINCE(1.2);

/* Since 1.2. Ends the body being captured (bodies not reached stay empty) and goes back to
 * capturing the graph around the node, after it. */
CUABI_API cuabi_status cuabi_graph_capture_conditional_end(cuabi_stream* stream) CUABI_SINCE(1.2);

#endif /* CUABI_NO_PROTOTYPES */

/* ============================================================================================
 * Graph cache
 *
 * One per process, bounded (256 graphs by default), least recently used graphs evicted first.
 * Entries are found by (context, key bytes, capacity class of size): sizes in one class share a
 * graph, whose size arguments the caller then updates. The cache holds its own reference: lookup
 * returns a NEW handle to the cached graph, which the caller destroys as any other; insert leaves
 * the caller's handle to the caller. Entries keep their context alive until evicted or cleared.
 * Thread-safe.
 * ========================================================================================== */

/* Graph cache statistics (cuabi_graph_cache_get_stats). An output struct:
 * cuabi_graph_cache_stats_init(). */
typedef struct cuabi_graph_cache_stats {
    uint32_t struct_size;
    uint32_t reserved;
    uint64_t entries;    /* graphs held now */
    uint64_t capacity;   /* the bound (cuabi_graph_cache_set_capacity) */
    uint64_t hits;
    uint64_t misses;
    uint64_t insertions;
    uint64_t evictions;  /* entries dropped to stay within the capacity */
} cuabi_graph_cache_stats;
#define CUABI_GRAPH_CACHE_STATS_INIT {sizeof(cuabi_graph_cache_stats), 0u, 0u, 0u, 0u, 0u, 0u, 0u}

#ifndef CUABI_NO_PROTOTYPES

/* Prepares *out_stats for a call that fills it (see "Structs" above). */
CUABI_API cuabi_status cuabi_graph_cache_stats_init(uint32_t struct_size, CUABI_OUT cuabi_graph_cache_stats* out_stats);

/* The capacity class the graph cache files `size` under: the next power of two (0 and 1 give 1;
 * sizes above 2^63 all give 0xFFFFFFFFFFFFFFFF). Thread-free. */
CUABI_API uint64_t cuabi_graph_cache_get_capacity_class(uint64_t size);

/* Finds the graph cached under (context, key[0..key_size), capacity class of size) and returns a
 * new handle to it in *out_graph (owned by the caller). CUABI_ERROR_NOT_FOUND on a miss. */
CUABI_API cuabi_status cuabi_graph_cache_lookup(cuabi_context* context, CUABI_NULLABLE const void* key, size_t key_size, uint64_t size, CUABI_OUT CUABI_OWNED cuabi_graph** out_graph);

/* Caches `graph` under (context, key[0..key_size), capacity class of size), replacing an entry
 * with the same key, and evicts beyond the capacity. CUABI_ERROR_CONTEXT_MISMATCH when the graph
 * belongs to another device's context. */
CUABI_API cuabi_status cuabi_graph_cache_insert(cuabi_context* context, CUABI_NULLABLE const void* key, size_t key_size, uint64_t size, cuabi_graph* graph);

/* Sets the most graphs the cache holds, evicting down to it now (0 disables caching). */
CUABI_API void cuabi_graph_cache_set_capacity(size_t max_entries);

/* Drops the entries inserted under `context`, or every entry when context is NULL.
 * cuabi_context_destroy() drops a context's entries itself. */
CUABI_API cuabi_status cuabi_graph_cache_clear(CUABI_NULLABLE cuabi_context* context);

/* Reads the cache's counters (set out_stats->struct_size first). */
CUABI_API cuabi_status cuabi_graph_cache_get_stats(CUABI_INOUT cuabi_graph_cache_stats* out_stats);

#endif /* CUABI_NO_PROTOTYPES */

/* ============================================================================================
 * Cache
 *
 * Compiled kernels are cached per process in memory and, across processes, on disk in
 * $CUABI_CACHE_DIR, else $XDG_CACHE_HOME/cuabi, else ~/.cache/cuabi (share/doc/cuabi/cache.md has
 * the format, the threat model and the policy). The directory is opened once without following
 * links, must belong to the effective user and not be writable by group or others, and every
 * later operation works relative to that open directory; anything in it that is not a regular
 * entry file is removed, never read. The cache never fails a compile: when its directory is
 * refused, read-only or full, or its lock stays taken past a deadline, it works from memory and
 * says why in cuabi_cache_get_degradation_reason(). CUABI_CACHE_DISABLE=1 keeps it in memory on
 * purpose. Since 1.2, read-only layers (CUABI_CACHE_READONLY_DIRS, cuabi_cache_add_readonly_layer)
 * are searched after the disk; their entries are untrusted (cache.md, "Fleet"). All functions here are thread-safe and may run while other threads and processes
 * compile; those that change the directory take its lock.
 * ========================================================================================== */

/* Where NVRTC stands for this process (cuabi_cache_stats.nvrtc_state). */
typedef int32_t cuabi_nvrtc_state CUABI_ENUM_FAMILY("CUABI_NVRTC_STATE_") CUABI_SINCE(1.2);
#define CUABI_NVRTC_STATE_NOT_LOADED 0  /* not needed yet: every compile so far was a cache hit */
#define CUABI_NVRTC_STATE_LOADED 1      /* loaded (here or in the compile worker): misses compile */
#define CUABI_NVRTC_STATE_UNAVAILABLE 2 /* cannot be loaded: entries any NVRTC wrote are served,
                                           misses fail with CUABI_ERROR_NVRTC_NOT_FOUND */

/* Statistics of the kernel cache. An output struct: cuabi_cache_stats_init(). Counts are this
 * process's since it started; disk_entries and disk_bytes are what the cache directory holds now,
 * written by any process. */
typedef struct cuabi_cache_stats {
    uint32_t struct_size;
    uint32_t disk_enabled;            /* boolean: entries are looked up on disk */
    uint32_t disk_writable;           /* boolean: new entries are written to disk */
    int32_t nvrtc_state;              /* CUABI_NVRTC_STATE_* */
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
    uint64_t disk_corrupt_recovered;  /* truncated, corrupt or foreign entries found and removed */
    uint64_t disk_evictions;          /* entries this process evicted to respect the size cap */
    uint64_t disk_lock_timeouts;      /* operations that found the lock held past its deadline and
                                         went on from memory */
    uint64_t disk_temp_files_removed; /* temp files of writers that died mid-write, swept */
    uint64_t compiles;                /* NVRTC runs of this process (all contexts, offline too) */
    uint64_t compiles_joined;         /* compile requests served by an identical compile another
                                         thread was already running */
    /* Since 1.2: the read-only layers (CUABI_CACHE_READONLY_DIRS, cuabi_cache_add_readonly_layer),
     * searched after the disk. */
    CUABI_SINCE(1.2) uint64_t readonly_layers;         /* layers open now (refused ones are in the degradation reason) */
    CUABI_SINCE(1.2) uint64_t readonly_hits;           /* lookups served by a read-only layer */
    CUABI_SINCE(1.2) uint64_t readonly_misses;         /* lookups no read-only layer had (counted only with layers) */
    CUABI_SINCE(1.2) uint64_t readonly_refused;        /* damaged, foreign or linked entries found there and refused */
    CUABI_SINCE(1.2) uint64_t readonly_copies;         /* hits handed to the disk (CUABI_CACHE_READONLY_COPY=1) */
    /* Since 1.2: the remote tier (CUABI_CACHE_REMOTE), searched after the read-only layers. A
     * remote problem is never an error to the caller: it shows here and the kernel compiles locally. */
    CUABI_SINCE(1.2) uint32_t remote_configured;       /* boolean: CUABI_CACHE_REMOTE is set (a refused setting too) */
    CUABI_SINCE(1.2) uint32_t remote_breaker_open;     /* boolean: after failures in a row the remote is skipped
                                                          until a probe after the back-off succeeds */
    CUABI_SINCE(1.2) uint64_t remote_hits;             /* verified entries served by the remote */
    CUABI_SINCE(1.2) uint64_t remote_misses;           /* keys the remote did not have */
    CUABI_SINCE(1.2) uint64_t remote_errors;           /* operations that failed (timeout, connection, helper) or
                                                          that the open breaker skipped */
    CUABI_SINCE(1.2) uint64_t remote_refused;          /* values that failed verification (forged, damaged, oversized) */
    CUABI_SINCE(1.2) uint64_t remote_publishes;        /* entries this process stored there first */
    CUABI_SINCE(1.2) uint64_t remote_lease_waits;      /* compiles another node held, so this process waited */
    CUABI_SINCE(1.2) uint64_t remote_lease_wait_hits;  /* of those, the waits that ended with the other's entry */
    CUABI_SINCE(1.2) uint64_t remote_breaker_opens;    /* times the breaker opened */
} cuabi_cache_stats;
#define CUABI_CACHE_STATS_INIT \
    {sizeof(cuabi_cache_stats), 0u, 0u, 0, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, \
     0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u}

/* Who chose a CUDA driver JIT cache setting (cuabi_driver_jit_cache_info). */
typedef int32_t cuabi_setting_source CUABI_ENUM_FAMILY("CUABI_SETTING_") CUABI_SINCE(1.2);
#define CUABI_SETTING_DRIVER_DEFAULT 0 /* nobody: the driver's default applies */
#define CUABI_SETTING_ENVIRONMENT 1    /* the operator, through the environment */
#define CUABI_SETTING_CUABI 2          /* cuabi_cache_configure_driver_jit(), because the operator had not */

/* The CUDA driver's JIT cache settings in effect in this process. An output struct:
 * cuabi_driver_jit_cache_info_init(). */
typedef struct cuabi_driver_jit_cache_info {
    uint32_t struct_size;
    uint32_t enabled;              /* boolean: 0 when CUDA_CACHE_DISABLE=1 */
    int32_t path_source;           /* CUABI_SETTING_*: who chose CUDA_CACHE_PATH */
    int32_t max_bytes_source;      /* CUABI_SETTING_*: who chose CUDA_CACHE_MAXSIZE */
    uint64_t max_bytes;            /* CUDA_CACHE_MAXSIZE in effect; 0 = the driver's default */
    uint32_t driver_started_first; /* boolean: the driver was initialized in this process before
                                      cuabi_cache_configure_driver_jit() ran, so it changed nothing */
    uint32_t reserved;
} cuabi_driver_jit_cache_info;
#define CUABI_DRIVER_JIT_CACHE_INFO_INIT {sizeof(cuabi_driver_jit_cache_info), 0u, 0, 0, 0u, 0u, 0u}

#ifndef CUABI_NO_PROTOTYPES

/* Prepares *out_stats for a call that fills it (see "Structs" above). */
CUABI_API cuabi_status cuabi_cache_stats_init(uint32_t struct_size, CUABI_OUT cuabi_cache_stats* out_stats);

/* Prepares *out_info for a call that fills it (see "Structs" above). */
CUABI_API cuabi_status cuabi_driver_jit_cache_info_init(uint32_t struct_size, CUABI_OUT cuabi_driver_jit_cache_info* out_info);

/* Reads the cache statistics (set out_stats->struct_size first). Lists the cache directory to
 * count disk_entries / disk_bytes, so the call costs a directory scan. */
CUABI_API cuabi_status cuabi_cache_get_stats(CUABI_INOUT cuabi_cache_stats* out_stats);

/* The cache directory (absolute), two-call. The path is reported even when the disk cache is off
 * or refused. An empty string means no location could be found (CUABI_CACHE_DIR, XDG_CACHE_HOME
 * and HOME unset). */
CUABI_API cuabi_status cuabi_cache_get_directory(CUABI_OUT CUABI_NULLABLE char* out_text, size_t capacity, CUABI_OUT size_t* out_size);

/* Why the disk cache is off, refused or not taking writes, with a "Fix: ..." (two-call). The
 * empty string while the disk cache works normally. */
CUABI_API cuabi_status cuabi_cache_get_degradation_reason(CUABI_OUT CUABI_NULLABLE char* out_text, size_t capacity, CUABI_OUT size_t* out_size);

/* Removes least recently used disk entries until the directory holds at most max_bytes.
 * *out_removed_entries / *out_removed_bytes (each may be NULL) receive what was removed.
 * Returns CUABI_ERROR_CACHE_UNSAFE for a refused directory, CUABI_ERROR_CACHE_IO when entries
 * cannot be removed, CUABI_ERROR_TIMEOUT when the lock stays held past its deadline. With
 * CUABI_CACHE_DISABLE=1 it succeeds and removes nothing. */
CUABI_API cuabi_status cuabi_cache_prune(uint64_t max_bytes, CUABI_OUT CUABI_NULLABLE uint64_t* out_removed_entries, CUABI_OUT CUABI_NULLABLE uint64_t* out_removed_bytes);

/* Empties this process's memory cache and removes every disk entry (of every process: other
 * processes then miss and compile again). Modules already loaded are unaffected. Statuses and
 * NULL-able outputs as for cuabi_cache_prune(). */
CUABI_API cuabi_status cuabi_cache_clear(CUABI_OUT CUABI_NULLABLE uint64_t* out_removed_entries, CUABI_OUT CUABI_NULLABLE uint64_t* out_removed_bytes);

/* Reads and checks every disk entry (header, sizes, checksum, key, image) and removes the bad ones
 * and anything that is not an entry file. *out_checked_entries and *out_removed_entries may be
 * NULL. Statuses as for cuabi_cache_prune(). */
CUABI_API cuabi_status cuabi_cache_verify(CUABI_OUT CUABI_NULLABLE uint64_t* out_checked_entries, CUABI_OUT CUABI_NULLABLE uint64_t* out_removed_entries);

/* Since 1.2. Adds a read-only cache layer, searched after the disk cache and after the layers of
 * CUABI_CACHE_READONLY_DIRS and earlier calls: `path` (absolute) names a cache directory filled by
 * cuabi or a bundle file of cuabi_cache_export(), used in place. A layer is never written, locked
 * or pruned, and its entries are untrusted: checked as disk entries are, then verified as the
 * caller's bytes are before the driver loads them (cuabi_context_options.image_verification).
 * Returns CUABI_ERROR_CACHE_UNSAFE for a link, FIFO, socket or device, CUABI_ERROR_CACHE_IO for a
 * path that cannot be read or a bundle whose header or index is damaged,
 * CUABI_ERROR_INVALID_ARGUMENT for a NULL or relative path. Layers stay until the process ends. */
CUABI_API cuabi_status cuabi_cache_add_readonly_layer(const char* path) CUABI_SINCE(1.2);

/* Since 1.2. Writes the disk cache's entries to one bundle file at `path` (replaced atomically):
 * all of them when `match` is NULL or "", else those whose target ("sm_90") or 32-hex-digit key
 * matches the shell pattern `match` (fnmatch). *out_entries and *out_bytes (each may be NULL)
 * receive the entries written and the file's size. Statuses as for cuabi_cache_prune(), and
 * CUABI_ERROR_CACHE_IO when the bundle cannot be written. */
CUABI_API cuabi_status cuabi_cache_export(const char* path, CUABI_NULLABLE const char* match, CUABI_OUT CUABI_NULLABLE uint64_t* out_entries, CUABI_OUT CUABI_NULLABLE uint64_t* out_bytes) CUABI_SINCE(1.2);

/* Since 1.2. Checks every entry of the bundle at `path` and adds the intact ones to the disk cache,
 * marked untrusted (loading them is verified as for a read-only layer). *out_imported and
 * *out_refused (each may be NULL) receive the counts, also on failure. Returns CUABI_ERROR_CACHE_IO
 * when the bundle cannot be read, its header or index is damaged (nothing is imported), or some
 * entries are damaged (the others are imported; the message names the first);
 * CUABI_ERROR_UNSUPPORTED with CUABI_CACHE_DISABLE=1; otherwise as cuabi_cache_prune(). */
CUABI_API cuabi_status cuabi_cache_import(const char* path, CUABI_OUT CUABI_NULLABLE uint64_t* out_imported, CUABI_OUT CUABI_NULLABLE uint64_t* out_refused) CUABI_SINCE(1.2);

/* Gives the CUDA driver a persistent JIT cache under the cuabi cache directory: sets
 * CUDA_CACHE_PATH to <cache directory>/driver-jit and CUDA_CACHE_MAXSIZE to 1 GiB in the process
 * environment where the operator has not set them, and changes nothing when CUDA_CACHE_DISABLE=1,
 * when the cuabi disk cache is off or refused, or when the driver is already initialized (it reads
 * them once, at cuInit). cuabi never changes the environment unless this is called. NOT
 * thread-safe: the environment is process-wide and setenv races with every getenv, so call it at
 * start-up, before other threads exist and before any CUDA call. */
CUABI_API cuabi_status cuabi_cache_configure_driver_jit(void);

/* The CUDA driver JIT cache settings in effect (set out_info->struct_size first). Loads the
 * driver if it is not loaded yet (so that what is shown is what the driver uses); works without
 * one. */
CUABI_API cuabi_status cuabi_cache_get_driver_jit_info(CUABI_INOUT cuabi_driver_jit_cache_info* out_info);

/* The CUDA driver JIT cache directory in effect (two-call): CUDA_CACHE_PATH, or the driver's
 * default ($HOME/.nv/ComputeCache) when it is unset. */
CUABI_API cuabi_status cuabi_cache_get_driver_jit_path(CUABI_OUT CUABI_NULLABLE char* out_text, size_t capacity, CUABI_OUT size_t* out_size);

#endif /* CUABI_NO_PROTOTYPES */

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
 * cuabi_range handle, which may end on another thread and overlap freely. Names are copied by
 * the profiler during the call. All functions here are thread-safe and need no GPU. The checks
 * (names, push depth, ending twice) apply the same way with or without a profiler attached.
 * ========================================================================================== */

#ifndef CUABI_NO_PROTOTYPES

/* 1 when cuabi emits NVTX ranges (the default), 0 when CUABI_NVTX=0 switched them off.
 * Thread-free after the first call. */
CUABI_API uint32_t cuabi_range_get_enabled(void);

/* 1 when ranges are enabled and a profiler (an NVTX tool such as Nsight Systems) is attached to
 * this process, else 0. A process that starts without one never gets one later. */
CUABI_API uint32_t cuabi_range_get_profiler_attached(void);

/* The number of entries in the catalog of cuabi's own ranges. */
CUABI_API cuabi_status cuabi_range_get_catalog_count(CUABI_OUT size_t* out_count);

/* Entry `index` of the catalog: its NVTX message ("cuabi.compile", unique, always "cuabi."-
 * prefixed; a range that carries a detail reads "cuabi.launch: saxpy") and a description of the
 * phase it covers. Returns CUABI_ERROR_NOT_FOUND for index >= the count. The strings are static:
 * never freed, valid for the life of the process. */
CUABI_API cuabi_status cuabi_range_get_catalog_entry(size_t index, CUABI_OUT CUABI_BORROWED const char** out_name, CUABI_OUT CUABI_BORROWED const char** out_description);

/* Opens range `name` on the calling thread, in `domain` (NULL: "cuabi"). Each domain is created
 * once per process, at its first use. Close it with cuabi_range_pop() on the same thread.
 * Returns CUABI_ERROR_INVALID_ARGUMENT for a NULL, empty or invalid-UTF-8 name or domain, and
 * CUABI_ERROR_RANGE when the process would use more than 256 domains. */
CUABI_API cuabi_status cuabi_range_push(const char* name, CUABI_NULLABLE const char* domain);

/* Closes the innermost range the calling thread opened with cuabi_range_push(). Returns
 * CUABI_ERROR_RANGE when the thread has none open (cuabi's own ranges never count). */
CUABI_API cuabi_status cuabi_range_pop(void);

/* Starts range `name` in `domain` (NULL: "cuabi") and returns its handle; any thread may end it.
 * Same name and domain checks as cuabi_range_push(). The caller owns *out_range until it passes
 * it to cuabi_range_end(). */
CUABI_API cuabi_status cuabi_range_start(const char* name, CUABI_NULLABLE const char* domain, CUABI_OUT CUABI_OWNED cuabi_range** out_range);

/* Ends the range and frees its handle. Ending a range twice (or a NULL, made-up or other-type
 * handle) returns CUABI_ERROR_INVALID_HANDLE and changes nothing. */
CUABI_API cuabi_status cuabi_range_end(CUABI_TRANSFERRED cuabi_range* range);

#endif /* CUABI_NO_PROTOTYPES */

/* ============================================================================================
 * Function-pointer types, one per function, for dlopen users (see cuabi_get_proc_address).
 * ========================================================================================== */
typedef uint32_t (*PFN_cuabi_version_number)(void);
typedef uint32_t (*PFN_cuabi_abi_version)(void);
typedef cuabi_proc (*PFN_cuabi_get_proc_address)(const char* name);
typedef const char* (*PFN_cuabi_status_name)(cuabi_status status);
typedef const char* (*PFN_cuabi_last_error_message)(void);
typedef int32_t (*PFN_cuabi_last_cu_result)(void);
typedef int32_t (*PFN_cuabi_last_nvrtc_result)(void);
typedef cuabi_status (*PFN_cuabi_last_compile_log)(char* out_text, size_t capacity, size_t* out_size);
typedef cuabi_status (*PFN_cuabi_environment_get_problems)(char* out_text, size_t capacity, size_t* out_size);
typedef cuabi_status (*PFN_cuabi_device_info_init)(uint32_t struct_size, cuabi_device_info* out_info);
typedef cuabi_status (*PFN_cuabi_driver_get_version)(int32_t* out_version);
typedef cuabi_status (*PFN_cuabi_device_get_count)(int32_t* out_count);
typedef cuabi_status (*PFN_cuabi_device_get_info)(int32_t ordinal, cuabi_device_info* out_info);
typedef cuabi_status (*PFN_cuabi_device_get_attribute)(int32_t ordinal, int32_t attribute, int32_t* out_value);
typedef cuabi_status (*PFN_cuabi_context_options_init)(uint32_t struct_size, cuabi_context_options* out_options);
typedef cuabi_status (*PFN_cuabi_counters_init)(uint32_t struct_size, cuabi_counters* out_counters);
typedef cuabi_status (*PFN_cuabi_context_create)(const cuabi_context_options* options, cuabi_context** out_context);
typedef void (*PFN_cuabi_context_destroy)(cuabi_context* context);
typedef cuabi_status (*PFN_cuabi_context_get_device_info)(cuabi_context* context, cuabi_device_info* out_info);
typedef cuabi_status (*PFN_cuabi_context_synchronize)(cuabi_context* context);
typedef cuabi_status (*PFN_cuabi_context_get_native)(cuabi_context* context, void** out_cu_context);
typedef cuabi_status (*PFN_cuabi_context_get_counters)(cuabi_context* context, cuabi_counters* out_counters);
typedef cuabi_status (*PFN_cuabi_context_can_access_peer)(cuabi_context* context, cuabi_context* peer, uint32_t* out_can_access);
typedef cuabi_status (*PFN_cuabi_context_enable_peer_access)(cuabi_context* context, cuabi_context* peer);
typedef cuabi_status (*PFN_cuabi_context_disable_peer_access)(cuabi_context* context, cuabi_context* peer);
typedef cuabi_status (*PFN_cuabi_context_get_peer_access)(cuabi_context* context, cuabi_context* peer, uint32_t* out_enabled);
typedef cuabi_status (*PFN_cuabi_buffer_copy_peer)(cuabi_buffer* dst, size_t dst_offset, cuabi_buffer* src, size_t src_offset, size_t size, uint32_t flags, cuabi_stream* stream);
typedef cuabi_status (*PFN_cuabi_stream_options_init)(uint32_t struct_size, cuabi_stream_options* out_options);
typedef cuabi_status (*PFN_cuabi_stream_create)(cuabi_context* context, const cuabi_stream_options* options, cuabi_stream** out_stream);
typedef cuabi_status (*PFN_cuabi_stream_wrap)(cuabi_context* context, void* cu_stream, cuabi_stream** out_stream);
typedef void (*PFN_cuabi_stream_destroy)(cuabi_stream* stream);
typedef cuabi_status (*PFN_cuabi_stream_synchronize)(cuabi_stream* stream);
typedef cuabi_status (*PFN_cuabi_stream_query)(cuabi_stream* stream);
typedef cuabi_status (*PFN_cuabi_stream_wait_event)(cuabi_stream* stream, cuabi_event* event);
typedef cuabi_status (*PFN_cuabi_stream_get_native)(cuabi_stream* stream, void** out_cu_stream);
typedef cuabi_status (*PFN_cuabi_event_options_init)(uint32_t struct_size, cuabi_event_options* out_options);
typedef cuabi_status (*PFN_cuabi_event_create)(cuabi_context* context, const cuabi_event_options* options, cuabi_event** out_event);
typedef void (*PFN_cuabi_event_destroy)(cuabi_event* event);
typedef cuabi_status (*PFN_cuabi_event_record)(cuabi_event* event, cuabi_stream* stream);
typedef cuabi_status (*PFN_cuabi_event_synchronize)(cuabi_event* event);
typedef cuabi_status (*PFN_cuabi_event_query)(cuabi_event* event);
typedef cuabi_status (*PFN_cuabi_event_get_elapsed_ms)(cuabi_event* start, cuabi_event* end, float* out_ms);
typedef cuabi_status (*PFN_cuabi_buffer_options_init)(uint32_t struct_size, cuabi_buffer_options* out_options);
typedef cuabi_status (*PFN_cuabi_buffer_create)(cuabi_context* context, size_t size, const cuabi_buffer_options* options, cuabi_buffer** out_buffer);
typedef cuabi_status (*PFN_cuabi_buffer_wrap)(cuabi_context* context, uint64_t device_address, size_t size, cuabi_buffer** out_buffer);
typedef void (*PFN_cuabi_buffer_destroy)(cuabi_buffer* buffer);
typedef cuabi_status (*PFN_cuabi_buffer_get_size)(cuabi_buffer* buffer, size_t* out_size);
typedef cuabi_status (*PFN_cuabi_buffer_get_device_address)(cuabi_buffer* buffer, uint64_t* out_address);
typedef cuabi_status (*PFN_cuabi_buffer_write)(cuabi_buffer* buffer, size_t offset, const void* data, size_t size, cuabi_stream* stream);
typedef cuabi_status (*PFN_cuabi_buffer_read)(cuabi_buffer* buffer, size_t offset, void* out_data, size_t size, cuabi_stream* stream);
typedef cuabi_status (*PFN_cuabi_buffer_copy)(cuabi_buffer* dst, size_t dst_offset, cuabi_buffer* src, size_t src_offset, size_t size, cuabi_stream* stream);
typedef cuabi_status (*PFN_cuabi_buffer_fill)(cuabi_buffer* buffer, size_t offset, uint32_t value, uint32_t element_size, size_t count, cuabi_stream* stream);
typedef cuabi_status (*PFN_cuabi_host_memory_options_init)(uint32_t struct_size, cuabi_host_memory_options* out_options);
typedef cuabi_status (*PFN_cuabi_host_memory_create)(cuabi_context* context, size_t size, const cuabi_host_memory_options* options, cuabi_host_memory** out_memory);
typedef cuabi_status (*PFN_cuabi_host_memory_register)(cuabi_context* context, void* pointer, size_t size, const cuabi_host_memory_options* options, cuabi_host_memory** out_memory);
typedef void (*PFN_cuabi_host_memory_destroy)(cuabi_host_memory* memory);
typedef cuabi_status (*PFN_cuabi_host_memory_get_pointer)(cuabi_host_memory* memory, void** out_pointer);
typedef cuabi_status (*PFN_cuabi_host_memory_get_size)(cuabi_host_memory* memory, size_t* out_size);
typedef cuabi_status (*PFN_cuabi_host_memory_get_device_address)(cuabi_host_memory* memory, uint64_t* out_address);
typedef cuabi_status (*PFN_cuabi_memory_pool_options_init)(uint32_t struct_size, cuabi_memory_pool_options* out_options);
typedef cuabi_status (*PFN_cuabi_memory_pool_create)(cuabi_context* context, const cuabi_memory_pool_options* options, cuabi_memory_pool** out_pool);
typedef cuabi_status (*PFN_cuabi_memory_pool_get_default)(cuabi_context* context, cuabi_memory_pool** out_pool);
typedef void (*PFN_cuabi_memory_pool_destroy)(cuabi_memory_pool* pool);
typedef cuabi_status (*PFN_cuabi_memory_pool_set_release_threshold)(cuabi_memory_pool* pool, uint64_t bytes);
typedef cuabi_status (*PFN_cuabi_memory_pool_trim)(cuabi_memory_pool* pool, uint64_t min_bytes_to_keep);
typedef cuabi_status (*PFN_cuabi_memory_pool_get_attribute)(cuabi_memory_pool* pool, cuabi_memory_pool_attribute attribute, uint64_t* out_value);
typedef cuabi_status (*PFN_cuabi_buffer_create_async)(cuabi_context* context, size_t size, cuabi_memory_pool* pool, const cuabi_buffer_options* options, cuabi_stream* stream, cuabi_buffer** out_buffer);
typedef cuabi_status (*PFN_cuabi_buffer_free_async)(cuabi_buffer* buffer, cuabi_stream* stream);
typedef cuabi_status (*PFN_cuabi_buffer_create_managed)(cuabi_context* context, size_t size, uint32_t flags, cuabi_buffer** out_buffer);
typedef cuabi_status (*PFN_cuabi_buffer_get_host_pointer)(cuabi_buffer* buffer, void** out_pointer);
typedef cuabi_status (*PFN_cuabi_buffer_prefetch)(cuabi_buffer* buffer, size_t offset, size_t size, cuabi_location location, cuabi_stream* stream);
typedef cuabi_status (*PFN_cuabi_buffer_advise)(cuabi_buffer* buffer, size_t offset, size_t size, cuabi_advice advice, cuabi_location location);
typedef cuabi_status (*PFN_cuabi_compile_options_init)(uint32_t struct_size, cuabi_compile_options* out_options);
typedef cuabi_status (*PFN_cuabi_module_info_init)(uint32_t struct_size, cuabi_module_info* out_info);
typedef cuabi_status (*PFN_cuabi_module_compile)(cuabi_context* context, const char* source, const cuabi_compile_options* options, cuabi_module** out_module);
typedef cuabi_status (*PFN_cuabi_module_compile_offline)(const char* source, const cuabi_compile_options* options, cuabi_module** out_module);
typedef cuabi_status (*PFN_cuabi_module_load_image)(cuabi_context* context, const void* image, size_t size, cuabi_module** out_module);
typedef void (*PFN_cuabi_module_destroy)(cuabi_module* module);
typedef cuabi_status (*PFN_cuabi_module_get_info)(cuabi_module* module, cuabi_module_info* out_info);
typedef cuabi_status (*PFN_cuabi_module_get_image)(cuabi_module* module, void* out_image, size_t capacity, size_t* out_size);
typedef cuabi_status (*PFN_cuabi_module_get_log)(cuabi_module* module, char* out_text, size_t capacity, size_t* out_size);
typedef cuabi_status (*PFN_cuabi_module_get_lowered_name)(cuabi_module* module, const char* expression, char* out_text, size_t capacity, size_t* out_size);
typedef cuabi_status (*PFN_cuabi_module_get_kernel)(cuabi_module* module, const char* name_or_expression, cuabi_kernel** out_kernel);
typedef cuabi_status (*PFN_cuabi_module_get_global)(cuabi_module* module, const char* name_or_expression, cuabi_buffer** out_buffer);
typedef cuabi_status (*PFN_cuabi_link_options_init)(uint32_t struct_size, cuabi_link_options* out_options);
typedef cuabi_status (*PFN_cuabi_module_link)(cuabi_context* context, const cuabi_link_input* inputs, size_t input_count, const cuabi_link_options* options, cuabi_module** out_module);
typedef cuabi_status (*PFN_cuabi_module_link_offline)(const cuabi_link_input* inputs, size_t input_count, const cuabi_link_options* options, cuabi_module** out_module);
typedef cuabi_status (*PFN_cuabi_module_get_kernel_names)(cuabi_module* module, char* out_text, size_t capacity, size_t* out_size);
typedef cuabi_status (*PFN_cuabi_nvjitlink_get_version)(int32_t* out_major, int32_t* out_minor);
typedef cuabi_status (*PFN_cuabi_nvjitlink_get_path)(char* out_text, size_t capacity, size_t* out_size);
typedef cuabi_status (*PFN_cuabi_nvrtc_get_version)(int32_t* out_major, int32_t* out_minor);
typedef cuabi_status (*PFN_cuabi_nvrtc_get_supported_archs)(int32_t* out_archs, size_t capacity, size_t* out_count);
typedef cuabi_status (*PFN_cuabi_nvrtc_get_path)(char* out_text, size_t capacity, size_t* out_size);
typedef cuabi_status (*PFN_cuabi_nvrtc_get_include_dirs)(char* out_text, size_t capacity, size_t* out_size);
typedef cuabi_status (*PFN_cuabi_compile_batch_start)(const cuabi_compile_request* requests, size_t count, uint32_t jobs, cuabi_compile_batch** out_batch);
typedef cuabi_status (*PFN_cuabi_compile_batch_get_count)(cuabi_compile_batch* batch, size_t* out_count);
typedef cuabi_status (*PFN_cuabi_compile_batch_get_state)(cuabi_compile_batch* batch, size_t index, int32_t* out_state, cuabi_status* out_status);
typedef cuabi_status (*PFN_cuabi_compile_batch_get_module)(cuabi_compile_batch* batch, size_t index, cuabi_module** out_module);
typedef cuabi_status (*PFN_cuabi_compile_batch_cancel)(cuabi_compile_batch* batch);
typedef void (*PFN_cuabi_compile_batch_destroy)(cuabi_compile_batch* batch);
typedef cuabi_status (*PFN_cuabi_kernel_attributes_init)(uint32_t struct_size, cuabi_kernel_attributes* out_attributes);
typedef void (*PFN_cuabi_kernel_destroy)(cuabi_kernel* kernel);
typedef cuabi_status (*PFN_cuabi_kernel_get_attributes)(cuabi_kernel* kernel, cuabi_kernel_attributes* out_attributes);
typedef cuabi_status (*PFN_cuabi_kernel_get_native)(cuabi_kernel* kernel, void** out_cu_function);
typedef cuabi_status (*PFN_cuabi_kernel_get_param_count)(cuabi_kernel* kernel, size_t* out_count);
typedef cuabi_status (*PFN_cuabi_kernel_get_param_info)(cuabi_kernel* kernel, size_t index, size_t* out_offset, size_t* out_size);
typedef cuabi_status (*PFN_cuabi_kernel_get_max_active_blocks_per_sm)(cuabi_kernel* kernel, uint32_t block_threads, uint32_t shared_memory_bytes, uint32_t* out_blocks);
typedef cuabi_status (*PFN_cuabi_kernel_suggest_block_size)(cuabi_kernel* kernel, uint32_t shared_memory_bytes, uint32_t* out_block_threads, uint32_t* out_min_grid_blocks);
typedef cuabi_status (*PFN_cuabi_kernel_set_attribute)(cuabi_kernel* kernel, int32_t attribute, int32_t value);
typedef cuabi_status (*PFN_cuabi_launch_config_init)(uint32_t struct_size, cuabi_launch_config* out_config);
typedef cuabi_status (*PFN_cuabi_launch)(cuabi_kernel* kernel, const cuabi_launch_config* config, const cuabi_kernel_arg* args, size_t arg_count);
typedef cuabi_status (*PFN_cuabi_launch_packed)(cuabi_kernel* kernel, const cuabi_launch_config* config, const void* packed, size_t packed_size);
typedef cuabi_status (*PFN_cuabi_kernel_get_max_active_clusters)(cuabi_kernel* kernel, const cuabi_launch_config* config, uint32_t* out_clusters);
typedef cuabi_status (*PFN_cuabi_launch_batch)(const cuabi_launch_item* items, size_t count, size_t* out_submitted);
typedef cuabi_status (*PFN_cuabi_tensor_map_params_init)(uint32_t struct_size, cuabi_tensor_map_params* out_params);
typedef cuabi_status (*PFN_cuabi_tensor_map_encode_tiled)(cuabi_buffer* buffer, const cuabi_tensor_map_params* params, cuabi_tensor_map* out_map);
typedef cuabi_status (*PFN_cuabi_graph_options_init)(uint32_t struct_size, cuabi_graph_options* out_options);
typedef cuabi_status (*PFN_cuabi_graph_node_info_init)(uint32_t struct_size, cuabi_graph_node_info* out_info);
typedef cuabi_status (*PFN_cuabi_graph_update_info_init)(uint32_t struct_size, cuabi_graph_update_info* out_info);
typedef cuabi_status (*PFN_cuabi_graph_memcpy_params_init)(uint32_t struct_size, cuabi_graph_memcpy_params* out_params);
typedef cuabi_status (*PFN_cuabi_graph_capture_begin)(cuabi_stream* stream, int32_t mode);
typedef cuabi_status (*PFN_cuabi_graph_capture_end)(cuabi_stream* stream, const cuabi_graph_options* options, cuabi_graph** out_graph);
typedef cuabi_status (*PFN_cuabi_graph_capture_end_update)(cuabi_stream* stream, cuabi_graph* graph, uint32_t flags, cuabi_graph_update_info* out_info);
typedef cuabi_status (*PFN_cuabi_graph_capture_abort)(cuabi_stream* stream);
typedef cuabi_status (*PFN_cuabi_graph_capture_get_status)(cuabi_stream* stream, int32_t* out_status);
typedef void (*PFN_cuabi_graph_destroy)(cuabi_graph* graph);
typedef cuabi_status (*PFN_cuabi_graph_launch)(cuabi_graph* graph, cuabi_stream* stream);
typedef cuabi_status (*PFN_cuabi_graph_upload)(cuabi_graph* graph, cuabi_stream* stream);
typedef cuabi_status (*PFN_cuabi_graph_retain_buffer)(cuabi_graph* graph, cuabi_buffer* buffer);
typedef cuabi_status (*PFN_cuabi_graph_get_native)(cuabi_graph* graph, void** out_cu_graph, void** out_cu_graph_exec);
typedef cuabi_status (*PFN_cuabi_graph_get_node_count)(cuabi_graph* graph, size_t* out_count);
typedef cuabi_status (*PFN_cuabi_graph_get_node_info)(cuabi_graph* graph, size_t index, cuabi_graph_node_info* out_info);
typedef cuabi_status (*PFN_cuabi_graph_get_node_kernel_name)(cuabi_graph* graph, size_t index, char* out_text, size_t capacity, size_t* out_size);
typedef cuabi_status (*PFN_cuabi_graph_get_node_param_info)(cuabi_graph* graph, size_t index, size_t param_index, size_t* out_offset, size_t* out_size);
typedef cuabi_status (*PFN_cuabi_graph_update_kernel_args)(cuabi_graph* graph, size_t index, const cuabi_kernel_arg* args, size_t arg_count);
typedef cuabi_status (*PFN_cuabi_graph_update_kernel_args_packed)(cuabi_graph* graph, size_t index, const void* packed, size_t packed_size);
typedef cuabi_status (*PFN_cuabi_graph_update_kernel_geometry)(cuabi_graph* graph, size_t index, const uint32_t* grid, const uint32_t* block, uint32_t shared_memory_bytes);
typedef cuabi_status (*PFN_cuabi_graph_update_memset_value)(cuabi_graph* graph, size_t index, uint32_t value);
typedef cuabi_status (*PFN_cuabi_graph_update_memcpy)(cuabi_graph* graph, size_t index, const cuabi_graph_memcpy_params* params);
typedef cuabi_status (*PFN_cuabi_graph_set_node_enabled)(cuabi_graph* graph, size_t index, uint32_t enabled);
typedef cuabi_status (*PFN_cuabi_graph_get_node_enabled)(cuabi_graph* graph, size_t index, uint32_t* out_enabled);
typedef cuabi_status (*PFN_cuabi_graph_write_dot)(cuabi_graph* graph, const char* path, uint32_t flags);
typedef cuabi_status (*PFN_cuabi_graph_get_dot)(cuabi_graph* graph, uint32_t flags, char* out_text, size_t capacity, size_t* out_size);
typedef cuabi_status (*PFN_cuabi_graph_condition_create)(cuabi_stream* stream, uint32_t default_value, uint32_t flags, uint64_t* out_condition);
typedef cuabi_status (*PFN_cuabi_graph_capture_conditional_begin)(cuabi_stream* stream, uint64_t condition, int32_t type, uint32_t body_count);
typedef cuabi_status (*PFN_cuabi_graph_capture_conditional_next)(cuabi_stream* stream);
typedef cuabi_status (*PFN_cuabi_graph_capture_conditional_end)(cuabi_stream* stream);
typedef cuabi_status (*PFN_cuabi_graph_cache_stats_init)(uint32_t struct_size, cuabi_graph_cache_stats* out_stats);
typedef uint64_t (*PFN_cuabi_graph_cache_get_capacity_class)(uint64_t size);
typedef cuabi_status (*PFN_cuabi_graph_cache_lookup)(cuabi_context* context, const void* key, size_t key_size, uint64_t size, cuabi_graph** out_graph);
typedef cuabi_status (*PFN_cuabi_graph_cache_insert)(cuabi_context* context, const void* key, size_t key_size, uint64_t size, cuabi_graph* graph);
typedef void (*PFN_cuabi_graph_cache_set_capacity)(size_t max_entries);
typedef cuabi_status (*PFN_cuabi_graph_cache_clear)(cuabi_context* context);
typedef cuabi_status (*PFN_cuabi_graph_cache_get_stats)(cuabi_graph_cache_stats* out_stats);
typedef cuabi_status (*PFN_cuabi_cache_stats_init)(uint32_t struct_size, cuabi_cache_stats* out_stats);
typedef cuabi_status (*PFN_cuabi_driver_jit_cache_info_init)(uint32_t struct_size, cuabi_driver_jit_cache_info* out_info);
typedef cuabi_status (*PFN_cuabi_cache_get_stats)(cuabi_cache_stats* out_stats);
typedef cuabi_status (*PFN_cuabi_cache_get_directory)(char* out_text, size_t capacity, size_t* out_size);
typedef cuabi_status (*PFN_cuabi_cache_get_degradation_reason)(char* out_text, size_t capacity, size_t* out_size);
typedef cuabi_status (*PFN_cuabi_cache_prune)(uint64_t max_bytes, uint64_t* out_removed_entries, uint64_t* out_removed_bytes);
typedef cuabi_status (*PFN_cuabi_cache_clear)(uint64_t* out_removed_entries, uint64_t* out_removed_bytes);
typedef cuabi_status (*PFN_cuabi_cache_verify)(uint64_t* out_checked_entries, uint64_t* out_removed_entries);
typedef cuabi_status (*PFN_cuabi_cache_add_readonly_layer)(const char* path);
typedef cuabi_status (*PFN_cuabi_cache_export)(const char* path, const char* match, uint64_t* out_entries, uint64_t* out_bytes);
typedef cuabi_status (*PFN_cuabi_cache_import)(const char* path, uint64_t* out_imported, uint64_t* out_refused);
typedef cuabi_status (*PFN_cuabi_cache_configure_driver_jit)(void);
typedef cuabi_status (*PFN_cuabi_cache_get_driver_jit_info)(cuabi_driver_jit_cache_info* out_info);
typedef cuabi_status (*PFN_cuabi_cache_get_driver_jit_path)(char* out_text, size_t capacity, size_t* out_size);
typedef uint32_t (*PFN_cuabi_range_get_enabled)(void);
typedef uint32_t (*PFN_cuabi_range_get_profiler_attached)(void);
typedef cuabi_status (*PFN_cuabi_range_get_catalog_count)(size_t* out_count);
typedef cuabi_status (*PFN_cuabi_range_get_catalog_entry)(size_t index, const char** out_name, const char** out_description);
typedef cuabi_status (*PFN_cuabi_range_push)(const char* name, const char* domain);
typedef cuabi_status (*PFN_cuabi_range_pop)(void);
typedef cuabi_status (*PFN_cuabi_range_start)(const char* name, const char* domain, cuabi_range** out_range);
typedef cuabi_status (*PFN_cuabi_range_end)(cuabi_range* range);

#ifdef __cplusplus
}
#endif

#endif /* CUABI_H */
