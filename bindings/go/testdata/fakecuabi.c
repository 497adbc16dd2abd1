/* A library that claims to be libcuabi but exports almost nothing: for the tests of what the Go
 * package does with a library lacking functions (FAKE_ABI=1) or of another ABI major (FAKE_ABI=2).
 * Built by the tests with the system C compiler. */
#include <stdint.h>
#include <string.h>

typedef void (*proc)(void);

static uint32_t abi_version(void) { return FAKE_ABI; }
static uint32_t version_number(void) { return 10000u * FAKE_ABI; }

proc cuabi_get_proc_address(const char* name) {
    if (name == NULL) return NULL;
    if (strcmp(name, "cuabi_abi_version") == 0) return (proc)abi_version;
    if (strcmp(name, "cuabi_version_number") == 0) return (proc)version_number;
    return NULL;
}
