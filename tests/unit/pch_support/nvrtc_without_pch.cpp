// An NVRTC older than precompiled headers (CUDA 12.7 and before), as cuabi sees one: a library
// with every entry point cuabi requires -- forwarded to the real NVRTC named by
// $CUABI_TEST_REAL_NVRTC -- and none of the PCH ones. Loaded through CUABI_NVRTC_PATH, it takes
// cuabi down the same path a real older NVRTC does.
#include <dlfcn.h>
#include <nvrtc.h>

#include <cstdlib>

namespace {

void* real_nvrtc() {
    static void* library = [] {
        const char* path = std::getenv("CUABI_TEST_REAL_NVRTC");
        return path != nullptr ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : nullptr;
    }();
    return library;
}

template <typename Function>
Function real(const char* name) {
    void* library = real_nvrtc();
    return library != nullptr ? reinterpret_cast<Function>(dlsym(library, name)) : nullptr;
}

}  // namespace

#define CUABI_FORWARD(type, name, parameters, arguments, failure)                       \
    extern "C" __attribute__((visibility("default"))) type name parameters {           \
        static const auto forward = real<decltype(&::name)>(#name);                   \
        return forward != nullptr ? forward arguments : failure;                       \
    }

CUABI_FORWARD(nvrtcResult, nvrtcVersion, (int* major, int* minor), (major, minor), NVRTC_ERROR_INTERNAL_ERROR)
CUABI_FORWARD(const char*, nvrtcGetErrorString, (nvrtcResult result), (result), "NVRTC_ERROR_INTERNAL_ERROR")
CUABI_FORWARD(nvrtcResult, nvrtcGetNumSupportedArchs, (int* count), (count), NVRTC_ERROR_INTERNAL_ERROR)
CUABI_FORWARD(nvrtcResult, nvrtcGetSupportedArchs, (int* archs), (archs), NVRTC_ERROR_INTERNAL_ERROR)
CUABI_FORWARD(nvrtcResult, nvrtcCreateProgram,
              (nvrtcProgram * program, const char* source, const char* name, int count, const char* const* sources,
               const char* const* names),
              (program, source, name, count, sources, names), NVRTC_ERROR_INTERNAL_ERROR)
CUABI_FORWARD(nvrtcResult, nvrtcDestroyProgram, (nvrtcProgram * program), (program), NVRTC_ERROR_INTERNAL_ERROR)
CUABI_FORWARD(nvrtcResult, nvrtcCompileProgram, (nvrtcProgram program, int count, const char* const* options),
              (program, count, options), NVRTC_ERROR_INTERNAL_ERROR)
CUABI_FORWARD(nvrtcResult, nvrtcGetPTXSize, (nvrtcProgram program, size_t* size), (program, size), NVRTC_ERROR_INTERNAL_ERROR)
CUABI_FORWARD(nvrtcResult, nvrtcGetPTX, (nvrtcProgram program, char* ptx), (program, ptx), NVRTC_ERROR_INTERNAL_ERROR)
CUABI_FORWARD(nvrtcResult, nvrtcGetCUBINSize, (nvrtcProgram program, size_t* size), (program, size), NVRTC_ERROR_INTERNAL_ERROR)
CUABI_FORWARD(nvrtcResult, nvrtcGetCUBIN, (nvrtcProgram program, char* cubin), (program, cubin), NVRTC_ERROR_INTERNAL_ERROR)
CUABI_FORWARD(nvrtcResult, nvrtcGetLTOIRSize, (nvrtcProgram program, size_t* size), (program, size), NVRTC_ERROR_INTERNAL_ERROR)
CUABI_FORWARD(nvrtcResult, nvrtcGetLTOIR, (nvrtcProgram program, char* ltoir), (program, ltoir), NVRTC_ERROR_INTERNAL_ERROR)
CUABI_FORWARD(nvrtcResult, nvrtcGetProgramLogSize, (nvrtcProgram program, size_t* size), (program, size),
              NVRTC_ERROR_INTERNAL_ERROR)
CUABI_FORWARD(nvrtcResult, nvrtcGetProgramLog, (nvrtcProgram program, char* log), (program, log), NVRTC_ERROR_INTERNAL_ERROR)
CUABI_FORWARD(nvrtcResult, nvrtcAddNameExpression, (nvrtcProgram program, const char* expression), (program, expression),
              NVRTC_ERROR_INTERNAL_ERROR)
CUABI_FORWARD(nvrtcResult, nvrtcGetLoweredName, (nvrtcProgram program, const char* expression, const char** lowered),
              (program, expression, lowered), NVRTC_ERROR_INTERNAL_ERROR)
