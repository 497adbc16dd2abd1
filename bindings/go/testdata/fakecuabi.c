/* A library that claims to be libcuabi but exports almost nothing: for the tests of what the Go
 * package does with a library lacking functions (FAKE_ABI=1) or of another ABI major (FAKE_ABI=2),
 * and (FAKE_LAUNCH) of what a launch costs on the Go side.
 * Built by the tests with the system C compiler. */
#include <stdint.h>
#include <string.h>

typedef void (*proc)(void);
#ifdef FAKE_LAUNCH
proc fake_launch_functions(const char* name);
#endif

static uint32_t abi_version(void) { return FAKE_ABI; }
static uint32_t version_number(void) { return 10000u * FAKE_ABI; }

proc cuabi_get_proc_address(const char* name) {
    if (name == NULL) return NULL;
    if (strcmp(name, "cuabi_abi_version") == 0) return (proc)abi_version;
    if (strcmp(name, "cuabi_version_number") == 0) return (proc)version_number;
#ifdef FAKE_LAUNCH
    return fake_launch_functions(name);
#else
    return NULL;
#endif
}

#ifdef FAKE_LAUNCH
/* With FAKE_LAUNCH, also a packed launch and a graph replay that do nothing and succeed, with
 * saxpy's parameter layout: for measuring what the Go side of a launch costs, without a GPU. */
#include <stddef.h>

static int32_t launch_packed(void* kernel, const void* config, const void* packed, size_t size) {
    (void)kernel, (void)config, (void)packed;
    return size == 28 ? 0 : 67;
}
static int32_t param_count(void* kernel, size_t* out) {
    (void)kernel;
    *out = 4;
    return 0;
}
static int32_t param_info(void* kernel, size_t index, size_t* offset, size_t* size) {
    static const size_t offsets[4] = {0, 8, 16, 24}, sizes[4] = {4, 8, 8, 4};
    (void)kernel;
    if (index >= 4) return 32;
    *offset = offsets[index];
    *size = sizes[index];
    return 0;
}
static int32_t graph_launch(void* graph, void* stream) {
    (void)graph, (void)stream;
    return 0;
}

proc fake_launch_functions(const char* name) {
    if (strcmp(name, "cuabi_launch_packed") == 0) return (proc)launch_packed;
    if (strcmp(name, "cuabi_kernel_get_param_count") == 0) return (proc)param_count;
    if (strcmp(name, "cuabi_kernel_get_param_info") == 0) return (proc)param_info;
    if (strcmp(name, "cuabi_graph_launch") == 0) return (proc)graph_launch;
    return NULL;
}
#endif
