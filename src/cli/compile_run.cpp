#include "compile_run.hpp"

#include <atomic>
#include <thread>

#include "arguments.hpp"
#include "progress.hpp"

namespace cli {
namespace {

std::vector<const char*> pointers(const std::vector<std::string>& strings) {
    std::vector<const char*> result;
    for (const std::string& text : strings) result.push_back(text.c_str());
    return result;
}

// What the module holds that the report shows.
void read_module(cuabi_module* module, const CompileArguments& args, CompileResult* out) {
    out->status = cuabi_module_get_info(module, &out->info);
    if (out->status != CUABI_SUCCESS) {
        out->message = cuabi_last_error_message();
        return;
    }
    for (const std::string& expression : args.expressions) {
        std::string lowered = read_text([&](char* buffer, size_t capacity, size_t* size) {
            return cuabi_module_get_lowered_name(module, expression.c_str(), buffer, capacity, size);
        });
        if (!lowered.empty()) out->lowered_names.push_back({expression, lowered});
    }
    out->log = read_text([module](char* buffer, size_t capacity, size_t* size) {
        return cuabi_module_get_log(module, buffer, capacity, size);
    });
    if (args.output.empty()) return;
    size_t size = 0;
    cuabi_module_get_image(module, nullptr, 0, &size);
    out->image.resize(size);
    cuabi_module_get_image(module, &out->image[0], out->image.size(), &size);
    if (out->info.image_kind == CUABI_IMAGE_PTX && size > 0) --size;  // a .ptx file holds the text, not its NUL
    out->image.resize(size);
}

CompileResult compile_one(const CompileArguments& args, const std::string& source, const CompileJob& job,
                          cuabi_context* context) {
    std::vector<const char*> defines = pointers(job.defines), dirs = pointers(args.include_dirs),
                             expressions = pointers(args.expressions);
    cuabi_compile_options options;
    cuabi_compile_options_init(sizeof options, &options);
    options.program_name = job.program_name.c_str();
    options.target = job.target.empty() && context != nullptr ? nullptr : job.target.c_str();
    options.cpp_standard = args.standard.empty() ? nullptr : args.standard.c_str();
    options.flags = args.flags;
    options.timeout_ms = static_cast<uint32_t>(args.timeout_ms);
    options.defines = defines.data();
    options.define_count = defines.size();
    options.include_dirs = dirs.data();
    options.include_dir_count = dirs.size();
    options.name_expressions = expressions.data();
    options.name_expression_count = expressions.size();

    CompileResult result;
    cuabi_module* module = nullptr;
    result.status = context != nullptr ? cuabi_module_compile(context, source.c_str(), &options, &module)
                                       : cuabi_module_compile_offline(source.c_str(), &options, &module);
    if (result.status == CUABI_SUCCESS) {
        read_module(module, args, &result);
    } else {
        result.message = cuabi_last_error_message();
        result.log = read_text(cuabi_last_compile_log);
    }
    cuabi_module_destroy(module);
    return result;
}

// "compiling k.cu for sm_90", or "compiling 3 files, 4 variants, 2 targets".
std::string describe(const CompileArguments& args, const std::vector<CompileJob>& jobs) {
    if (jobs.size() == 1)
        return "compiling " + args.files[0] + (jobs[0].target.empty() ? "" : " for " + jobs[0].target);
    return "compiling " + std::to_string(jobs.size()) + " programs";
}

}  // namespace

std::vector<CompileResult> run_jobs(const CompileArguments& args, const std::vector<std::string>& sources,
                                    const std::vector<CompileJob>& jobs, cuabi_context* context) {
    std::vector<CompileResult> results(jobs.size());
    std::atomic<size_t> next{0};
    ProgressLine progress(describe(args, jobs), jobs.size());
    auto work = [&] {
        for (size_t i = next.fetch_add(1); i < jobs.size(); i = next.fetch_add(1)) {
            progress.started();
            results[i] = compile_one(args, sources[jobs[i].file], jobs[i], context);
            progress.finished();
        }
    };
    std::vector<std::thread> threads;
    size_t count = std::min<size_t>(args.jobs, jobs.size());
    for (size_t t = 1; t < count; ++t) threads.emplace_back(work);
    work();  // this thread is the first worker
    for (std::thread& thread : threads) thread.join();
    return results;
}

}  // namespace cli
