/* A stand-in libcuabi for loader tests: it forwards to the real library (CUABI_REAL) except that
 * it reports ABI major SHIM_ABI and lacks the function SHIM_HIDE -- as another major, or an older
 * 1.x without a newer function, would. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

typedef void (*proc)(void);
typedef proc (*get_proc)(const char*);

static uint32_t shim_abi_version(void) { return SHIM_ABI; }

proc cuabi_get_proc_address(const char* name) {
    static void* real;
    get_proc get;
    if (name != NULL && strcmp(name, "cuabi_abi_version") == 0) return (proc)shim_abi_version;
    if (name != NULL && strcmp(name, SHIM_HIDE) == 0) return NULL;
    if (real == NULL) real = dlopen(CUABI_REAL, RTLD_NOW | RTLD_LOCAL);
    if (real == NULL) return NULL;
    *(void**)&get = dlsym(real, "cuabi_get_proc_address");
    return get != NULL ? get(name) : NULL;
}
