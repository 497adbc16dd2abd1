// cuabi-image-verifier: trial-loads images cuabi did not produce itself, in a process of its own,
// so that an image that crashes or hangs the CUDA driver's loader costs the program that uses cuabi
// a status, not its life (compile/image_verifier.hpp starts and talks to it). Not meant to be run
// by hand:
//
//   cuabi-image-verifier --parent <pid>     socket on descriptor 3
//
// It loads the driver and says so (a Hello frame), then for each image: makes the device's primary
// context current (created once per device and kept), loads the image with every kernel loaded at
// once (CUDA_MODULE_LOADING=EAGER), looks up every kernel by name and reads the facts a launch
// reads, synchronizes (a load that faults the device shows there), unloads it and answers with a
// Verdict. A crash or hang here is the verdict the host wants.
#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "compile/verifier_protocol.hpp"
#include "core/child_process.hpp"
#include "core/frame_io.hpp"
#include "core/helper_side.hpp"
#include "driver/driver_api.hpp"

namespace {

using cuabi::verifier::Verdict;
constexpr int kSocket = cuabi::kChildSocket;

// Set when a trial faulted the device context: every later trial would fail for that reason alone.
bool context_lost = false;

Verdict refused(CUresult result, const char* call, const std::string& what) {
    Verdict verdict;
    verdict.status = result == CUDA_ERROR_OUT_OF_MEMORY ? CUABI_ERROR_DEVICE_OUT_OF_MEMORY : CUABI_ERROR_INVALID_IMAGE;
    verdict.cu_result = static_cast<int32_t>(result);
    cuabi::fail_with_cu_result(verdict.status, static_cast<int32_t>(result),
                               "produce the image again from its source (nvcc -cubin / -fatbin / -ptx for this device, "
                               "or cuabi_module_compile())",
                               "the image verifier's %s refused %s: %s", call, what.c_str(),
                               cuabi::cu_result_text(result).c_str());
    verdict.message = cuabi::last_error_message();
    return verdict;
}

// The device's primary context, retained on first use and kept for the verifier's life.
CUresult context_of(const cuabi::DriverApi& api, int32_t ordinal, CUcontext* out) {
    static std::map<int32_t, CUcontext> contexts;
    auto found = contexts.find(ordinal);
    if (found == contexts.end()) {
        CUdevice device = 0;
        CUresult result = api.cuDeviceGet(&device, ordinal);
        if (result == CUDA_SUCCESS) result = api.cuDevicePrimaryCtxRetain(out, device);
        if (result != CUDA_SUCCESS) return result;
        found = contexts.emplace(ordinal, *out).first;
    }
    *out = found->second;
    return api.cuCtxSetCurrent(*out);
}

// Every kernel: looked up by name, its attributes and parameter layout read, as a launch does.
Verdict look_up_kernels(const cuabi::DriverApi& api, CUmodule module) {
    Verdict verdict;
    unsigned int count = 0;
    if (api.cuModuleGetFunctionCount == nullptr || api.cuModuleEnumerateFunctions == nullptr ||
        api.cuFuncGetName == nullptr)
        return verdict;  // a driver before 12.4 cannot list them; the load itself was tried
    CUresult result = api.cuModuleGetFunctionCount(&count, module);
    if (result != CUDA_SUCCESS) return refused(result, "cuModuleGetFunctionCount", "the loaded image");
    std::vector<CUfunction> kernels(count);
    if (count > 0 && (result = api.cuModuleEnumerateFunctions(kernels.data(), count, module)) != CUDA_SUCCESS)
        return refused(result, "cuModuleEnumerateFunctions", "the loaded image");
    for (CUfunction kernel : kernels) {
        const char* name = nullptr;
        if ((result = api.cuFuncGetName(&name, kernel)) != CUDA_SUCCESS || name == nullptr)
            return refused(result, "cuFuncGetName", "a kernel of the image");
        CUfunction found = nullptr;
        if ((result = api.cuModuleGetFunction(&found, module, name)) != CUDA_SUCCESS)
            return refused(result, "cuModuleGetFunction", cuabi::format("kernel '%s'", name));
        int value = 0;
        for (CUfunction_attribute attribute :
             {CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
              CU_FUNC_ATTRIBUTE_NUM_REGS, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH})
            if ((result = api.cuFuncGetAttribute(&value, attribute, found)) != CUDA_SUCCESS &&
                result != CUDA_ERROR_INVALID_VALUE)
                return refused(result, "cuFuncGetAttribute", cuabi::format("kernel '%s'", name));
        for (size_t index = 0; api.cuFuncGetParamInfo != nullptr && index < 4096; ++index) {
            size_t offset = 0, size = 0;
            if (api.cuFuncGetParamInfo(found, index, &offset, &size) != CUDA_SUCCESS) break;
        }
        ++verdict.kernels;
    }
    return verdict;
}

Verdict trial(const cuabi::DriverApi& api, const cuabi::verifier::Trial& job) {
    CUcontext context = nullptr;
    CUresult result = context_of(api, job.ordinal, &context);
    if (result != CUDA_SUCCESS)
        return refused(result, "cuDevicePrimaryCtxRetain", cuabi::format("device %d", job.ordinal));
    char error_log[4096] = {};
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* values[] = {error_log, reinterpret_cast<void*>(static_cast<uintptr_t>(sizeof error_log))};
    CUmodule module = nullptr;
    result = api.cuModuleLoadDataEx(&module, job.image.data(), 2, options, values);
    if (result != CUDA_SUCCESS)
        return refused(result, "cuModuleLoadDataEx",
                       cuabi::format("the %zu-byte image%s%s", job.image.size(), error_log[0] ? " (JIT log: " : "",
                                     error_log[0] ? (std::string(error_log) + ")").c_str() : ""));
    Verdict verdict = look_up_kernels(api, module);
    // Loading copies the image's constant banks and initialized globals to the device, as the
    // relocations say: a damaged image can make that copy fault, which only a synchronization
    // shows (an H100 mutant whose load faulted the host's context later, at its next sync).
    const CUresult settled = api.cuCtxSynchronize(context);
    if (settled != CUDA_SUCCESS && verdict.status == CUABI_SUCCESS) {
        verdict = refused(settled, "cuCtxSynchronize after the load", "the loaded image");
        context_lost = true;
    }
    api.cuModuleUnload(module);
    return verdict;
}

}  // namespace

