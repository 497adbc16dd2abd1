// A stand-in libnvJitLink for the link tests (CUABI_NVJITLINK_PATH points at it): it says it is
// nvJitLink 12.0 when $CUABI_STAND_IN_NVJITLINK is "old", and crashes inside nvJitLinkComplete
// when it is "crash" -- what a real nvJitLink does on no request, so that the refusal of an older
// nvJitLink and the worker that contains a crash are tested for real.
#include <cstdlib>
#include <cstring>

namespace {

bool mode(const char* wanted) {
    const char* value = std::getenv("CUABI_STAND_IN_NVJITLINK");
    return value != nullptr && std::strcmp(value, wanted) == 0;
}

int handle_storage;

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int nvJitLinkVersion(unsigned* major, unsigned* minor) {
    *major = mode("old") ? 12 : 13;
    *minor = 0;
    return 0;
}
__attribute__((visibility("default"))) int nvJitLinkCreate(void** handle, unsigned, const char**) {
    *handle = &handle_storage;
    return 0;
}
__attribute__((visibility("default"))) int nvJitLinkDestroy(void** handle) {
    *handle = nullptr;
    return 0;
}
__attribute__((visibility("default"))) int nvJitLinkAddData(void*, int, const void*, size_t, const char*) { return 0; }
__attribute__((visibility("default"))) int nvJitLinkComplete(void*) {
    if (mode("crash")) std::abort();
    return 6;  // NVJITLINK_ERROR_INTERNAL: a stand-in links nothing
}
__attribute__((visibility("default"))) int nvJitLinkGetLinkedCubinSize(void*, size_t* size) {
    *size = 0;
    return 0;
}
__attribute__((visibility("default"))) int nvJitLinkGetLinkedCubin(void*, void*) { return 0; }
__attribute__((visibility("default"))) int nvJitLinkGetLinkedPtxSize(void*, size_t* size) {
    *size = 0;
    return 0;
}
__attribute__((visibility("default"))) int nvJitLinkGetLinkedPtx(void*, char*) { return 0; }
__attribute__((visibility("default"))) int nvJitLinkGetErrorLogSize(void*, size_t* size) {
    *size = 0;
    return 0;
}
__attribute__((visibility("default"))) int nvJitLinkGetErrorLog(void*, char*) { return 0; }
__attribute__((visibility("default"))) int nvJitLinkGetInfoLogSize(void*, size_t* size) {
    *size = 0;
    return 0;
}
__attribute__((visibility("default"))) int nvJitLinkGetInfoLog(void*, char*) { return 0; }

}  // extern "C"
