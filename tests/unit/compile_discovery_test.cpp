// The search for NVRTC and the toolkit headers that context creation starts in the background
// (compile/discovery.hpp): started once however often it is asked for, racing compiles that need
// the same answers, and giving exactly the answers a compile would have found itself.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/kernel_cache.hpp"
#include "compile/discovery.hpp"
#include "forked_child.hpp"
#include "compile/toolkit_headers.hpp"
#include "cuabi/cuabi.h"
#include "driver/nvrtc_api_locate.hpp"

namespace cuabi {
namespace {

TEST(Discovery, StartsOnceRacesCompilesAndGivesTheAnswersACompileWouldFind) {
    const char* source = "extern \"C\" __global__ void k(int* p) { *p = 2; }\n";
    cuabi_compile_options options;
    cuabi_compile_options_init(sizeof options, &options);
    options.target = "sm_90";
    options.flags = CUABI_COMPILE_NO_CACHE;
    std::vector<std::thread> threads;
    std::vector<const NvrtcLocation*> locations(8, nullptr);
    std::vector<const ToolkitHeaders*> toolkits(8, nullptr);
    for (int i = 0; i < 8; ++i)
        threads.emplace_back([&, i] {
            discovery::start();
            if (i % 2 == 0) {
                locations[i] = &nvrtc_location();
            } else {
                toolkits[i] = &toolkit_headers();
            }
        });
    for (std::thread& thread : threads) thread.join();
    discovery::finish();
    discovery::finish();  // nothing left to wait for

    // One answer per process, whoever asked first.
    for (int i = 0; i < 8; ++i) {
        if (i % 2 == 0) EXPECT_EQ(locations[i], &nvrtc_location());
        else EXPECT_EQ(toolkits[i], &toolkit_headers());
    }
    // The answers are those the search gives when run directly.
    char path[4096];
    size_t size = 0;
    if (nvrtc_location().found) {
        ASSERT_EQ(cuabi_nvrtc_get_path(path, sizeof path, &size), CUABI_SUCCESS) << cuabi_last_error_message();
        EXPECT_EQ(std::string(path), nvrtc_location().path);
        EXPECT_EQ(nvrtc_location().identity, nvrtc_file_identity(nvrtc_location().path, nvrtc_location().build_id));
    }
    std::vector<std::string> directories = find_toolkit_headers(nvrtc_location().found ? nvrtc_location().path : "").directories;
    EXPECT_EQ(toolkit_headers().directories, directories);

    // And a compile after it works as before.
    cuabi_module* module = nullptr;
    ASSERT_EQ(cuabi_module_compile_offline(source, &options, &module), CUABI_SUCCESS) << cuabi_last_error_message();
    cuabi_module_destroy(module);
}

// Opening the disk layer ahead of the first lookup creates nothing: a missing cache directory stays
// missing (a program that only loads images must not grow one), an existing one gets no kernels/.
TEST(Discovery, OpeningTheCacheAheadCreatesNothing) {
    char scratch[] = "/tmp/cuabi-discovery-XXXXXX";
    ASSERT_NE(mkdtemp(scratch), nullptr);
    cache::Config config;
    config.directory = std::string(scratch) + "/absent";
    cache::KernelCache absent(config);
    absent.open_existing_disk();
    struct stat info;
    EXPECT_NE(stat(config.directory.c_str(), &info), 0) << "the missing cache directory was created";

    config.directory = scratch;
    cache::KernelCache present(config);
    present.open_existing_disk();
    EXPECT_NE(stat((config.directory + "/kernels").c_str(), &info), 0) << "kernels/ was created";
    EXPECT_EQ(present.check_disk(), CUABI_SUCCESS) << cuabi_last_error_message();  // opened and accepted
    rmdir(scratch);
}

// Starting the search is using cuabi: a fork() child of this process is refused rather than left
// to wait on a search the parent's thread may have had half done at the fork.
// (Joined before the fork: the refusal comes from having started the search, not from when the
// thread ends, and a thread still unjoined at fork() is a leak to ThreadSanitizer in the child.)
TEST(Discovery, AForkAfterTheSearchStartedIsAChildThatIsRefused) {
    discovery::start();
    discovery::finish();
    std::string report = test_support::in_forked_child([] {
        cuabi_compile_options options;
        cuabi_compile_options_init(sizeof options, &options);
        options.target = "sm_90";
        cuabi_module* module = nullptr;
        cuabi_status status = cuabi_module_compile_offline("extern \"C\" __global__ void k() {}", &options, &module);
        return std::string(cuabi_status_name(status));
    });
    EXPECT_EQ(report, "CUABI_ERROR_FORKED");
}

}  // namespace
}  // namespace cuabi
