/* A dlopen user needs one symbol: this program loads the library the way the Rust,
 * Go and Zig bindings do, looks up only cuabi_get_proc_address with dlsym, and resolves every
 * function that `nm -D --defined-only` lists through it. Each result must be the exported
 * function of that name (checked with dladdr, which is not a lookup by name), a few are called,
 * and names that are not exported functions must give NULL.
 *
 * usage: dlopen_resolves_exports <path to libcuabi.so.N>
 * Built with CUABI_NO_PROTOTYPES and not linked against libcuabi: a prototype would hide a
 * function that the header forgot to give a PFN_ typedef. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define CUABI_NO_PROTOTYPES
#include "cuabi/cuabi.h"

static int failures = 0;

static void fail(const char* what, const char* name) {
    fprintf(stderr, "FAIL: %s: %s\n", what, name);
    ++failures;
}

static void* address_of(cuabi_proc function) {
    void* address;
    memcpy(&address, &function, sizeof address); /* ISO C has no function-to-object cast */
    return address;
}

/* Resolves one exported name and checks that it is the function of that name. */
static void check_export(PFN_cuabi_get_proc_address get_proc, const char* name) {
    Dl_info info;
    cuabi_proc function = get_proc(name);
    if (function == NULL) {
        fail("cuabi_get_proc_address returned NULL for an exported function", name);
        return;
    }
    if (dladdr(address_of(function), &info) == 0 || info.dli_sname == NULL ||
        strcmp(info.dli_sname, name) != 0 || info.dli_saddr != address_of(function))
        fail("cuabi_get_proc_address returned a pointer that is not the exported function", name);
}

/* Resolves every cuabi_ function `nm -D --defined-only` lists; returns how many. */
static int check_all_exports(PFN_cuabi_get_proc_address get_proc, const char* library) {
    char command[4096], line[1024], type[8], symbol[512];
    int count = 0;
    FILE* nm;
    if (strchr(library, '\'') != NULL || strlen(library) > sizeof command - 64) {
        fail("cannot quote the library path for nm", library);
        return 0;
    }
    snprintf(command, sizeof command, "nm -D --defined-only '%s'", library);
    nm = popen(command, "r");
    if (nm == NULL) {
        fail("cannot run", command);
        return 0;
    }
    while (fgets(line, sizeof line, nm) != NULL) {
        char* version;
        if (sscanf(line, "%*s %7s %511s", type, symbol) != 2 || strcmp(type, "T") != 0) continue;
        version = strchr(symbol, '@'); /* cuabi_x@@CUABI_1.0 */
        if (version != NULL) *version = '\0';
        if (strncmp(symbol, "cuabi_", 6) != 0) continue;
        check_export(get_proc, symbol);
        ++count;
    }
    if (pclose(nm) != 0) fail("nm failed (is binutils installed?)", command);
    return count;
}

int main(int argc, char** argv) {
    static const char* const not_exported[] = {
        "", "cuabi", "cuabi_", "cuabi_version_numbe", "cuabi_version_number_", " cuabi_version_number",
        "cuabi_version_number ", "CUABI_VERSION_NUMBER", "Cuabi_version_number", "PFN_cuabi_version_number",
        "cuabi_proc", "cuabi_context", "CUABI_1.0", "dlopen", "malloc", "main",
        "zzzz_after_every_name"};
    PFN_cuabi_get_proc_address get_proc;
    void* library;
    void* symbol;
    size_t i;
    int count;

    if (argc != 2) {
        fprintf(stderr, "usage: %s <libcuabi.so.N>\n", argv[0]);
        return 2;
    }
    library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        fprintf(stderr, "FAIL: dlopen(%s): %s\n", argv[1], dlerror());
        return 1;
    }
    symbol = dlsym(library, "cuabi_get_proc_address");
    if (symbol == NULL) {
        fprintf(stderr, "FAIL: dlsym(cuabi_get_proc_address): %s\n", dlerror());
        return 1;
    }
    memcpy(&get_proc, &symbol, sizeof get_proc);

    count = check_all_exports(get_proc, argv[1]);
    if (count == 0) fail("nm -D listed no cuabi_ functions", argv[1]);

    for (i = 0; i < sizeof not_exported / sizeof not_exported[0]; ++i)
        if (get_proc(not_exported[i]) != NULL) fail("resolved a name that is not an exported function", not_exported[i]);
    if (get_proc(NULL) != NULL) fail("resolved a NULL name", "(null)");

    /* Call a few through their PFN_ types: the pointers are real and the ABI matches. */
    {
        PFN_cuabi_version_number version_number = (PFN_cuabi_version_number)get_proc("cuabi_version_number");
        PFN_cuabi_abi_version abi_version = (PFN_cuabi_abi_version)get_proc("cuabi_abi_version");
        PFN_cuabi_status_name status_name = (PFN_cuabi_status_name)get_proc("cuabi_status_name");
        if (address_of(get_proc("cuabi_get_proc_address")) != symbol)
            fail("cuabi_get_proc_address does not resolve to itself", "cuabi_get_proc_address");
        if (version_number == NULL || version_number() != CUABI_VERSION_NUMBER)
            fail("the loaded library's version differs from the header's", "cuabi_version_number");
        if (abi_version == NULL || abi_version() != CUABI_ABI_VERSION)
            fail("the loaded library's ABI version differs from the header's", "cuabi_abi_version");
        if (status_name == NULL || strcmp(status_name(CUABI_ERROR_INVALID_HANDLE), "CUABI_ERROR_INVALID_HANDLE") != 0)
            fail("cuabi_status_name(CUABI_ERROR_INVALID_HANDLE) is wrong", "cuabi_status_name");
    }

    dlclose(library);
    if (failures != 0) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("OK: %d exported functions resolve through cuabi_get_proc_address; %zu unknown names "
           "give NULL\n", count, sizeof not_exported / sizeof not_exported[0] + 1);
    return 0;
}
