// Linking for a context on a real GPU: two sources compiled to LTO-IR for the device and a device
// library built by nvcc (a fatbin of LTO-IR) linked with nvJitLink, loaded, and launched; the
// kernel computes out[i] = twice(in[i]) + thrice(in[i]) = 5 in[i] only when every input took part.
// A second link of the same inputs is a memory-cache hit that launches the same way.
#include <fstream>
#include <vector>

#include "gpu_test_support.hpp"
#include "../unit/link_support/link_sources.hpp"

namespace {

class LinkGpu : public GpuTest {
protected:
    void TearDown() override {
        for (cuabi_kernel* kernel : kernels) cuabi_kernel_destroy(kernel);
        for (cuabi_buffer* buffer : buffers) cuabi_buffer_destroy(buffer);
        for (cuabi_module* module : modules) cuabi_module_destroy(module);
        GpuTest::TearDown();
    }
    cuabi_module* lto_ir(const char* source) {
        cuabi_compile_options options;
        cuabi_compile_options_init(sizeof options, &options);
        options.flags = CUABI_COMPILE_LTO_IR;
        cuabi_module* module = nullptr;
        EXPECT_OK(cuabi_module_compile(context, source, &options, &module));
        if (module != nullptr) modules.push_back(module);
        return module;
    }
    cuabi_module* link(uint32_t flags) {
        cuabi_link_input inputs[3] = {};
        inputs[0].module = lto_ir(link_test::kKernelSource);
        inputs[1].module = lto_ir(link_test::kTwiceSource);
        inputs[2].kind = CUABI_LINK_INPUT_FATBIN;
        inputs[2].path = CUABI_TEST_LINK_FATBIN;
        cuabi_link_options options;
        cuabi_link_options_init(sizeof options, &options);
        options.flags = CUABI_LINK_LTO | flags;
        cuabi_module* linked = nullptr;
        EXPECT_OK(cuabi_module_link(context, inputs, 3, &options, &linked));
        if (linked != nullptr) modules.push_back(linked);
        return linked;
    }
    // Launches scale over n floats 0..n-1 and returns what it wrote.
    std::vector<float> run(cuabi_module* linked, unsigned n) {
        cuabi_kernel* kernel = nullptr;
        EXPECT_OK(cuabi_module_get_kernel(linked, "scale", &kernel));
        if (kernel == nullptr) return {};
        kernels.push_back(kernel);
        std::vector<float> in(n), out(n, -1.0f);
        for (unsigned i = 0; i < n; ++i) in[i] = static_cast<float>(i);
        cuabi_buffer *in_buffer = nullptr, *out_buffer = nullptr;
        EXPECT_OK(cuabi_buffer_create(context, n * sizeof(float), nullptr, &in_buffer));
        EXPECT_OK(cuabi_buffer_create(context, n * sizeof(float), nullptr, &out_buffer));
        buffers.push_back(in_buffer);
        buffers.push_back(out_buffer);
        EXPECT_OK(cuabi_buffer_write(in_buffer, 0, in.data(), n * sizeof(float), nullptr));
        EXPECT_OK(cuabi_buffer_write(out_buffer, 0, out.data(), n * sizeof(float), nullptr));
        uint64_t out_address = 0, in_address = 0;
        EXPECT_OK(cuabi_buffer_get_device_address(out_buffer, &out_address));
        EXPECT_OK(cuabi_buffer_get_device_address(in_buffer, &in_address));
        cuabi_launch_config launch = CUABI_LAUNCH_CONFIG_INIT;
        launch.grid[0] = (n + 255) / 256;
        launch.block[0] = 256;
        launch.flags = CUABI_LAUNCH_SYNCHRONIZE;
        cuabi_kernel_arg args[] = {{&out_address, sizeof out_address}, {&in_address, sizeof in_address}, {&n, sizeof n}};
        EXPECT_OK(cuabi_launch(kernel, &launch, args, 3));
        EXPECT_OK(cuabi_buffer_read(out_buffer, 0, out.data(), n * sizeof(float), nullptr));
        return out;
    }

    std::vector<cuabi_module*> modules;
    std::vector<cuabi_kernel*> kernels;
    std::vector<cuabi_buffer*> buffers;
};

}  // namespace

TEST_F(LinkGpu, ALinkedModulesKernelComputesWithEveryInput) {
    cuabi_module* linked = link(CUABI_LINK_NO_CACHE);
    ASSERT_NE(linked, nullptr);
    cuabi_module_info info = CUABI_MODULE_INFO_INIT;
    ASSERT_OK(cuabi_module_get_info(linked, &info));
    EXPECT_EQ(info.loaded, 1u);
    EXPECT_EQ(info.image_kind, CUABI_IMAGE_CUBIN);
    const unsigned n = 1000;
    std::vector<float> out = run(linked, n);
    ASSERT_EQ(out.size(), n);
    for (unsigned i = 0; i < n; ++i) ASSERT_EQ(out[i], 5.0f * static_cast<float>(i)) << "element " << i;
}

TEST_F(LinkGpu, ARepeatedLinkIsACacheHitThatComputesTheSame) {
    cuabi_module* first = link(0);
    cuabi_module* second = link(0);
    ASSERT_NE(second, nullptr);
    cuabi_module_info info = CUABI_MODULE_INFO_INIT;
    ASSERT_OK(cuabi_module_get_info(second, &info));
    EXPECT_EQ(info.origin, CUABI_MODULE_ORIGIN_MEMORY_CACHE);
    std::vector<float> out = run(second, 64);
    ASSERT_EQ(out.size(), 64u);
    for (unsigned i = 0; i < 64; ++i) ASSERT_EQ(out[i], 5.0f * static_cast<float>(i)) << "element " << i;
    (void)first;
}

TEST_F(LinkGpu, AnLtoIrModuleOfTheContextIsNotLoaded) {
    cuabi_module* object = lto_ir(link_test::kKernelSource);
    ASSERT_NE(object, nullptr);
    cuabi_kernel* kernel = nullptr;
    EXPECT_STATUS_WITH_FIX(cuabi_module_get_kernel(object, "scale", &kernel), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(kernel, nullptr);
}
