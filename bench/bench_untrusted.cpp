// What proving untrusted images loadable costs (compile/image_verifier.hpp), and what automatic
// retention of kernel-argument buffers costs a capture (launch/capture_retention.hpp):
//   - first untrusted load of a fresh process (starts the verifier: its driver and context),
//     against a fresh process that trusts images (CUABI_IMAGE_VERIFY=none);
//   - each further untrusted image (distinct content: a trial load in the running verifier), against
//     the same load in a context that verifies nothing;
//   - an image verified before (the verdict remembered): a load that consults the memo, against one
//     that does not;
//   - a capture of 100 launches with a pointer argument begun by cuabi (arguments retained), against
//     the same capture begun with the raw driver on the same stream (cuabi retains nothing there).
//
//   bench_untrusted [--reps N] [--children N]     defaults: 30 reps, 10 children
//
// Images are CUBINs NVRTC compiles here for the device, each with its own constant so that no two
// share content. A loaded module is destroyed before the next load, so every load reaches the
// driver. Medians over repetitions, in microseconds.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "bench_support.hpp"

namespace {

std::vector<uint8_t> cubin(cuabi_context* context, int constant) {
    cuabi_device_info info = CUABI_DEVICE_INFO_INIT;
    bench::check(cuabi_context_get_device_info(context, &info), "cuabi_context_get_device_info");
    const std::string target =
        "sm_" + std::to_string(info.compute_capability_major * 10 + info.compute_capability_minor);
    const std::string source = "extern \"C\" __global__ void k(unsigned* out, unsigned n) {\n"
                               "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                               "    if (i < n) out[i] = i * " + std::to_string(constant) + "u;\n}\n";
    cuabi_compile_options options;
    cuabi_compile_options_init(sizeof options, &options);
    options.target = target.c_str();
    cuabi_module* module = nullptr;
    bench::check(cuabi_module_compile_offline(source.c_str(), &options, &module), "cuabi_module_compile_offline");
    size_t size = 0;
    bench::check(cuabi_module_get_image(module, nullptr, 0, &size), "cuabi_module_get_image");
    std::vector<uint8_t> bytes(size);
    bench::check(cuabi_module_get_image(module, bytes.data(), size, &size), "cuabi_module_get_image");
    cuabi_module_destroy(module);
    return bytes;
}

// Microseconds of one load and kernel lookup of `bytes` in `context`.
double load_us(cuabi_context* context, const std::vector<uint8_t>& bytes) {
    cuabi_module* module = nullptr;
    cuabi_kernel* kernel = nullptr;
    const auto start = bench::Clock::now();
    bench::check(cuabi_module_load_image(context, bytes.data(), bytes.size(), &module), "cuabi_module_load_image");
    bench::check(cuabi_module_get_kernel(module, "k", &kernel), "cuabi_module_get_kernel");
    const double us = bench::nanoseconds(bench::Clock::now() - start) / 1000.0;
    cuabi_kernel_destroy(kernel);
    cuabi_module_destroy(module);
    return us;
}

cuabi_context* context_with(int32_t verification) {
    cuabi_context_options options CUABI_CONTEXT_OPTIONS_INIT;
    options.image_verification = verification;
    cuabi_context* context = nullptr;
    bench::check(cuabi_context_create(&options, &context), "cuabi_context_create");
    return context;
}

// The child: a fresh process's first load of an image (its own constant: nothing remembered).
int child(int constant) {
    cuabi_context* context = context_with(CUABI_IMAGE_VERIFY_DEFAULT);
    std::vector<uint8_t> bytes = cubin(context, constant);
    std::printf("%f\n", load_us(context, bytes));
    cuabi_context_destroy(context);
    return 0;
}

double child_us(const char* self, int constant, bool trusting) {
    std::string command = std::string(trusting ? "CUABI_IMAGE_VERIFY=none " : "") + "'" + self + "' --child " +
                          std::to_string(constant);
    FILE* pipe = popen(command.c_str(), "r");
    double us = -1;
    if (pipe == nullptr || std::fscanf(pipe, "%lf", &us) != 1 || pclose(pipe) != 0) {
        std::fprintf(stderr, "child '%s' failed\n", command.c_str());
        std::exit(1);
    }
    return us;
}

void row(const char* what, const std::vector<double>& us, const std::vector<double>& baseline) {
    const double m = bench::median(us), b = bench::median(baseline);
    std::printf("%-44s %10.1f us   baseline %10.1f us   over %+9.1f us   ratio %.3f\n", what, m, b, m - b, m / b);
}

