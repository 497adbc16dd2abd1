// Life after fork() on a GPU (core/fork.hpp). The issue's repro: the child was told "check
// nvidia-smi"; a compile succeeded and returned a module that could not work; a pin held by another
// thread at fork() deadlocked the child's next destroy. Now every GPU call in the child returns
// CUABI_ERROR_FORKED at once -- the launch fast path and graph replay included -- and destroys
// return, while a thread of the parent is inside cuabi_stream_synchronize on a running kernel.
#include "../unit/forked_child.hpp"
#include "busy_stream_support.hpp"

namespace {

std::string outcome(const char* call, cuabi_status status) {
    return std::string(call) + ": " + cuabi_status_name(status) + " " +
           (status == CUABI_SUCCESS ? "" : cuabi_last_error_message()) + "\n";
}

class ForkGpu : public BusyStreamTest {};

TEST_F(ForkGpu, TheChildGetsForkedFromEveryGpuCallWhileTheParentSynchronizes) {
    uint64_t address = 0;
    cuabi_buffer* out = buffer(256 * sizeof(uint32_t), &address);
    // A graph and a launch that took the fast path before the fork.
    uint32_t n = 256;
    cuabi_kernel_arg args[] = {{&address, sizeof address}, {&n, sizeof n}};
    cuabi_launch_config launch = config(1, 256);
    launch.stream = capturing;
    ASSERT_OK(cuabi_launch(write_index, &launch, args, 2));
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_launch(write_index, &launch, args, 2));
    cuabi_graph* graph = end_capture(capturing);
    ASSERT_NE(graph, nullptr);

    // About a second of GPU work, and a thread waiting for it inside cuabi (holding a pin).
    ASSERT_NO_FATAL_FAILURE(keep_busy_and_wait_on(capturing, 1000));

    const std::string report = test_support::in_forked_child([&] {
        std::string lines;
        lines += outcome("cuabi_stream_synchronize", cuabi_stream_synchronize(capturing));
        lines += outcome("cuabi_launch", cuabi_launch(write_index, &launch, args, 2));
        lines += outcome("cuabi_graph_launch", cuabi_graph_launch(graph, capturing));
        cuabi_buffer* made = nullptr;
        lines += outcome("cuabi_buffer_create", cuabi_buffer_create(context, 64, nullptr, &made));
        cuabi_context* other = nullptr;
        lines += outcome("cuabi_context_create", cuabi_context_create(nullptr, &other));
        cuabi_module* module = nullptr;
        lines += outcome("cuabi_module_compile", cuabi_module_compile(context, kSpinSource, nullptr, &module));
        cuabi_compile_options options;
        cuabi_compile_options_init(sizeof options, &options);
        options.target = "sm_90";
        lines += outcome("cuabi_module_compile_offline", cuabi_module_compile_offline(kSpinSource, &options, &module));
        cuabi_graph_destroy(graph);
        cuabi_stream_destroy(capturing);  // pinned by the parent's waiting thread
        cuabi_buffer_destroy(out);
        cuabi_context_destroy(context);
        lines += "destroys returned\n";
        return lines;
    });
    join_waiter();

    EXPECT_EQ(report.find("hung"), std::string::npos) << report;
    EXPECT_EQ(report.find("did not exit"), std::string::npos) << report;
    EXPECT_NE(report.find("destroys returned"), std::string::npos) << report;
    for (const char* call : {"cuabi_stream_synchronize", "cuabi_launch", "cuabi_graph_launch", "cuabi_buffer_create",
                             "cuabi_context_create", "cuabi_module_compile", "cuabi_module_compile_offline"}) {
        const size_t at = report.find(std::string(call) + ": ");
        ASSERT_NE(at, std::string::npos) << call << "\n" << report;
        const std::string line = report.substr(at, report.find('\n', at) - at);
        EXPECT_NE(line.find("CUABI_ERROR_FORKED"), std::string::npos) << line;
        EXPECT_NE(line.find("fork() child"), std::string::npos) << line;
        EXPECT_NE(line.find("Fix: "), std::string::npos) << line;
    }

    // The parent carries on: the handles the child "destroyed" are the parent's and still work.
    ASSERT_OK(cuabi_launch(write_index, &launch, args, 2));
    ASSERT_OK(cuabi_graph_launch(graph, capturing));
    ASSERT_OK(cuabi_stream_synchronize(capturing));
    std::vector<uint32_t> values = read<uint32_t>(out, n);
    for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(values[i], 3u * i + 1u) << "word " << i;
}

}  // namespace
