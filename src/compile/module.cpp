#include "compile/module.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "compile/compiler.hpp"
#include "compile/image.hpp"
#include "driver/nvrtc_api.hpp"
#include "graph/kernel_registry.hpp"
#include "range/ranges.hpp"

namespace cuabi {
namespace {

uint32_t origin_of(cache::Layer layer) {
    switch (layer) {
        case cache::Layer::Memory: return CUABI_MODULE_ORIGIN_MEMORY_CACHE;
        case cache::Layer::Disk: return CUABI_MODULE_ORIGIN_DISK_CACHE;
        case cache::Layer::None: break;
    }
    return CUABI_MODULE_ORIGIN_COMPILED;
}

// Shared by compile and compile_offline: target, key, cache, NVRTC.
Status compile_image(const NvrtcApi& nvrtc, const char* source, const cuabi_compile_options& options,
                     const Context* context, CompileOutcome* outcome, Target* out_target) {
    CompileRequest request;
    request.source = source;
    request.options = options;
    Status status = resolve_target(nvrtc, options, context != nullptr ? &context->info() : nullptr, &request.target);
    if (status != CUABI_SUCCESS) return status;
    if (context != nullptr) {
        ImageFacts facts;
        facts.kind = request.target.ptx ? CUABI_IMAGE_PTX : CUABI_IMAGE_CUBIN;
        facts.arch = request.target.arch;
        status = check_image_runs_on(facts, context->info().compute_capability_major,
                                     context->info().compute_capability_minor, context->info().name);
        if (status != CUABI_SUCCESS) return status;
    }
    *out_target = request.target;
    return cuabi::compile(nvrtc, request, context != nullptr ? &context->counters() : nullptr, outcome);
}

// A symbol name cannot contain these; a name that does is a C++ expression that was not compiled.
bool looks_like_expression(const char* name) { return std::strpbrk(name, "<>():, &*") != nullptr; }

}  // namespace

Module::Module(std::shared_ptr<const cache::CachedImage> image, std::shared_ptr<Context> context,
               std::shared_ptr<Library> library, uint32_t origin, bool ptx_fallback, const cache::Key* key)
    : image_(std::move(image)),
      context_(std::move(context)),
      library_(std::move(library)),
      origin_(origin),
      ptx_fallback_(ptx_fallback),
      has_key_(key != nullptr),
      key_(key != nullptr ? *key : cache::Key{}) {}

Status Module::compile(std::shared_ptr<Context> context, const char* source, const cuabi_compile_options& options,
                       std::shared_ptr<Module>* out) {
    Status status = CUABI_SUCCESS;
    const NvrtcApi* nvrtc = cuabi::nvrtc(&status);
    if (nvrtc == nullptr) return status;
    CompileOutcome outcome;
    Target target;
    status = compile_image(*nvrtc, source, options, context.get(), &outcome, &target);
    if (status != CUABI_SUCCESS) return status;
    std::shared_ptr<Library> library;
    status = acquire_library(context->api(), outcome.key, *outcome.image, &library);
    if (status != CUABI_SUCCESS) return status;
    *out = std::make_shared<Module>(std::move(outcome.image), std::move(context), std::move(library),
                                    origin_of(outcome.layer), target.fallback, &outcome.key);
    return CUABI_SUCCESS;
}

Status Module::compile_offline(const char* source, const cuabi_compile_options& options,
                               std::shared_ptr<Module>* out) {
    Status status = CUABI_SUCCESS;
    const NvrtcApi* nvrtc = cuabi::nvrtc(&status);
    if (nvrtc == nullptr) return status;
    CompileOutcome outcome;
    Target target;
    status = compile_image(*nvrtc, source, options, nullptr, &outcome, &target);
    if (status != CUABI_SUCCESS) return status;
    *out = std::make_shared<Module>(std::move(outcome.image), nullptr, nullptr, origin_of(outcome.layer), false,
                                    &outcome.key);
    return CUABI_SUCCESS;
}

Status Module::load_image(std::shared_ptr<Context> context, const void* data, size_t size,
                          std::shared_ptr<Module>* out) {
    ImageFacts facts;
    Status status = inspect_image(data, size, &facts);
    if (status != CUABI_SUCCESS) return status;
    const cuabi_device_info& device = context->info();
    status = check_image_runs_on(facts, device.compute_capability_major, device.compute_capability_minor, device.name);
    if (status != CUABI_SUCCESS) return status;

    auto image = std::make_shared<cache::CachedImage>();
    const uint8_t* bytes = static_cast<const uint8_t*>(data);
    image->image.assign(bytes, bytes + size);
    if (facts.kind == CUABI_IMAGE_PTX && image->image.back() != 0) image->image.push_back(0);  // the driver needs it
    image->image_kind = facts.kind;
    image->target = facts.target;

    // Libraries of loaded images are shared by content, as compiled ones are by compile key.
    cache::KeyBuilder builder;
    builder.add("image", image->image.data(), image->image.size());
    cache::Key key = builder.finish();
    std::shared_ptr<Library> library;
    status = acquire_library(context->api(), key, *image, &library);
    if (status != CUABI_SUCCESS) return status;
    *out = std::make_shared<Module>(std::move(image), std::move(context), std::move(library),
                                    CUABI_MODULE_ORIGIN_IMAGE, false, nullptr);
    return CUABI_SUCCESS;
}

const std::string* Module::lowered_name(std::string_view expression) const {
    // Linear: a module has a handful of expressions, and this does not depend on the order the
    // cache layers keep them in.
    for (const auto& entry : image_->lowered_names)
        if (entry.first == expression) return &entry.second;
    return nullptr;
}

std::string Module::available_names() const {
    std::string expressions;
    for (const auto& entry : image_->lowered_names)
        expressions += format("%s\"%s\"", expressions.empty() ? "" : ", ", entry.first.c_str());
    std::string text = format("name expressions compiled: %s", expressions.empty() ? "none" : expressions.c_str());

    const DriverApi& api = context_->api();
    unsigned int count = 0;
    if (api.cuLibraryGetKernelCount == nullptr || api.cuLibraryEnumerateKernels == nullptr ||
        api.cuKernelGetName == nullptr || api.cuLibraryGetKernelCount(&count, library_->get()) != CUDA_SUCCESS)
        return text;
    std::vector<CUkernel> kernels(count);
    if (count > 0 && api.cuLibraryEnumerateKernels(kernels.data(), count, library_->get()) != CUDA_SUCCESS)
        return text;
    std::string symbols;
    const unsigned int shown = std::min(count, 20u);
    for (unsigned int i = 0; i < shown; ++i) {
        const char* symbol = nullptr;
        if (api.cuKernelGetName(&symbol, kernels[i]) == CUDA_SUCCESS && symbol != nullptr)
            symbols += format("%s\"%s\"", symbols.empty() ? "" : ", ", symbol);
    }
    if (count > shown) symbols += format(" and %u more", count - shown);
    return text + format("; kernels in the image: %s", symbols.empty() ? "none" : symbols.c_str());
}

Status Module::get_kernel(const std::shared_ptr<Module>& module, const char* name, std::shared_ptr<Kernel>* out) {
    if (!module->loaded())
        return fail(CUABI_ERROR_INVALID_ARGUMENT,
                    "load its image into a context with cuabi_module_load_image(), or compile with "
                    "cuabi_module_compile()",
                    "the module was compiled offline for %s and is not loaded in any context, so kernel '%s' "
                    "cannot be looked up",
                    module->image_->target.c_str(), bounded(name).c_str());
    const std::string* lowered = module->lowered_name(name);
    const char* symbol = lowered != nullptr ? lowered->c_str() : name;
    const DriverApi& api = module->context_->api();
    CUkernel kernel = nullptr;
    CUresult result = CUDA_ERROR_NOT_FOUND;
    if (lowered != nullptr || !looks_like_expression(name))
        result = api.cuLibraryGetKernel(&kernel, module->library_->get(), symbol);
    if (result == CUDA_ERROR_NOT_FOUND)
        return fail(CUABI_ERROR_KERNEL_NOT_FOUND,
                    looks_like_expression(name)
                        ? "add the expression to cuabi_compile_options.name_expressions when compiling (the text "
                          "must match exactly)"
                        : "use the name of an extern \"C\" __global__ function, or compile the C++ name as a name "
                          "expression",
                    "the module (%s) has no kernel '%s'; %s", describe_image(*module->image_).c_str(),
                    bounded(name).c_str(), module->available_names().c_str());
    if (result != CUDA_SUCCESS)
        return fail_image(result, "cuLibraryGetKernel", format("kernel '%s'", bounded(name).c_str()));

    Status status = module->context_->make_current();
    if (status != CUABI_SUCCESS) return status;
    CUfunction function = nullptr;
    {
        // Under lazy loading this is where the image is loaded into the context.
        range::Scope scope(range::Phase::ModuleLoad, name);
        result = api.cuKernelGetFunction(&function, kernel);
    }
    if (result != CUDA_SUCCESS)
        return fail_image(result, "cuKernelGetFunction",
                          format("kernel '%s' of the %s on %s", bounded(name).c_str(), describe_image(*module->image_).c_str(),
                                 module->context_->info().name));
    *out = std::make_shared<Kernel>(module, module->context_, function, name, symbol);
    graph::register_kernel(*out);  // so a graph's inventory can name the kernel behind a node
    return CUABI_SUCCESS;
}

void Module::info(cuabi_module_info* out) const {
    cuabi_module_info info{};
    info.struct_size = sizeof info;
    info.image_kind = image_->image_kind;
    info.origin = origin_;
    info.loaded = loaded() ? 1u : 0u;
    info.ptx_fallback = ptx_fallback_ ? 1u : 0u;
    info.name_expression_count = static_cast<uint32_t>(image_->lowered_names.size());
    info.image_size = image_->image.size();
    std::snprintf(info.target, sizeof info.target, "%s", image_->target.c_str());
    if (has_key_) std::snprintf(info.cache_key, sizeof info.cache_key, "%s", key_.hex().c_str());
    *out = info;
}

}  // namespace cuabi
