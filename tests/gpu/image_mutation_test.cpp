// The measurement as a test: mutants of real CUBINs and fatbins -- 1 to 16 random bytes
// changed, cut at a random length, or both -- loaded through cuabi_module_load_image in ONE
// process. Before the image verifier, 7 of 500 mutants of a 3.7 KB CUBIN killed the process inside
// the driver (SIGSEGV) and 1 hung it. Now: no crash and no hang (the process survives every load,
// each within its deadline), every refusal a status with a message that ends in a fix, and every
// mutant that loads with its machine code (and the constants, relocations and parameter records
// that code reads) untouched runs its kernels without faulting the context. (Changed code is code
// the GPU runs, which no loader can vet: docs/safety.md.)
//
// Seeded and reproducible: $CUABI_MUTATION_SEED (default 25) and $CUABI_MUTANTS (default 2400).
// With $CUABI_MUTANT_DIR set, the mutants that crashed or hung the verifier are written there, to
// keep as regression inputs in tests/fuzz/corpus, and each mutant is written there (loading_<seed>_<m>)
// before its load and removed after it, so that one that crashes this process is left behind.
#include <dirent.h>
#include <elf.h>
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "../unit/image_bytes.hpp"
#include "module_test_support.hpp"

namespace {

using Bytes = test_support::ImageBytes;

// Twelve kernels of one signature, different shared memory and loops: a large CUBIN.
std::string many_kernels(int count) {
    std::string source;
    for (int k = 0; k < count; ++k) {
        const std::string tile = std::to_string(64 * (k % 4 + 1));
        source += "extern \"C\" __global__ void k" + std::to_string(k) +
                  "(unsigned* out, unsigned n) {\n"
                  "    __shared__ unsigned tile[" + tile + "];\n"
                  "    unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;\n"
                  "    tile[t % " + tile + "] = i * " + std::to_string(k + 3) + "u;\n"
                  "    __syncthreads();\n"
                  "    unsigned acc = 0;\n"
                  "    for (unsigned j = 0; j < " + std::to_string(k + 2) + "u; ++j) acc += tile[(t + j) % " + tile +
                  "] ^ j;\n"
                  "    if (i < n) out[i] = acc;\n}\n";
    }
    return source;
}

struct Original {
    std::string name;
    Bytes bytes;
    std::vector<std::string> kernels;   // launchable as (unsigned* out, unsigned n); none: not launched
    std::vector<std::pair<uint64_t, uint64_t>> code;  // byte ranges of machine code (CUBIN .text)
};

// The (offset, size) of every section of the CUBIN at `base` of `image` that the GPU executes or
// that decides what the code reads: machine code, constant banks (the driver-reserved words and
// parameter area of bank 0 as well), the relocations that patch either, and the attribute records
// that place parameters. A mutant that changes these changes what its kernels do -- on the H100,
// changed bytes of .nv.constant0 faulted the context -- which no loader can vet.
void add_code_ranges(const Bytes& image, uint64_t base, std::vector<std::pair<uint64_t, uint64_t>>* out) {
    const Elf64_Ehdr header = test_support::get<Elf64_Ehdr>(image, base);
    const Elf64_Shdr names =
        test_support::get<Elf64_Shdr>(image, base + header.e_shoff + header.e_shstrndx * sizeof(Elf64_Shdr));
    for (unsigned i = 0; i < header.e_shnum; ++i) {
        const Elf64_Shdr section =
            test_support::get<Elf64_Shdr>(image, base + header.e_shoff + i * sizeof(Elf64_Shdr));
        const std::string name(reinterpret_cast<const char*>(image.data() + base + names.sh_offset + section.sh_name));
        const bool read_by_code = name.rfind(".nv.constant", 0) == 0 || name.rfind(".nv.info", 0) == 0 ||
                                  name.rfind(".nv.global.init", 0) == 0 || section.sh_type == SHT_RELA ||
                                  section.sh_type == SHT_REL;
        if ((section.sh_flags & SHF_EXECINSTR) != 0 || read_by_code)
            out->emplace_back(base + section.sh_offset, section.sh_size);
    }
}

// The machine code of a CUBIN, or of every uncompressed CUBIN entry of a fatbin (whose layout
// image/fatbin.cpp describes).
std::vector<std::pair<uint64_t, uint64_t>> code_ranges(const Bytes& image) {
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    if (std::memcmp(image.data(), ELFMAG, SELFMAG) == 0) {
        add_code_ranges(image, 0, &ranges);
        return ranges;
    }
    const uint64_t end = test_support::get<uint16_t>(image, 6) + test_support::get<uint64_t>(image, 8);
    for (uint64_t at = test_support::get<uint16_t>(image, 6); at < end;) {
        const uint32_t header_size = test_support::get<uint32_t>(image, at + 4);
        const uint64_t payload_size = test_support::get<uint64_t>(image, at + 8);
        const uint64_t flags = test_support::get<uint64_t>(image, at + 40);
        if (test_support::get<uint16_t>(image, at) == 2 && (flags & 0xa000) == 0)
            add_code_ranges(image, at + header_size, &ranges);
        at += header_size + payload_size;
    }
    return ranges;
}

class ImageMutation : public ModuleTest {
protected:
    Original nvrtc_cubin(const char* name, const std::string& source, int kernels) {
        const std::string target = "sm_" + std::to_string(device_arch);
        options.target = target.c_str();
        cuabi_module* module = nullptr;
        EXPECT_OK(cuabi_module_compile_offline(source.c_str(), &options, &module));
        options.target = nullptr;
        Original original;
        original.name = name;
        if (module == nullptr) return original;
        track(module);
        original.bytes = image(module);
        for (int k = 0; k < kernels; ++k) original.kernels.push_back("k" + std::to_string(k));
        original.code = code_ranges(original.bytes);
        return original;
    }
    void TearDown() override {
        for (cuabi_buffer* made : buffers_) cuabi_buffer_destroy(made);
        ModuleTest::TearDown();
    }
    // A device buffer of `bytes` and its address, destroyed with the test.
    cuabi_buffer* buffer(size_t bytes, uint64_t* out_address) {
        cuabi_buffer* made = nullptr;
        EXPECT_OK(cuabi_buffer_create(context, bytes, nullptr, &made));
        if (made == nullptr) return nullptr;
        buffers_.push_back(made);
        EXPECT_OK(cuabi_buffer_get_device_address(made, out_address));
        return made;
    }
    // Runs every kernel of a loaded mutant on the buffer at `address`; false when the context faulted.
    bool runs(cuabi_module* module, const Original& original, uint64_t address) {
        for (const std::string& name : original.kernels) {
            cuabi_kernel* kernel = nullptr;
            if (cuabi_module_get_kernel(module, name.c_str(), &kernel) != CUABI_SUCCESS) continue;  // a renamed symbol
            // A kernel whose parameter records were changed would read its arguments from elsewhere:
            // that is the image's code misbehaving, which only the GPU's fault handling catches.
            size_t count = 0, offset = 0, size = 0, second_offset = 0, second_size = 0;
            const bool same_layout = cuabi_kernel_get_param_count(kernel, &count) == CUABI_SUCCESS && count == 2 &&
                                     cuabi_kernel_get_param_info(kernel, 0, &offset, &size) == CUABI_SUCCESS &&
                                     cuabi_kernel_get_param_info(kernel, 1, &second_offset, &second_size) ==
                                         CUABI_SUCCESS &&
                                     offset == 0 && size == 8 && second_offset == 8 && second_size == 4;
            if (!same_layout) {
                cuabi_kernel_destroy(kernel);
                continue;
            }
            uint32_t n = 1024;
            cuabi_kernel_arg args[] = {{&address, sizeof address}, {&n, sizeof n}};
            cuabi_launch_config launch = CUABI_LAUNCH_CONFIG_INIT;
            launch.grid[0] = 4;
            launch.block[0] = 256;
            cuabi_status launched = cuabi_launch(kernel, &launch, args, 2);
            cuabi_kernel_destroy(kernel);
            if (launched == CUABI_SUCCESS && cuabi_context_synchronize(context) != CUABI_SUCCESS) return false;
            if (launched == CUABI_ERROR_LAUNCH_FAILED) return false;
        }
        return true;
    }
    std::vector<cuabi_buffer*> buffers_;
};

TEST_F(ImageMutation, MutantsNeverCrashOrHangTheHost) {
    const char* seed_text = getenv("CUABI_MUTATION_SEED");
    const char* count_text = getenv("CUABI_MUTANTS");
    const uint32_t seed = seed_text != nullptr ? static_cast<uint32_t>(std::atoi(seed_text)) : 25u;
    const int mutants = count_text != nullptr ? std::atoi(count_text) : 2400;
    const char* keep_dir = getenv("CUABI_MUTANT_DIR");
    // A hung trial costs its deadline: keep it short so that the run stays bounded.
    setenv("CUABI_IMAGE_VERIFY_TIMEOUT_MS", "5000", 1);

    std::vector<Original> originals;
    originals.push_back(nvrtc_cubin("small CUBIN", many_kernels(1), 1));
    originals.push_back(nvrtc_cubin("large CUBIN", many_kernels(12), 12));
    for (const char* seed_file : {"twelve_kernels.fatbin", "negate.fatbin", "negate_uncompressed.fatbin"}) {
        Original original;
        original.name = seed_file;
        original.bytes = test_support::seed_image(seed_file);
        ASSERT_FALSE(original.bytes.empty()) << seed_file;
        original.code = code_ranges(original.bytes);
        if (std::string(seed_file) == "twelve_kernels.fatbin" && device_arch >= 75)
            for (int k = 0; k < 12; ++k) original.kernels.push_back("k" + std::to_string(k));
        originals.push_back(original);
    }
    for (const Original& original : originals) ASSERT_FALSE(original.bytes.empty()) << original.name;

    uint64_t address = 0;
    cuabi_buffer* out = buffer(4096 * sizeof(uint32_t), &address);
    ASSERT_NE(out, nullptr);
    std::mt19937 random(seed);
    int loaded = 0, refused = 0, launched = 0, verifier_crashes = 0, verifier_hangs = 0;
    const auto start = std::chrono::steady_clock::now();
    for (int m = 0; m < mutants; ++m) {
        const Original& original = originals[static_cast<size_t>(m) % originals.size()];
        Bytes bytes = original.bytes;
        const uint32_t kind = random() % 3;  // 0: bytes changed, 1: cut, 2: both
        bool code_touched = false;
        if (kind != 1) {
            const uint32_t changes = 1 + random() % 16;
            for (uint32_t c = 0; c < changes; ++c) {
                const size_t at = random() % bytes.size();
                bytes[at] = static_cast<uint8_t>(random());
                for (const auto& range : original.code)
                    code_touched = code_touched || (at >= range.first && at - range.first < range.second);
            }
        }
        if (kind != 0) bytes.resize(1 + random() % bytes.size());
        SCOPED_TRACE("seed " + std::to_string(seed) + ", mutant " + std::to_string(m) + " of " + original.name);

        // Written before the load, so that a crash of this process leaves the culprit behind.
        if (keep_dir != nullptr) {
            std::ofstream file(std::string(keep_dir) + "/loading_" + std::to_string(seed) + "_" + std::to_string(m),
                               std::ios::binary);
            file.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        }
        cuabi_module* module = nullptr;
        const auto before = std::chrono::steady_clock::now();
        const cuabi_status status = cuabi_module_load_image(context, bytes.data(), bytes.size(), &module);
        ASSERT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(20)) << "a load hung";
        if (keep_dir != nullptr)
            std::remove((std::string(keep_dir) + "/loading_" + std::to_string(seed) + "_" + std::to_string(m)).c_str());
        if (status != CUABI_SUCCESS) {
            ++refused;
            const std::string message = cuabi_last_error_message();
            ASSERT_NE(message.find("Fix: "), std::string::npos) << cuabi_status_name(status) << ": " << message;
            ASSERT_NE(status, CUABI_ERROR_INTERNAL) << message;
            ASSERT_NE(std::string(cuabi_status_name(status)).find("CUABI_ERROR_"), std::string::npos) << status;
            const bool crashed = message.find("killed by signal") != std::string::npos;
            const bool hung = message.find("deadline passed") != std::string::npos;
            verifier_crashes += crashed;
            verifier_hangs += hung;
            if ((crashed || hung) && keep_dir != nullptr) {
                std::ofstream file(std::string(keep_dir) + "/mutant_" + std::to_string(seed) + "_" + std::to_string(m) +
                                       (crashed ? "_crash" : "_hang"),
                                   std::ios::binary);
                file.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
            }
            continue;
        }
        ++loaded;
        if (!code_touched && !original.kernels.empty()) {
            ASSERT_TRUE(runs(module, original, address)) << "a loaded mutant faulted the context";
            ++launched;
        }
        cuabi_module_destroy(module);
        // A fault the load or the unload left behind shows at the next synchronization: here,
        // so that it names its mutant.
        ASSERT_OK(cuabi_context_synchronize(context)) << "a loaded mutant faulted the context";
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("[ mutation ] seed %u: %d mutants, %d refused (%d crashed the verifier, %d hung it), %d loaded, "
                "%d of them launched; %.1f s\n",
                seed, mutants, refused, verifier_crashes, verifier_hangs, loaded, launched, seconds);
    EXPECT_GE(mutants, 2000);
    ASSERT_OK(cuabi_context_synchronize(context)) << "the context is still sound";
}

// A sound image of the caller's is verified (once) and then loads and runs as before; a context
// that verifies nothing loads it too, and one that verifies everything compiles through it.
TEST_F(ImageMutation, SoundImagesLoadUnderEveryPolicy) {
    Original original = nvrtc_cubin("small CUBIN", many_kernels(1), 1);
    ASSERT_FALSE(original.bytes.empty());
    for (int round = 0; round < 3; ++round) {
        cuabi_module* module = nullptr;
        ASSERT_OK(cuabi_module_load_image(context, original.bytes.data(), original.bytes.size(), &module));
        track(module);
        uint64_t address = 0;
        ASSERT_NE(buffer(4096, &address), nullptr);
        ASSERT_TRUE(runs(module, original, address));
    }
    cuabi_context_options options_none CUABI_CONTEXT_OPTIONS_INIT;
    options_none.image_verification = CUABI_IMAGE_VERIFY_NONE;
    cuabi_context* trusting = nullptr;
    ASSERT_OK(cuabi_context_create(&options_none, &trusting));
    cuabi_module* module = nullptr;
    EXPECT_OK(cuabi_module_load_image(trusting, original.bytes.data(), original.bytes.size(), &module));
    cuabi_module_destroy(module);
    cuabi_context_destroy(trusting);
    cuabi_context_options options_all CUABI_CONTEXT_OPTIONS_INIT;
    options_all.image_verification = CUABI_IMAGE_VERIFY_ALL;
    cuabi_context* suspicious = nullptr;
    ASSERT_OK(cuabi_context_create(&options_all, &suspicious));
    module = nullptr;
    EXPECT_OK(cuabi_module_compile(suspicious, many_kernels(2).c_str(), nullptr, &module));
    cuabi_module_destroy(module);
    cuabi_context_destroy(suspicious);
}

}  // namespace

