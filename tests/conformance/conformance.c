/*
 * The conformance scenario's reference implementation, in C through the public header only.
 * Every language binding runs the same seventeen steps and must print this program's transcript
 * line for line (tests/conformance/README.md; scripts/conformance.sh diffs them).
 *
 * Output: one line per step on stdout -- "ok   <step>", "FAIL <step>: <what differed>" or
 * "skip <step>: no GPU (<STATUS_NAME>)" -- then "<P> passed, <F> failed, <S> skipped". Details of
 * a failure (cuabi's message) go to stderr, which is not part of the transcript. Exit status 0
 * exactly when no step failed.
 *
 * Strict C99 (plus POSIX threads for the two steps that need a second thread).
 */
#define _POSIX_C_SOURCE 200809L

#include <cuabi/cuabi.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 1048576u            /* elements per buffer */
#define BLOCK 256u            /* threads per block for every launch */
#define GRID (N / BLOCK)      /* 4096 blocks: one thread per element */
#define BATCH_LAUNCHES 4u     /* saxpy launches of step 14's batch */
#define GRAPH_LAUNCHES 8u     /* saxpy launches captured in step 15 */
#define WHILE_ITERATIONS 5u   /* runs of step 16's while body */
#define THREADS 4             /* threads of step 17 */
#define THREAD_LAUNCHES 1000u /* launches per thread in step 17 */

static const char SOURCE[] =
    "extern \"C\" __global__ void saxpy(float a, const float* x, float* y, unsigned n) {\n"
    "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n"
    "template <typename T>\n"
    "__global__ void scale(T* data, T factor, unsigned n) {\n"
    "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) data[i] *= factor;\n"
    "}\n";

/* Step 15's kernel: counts down and clears the while node's condition at zero. */
static const char COUNT_DOWN_SOURCE[] =
    "extern \"C\" __device__ __cudart_builtin__ void cudaGraphSetConditional(cudaGraphConditionalHandle handle, "
    "unsigned int value);\n"
    "extern \"C\" __global__ void count_down(unsigned* counter, cudaGraphConditionalHandle condition) {\n"
    "    if (--*counter == 0u) cudaGraphSetConditional(condition, 0u);\n"
    "}\n";

static const char BROKEN[] = "__global__ void broken( { }\n";

static const char* const NAME_EXPRESSIONS[] = {"scale<float>", "scale<double>"};

/* Step 7's two sources: a kernel that calls a function only the second one defines. */
static const char LINK_KERNEL[] =
    "extern \"C\" __device__ float twice(float x);\n"
    "extern \"C\" __global__ void apply_twice(float* data, unsigned n) {\n"
    "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) data[i] = twice(data[i]);\n"
    "}\n";
static const char LINK_DEVICE[] = "extern \"C\" __device__ float twice(float x) { return 2.0f * x; }\n";

/* Everything the steps share: what earlier steps made and what the device should now hold. */
typedef struct {
    char why[512];               /* the failing step's "what differed" */
    cuabi_module* offline;       /* step 4 */
    cuabi_module* offline_again; /* step 5 */
    cuabi_status gpu_missing;    /* step 8: the status that means "no GPU here", or 0 */
    cuabi_status context_failed; /* step 8: any other failure to get a context, or 0 */
    cuabi_context* context;
    cuabi_stream* stream;
    cuabi_buffer *x, *y, *x2, *y2;
    uint64_t x_address, y_address, x2_address, y2_address;
    cuabi_module* module;
    cuabi_kernel *saxpy, *scale;
    cuabi_graph* graph;
    cuabi_module* count_down_module; /* step 15 */
    cuabi_kernel* count_down;
    cuabi_buffer* counter;
    uint64_t counter_address;
    cuabi_graph* while_graph;
    float* host;   /* scratch for read-backs (N floats) */
    float* expect; /* what y should hold (N floats), updated with the same float operations */
} scenario;

/* Records why the step failed; returns 0 so a step can `return failed(s, ...)`. */
static int failed(scenario* s, const char* format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(s->why, sizeof s->why, format, args);
    va_end(args);
    return 0;
}

/* Checks a status; on a difference records it, with cuabi's message on stderr. */
static int expect_status(scenario* s, cuabi_status got, cuabi_status want, const char* call) {
    if (got == want) return 1;
    if (got != CUABI_SUCCESS) fprintf(stderr, "%s: %s\n", call, cuabi_last_error_message());
    return failed(s, "%s returned %s, expected %s", call, cuabi_status_name(got), cuabi_status_name(want));
}

