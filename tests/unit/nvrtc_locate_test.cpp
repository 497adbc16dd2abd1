// Which NVRTC a process uses, and its identity for the cache key, are known from its FILE without
// loading it: found where the loader would find it, identified by its GNU build-id note, paired
// with the driver when several majors are installed.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <time.h>

#include <fstream>

#include "cache_support/process.hpp"
#include "driver/nvrtc_api.hpp"
#include "driver/nvrtc_api_files.hpp"
#include "driver/nvrtc_api_locate.hpp"

TEST(NvrtcLocate, FindsTheToolkitNvrtcAndItsFileIdentityIsTheLoadedOnes) {
    const cuabi::NvrtcLocation& location = cuabi::nvrtc_location();
    ASSERT_TRUE(location.found) << location.searched;
    EXPECT_NE(location.path.find("libnvrtc.so."), std::string::npos) << location.path;
    EXPECT_GE(location.major, 12);
    EXPECT_GE(location.build_id.size(), 16u);
    EXPECT_NE(location.identity, 0u);
    const cuabi::NvrtcApi* loaded = cuabi::nvrtc(nullptr);
    ASSERT_NE(loaded, nullptr) << cuabi_last_error_message();
    EXPECT_EQ(loaded->build_id, location.build_id) << "the note read from the file differs from the loaded one";
    EXPECT_EQ(loaded->identity, location.identity);
    EXPECT_EQ(loaded->major, location.major);
}

TEST(NvrtcLocate, LibrariesAreFoundTheWayTheLoaderFindsThem) {
    std::string libc = cuabi::find_library_file("libc.so.6");
    EXPECT_FALSE(libc.empty());
    EXPECT_TRUE(cuabi::is_native_elf(libc)) << libc;
    EXPECT_EQ(cuabi::find_library_file("libcuabi-no-such-library.so.1"), "");
    EXPECT_EQ(cuabi::find_library_file("/abs/path.so"), "") << "names only";
    EXPECT_FALSE(cuabi::read_build_id(libc).empty()) << libc;
    EXPECT_EQ(cuabi::read_build_id("/etc/passwd"), "") << "not an ELF file";
}

TEST(NvrtcLocate, AFileWithoutABuildIdIsIdentifiedByItsSizeAndTime) {
    cache_test::TempDir dir;
    std::string path = dir / "libnvrtc.so.13";
    std::ofstream(path) << "not really NVRTC";
    uint64_t first = cuabi::nvrtc_file_identity(path, "");
    EXPECT_NE(first, 0u);
    EXPECT_EQ(cuabi::nvrtc_file_identity(path, ""), first);
    struct timespec times[2] = {{1000000000, 0}, {1000000000, 0}};
    ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
    EXPECT_NE(cuabi::nvrtc_file_identity(path, ""), first) << "an upgrade in place must change the key";
    EXPECT_NE(cuabi::nvrtc_file_identity(path, "aa"), cuabi::nvrtc_file_identity(path, "bb"));
    EXPECT_EQ(cuabi::nvrtc_file_identity("/one/path", "aa"), cuabi::nvrtc_file_identity("/other", "aa"))
        << "with a build-id, the build is what counts, not where it lies";
}

TEST(NvrtcLocate, TheNewestNvrtcTheDriverSupportsIsPaired) {
    EXPECT_EQ(cuabi::paired_nvrtc_major({13, 12}, 13000), 13);
    EXPECT_EQ(cuabi::paired_nvrtc_major({13, 12}, 12080), 12) << "a CUDA 12 driver cannot load NVRTC 13's CUBINs";
    EXPECT_EQ(cuabi::paired_nvrtc_major({13, 12}, 0), 13) << "no driver: the newest";
    EXPECT_EQ(cuabi::paired_nvrtc_major({13, 12}, 11080), 12) << "a driver older than all: the closest";
    EXPECT_EQ(cuabi::paired_nvrtc_major({12}, 13000), 12);
    EXPECT_EQ(cuabi::paired_nvrtc_major({}, 13000), 0);
}

TEST(NvrtcLocate, ThePairingIsExplainedForCuabiInfo) {
    cuabi::NvrtcLocation location;
    location.found = true;
    location.major = 13;
    location.path = "/usr/local/cuda/lib64/libnvrtc.so.13";
    location.source = "the loader's search path";
    EXPECT_NE(cuabi::nvrtc_pairing_text(location, 13000).find("for the CUDA 13.0 driver"), std::string::npos);
    std::string mismatch = cuabi::nvrtc_pairing_text(location, 12080);
    EXPECT_NE(mismatch.find("newer than the CUDA 12.8 driver"), std::string::npos) << mismatch;
    EXPECT_NE(mismatch.find("Fix: "), std::string::npos) << mismatch;
    location.others = {"libnvrtc.so.12 at /opt/cuda-12/lib64/libnvrtc.so.12"};
    EXPECT_NE(cuabi::nvrtc_pairing_text(location, 13000).find("also installed: libnvrtc.so.12"), std::string::npos);
}