int main(int argc, char** argv) {
    pid_t parent = 0;
    if (int refused = cuabi::begin_helper(argc, argv, &parent)) return refused;
    // Single-threaded here, before the driver loads: every kernel is loaded by the trial itself,
    // not later at its first use, which a trial never reaches.
    setenv("CUDA_MODULE_LOADING", "EAGER", 1);

    cuabi::verifier::Hello hello;
    cuabi::Status status = CUABI_SUCCESS;
    const cuabi::DriverApi* api = cuabi::driver(&status);
    hello.status = status;
    if (api == nullptr) hello.message = cuabi::last_error_message();
    namespace io = cuabi::frames;
    if (io::send_frame(kSocket, cuabi::verifier::encode(hello), io::kNoDeadline) != io::Io::Ok || api == nullptr)
        return 0;
    for (;;) {
        std::vector<uint8_t> frame;
        if (io::receive_frame(kSocket, &frame, io::kNoDeadline, io::kMaxFrameBytes) != io::Io::Ok) return 0;
        cuabi::verifier::Trial job;
        Verdict verdict;
        if (!cuabi::verifier::decode(frame, &job)) {
            verdict.status = CUABI_ERROR_INTERNAL;
            verdict.message = "the image verifier received a malformed request. Fix: report this as a cuabi bug.";
        } else {
            verdict = trial(*api, job);
        }
        if (io::send_frame(kSocket, cuabi::verifier::encode(verdict), io::kNoDeadline) != io::Io::Ok) return 0;
        // A fault leaves the context unusable for every later trial: the host starts a new verifier.
        if (context_lost) return 0;
    }
}
