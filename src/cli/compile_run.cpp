#include "compile_run.hpp"

#include <cstddef>
#include <cstdio>

#include "arguments.hpp"
#include "progress.hpp"

namespace cli {
namespace {

std::vector<const char*> pointers(const std::vector<std::string>& strings) {
    std::vector<const char*> result;
    for (const std::string& text : strings) result.push_back(text.c_str());
    return result;
}

// One job's compile options and the pointer arrays they refer to, kept until the batch started.
struct JobOptions {
    std::vector<const char*> defines, dirs, expressions;
    cuabi_compile_options options;
};

void fill_options(const CompileArguments& args, const CompileJob& job, bool on_device, JobOptions* out) {
    out->defines = pointers(job.defines);
    out->dirs = pointers(args.include_dirs);
    out->expressions = pointers(args.expressions);
    cuabi_compile_options& options = out->options;
    cuabi_compile_options_init(sizeof options, &options);
    options.program_name = job.program_name.c_str();
    options.target = job.target.empty() && on_device ? nullptr : job.target.c_str();
    options.cpp_standard = args.standard.empty() ? nullptr : args.standard.c_str();
    options.flags = args.flags;
    options.timeout_ms = static_cast<uint32_t>(args.timeout_ms);
    options.defines = out->defines.data();
    options.define_count = out->defines.size();
    options.include_dirs = out->dirs.data();
    options.include_dir_count = out->dirs.size();
    options.name_expressions = out->expressions.data();
    options.name_expression_count = out->expressions.size();
}

// A failure as this thread's last error and compile log tell it.
CompileResult failure(cuabi_status status, std::string message) {
    CompileResult result;
    result.status = status;
    result.message = std::move(message);
    result.log = read_text(cuabi_last_compile_log);
    return result;
}

// Starts the batch of the jobs in *pending (job indices; a batch index is a position in it). The
// library checks every request before it starts any, and names the one it refuses
// ("cuabi_compile_batch_start request k of n: <why>"): that job gets <why> as its result and the
// batch starts again without it, so that the others compile as they would alone. A refusal that
// names no request (a CUABI_COMPILE_WORKERS it cannot use, said once) is the first job's, as it
// was the first compile's.
cuabi_compile_batch* start_batch(const std::vector<JobOptions>& options, const std::vector<std::string>& sources,
                                 const std::vector<CompileJob>& jobs, const CompileArguments& args,
                                 cuabi_context* context, std::vector<size_t>* pending,
                                 std::vector<CompileResult>* results) {
    for (;;) {
        std::vector<cuabi_compile_request> requests;
        for (size_t job : *pending)
            requests.push_back({context, sources[jobs[job].file].c_str(), &options[job].options});
        cuabi_compile_batch* batch = nullptr;
        cuabi_status status = cuabi_compile_batch_start(requests.data(), requests.size(),
                                                        static_cast<uint32_t>(args.jobs), &batch);
        if (status == CUABI_SUCCESS) return batch;
        const std::string message = cuabi_last_error_message();
        size_t refused = 0, count = 0;
        int why = 0;
        if (std::sscanf(message.c_str(), "cuabi_compile_batch_start request %zu of %zu: %n", &refused, &count, &why) != 2 ||
            refused >= pending->size()) {
            refused = 0;
            why = 0;
        }
        (*results)[(*pending)[refused]] = failure(status, message.substr(static_cast<size_t>(why)));
        pending->erase(pending->begin() + static_cast<std::ptrdiff_t>(refused));
    }
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

// Waits for request `index` of the batch; its failure's message and log come to this thread.
CompileResult take_result(cuabi_compile_batch* batch, size_t index, const CompileArguments& args) {
    cuabi_module* module = nullptr;
    cuabi_status status = cuabi_compile_batch_get_module(batch, index, &module);
    if (status != CUABI_SUCCESS) return failure(status, cuabi_last_error_message());
    CompileResult result;
    read_module(module, args, &result);
    cuabi_module_destroy(module);
    return result;
}

// How far the batch is, counting the jobs refused before it started as done.
Progress batch_progress(cuabi_compile_batch* batch, size_t count, size_t refused) {
    Progress progress;
    progress.done = refused;
    for (size_t index = 0; index < count; ++index) {
        int32_t state = CUABI_REQUEST_QUEUED;
        cuabi_status status = CUABI_SUCCESS;
        if (cuabi_compile_batch_get_state(batch, index, &state, &status) != CUABI_SUCCESS) continue;
        if (state == CUABI_REQUEST_DONE) ++progress.done;
        if (state == CUABI_REQUEST_COMPILING) ++progress.running;
    }
    return progress;
}

// "compiling k.cu for sm_90", or "compiling 3 programs".
std::string describe(const CompileArguments& args, const std::vector<CompileJob>& jobs) {
    if (jobs.size() == 1)
        return "compiling " + args.files[0] + (jobs[0].target.empty() ? "" : " for " + jobs[0].target);
    return "compiling " + std::to_string(jobs.size()) + " programs";
}

}  // namespace

std::vector<CompileResult> run_jobs(const CompileArguments& args, const std::vector<std::string>& sources,
                                    const std::vector<CompileJob>& jobs, cuabi_context* context) {
    std::vector<CompileResult> results(jobs.size());
    std::vector<JobOptions> options(jobs.size());
    std::vector<size_t> pending(jobs.size());
    for (size_t job = 0; job < jobs.size(); ++job) {
        fill_options(args, jobs[job], context != nullptr, &options[job]);
        pending[job] = job;
    }
    cuabi_compile_batch* batch = start_batch(options, sources, jobs, args, context, &pending, &results);
    if (batch == nullptr) return results;
    {
        const size_t refused = jobs.size() - pending.size();
        ProgressLine progress(describe(args, jobs), jobs.size(),
                              [batch, &pending, refused] { return batch_progress(batch, pending.size(), refused); });
        for (size_t index = 0; index < pending.size(); ++index)
            results[pending[index]] = take_result(batch, index, args);
    }  // the line's thread reads the batch: it ends first
    cuabi_compile_batch_destroy(batch);
    return results;
}

}  // namespace cli
