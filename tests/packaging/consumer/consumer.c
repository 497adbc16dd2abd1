/* A user's program, built only against an installed cuabi (through its CMake package or its
 * pkg-config file). It checks that the library it runs with is the installed one and that it
 * answers as the installed header says.
 *
 * usage: consumer <the lib directory the library must be loaded from> */
#define _GNU_SOURCE /* dlinfo, RTLD_NOLOAD */
#include <dlfcn.h>
#include <link.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuabi/cuabi.h>

static int expect_name(cuabi_status status, const char* expected) {
    const char* name = cuabi_status_name(status);
    if (name != NULL && strcmp(name, expected) == 0) return 0;
    fprintf(stderr, "FAIL: cuabi_status_name(%d) is '%s', expected '%s'\n", (int)status,
            name ? name : "(null)", expected);
    return 1;
}

/* The path the dynamic loader really loaded libcuabi from, resolved, or NULL. */
static char* loaded_library_path(char* resolved) {
    struct link_map* map = NULL;
    char soname[32];
    void* handle;
    snprintf(soname, sizeof soname, "libcuabi.so.%d", CUABI_ABI_VERSION);
    handle = dlopen(soname, RTLD_NOW | RTLD_NOLOAD);
    if (handle == NULL || dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == NULL) return NULL;
    return realpath(map->l_name, resolved);
}

int main(int argc, char** argv) {
    char library[PATH_MAX], expected_dir[PATH_MAX];
    size_t length;
    int failures = 0;
    uint32_t version = cuabi_version_number();

    if (argc != 2 || realpath(argv[1], expected_dir) == NULL) {
        fprintf(stderr, "usage: consumer <existing lib directory>\n");
        return 2;
    }
    if (version != CUABI_VERSION_NUMBER) {
        fprintf(stderr, "FAIL: cuabi_version_number() is %u, the installed header says %d\n",
                version, CUABI_VERSION_NUMBER);
        ++failures;
    }
    failures += expect_name(CUABI_SUCCESS, "CUABI_SUCCESS");
    failures += expect_name(CUABI_ERROR_INVALID_HANDLE, "CUABI_ERROR_INVALID_HANDLE");

    length = strlen(expected_dir);
    if (loaded_library_path(library) == NULL) {
        fprintf(stderr, "FAIL: cannot tell where libcuabi was loaded from: %s\n", dlerror());
        ++failures;
    } else if (strncmp(library, expected_dir, length) != 0 || library[length] != '/') {
        fprintf(stderr, "FAIL: libcuabi was loaded from %s, not from the installed %s\n", library,
                expected_dir);
        ++failures;
    }
    if (failures != 0) return 1;
    printf("OK: cuabi %s (%u) from %s\n", CUABI_VERSION_STRING, version, library);
    return 0;
}