#define CHECK(call) \
    do { if (!expect_status(s, (call), CUABI_SUCCESS, #call)) return 0; } while (0)

/* The thread's last message, copied (the next cuabi call may replace it). */
static void copy_message(char* out, size_t capacity) {
    snprintf(out, capacity, "%s", cuabi_last_error_message());
}

/* ---- CPU steps ------------------------------------------------------------------------------ */

static int step_load(scenario* s) {
    uint32_t abi = cuabi_abi_version(), version = cuabi_version_number();
    if (abi != 1) return failed(s, "cuabi_abi_version() is %u, expected 1", (unsigned)abi);
    if (version < 10000) return failed(s, "cuabi_version_number() is %u, expected at least 10000", (unsigned)version);
    return 1;
}

static int step_status_names(scenario* s) {
    static const struct { cuabi_status status; const char* name; } cases[] = {
        {0, "CUABI_SUCCESS"}, {67, "CUABI_ERROR_ARGUMENT_SIZE"}, {9999, "CUABI_UNKNOWN_STATUS"}};
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const char* name = cuabi_status_name(cases[i].status);
        if (name == NULL || strcmp(name, cases[i].name) != 0)
            return failed(s, "the name of status %d is %s, expected %s", (int)cases[i].status,
                          name ? name : "NULL", cases[i].name);
    }
    return 1;
}

static void offline_options(cuabi_compile_options* options) {
    cuabi_compile_options_init(sizeof *options, options);
    options->target = "sm_90";
    options->name_expressions = NAME_EXPRESSIONS;
    options->name_expression_count = 2;
}

static int step_compile_error(scenario* s) {
    cuabi_compile_options options;
    cuabi_module* module = NULL;
    char message[2048];
    size_t log_size = 0;
    cuabi_status status;
    cuabi_compile_options_init(sizeof options, &options);
    options.target = "sm_90";
    status = cuabi_module_compile_offline(BROKEN, &options, &module);
    copy_message(message, sizeof message);
    cuabi_module_destroy(module);
    if (!expect_status(s, status, CUABI_ERROR_COMPILE, "compiling BROKEN")) return 0;
    if (strstr(message, "Fix:") == NULL) return failed(s, "the message has no 'Fix:': %s", message);
    CHECK(cuabi_last_compile_log(NULL, 0, &log_size));
    if (log_size <= 1) return failed(s, "the compile log is empty");
    return 1;
}

/* The lowered name of `expression` in `module`, into out (capacity bytes). */
static cuabi_status lowered_name(cuabi_module* module, const char* expression, char* out, size_t capacity) {
    size_t size = 0;
    return cuabi_module_get_lowered_name(module, expression, out, capacity, &size);
}

static int step_offline_templates(scenario* s) {
    static const char* const lowered[] = {"_Z5scaleIfEvPT_S0_j", "_Z5scaleIdEvPT_S0_j"};
    cuabi_compile_options options;
    cuabi_module_info info;
    char name[256];
    size_t i;
    offline_options(&options);
    CHECK(cuabi_module_compile_offline(SOURCE, &options, &s->offline));
    cuabi_module_info_init(sizeof info, &info);
    CHECK(cuabi_module_get_info(s->offline, &info));
    if (info.image_kind != CUABI_IMAGE_CUBIN) return failed(s, "image kind %d, expected 2 (CUBIN)", (int)info.image_kind);
    if (info.image_size == 0) return failed(s, "the image is empty");
    for (i = 0; i < 2; ++i) {
        CHECK(lowered_name(s->offline, NAME_EXPRESSIONS[i], name, sizeof name));
        if (strcmp(name, lowered[i]) != 0)
            return failed(s, "%s lowered to %s, expected %s", NAME_EXPRESSIONS[i], name, lowered[i]);
    }
    return expect_status(s, lowered_name(s->offline, "scale<int>", name, sizeof name), CUABI_ERROR_KERNEL_NOT_FOUND,
                         "the lowered name of scale<int>");
}

static int step_memory_cache(scenario* s) {
    cuabi_compile_options options;
    cuabi_module_info info;
    offline_options(&options);
    CHECK(cuabi_module_compile_offline(SOURCE, &options, &s->offline_again));
    cuabi_module_info_init(sizeof info, &info);
    CHECK(cuabi_module_get_info(s->offline_again, &info));
    if (info.origin != CUABI_MODULE_ORIGIN_MEMORY_CACHE)
        return failed(s, "origin %d, expected 1 (memory cache)", (int)info.origin);
    return 1;
}

static void* end_range(void* range) {
    cuabi_status* status = malloc(sizeof *status);
    if (status != NULL) *status = cuabi_range_end((cuabi_range*)range);
    return status;
}

/* Ends `range` on a new thread; returns the status cuabi_range_end gave there. */
static cuabi_status end_range_on_another_thread(cuabi_range* range) {
    pthread_t thread;
    void* result = NULL;
    cuabi_status status;
    if (pthread_create(&thread, NULL, end_range, range) != 0) return CUABI_ERROR_INTERNAL;
    pthread_join(thread, &result);
    status = result != NULL ? *(cuabi_status*)result : CUABI_ERROR_OUT_OF_HOST_MEMORY;
    free(result);
    return status;
}

static int step_ranges(scenario* s) {
    cuabi_range* range = NULL;
    size_t count = 0, i;
    CHECK(cuabi_range_push("conformance", NULL));
    CHECK(cuabi_range_pop());
    CHECK(cuabi_range_start("conformance", NULL, &range));
    CHECK(end_range_on_another_thread(range));
    if (!expect_status(s, cuabi_range_pop(), CUABI_ERROR_RANGE, "cuabi_range_pop() with none open")) return 0;
    CHECK(cuabi_range_get_catalog_count(&count));
    if (count < 13) return failed(s, "the catalog has %zu entries, expected at least 13", count);
    for (i = 0; i < count; ++i) {
        const char *name = NULL, *description = NULL;
        CHECK(cuabi_range_get_catalog_entry(i, &name, &description));
        if (strncmp(name, "cuabi.", 6) != 0) return failed(s, "catalog entry %zu is named %s", i, name);
    }
    return 1;
}

/* Compiles `source` to LTO-IR for sm_90, offline. */
static cuabi_status compile_ltoir(const char* source, cuabi_module** out) {
    cuabi_compile_options options;
    cuabi_compile_options_init(sizeof options, &options);
    options.target = "sm_90";
    options.flags = CUABI_COMPILE_LTO_IR;
    return cuabi_module_compile_offline(source, &options, out);
}

/* Links inputs[0..count) for sm_90 with link-time optimization, offline. */
static cuabi_status link_ltoir(cuabi_module* const* objects, size_t count, cuabi_module** out) {
    cuabi_link_input inputs[2];
    cuabi_link_options options;
    size_t i;
    memset(inputs, 0, sizeof inputs);
    for (i = 0; i < count; ++i) inputs[i].module = objects[i];
    cuabi_link_options_init(sizeof options, &options);
    options.target = "sm_90";
    options.flags = CUABI_LINK_LTO;
    return cuabi_module_link_offline(inputs, count, &options, out);
}

/* Step 7's checks; the caller destroys what they made, whatever failed. */
static int step_link_checked(scenario* s, cuabi_module** objects, cuabi_module** linked) {
    cuabi_module_info info = CUABI_MODULE_INFO_INIT;
    char names[64], message[2048];
    size_t size = 0;
    cuabi_module* alone = NULL;
    cuabi_status status;
    CHECK(compile_ltoir(LINK_KERNEL, &objects[0]));
    CHECK(compile_ltoir(LINK_DEVICE, &objects[1]));
    CHECK(link_ltoir(objects, 2, linked));
    CHECK(cuabi_module_get_info(*linked, &info));
    if (info.image_kind != CUABI_IMAGE_CUBIN) return failed(s, "the linked image_kind is %d, expected 2", info.image_kind);
    CHECK(cuabi_module_get_kernel_names(*linked, names, sizeof names, &size));
    if (strcmp(names, "apply_twice\n") != 0) return failed(s, "the linked kernels are '%s', expected 'apply_twice'", names);
    status = link_ltoir(objects, 1, &alone);
    copy_message(message, sizeof message);
    cuabi_module_destroy(alone);
    if (!expect_status(s, status, CUABI_ERROR_LINK, "linking LINK_KERNEL alone")) return 0;
    if (strstr(message, "Fix:") == NULL) return failed(s, "the message has no 'Fix:': %s", message);
    return 1;
}

static int step_link(scenario* s) {
    cuabi_module* objects[2] = {NULL, NULL};
    cuabi_module* linked = NULL;
    int ok = step_link_checked(s, objects, &linked);
    cuabi_module_destroy(objects[0]);
    cuabi_module_destroy(objects[1]);
    cuabi_module_destroy(linked);
    return ok;
}

static int step_context(scenario* s) {
    cuabi_device_info info;
    char message[2048];
    cuabi_status status = cuabi_context_create(NULL, &s->context);
    if (status == CUABI_ERROR_DRIVER_NOT_FOUND || status == CUABI_ERROR_NO_DEVICE) {
        copy_message(message, sizeof message);
        s->gpu_missing = status;
        if (strstr(message, "Fix:") == NULL) return failed(s, "the message has no 'Fix:': %s", message);
        return 1;
    }
    if (!expect_status(s, status, CUABI_SUCCESS, "cuabi_context_create")) {
        s->context_failed = status;
        return 0;
    }
    cuabi_device_info_init(sizeof info, &info);
    CHECK(cuabi_context_get_device_info(s->context, &info));
    if (info.name[0] == '\0') return failed(s, "the device has no name");
    if (info.compute_capability_major * 10 + info.compute_capability_minor < 75)
        return failed(s, "compute capability %d.%d, expected at least 7.5", (int)info.compute_capability_major,
                      (int)info.compute_capability_minor);
    return 1;
}

/* ---- GPU steps ------------------------------------------------------------------------------ */

/* Reads `buffer` (N floats) into s->host. */
static cuabi_status read_floats(scenario* s, cuabi_buffer* buffer) {
    return cuabi_buffer_read(buffer, 0, s->host, N * sizeof(float), NULL);
}

/* Compares `got` with `want` element by element; records the first difference. */
static int same_floats(scenario* s, const char* what, const float* got, const float* want) {
    unsigned i;
    for (i = 0; i < N; ++i)
        if (got[i] != want[i]) return failed(s, "%s[%u] is %.9g, expected %.9g", what, i, got[i], want[i]);
    return 1;
}

/* A buffer of N floats, element i being first + step * i, with its device address. */
static int make_buffer(scenario* s, cuabi_buffer** out, uint64_t* address, float first, float step) {
    unsigned i;
    for (i = 0; i < N; ++i) s->host[i] = first + step * (float)i;
    CHECK(cuabi_buffer_create(s->context, N * sizeof(float), NULL, out));
    CHECK(cuabi_buffer_get_device_address(*out, address));
    CHECK(cuabi_buffer_write(*out, 0, s->host, N * sizeof(float), NULL));
    return 1;
}

static int step_buffers(scenario* s) {
    unsigned i;
    if (!make_buffer(s, &s->x, &s->x_address, 0.0f, 1.0f)) return 0;
    if (!make_buffer(s, &s->y, &s->y_address, 1.0f, 0.0f)) return 0;
    for (i = 0; i < N; ++i) s->expect[i] = (float)i;
    CHECK(read_floats(s, s->x));
    if (!same_floats(s, "x", s->host, s->expect)) return 0;
    for (i = 0; i < N; ++i) s->expect[i] = 1.0f;
    CHECK(read_floats(s, s->y));
    return same_floats(s, "y", s->host, s->expect);
}

static cuabi_launch_config stream_config(scenario* s) {
    cuabi_launch_config config;
    cuabi_launch_config_init(sizeof config, &config);
    config.grid[0] = GRID;
    config.block[0] = BLOCK;
    config.stream = s->stream;
    return config;
}

/* saxpy(a, x, y, N) through the argument table, with the given config. */
static cuabi_status launch_saxpy(cuabi_kernel* saxpy, const cuabi_launch_config* config, float a, uint64_t x,
                                 uint64_t y) {
    unsigned n = N;
    cuabi_kernel_arg args[4];
    args[0].value = &a; args[0].size = sizeof a;
    args[1].value = &x; args[1].size = sizeof x;
    args[2].value = &y; args[2].size = sizeof y;
    args[3].value = &n; args[3].size = sizeof n;
    return cuabi_launch(saxpy, config, args, 4);
}

/* y = a * x + y on the host, in float, as the kernel computes it. */
static void expect_saxpy(scenario* s, float a, unsigned times) {
    unsigned i, k;
    for (k = 0; k < times; ++k)
        for (i = 0; i < N; ++i) s->expect[i] = a * (float)i + s->expect[i];
}

static int check_y(scenario* s) {
    CHECK(read_floats(s, s->y));
    return same_floats(s, "y", s->host, s->expect);
}

static int step_launch_table(scenario* s) {
    cuabi_compile_options options;
    cuabi_launch_config config;
    /* Without step 9's buffers the kernel would be given address 0. */
    if (s->x == NULL || s->y == NULL) return failed(s, "needs x and y from an earlier step");
    cuabi_compile_options_init(sizeof options, &options);
    options.name_expressions = NAME_EXPRESSIONS;
    options.name_expression_count = 2;
    CHECK(cuabi_module_compile(s->context, SOURCE, &options, &s->module));
    CHECK(cuabi_module_get_kernel(s->module, "saxpy", &s->saxpy));
    CHECK(cuabi_stream_create(s->context, NULL, &s->stream));
    config = stream_config(s);
    CHECK(launch_saxpy(s->saxpy, &config, 2.0f, s->x_address, s->y_address));
    CHECK(cuabi_stream_synchronize(s->stream));
    expect_saxpy(s, 2.0f, 1);
    return check_y(s);
}

/* saxpy(a, x, y, N)'s arguments at the offsets cuabi_kernel_get_param_info reports; *out_size is
 * where the last parameter ends. */
static int pack_saxpy(scenario* s, float a, unsigned char packed[64], size_t* out_size) {
    const void* values[4];
    unsigned n = N;
    size_t i, offset = 0, size = 0;
    values[0] = &a; values[1] = &s->x_address; values[2] = &s->y_address; values[3] = &n;
    memset(packed, 0, 64);
    for (i = 0; i < 4; ++i) {
        CHECK(cuabi_kernel_get_param_info(s->saxpy, i, &offset, &size));
        if (offset + size > 64) return failed(s, "parameter %zu ends at byte %zu", i, offset + size);
        memcpy(packed + offset, values[i], size);
        *out_size = offset + size;
    }
    return 1;
}

static int step_launch_packed(scenario* s) {
    unsigned char packed[64];
    size_t end = 0;
    cuabi_launch_config config = stream_config(s);
    if (!pack_saxpy(s, 2.0f, packed, &end)) return 0;
    CHECK(cuabi_launch_packed(s->saxpy, &config, packed, end));
    CHECK(cuabi_stream_synchronize(s->stream));
    expect_saxpy(s, 2.0f, 1);
    return check_y(s);
}

/* Expects `status` with a message containing `text`. */
static int expect_refusal(scenario* s, cuabi_status status, cuabi_status want, const char* text, const char* what) {
    char message[2048];
    copy_message(message, sizeof message);
    if (!expect_status(s, status, want, what)) return 0;
    if (strstr(message, text) == NULL) return failed(s, "%s: the message has no '%s': %s", what, text, message);
    return 1;
}

static int step_launch_checks(scenario* s) {
    cuabi_launch_config config = stream_config(s);
    double wide = 2.0;
    unsigned n = N;
    cuabi_kernel_arg args[4];
    config.block[0] = 1024;
    config.block[1] = 2;
    if (!expect_refusal(s, launch_saxpy(s->saxpy, &config, 2.0f, s->x_address, s->y_address),
                        CUABI_ERROR_LAUNCH_BLOCK, "2048", "block (1024,2,1)"))
        return 0;
    config = stream_config(s);
    args[0].value = &wide; args[0].size = sizeof wide;
    args[1].value = &s->x_address; args[1].size = sizeof s->x_address;
    args[2].value = &s->y_address; args[2].size = sizeof s->y_address;
    args[3].value = &n; args[3].size = sizeof n;
    if (!expect_refusal(s, cuabi_launch(s->saxpy, &config, args, 4), CUABI_ERROR_ARGUMENT_SIZE, "parameter 0",
                        "8 bytes for parameter 0"))
        return 0;
    CHECK(cuabi_stream_synchronize(s->stream));
    return check_y(s);
}

static int step_template_kernel(scenario* s) {
    cuabi_launch_config config = stream_config(s);
    float factor = 0.5f;
    unsigned n = N, i;
    cuabi_kernel_arg args[3];
    CHECK(cuabi_module_get_kernel(s->module, "scale<float>", &s->scale));
    args[0].value = &s->y_address; args[0].size = sizeof s->y_address;
    args[1].value = &factor; args[1].size = sizeof factor;
    args[2].value = &n; args[2].size = sizeof n;
    CHECK(cuabi_launch(s->scale, &config, args, 3));
    CHECK(cuabi_stream_synchronize(s->stream));
    for (i = 0; i < N; ++i) s->expect[i] *= factor;
    return check_y(s);
}

/* Captures GRAPH_LAUNCHES saxpy launches (a = 1, x, y) into s->graph; checks its inventory. */
static int capture_graph(scenario* s) {
    cuabi_launch_config config = stream_config(s);
    cuabi_graph_node_info info;
    size_t count = 0, i;
    CHECK(cuabi_graph_capture_begin(s->stream, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    for (i = 0; i < GRAPH_LAUNCHES; ++i) {
        cuabi_status status = launch_saxpy(s->saxpy, &config, 1.0f, s->x_address, s->y_address);
        if (status != CUABI_SUCCESS) {
            cuabi_graph_capture_abort(s->stream);
            return expect_status(s, status, CUABI_SUCCESS, "a captured launch");
        }
    }
    CHECK(cuabi_graph_capture_end(s->stream, NULL, &s->graph));
    CHECK(cuabi_graph_get_node_count(s->graph, &count));
    if (count != GRAPH_LAUNCHES) return failed(s, "the graph has %zu nodes, expected %u", count, GRAPH_LAUNCHES);
    for (i = 0; i < count; ++i) {
        cuabi_graph_node_info_init(sizeof info, &info);
        CHECK(cuabi_graph_get_node_info(s->graph, i, &info));
        if (info.kind != CUABI_GRAPH_NODE_KERNEL) return failed(s, "node %zu is of kind %d, expected 1 (kernel)", i, (int)info.kind);
    }
    return 1;
}

/* Points node 0 at x2, y2 (a = 1). */
static cuabi_status retarget_node_0(scenario* s) {
    float a = 1.0f;
    unsigned n = N;
    cuabi_kernel_arg args[4];
    args[0].value = &a; args[0].size = sizeof a;
    args[1].value = &s->x2_address; args[1].size = sizeof s->x2_address;
    args[2].value = &s->y2_address; args[2].size = sizeof s->y2_address;
    args[3].value = &n; args[3].size = sizeof n;
    return cuabi_graph_update_kernel_args(s->graph, 0, args, 4);
}

static int step_launch_batch(scenario* s) {
    unsigned char packed[64];
    size_t size = 0, submitted = 0, k;
    cuabi_launch_config config = stream_config(s), too_large = stream_config(s);
    cuabi_launch_item items[BATCH_LAUNCHES];
    if (!pack_saxpy(s, 1.0f, packed, &size)) return 0;
    for (k = 0; k < BATCH_LAUNCHES; ++k) {
        items[k].kernel = s->saxpy;
        items[k].config = &config;
        items[k].args = NULL;
        items[k].arg_count = 0;
        items[k].packed = packed;
        items[k].packed_size = size;
    }
    CHECK(cuabi_launch_batch(items, BATCH_LAUNCHES, &submitted));
    if (submitted != BATCH_LAUNCHES) return failed(s, "%zu of %u launches submitted", submitted, BATCH_LAUNCHES);
    CHECK(cuabi_stream_synchronize(s->stream));
    expect_saxpy(s, 1.0f, BATCH_LAUNCHES);
    if (!check_y(s)) return 0;
    /* Item 1 of 3 is refused: item 0 runs, item 2 does not. */
    too_large.block[0] = 1024;
    too_large.block[1] = 2;
    items[1].config = &too_large;
    if (!expect_refusal(s, cuabi_launch_batch(items, 3, &submitted), CUABI_ERROR_LAUNCH_BLOCK,
                        "cuabi_launch_batch item 1 of 3: ", "item 1's block (1024,2,1)"))
        return 0;
    if (submitted != 1) return failed(s, "the refused item's index is %zu, not 1", submitted);
    CHECK(cuabi_stream_synchronize(s->stream));
    expect_saxpy(s, 1.0f, 1);
    return check_y(s);
}

static int step_graph(scenario* s) {
    unsigned i;
    if (!make_buffer(s, &s->x2, &s->x2_address, 1.0f, 0.0f)) return 0;
    if (!make_buffer(s, &s->y2, &s->y2_address, 0.0f, 0.0f)) return 0;
    if (!capture_graph(s)) return 0;
    CHECK(cuabi_graph_launch(s->graph, s->stream));
    CHECK(cuabi_stream_synchronize(s->stream));
    expect_saxpy(s, 1.0f, GRAPH_LAUNCHES);
    if (!check_y(s)) return 0;
    /* The graph reaches x2 and y2 only through kernel arguments: it must be told to keep them. */
    CHECK(cuabi_graph_retain_buffer(s->graph, s->x2));
    CHECK(cuabi_graph_retain_buffer(s->graph, s->y2));
    CHECK(retarget_node_0(s));
    CHECK(cuabi_graph_launch(s->graph, s->stream));
    CHECK(cuabi_stream_synchronize(s->stream));
    expect_saxpy(s, 1.0f, GRAPH_LAUNCHES - 1);
    if (!check_y(s)) return 0;
    CHECK(read_floats(s, s->y2));
    for (i = 0; i < N; ++i)
        if (s->host[i] != 1.0f) return failed(s, "y2[%u] is %.9g, expected 1", i, s->host[i]);
    return 1;
}

/* Captures a while node whose body is saxpy(1, x, y) and count_down(counter, condition). */
static int capture_while(scenario* s) {
    cuabi_launch_config config = stream_config(s), one = stream_config(s);
    cuabi_kernel_arg args[2];
    uint64_t condition = 0;
    cuabi_status status;
    one.grid[0] = 1;
    one.block[0] = 1;
    CHECK(cuabi_graph_capture_begin(s->stream, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    /* A failing call below ends the capture itself. */
    CHECK(cuabi_graph_condition_create(s->stream, 1, CUABI_GRAPH_CONDITION_ASSIGN_DEFAULT, &condition));
    CHECK(cuabi_graph_capture_conditional_begin(s->stream, condition, CUABI_GRAPH_CONDITIONAL_WHILE, 1));
    CHECK(launch_saxpy(s->saxpy, &config, 1.0f, s->x_address, s->y_address));
    args[0].value = &s->counter_address; args[0].size = sizeof s->counter_address;
    args[1].value = &condition; args[1].size = sizeof condition;
    CHECK(cuabi_launch(s->count_down, &one, args, 2));
    CHECK(cuabi_graph_capture_conditional_end(s->stream));
    status = cuabi_graph_capture_end(s->stream, NULL, &s->while_graph);
    return expect_status(s, status, CUABI_SUCCESS, "cuabi_graph_capture_end");
}

static int step_conditional_graph(scenario* s) {
    cuabi_compile_options options;
    cuabi_graph_node_info info;
    uint32_t counter = WHILE_ITERATIONS;
    size_t count = 0;
    cuabi_compile_options_init(sizeof options, &options);
    CHECK(cuabi_module_compile(s->context, COUNT_DOWN_SOURCE, &options, &s->count_down_module));
    CHECK(cuabi_module_get_kernel(s->count_down_module, "count_down", &s->count_down));
    CHECK(cuabi_buffer_create(s->context, sizeof counter, NULL, &s->counter));
    CHECK(cuabi_buffer_get_device_address(s->counter, &s->counter_address));
    CHECK(cuabi_buffer_write(s->counter, 0, &counter, sizeof counter, NULL));
    if (!capture_while(s)) return 0;
    CHECK(cuabi_graph_get_node_count(s->while_graph, &count));
    if (count != 1) return failed(s, "the graph has %zu nodes, expected 1", count);
    cuabi_graph_node_info_init(sizeof info, &info);
    CHECK(cuabi_graph_get_node_info(s->while_graph, 0, &info));
    if (info.kind != CUABI_GRAPH_NODE_CONDITIONAL || info.conditional_type != CUABI_GRAPH_CONDITIONAL_WHILE ||
        info.conditional_body_nodes != 2)
        return failed(s, "node 0 is of kind %d, type %d with %llu body nodes, expected 14, 2 with 2", (int)info.kind,
                      (int)info.conditional_type, (unsigned long long)info.conditional_body_nodes);
    CHECK(cuabi_graph_launch(s->while_graph, s->stream));
    CHECK(cuabi_stream_synchronize(s->stream));
    expect_saxpy(s, 1.0f, WHILE_ITERATIONS);
    if (!check_y(s)) return 0;
    CHECK(cuabi_buffer_read(s->counter, 0, &counter, sizeof counter, NULL));
    if (counter != 0) return failed(s, "the counter is %u after the replay, expected 0", (unsigned)counter);
    return 1;
}

/* One thread of step 16: its own stream and buffers, THREAD_LAUNCHES launches. */
typedef struct {
    cuabi_context* context;
    cuabi_kernel* saxpy;
    char why[512]; /* "" when every check held */
} worker;

static void worker_fail(worker* w, const char* what, cuabi_status status) {
    fprintf(stderr, "%s: %s\n", what, cuabi_last_error_message());
    snprintf(w->why, sizeof w->why, "%s returned %s", what, cuabi_status_name(status));
}

#define WORKER_CHECK(call) \
    do { cuabi_status st_ = (call); if (st_ != CUABI_SUCCESS) { worker_fail(w, #call, st_); goto done; } } while (0)

static void* run_worker(void* argument) {
    worker* w = argument;
    cuabi_stream* stream = NULL;
    cuabi_buffer *x = NULL, *y = NULL;
    uint64_t x_address = 0, y_address = 0;
    float* host = malloc(N * sizeof(float));
    cuabi_launch_config config;
    unsigned i;
    if (host == NULL) { snprintf(w->why, sizeof w->why, "out of host memory"); return NULL; }
    WORKER_CHECK(cuabi_stream_create(w->context, NULL, &stream));
    WORKER_CHECK(cuabi_buffer_create(w->context, N * sizeof(float), NULL, &x));
    WORKER_CHECK(cuabi_buffer_create(w->context, N * sizeof(float), NULL, &y));
    WORKER_CHECK(cuabi_buffer_get_device_address(x, &x_address));
    WORKER_CHECK(cuabi_buffer_get_device_address(y, &y_address));
    WORKER_CHECK(cuabi_buffer_fill(x, 0, 0x3f800000u, 4, N, stream)); /* 1.0f */
    WORKER_CHECK(cuabi_buffer_fill(y, 0, 0u, 4, N, stream));
    cuabi_launch_config_init(sizeof config, &config);
    config.grid[0] = GRID;
    config.block[0] = BLOCK;
    config.stream = stream;
    for (i = 0; i < THREAD_LAUNCHES; ++i) WORKER_CHECK(launch_saxpy(w->saxpy, &config, 1.0f, x_address, y_address));
    WORKER_CHECK(cuabi_stream_synchronize(stream));
    WORKER_CHECK(cuabi_buffer_read(y, 0, host, N * sizeof(float), NULL));
    for (i = 0; i < N; ++i)
        if (host[i] != (float)THREAD_LAUNCHES) {
            snprintf(w->why, sizeof w->why, "y[%u] is %.9g, expected %u", i, host[i], THREAD_LAUNCHES);
            break;
        }
done:
    cuabi_stream_destroy(stream);
    cuabi_buffer_destroy(x);
    cuabi_buffer_destroy(y);
    free(host);
    return NULL;
}

static int step_threads(scenario* s) {
    pthread_t threads[THREADS];
    worker workers[THREADS];
    int i, started = 0;
    for (i = 0; i < THREADS; ++i) {
        workers[i].context = s->context;
        workers[i].saxpy = s->saxpy;
        workers[i].why[0] = '\0';
    }
    for (; started < THREADS; ++started)
        if (pthread_create(&threads[started], NULL, run_worker, &workers[started]) != 0) break;
    for (i = 0; i < started; ++i) pthread_join(threads[i], NULL);
    if (started < THREADS) return failed(s, "could not start thread %d", started);
    for (i = 0; i < THREADS; ++i)
        if (workers[i].why[0] != '\0') return failed(s, "thread %d: %s", i, workers[i].why);
    return 1;
}

/* Destroys every handle the scenario holds, the context first; safe to repeat. */
static void destroy_all(scenario* s) {
    cuabi_context_destroy(s->context);
    cuabi_graph_destroy(s->graph);
    cuabi_graph_destroy(s->while_graph);
    cuabi_kernel_destroy(s->count_down);
    cuabi_module_destroy(s->count_down_module);
    cuabi_buffer_destroy(s->counter);
    cuabi_kernel_destroy(s->saxpy);
    cuabi_kernel_destroy(s->scale);
    cuabi_module_destroy(s->module);
    cuabi_module_destroy(s->offline);
    cuabi_module_destroy(s->offline_again);
    cuabi_stream_destroy(s->stream);
    cuabi_buffer_destroy(s->x);
    cuabi_buffer_destroy(s->y);
    cuabi_buffer_destroy(s->x2);
    cuabi_buffer_destroy(s->y2);
}

static int step_teardown(scenario* s) {
    size_t size = 0;
    destroy_all(s);
    destroy_all(s); /* every handle a second time: harmless, a handle is never valid twice */
    return expect_status(s, cuabi_buffer_get_size(s->x, &size), CUABI_ERROR_INVALID_HANDLE,
                         "cuabi_buffer_get_size on a destroyed buffer");
}

/* ---- the run -------------------------------------------------------------------------------- */

typedef struct {
    const char* name;
    int (*run)(scenario*);
    int needs_gpu;
} step;

static const step STEPS[] = {
    {"load", step_load, 0},
    {"status-names", step_status_names, 0},
    {"compile-error", step_compile_error, 0},
    {"offline-templates", step_offline_templates, 0},
    {"memory-cache", step_memory_cache, 0},
    {"ranges", step_ranges, 0},
    {"link", step_link, 0},
    {"context", step_context, 0},
    {"buffers", step_buffers, 1},
    {"launch-table", step_launch_table, 1},
    {"launch-packed", step_launch_packed, 1},
    {"launch-checks", step_launch_checks, 1},
    {"template-kernel", step_template_kernel, 1},
    {"launch-batch", step_launch_batch, 1},
    {"graph", step_graph, 1},
    {"conditional-graph", step_conditional_graph, 1},
    {"threads", step_threads, 1},
    {"teardown", step_teardown, 1},
};

int main(void) {
    static scenario s;
    int passed = 0, failures = 0, skipped = 0;
    size_t i;
    s.host = malloc(N * sizeof(float));
    s.expect = malloc(N * sizeof(float));
    if (s.host == NULL || s.expect == NULL) {
        fprintf(stderr, "conformance: out of host memory\n");
        return 1;
    }
    for (i = 0; i < sizeof STEPS / sizeof STEPS[0]; ++i) {
        const step* current = &STEPS[i];
        if (current->needs_gpu && s.gpu_missing != CUABI_SUCCESS) {
            printf("skip %s: no GPU (%s)\n", current->name, cuabi_status_name(s.gpu_missing));
            ++skipped;
        } else if (current->needs_gpu && s.context_failed != CUABI_SUCCESS) {
            printf("FAIL %s: no context (%s)\n", current->name, cuabi_status_name(s.context_failed));
            ++failures;
        } else if (current->run(&s)) {
            printf("ok   %s\n", current->name);
            ++passed;
        } else {
            printf("FAIL %s: %s\n", current->name, s.why);
            ++failures;
        }
        fflush(stdout);
    }
    destroy_all(&s);
    free(s.host);
    free(s.expect);
    printf("%d passed, %d failed, %d skipped\n", passed, failures, skipped);
    return failures == 0 ? 0 : 1;
}
