// A module: one compiled or loaded image, its lowered-name map and its log, loaded into a context
// (through a shared LoadedModule, see loaded_module.hpp) -- or, when compiled offline for an
// explicit target, loaded nowhere and kept only to be read back. The module keeps its image, loaded
// module and context alive; its kernels keep the module alive.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "cache/kernel_cache.hpp"
#include "compile/kernel.hpp"
#include "compile/compile_options.hpp"
#include "compile/compiler.hpp"
#include "compile/linker.hpp"
#include "compile/loaded_module.hpp"
#include "core/handle_table.hpp"
#include "cuabi/cuabi.h"
#include "device/buffer.hpp"
#include "device/context.hpp"

namespace cuabi {

class Module final : public Object {
public:
    static constexpr HandleType kHandleType = HandleType::Module;

    // Compiles `source` for the context's device (or options.target) through the kernel cache and
    // loads the result. `options` come from read_compile_options_unchecked() (compile() checks
    // them) or read_compile_options().
    // `control` as compile() takes it: with memory_only, a miss succeeds with *out left NULL.
    static Status compile(std::shared_ptr<Context> context, const char* source, const CompileOptions& options,
                          std::shared_ptr<Module>* out, const CompileControl& control = {});
    // Compiles for options.target (required) without any context or GPU: ahead-of-time use.
    static Status compile_offline(const char* source, const CompileOptions& options,
                                  std::shared_ptr<Module>* out, const CompileControl& control = {});
    // Links `inputs` with nvJitLink (linker.hpp) for the context's device (or options.target) and
    // loads the result; offline without a context (target required), loaded nowhere.
    static Status link(std::shared_ptr<Context> context, const std::vector<LinkInput>& inputs,
                       const LinkOptions& options, std::shared_ptr<Module>* out);
    static Status link_offline(const std::vector<LinkInput>& inputs, const LinkOptions& options,
                               std::shared_ptr<Module>* out);
    // Loads a caller's PTX, CUBIN or fatbin (copied: the caller's buffer may go away).
    static Status load_image(std::shared_ptr<Context> context, const void* image, size_t size,
                             std::shared_ptr<Module>* out);

    // The kernel called `name`: a name expression given at compile time (resolved through the
    // stored lowered-name map, no NVRTC), or a symbol name ("saxpy", or a mangled name).
    // KERNEL_NOT_FOUND lists the expressions and kernels the module has.
    static Status get_kernel(const std::shared_ptr<Module>& module, const char* name, std::shared_ptr<Kernel>* out);

    // A __device__ or __constant__ variable, found as get_kernel finds kernels, as a buffer over its
    // bytes that keeps the module alive. UNSUPPORTED for a module compiled offline, NOT_FOUND
    // (listing the name expressions) for a name the module has no variable of.
    static Status get_global(const std::shared_ptr<Module>& module, const char* name, std::shared_ptr<Buffer>* out);

    const cache::CachedImage& image() const { return *image_; }
    const std::shared_ptr<const cache::CachedImage>& shared_image() const { return image_; }
    bool loaded() const { return loaded_ != nullptr; }
    // The mangled name for a compile-time name expression, or nullptr.
    const std::string* lowered_name(std::string_view expression) const;
    uint32_t origin() const { return origin_; }  // CUABI_MODULE_ORIGIN_*
    bool ptx_fallback() const { return ptx_fallback_; }
    // The kernel-cache key the image is stored under, or nullptr for a loaded image.
    const cache::Key* cache_key() const { return has_key_ ? &key_ : nullptr; }

    Module(std::shared_ptr<const cache::CachedImage> image, std::shared_ptr<Context> context,
           std::shared_ptr<LoadedModule> loaded, uint32_t origin, bool ptx_fallback, const cache::Key* key);

private:
    // Verifies (as the context's policy asks) and loads an image cuabi compiled or linked.
    static Status load_made(std::shared_ptr<Context> context, std::shared_ptr<const cache::CachedImage> image,
                            const cache::Key& key, cache::Layer layer, bool trusted, bool fallback, const char* made_by,
                            std::shared_ptr<Module>* out);
    std::string expression_names() const;  // "name expressions compiled: ..." for NOT_FOUND messages
    std::string available_names() const;   // the expressions and the image's kernels

    std::shared_ptr<const cache::CachedImage> image_;
    std::shared_ptr<Context> context_;      // null when compiled offline
    std::shared_ptr<LoadedModule> loaded_;  // null when compiled offline
    uint32_t origin_;                   // CUABI_MODULE_ORIGIN_*
    bool ptx_fallback_;
    bool has_key_;
    cache::Key key_;
};

}  // namespace cuabi
