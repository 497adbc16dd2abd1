// A kernel: one __global__ function of a loaded module, found by name or C++ name expression.
// The kernel keeps its module (and so its context) alive.
//
// The launch path needs facts about the kernel that never change once it is loaded (parameter
// layout, attributes, occupancy results); src/launch/ computes them once, on first use, into the
// `launch_facts` slot owned here, so a launch performs no allocation and takes no lock. Their
// summary for the fast path (compile/fast_path_data.hpp) lives in the kernel itself, so that a
// launch reads it without following a pointer. The facts are opaque here: launch/ makes them and
// hands over the function that frees them, so this layer never calls into the one above it.
#pragma once

#include <cuda.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "core/handle_table.hpp"
#include "device/context.hpp"
#include "compile/fast_path_data.hpp"

namespace cuabi {

class Module;
namespace launch {
struct KernelFacts;  // defined in launch/kernel_facts.hpp; opaque here
}  // namespace launch

class alignas(64) Kernel final : public Object {
public:
    static constexpr HandleType kHandleType = HandleType::Kernel;

    Kernel(std::shared_ptr<Module> module, std::shared_ptr<Context> context, CUfunction function, std::string name,
           std::string lowered_name)
        : module_(std::move(module)),
          context_(std::move(context)),
          function_(function),
          name_(std::move(name)),
          lowered_name_(std::move(lowered_name)) {}
    ~Kernel() override {
        if (launch::KernelFacts* facts = launch_facts_.load(std::memory_order_acquire)) release_facts_(facts);
    }

    const std::shared_ptr<Module>& module() const { return module_; }
    const Context& context() const { return *context_; }
    const std::shared_ptr<Context>& context_ref() const { return context_; }
    CUfunction function() const { return function_; }
    const std::string& name() const { return name_; }                  // as the caller asked ("reduce<float, 256>")
    const std::string& lowered_name() const { return lowered_name_; }  // the mangled symbol

    // Launch facts: computed once under `facts_once_`, then read with one acquire load (std::call_once
    // alone costs thread-local bookkeeping on every call in libstdc++).
    std::atomic<launch::KernelFacts*> launch_facts_{nullptr};
    void (*release_facts_)(launch::KernelFacts*) = nullptr;  // set with launch_facts_, before it is published
    std::once_flag facts_once_;
    FastPath fast_path_;  // filled with the facts, then published by its `eligible` flag

private:
    std::shared_ptr<Module> module_;
    std::shared_ptr<Context> context_;
    CUfunction function_;
    std::string name_;
    std::string lowered_name_;
};

}  // namespace cuabi
