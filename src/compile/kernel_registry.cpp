#include "compile/kernel_registry.hpp"

#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include "compile/kernel.hpp"

namespace cuabi {
namespace {

struct Registry {
    std::mutex mutex;
    // Several kernel objects may share one function (the same kernel looked up twice); any live
    // one will do, since they launch the same code from the same module.
    std::unordered_map<const void*, std::vector<std::weak_ptr<Kernel>>> kernels;
};

Registry& registry() {
    static Registry* instance = new Registry();  // never destroyed: kernels die in any order
    return *instance;
}

}  // namespace

void register_kernel(const std::shared_ptr<Kernel>& kernel) {
    if (!kernel) return;
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    try {
        std::vector<std::weak_ptr<Kernel>>& entries = r.kernels[kernel->function()];
        // Forget kernels that are gone, so the list stays as short as the live kernels.
        std::vector<std::weak_ptr<Kernel>> live;
        live.reserve(entries.size() + 1);
        for (const std::weak_ptr<Kernel>& entry : entries)
            if (!entry.expired()) live.push_back(entry);
        live.push_back(kernel);
        entries.swap(live);
    } catch (const std::bad_alloc&) {
        // Documented: the kernel is then reported as foreign by graphs; nothing else changes.
    }
}

std::shared_ptr<Kernel> find_kernel(const void* function) {
    if (function == nullptr) return nullptr;
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto found = r.kernels.find(function);
    if (found == r.kernels.end()) return nullptr;
    for (const std::weak_ptr<Kernel>& entry : found->second)
        if (std::shared_ptr<Kernel> kernel = entry.lock()) return kernel;
    return nullptr;
}

}  // namespace cuabi