// The mutants that crashed the driver's loader on the H100 -- in the verifier (kept in
// tests/fuzz/corpus as driver_crash_<seed>_<mutant>) or in the host after the verifier had loaded
// them without harm (host_crash_<seed>_<mutant>) -- are refused again, each with a status and a Fix, and the host
// lives on to load a sound image afterwards.
TEST_F(ImageMutation, MutantsThatCrashedTheDriverBeforeAreRefused) {
    setenv("CUABI_IMAGE_VERIFY_TIMEOUT_MS", "5000", 1);
    std::vector<std::string> names;
    if (DIR* dir = opendir(CUABI_TEST_IMAGE_DIR)) {
        while (dirent* entry = readdir(dir))
            if (std::strncmp(entry->d_name, "driver_crash_", 13) == 0 || std::strncmp(entry->d_name, "host_crash_", 11) == 0)
                names.push_back(entry->d_name);
        closedir(dir);
    }
    ASSERT_FALSE(names.empty()) << "no driver_crash_* inputs in " << CUABI_TEST_IMAGE_DIR;
    for (const std::string& name : names) {
        SCOPED_TRACE(name);
        const auto bytes = test_support::seed_image(name.c_str());
        ASSERT_FALSE(bytes.empty());
        cuabi_module* module = nullptr;
        const cuabi_status status = cuabi_module_load_image(context, bytes.data(), bytes.size(), &module);
        if (status == CUABI_SUCCESS) {
            cuabi_module_destroy(module);  // a later driver may load it; the host survived either way
            continue;
        }
        EXPECT_NE(std::string(cuabi_last_error_message()).find("Fix: "), std::string::npos) << cuabi_last_error_message();
    }
    Original original = nvrtc_cubin("small CUBIN", many_kernels(1), 1);
    cuabi_module* module = nullptr;
    ASSERT_OK(cuabi_module_load_image(context, original.bytes.data(), original.bytes.size(), &module));
    cuabi_module_destroy(module);
}
