// Recognizing caller images without a GPU (compile/image.hpp): PTX, CUBIN and fatbin are told
// apart by their bytes, their architecture is read from them, and junk is refused with the bytes
// that gave it away -- before the driver ever sees it.
#include <gtest/gtest.h>

#include <elf.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "compile/image.hpp"
#include "cuabi/cuabi.h"
#include "expect_status.hpp"
#include "image_bytes.hpp"

namespace {

using cuabi::ImageFacts;

std::vector<uint8_t> compiled_image(const char* target) {
    cuabi_compile_options options;
    cuabi_compile_options_init(sizeof options, &options);
    options.target = target;
    options.flags = CUABI_COMPILE_NO_CACHE;
    cuabi_module* module = nullptr;
    EXPECT_EQ(cuabi_module_compile_offline("extern \"C\" __global__ void k(int* x) { x[0] = 1; }", &options, &module),
              CUABI_SUCCESS)
        << cuabi_last_error_message();
    size_t size = 0;
    EXPECT_EQ(cuabi_module_get_image(module, nullptr, 0, &size), CUABI_SUCCESS);
    std::vector<uint8_t> image(size);
    EXPECT_EQ(cuabi_module_get_image(module, image.data(), size, &size), CUABI_SUCCESS);
    cuabi_module_destroy(module);
    return image;
}

ImageFacts inspect(const std::vector<uint8_t>& image) {
    ImageFacts facts;
    EXPECT_EQ(cuabi::inspect_image(image.data(), image.size(), &facts), CUABI_SUCCESS) << cuabi_last_error_message();
    return facts;
}

TEST(ImageInspection, NvrtcCubinsAreCubinsOfTheirArchitecture) {
    for (const char* target : {"sm_75", "sm_90", "sm_120"}) {
        ImageFacts facts = inspect(compiled_image(target));
        EXPECT_EQ(facts.kind, static_cast<uint32_t>(CUABI_IMAGE_CUBIN)) << target;
        EXPECT_STREQ(facts.target, target);
    }
}

TEST(ImageInspection, CubinsOfElfAbiBefore8KeepTheArchitectureInTheLowByte) {
    std::vector<uint8_t> image = compiled_image("sm_90");
    Elf64_Ehdr header;
    std::memcpy(&header, image.data(), sizeof header);
    header.e_ident[EI_ABIVERSION] = 7;  // CUDA 12 layout: EF_CUDA_SM in bits 0..7
    header.e_flags = 0x00500550u;       // sm_80
    std::memcpy(image.data(), &header, sizeof header);
    EXPECT_STREQ(inspect(image).target, "sm_80");
}

TEST(ImageInspection, PtxWithOrWithoutTerminatorIsPtxOfItsTarget) {
    std::vector<uint8_t> ptx = compiled_image("compute_90");
    ASSERT_EQ(ptx.back(), 0);
    ImageFacts facts = inspect(ptx);
    EXPECT_EQ(facts.kind, static_cast<uint32_t>(CUABI_IMAGE_PTX));
    EXPECT_STREQ(facts.target, "compute_90");
    ptx.pop_back();
    EXPECT_EQ(inspect(ptx).kind, static_cast<uint32_t>(CUABI_IMAGE_PTX));
}

TEST(ImageInspection, FatbinIsRecognizedByItsMagic) {
    // nvcc 13.0's -fatbin output (tests/fuzz/corpus): a header claiming 16 bytes more than it has
    // is no longer a fatbin but a damaged one (image/check.hpp).
    std::vector<uint8_t> fatbin = test_support::seed_image("negate.fatbin");
    ASSERT_GT(fatbin.size(), 16u);
    ImageFacts facts = inspect(fatbin);
    EXPECT_EQ(facts.kind, static_cast<uint32_t>(CUABI_IMAGE_FATBIN));
    EXPECT_STREQ(facts.target, "");
}

TEST(ImageInspection, JunkIsAnInvalidImageNamingItsFirstBytes) {
    std::vector<uint8_t> junk = {0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05};
    ImageFacts facts;
    EXPECT_FAILS_WITH(cuabi::inspect_image(junk.data(), junk.size(), &facts), CUABI_ERROR_INVALID_IMAGE,
                      "10-byte image (starting de ad be ef 00 01 02 03)");
    EXPECT_FAILS_WITH(cuabi::inspect_image(junk.data(), 0, &facts), CUABI_ERROR_INVALID_IMAGE, "empty");
}

TEST(ImageInspection, TextWithoutPtxDirectivesIsNotPtx) {
    std::string text = "__global__ void k() {}  // CUDA source is not an image";
    ImageFacts facts;
    EXPECT_FAILS_WITH(cuabi::inspect_image(text.data(), text.size(), &facts), CUABI_ERROR_INVALID_IMAGE,
                      "neither PTX");
}

TEST(ImageInspection, PtxFollowedByBinaryBytesIsRefused) {
    std::vector<uint8_t> ptx = compiled_image("compute_90");
    ptx.push_back(0x7f);
    ImageFacts facts;
    EXPECT_EQ(cuabi::inspect_image(ptx.data(), ptx.size(), &facts), CUABI_ERROR_INVALID_IMAGE);
}

TEST(ImageInspection, HostElfFileIsNotACubin) {
    std::ifstream self("/proc/self/exe", std::ios::binary);
    std::vector<uint8_t> host(4096);
    self.read(reinterpret_cast<char*>(host.data()), static_cast<std::streamsize>(host.size()));
    ASSERT_EQ(self.gcount(), 4096);
    ImageFacts facts;
    EXPECT_FAILS_WITH(cuabi::inspect_image(host.data(), host.size(), &facts), CUABI_ERROR_INVALID_IMAGE,
                      "not a CUDA CUBIN");
}

TEST(ImageCompatibility, CubinRunsOnItsMajorAtEqualOrNewerMinor) {
    ImageFacts cubin;
    cubin.kind = CUABI_IMAGE_CUBIN;
    cubin.arch = 80;
    EXPECT_EQ(cuabi::check_image_runs_on(cubin, 8, 0, "A100"), CUABI_SUCCESS);
    EXPECT_EQ(cuabi::check_image_runs_on(cubin, 8, 6, "A10"), CUABI_SUCCESS);
    EXPECT_FAILS_WITH(cuabi::check_image_runs_on(cubin, 9, 0, "H100"), CUABI_ERROR_INVALID_IMAGE,
                      "CUBIN for sm_80, which cannot run on H100 (sm_90)");
    cubin.arch = 86;
    EXPECT_FAILS_WITH(cuabi::check_image_runs_on(cubin, 8, 0, "A100"), CUABI_ERROR_INVALID_IMAGE, "sm_86");
}

TEST(ImageCompatibility, PtxRunsOnItsTargetAndNewer) {
    ImageFacts ptx;
    ptx.kind = CUABI_IMAGE_PTX;
    ptx.arch = 90;
    EXPECT_EQ(cuabi::check_image_runs_on(ptx, 9, 0, "H100"), CUABI_SUCCESS);
    EXPECT_EQ(cuabi::check_image_runs_on(ptx, 10, 0, "B200"), CUABI_SUCCESS);
    EXPECT_FAILS_WITH(cuabi::check_image_runs_on(ptx, 8, 9, "L4"), CUABI_ERROR_INVALID_IMAGE, "compute_90");
    ImageFacts fatbin;
    fatbin.kind = CUABI_IMAGE_FATBIN;
    EXPECT_EQ(cuabi::check_image_runs_on(fatbin, 7, 5, "T4"), CUABI_SUCCESS) << "the driver picks from a fatbin";
}

TEST(ModuleApiArguments, LoadImageChecksPointersBeforeTheContext) {
    cuabi_module* module = nullptr;
    EXPECT_FAILS_WITH(cuabi_module_load_image(nullptr, nullptr, 4, &module), CUABI_ERROR_INVALID_ARGUMENT, "image");
    int bytes = 0;
    EXPECT_FAILS_WITH(cuabi_module_load_image(nullptr, &bytes, sizeof bytes, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_module");
    EXPECT_FAILS_WITH(cuabi_module_load_image(nullptr, &bytes, sizeof bytes, &module), CUABI_ERROR_INVALID_HANDLE,
                      "context");
    cuabi_kernel* kernel = nullptr;
    EXPECT_FAILS_WITH(cuabi_module_get_kernel(nullptr, "k", &kernel), CUABI_ERROR_INVALID_HANDLE, "module");
    cuabi_kernel_attributes attributes = CUABI_KERNEL_ATTRIBUTES_INIT;
    EXPECT_FAILS_WITH(cuabi_kernel_get_attributes(nullptr, &attributes), CUABI_ERROR_INVALID_HANDLE, "kernel");
    attributes.struct_size = 2;
    EXPECT_FAILS_WITH(cuabi_kernel_get_attributes(nullptr, &attributes), CUABI_ERROR_STRUCT_SIZE,
                      "cuabi_kernel_attributes_init()");
    cuabi_kernel_destroy(nullptr);
}

}  // namespace