double capture_us(bench::Device& device, cuabi_kernel* kernel, bool by_cuabi) {
    uint32_t n = 64;
    cuabi_kernel_arg args[] = {{&device.scratch_address, sizeof device.scratch_address}, {&n, sizeof n}};
    cuabi_launch_config launch = CUABI_LAUNCH_CONFIG_INIT;
    launch.grid[0] = 1;
    launch.block[0] = 64;
    launch.stream = device.stream;
    const auto start = bench::Clock::now();
    if (by_cuabi) bench::check(cuabi_graph_capture_begin(device.stream, CUABI_CAPTURE_MODE_RELAXED), "capture_begin");
    else
        bench::check_cu(cuStreamBeginCapture(device.cu_stream, CU_STREAM_CAPTURE_MODE_RELAXED), "cuStreamBeginCapture");
    for (int i = 0; i < 100; ++i) bench::check(cuabi_launch(kernel, &launch, args, 2), "cuabi_launch");
    CUgraph graph = nullptr;
    cuabi_graph* captured = nullptr;
    if (by_cuabi) bench::check(cuabi_graph_capture_end(device.stream, nullptr, &captured), "capture_end");
    else bench::check_cu(cuStreamEndCapture(device.cu_stream, &graph), "cuStreamEndCapture");
    const double us = bench::nanoseconds(bench::Clock::now() - start) / 1000.0;
    cuabi_graph_destroy(captured);
    if (graph != nullptr) cuGraphDestroy(graph);
    return us;
}

}  // namespace

int main(int argc, char** argv) {
    int reps = 30, children = 10;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--child") == 0) return child(atoi(argv[i + 1]));
        if (strcmp(argv[i], "--reps") == 0) reps = atoi(argv[i + 1]);
        if (strcmp(argv[i], "--children") == 0) children = atoi(argv[i + 1]);
    }
    char self[4096] = {};
    if (readlink("/proc/self/exe", self, sizeof self - 1) <= 0) return 1;

    std::vector<double> first, first_trusting;
    for (int i = 0; i < children; ++i) {
        first.push_back(child_us(self, 1000 + i, false));
        first_trusting.push_back(child_us(self, 2000 + i, true));
    }

    bench::Device device = bench::Device::open();
    std::printf("device: %s, driver %s\n", device.info.name, bench::Device::driver_version().c_str());
    cuabi_context* verifying = context_with(CUABI_IMAGE_VERIFY_UNTRUSTED);
    cuabi_context* trusting = context_with(CUABI_IMAGE_VERIFY_NONE);
    load_us(verifying, cubin(verifying, 1));  // the verifier starts here, untimed
    std::vector<double> further, further_trusting, again, again_trusting;
    std::vector<std::vector<uint8_t>> verified;
    for (int i = 0; i < reps; ++i) {
        const std::vector<uint8_t> fresh = cubin(verifying, 10 + 2 * i), other = cubin(verifying, 11 + 2 * i);
        further.push_back(load_us(verifying, fresh));
        further_trusting.push_back(load_us(trusting, other));
        verified.push_back(fresh);
    }
    // Apart from the trials above (a load right after one pays for the driver work the verifier's
    // process just did on the same GPU), in alternating order: the memo answers for each.
    for (int i = 0; i < reps; ++i) {
        const bool verifying_first = i % 2 == 0;
        if (!verifying_first) again_trusting.push_back(load_us(trusting, verified[i]));
        again.push_back(load_us(verifying, verified[i]));
        if (verifying_first) again_trusting.push_back(load_us(trusting, verified[i]));
    }
    cuabi_module* module = nullptr;
    bench::check(cuabi_module_compile(device.context,
                                      "extern \"C\" __global__ void w(unsigned* o, unsigned n) { if (threadIdx.x < n) "
                                      "o[threadIdx.x] = n; }",
                                      nullptr, &module),
                 "cuabi_module_compile");
    cuabi_kernel* kernel = nullptr;
    bench::check(cuabi_module_get_kernel(module, "w", &kernel), "cuabi_module_get_kernel");
    std::vector<double> retained, unretained;
    for (int i = 0; i < reps; ++i) {
        retained.push_back(capture_us(device, kernel, true));
        unretained.push_back(capture_us(device, kernel, false));
    }
    row("first untrusted load, fresh process", first, first_trusting);
    row("further untrusted image (new content)", further, further_trusting);
    row("image verified before", again, again_trusting);
    row("capture of 100 launches (cuabi vs raw begin)", retained, unretained);
    cuabi_kernel_destroy(kernel);
    cuabi_module_destroy(module);
    cuabi_context_destroy(verifying);
    cuabi_context_destroy(trusting);
    device.close();
    return 0;
}
