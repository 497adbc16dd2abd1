// Which NVRTC a process uses, and its identity for the cache key, are known from its FILE without
// loading it: found where the loader would find it, identified by its GNU build-id note, paired
// with the driver when several majors are installed.
#include <gtest/gtest.h>

#include <elf.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

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

namespace {

// Sets (or, with nullptr, unsets) an environment variable for one test, restoring it after.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        const char* old = std::getenv(name);
        had_ = old != nullptr;
        if (had_) old_ = old;
        if (value != nullptr) setenv(name, value, 1);
        else unsetenv(name);
    }
    ~ScopedEnv() {
        if (had_) setenv(name_.c_str(), old_.c_str(), 1);
        else unsetenv(name_.c_str());
    }

private:
    std::string name_, old_;
    bool had_ = false;
};

// Fake NVRTC files libnvrtc.so.<major> in a temporary directory put first in LD_LIBRARY_PATH:
// copies of libc, a native ELF file with a build-id. Majors 98 and 99 exist nowhere else, so what
// the search finds is exactly what the test put there.
struct FakeNvrtcs {
    cache_test::TempDir dir;
    std::string libc = cuabi::find_library_file("libc.so.6");
    ScopedEnv no_override{"CUABI_NVRTC_PATH", nullptr};
    ScopedEnv loader_path{"LD_LIBRARY_PATH", dir.path().c_str()};

    std::string add(int major) {
        std::string path = dir / ("libnvrtc.so." + std::to_string(major));
        std::ifstream from(libc, std::ios::binary);
        std::ofstream(path, std::ios::binary) << from.rdbuf();
        return path;
    }
};

}  // namespace

TEST(NvrtcLocate, TheSearchedPlacesAreListedWhenNoNvrtcIsFound) {
    FakeNvrtcs fakes;  // none added: libnvrtc.so.97 is nowhere
    for (int loaded_driver : {0, 97000}) {
        cuabi::NvrtcLocation location = cuabi::locate_nvrtc({97}, loaded_driver);
        EXPECT_FALSE(location.found);
        EXPECT_NE(location.searched.find("libnvrtc.so.97 in LD_LIBRARY_PATH, /etc/ld.so.cache"), std::string::npos)
            << location.searched;
        for (const std::string& root : cuabi::toolkit_roots())
            EXPECT_NE(location.searched.find(root + "/lib64"), std::string::npos) << location.searched;
        EXPECT_TRUE(location.others.empty());
        EXPECT_TRUE(location.unsearched.empty()) << "every major was searched when none was found";
    }
    // What the public functions say when nothing is found is built from `searched`.
    cuabi::NvrtcLocation two = cuabi::locate_nvrtc({97, 96}, 0);
    EXPECT_NE(two.searched.find("libnvrtc.so.97 and libnvrtc.so.96 in "), std::string::npos) << two.searched;
}

TEST(NvrtcLocate, TheSearchedPlacesAreNotListedWhenNvrtcIsFound) {
    FakeNvrtcs fakes;
    std::string path = fakes.add(99);
    for (int loaded_driver : {0, 99000}) {
        cuabi::NvrtcLocation location = cuabi::locate_nvrtc({99}, loaded_driver);
        ASSERT_TRUE(location.found) << location.searched;
        EXPECT_EQ(location.path, path);
        EXPECT_EQ(location.source, "the loader's search path");
        EXPECT_EQ(location.searched, "") << "only messages about a missing NVRTC need it";
        EXPECT_EQ(location.build_id, cuabi::read_build_id(fakes.libc));
        EXPECT_FALSE(location.build_id.empty());
        EXPECT_EQ(location.identity, cuabi::nvrtc_file_identity(path, location.build_id));
    }
}

TEST(NvrtcLocate, TheSearchOrderPutsWhatTheDriverSupportsFirst) {
    EXPECT_EQ(cuabi::nvrtc_search_order({13, 12}, 13000), (std::vector<int>{13, 12}));
    EXPECT_EQ(cuabi::nvrtc_search_order({13, 12}, 12080), (std::vector<int>{12, 13}));
    EXPECT_EQ(cuabi::nvrtc_search_order({13, 12}, 0), (std::vector<int>{13, 12}));
    EXPECT_EQ(cuabi::nvrtc_search_order({14, 13, 12}, 11080), (std::vector<int>{12, 13, 14})) << "closest first";
    EXPECT_EQ(cuabi::nvrtc_search_order({14, 13, 12}, 13020), (std::vector<int>{13, 12, 14}));
}

TEST(NvrtcLocate, StoppingAtTheFirstFoundInTheDriversOrderPairsAsSearchingAllDoes) {
    const std::vector<int> majors(std::begin(cuabi::kNvrtcMajors), std::end(cuabi::kNvrtcMajors));
    for (int driver : {0, 11080, 12000, 12080, 13000, 13020, 14000}) {
        for (unsigned subset = 0; subset < (1u << majors.size()); ++subset) {
            std::vector<int> installed;
            for (size_t i = 0; i < majors.size(); ++i)
                if (subset & (1u << i)) installed.push_back(majors[i]);
            int first = 0;
            for (int major : cuabi::nvrtc_search_order(majors, driver))
                if (first == 0 && std::find(installed.begin(), installed.end(), major) != installed.end()) first = major;
            EXPECT_EQ(first, cuabi::paired_nvrtc_major(installed, driver)) << "driver " << driver << ", subset " << subset;
        }
    }
}

TEST(NvrtcLocate, WithTheDriverLoadedTheFirstFoundIsChosenAndTheOthersAreNotLookedFor) {
    FakeNvrtcs fakes;
    std::string newer = fakes.add(99), older = fakes.add(98);
    struct Case {
        int driver;
        std::string chosen;
    } cases[] = {{99000, newer}, {98050, older}, {97000, older}};  // older than both: the closest
    for (const Case& with : cases) {
        cuabi::NvrtcLocation location = cuabi::locate_nvrtc({99, 98}, with.driver);
        ASSERT_TRUE(location.found);
        EXPECT_EQ(location.path, with.chosen) << with.driver;
        EXPECT_EQ(location.driver_version, with.driver);
        EXPECT_TRUE(location.others.empty()) << "the major after the chosen one is not searched";
        EXPECT_EQ(location.unsearched, std::vector<int>{location.major == 99 ? 98 : 99});
    }
    // Without a loaded driver every major is searched: the others are known at once.
    cuabi::NvrtcLocation offline = cuabi::locate_nvrtc({99, 98}, 0);
    ASSERT_TRUE(offline.found);
    EXPECT_TRUE(offline.unsearched.empty());
    EXPECT_EQ(offline.major, cuabi::nvrtc_search_order({99, 98}, offline.driver_version)[0]);
    EXPECT_EQ(offline.others,
              std::vector<std::string>{offline.major == 99 ? "libnvrtc.so.98 at " + older : "libnvrtc.so.99 at " + newer});
    // Only one installed: found last in the driver's order, nothing else to list.
    ASSERT_EQ(unlink(newer.c_str()), 0);
    cuabi::NvrtcLocation alone = cuabi::locate_nvrtc({99, 98}, 99000);
    EXPECT_EQ(alone.path, older);
    EXPECT_TRUE(alone.unsearched.empty());
    EXPECT_TRUE(alone.others.empty());
}

namespace {

// An ELF file of this machine: its header, a GNU build-id note of bytes 0x00..0x13, then
// `headers` program headers, PT_LOAD but for the PT_NOTE at `note_index`, the table cut after
// `kept` of them (with 10 bytes of the next). Returns the build-id's hex.
std::string write_elf_with_build_id(const std::string& path, uint16_t headers, uint16_t note_index,
                                    uint16_t kept = 0xffff) {
    Elf64_Ehdr header{};
    std::memcpy(header.e_ident, ELFMAG, SELFMAG);
    header.e_ident[EI_CLASS] = ELFCLASS64;
    header.e_ident[EI_DATA] = ELFDATA2LSB;
    header.e_ident[EI_VERSION] = EV_CURRENT;
    header.e_type = ET_DYN;
#if defined(__x86_64__)
    header.e_machine = EM_X86_64;
#elif defined(__aarch64__)
    header.e_machine = EM_AARCH64;
#else
    header.e_machine = EM_PPC64;
#endif
    Elf64_Nhdr note{4, 20, NT_GNU_BUILD_ID};
    std::string hex, notes(reinterpret_cast<const char*>(&note), sizeof note);
    notes.append("GNU", 4);
    for (char b = 0; b < 20; ++b) {
        notes += b;
        char digits[3];
        std::snprintf(digits, sizeof digits, "%02x", b);
        hex += digits;
    }
    header.e_phoff = sizeof header + notes.size();
    header.e_phentsize = sizeof(Elf64_Phdr);
    header.e_phnum = headers;
    std::vector<Elf64_Phdr> segments(headers);
    for (Elf64_Phdr& segment : segments) segment.p_type = PT_LOAD;
    segments[note_index].p_type = PT_NOTE;
    segments[note_index].p_offset = sizeof header;
    segments[note_index].p_filesz = notes.size();
    std::string bytes(reinterpret_cast<const char*>(&header), sizeof header);
    bytes += notes;
    bytes.append(reinterpret_cast<const char*>(segments.data()), headers * sizeof(Elf64_Phdr));
    if (kept < headers) bytes.resize(header.e_phoff + kept * sizeof(Elf64_Phdr) + 10);
    std::ofstream(path, std::ios::binary) << bytes;
    return hex;
}

}  // namespace

TEST(NvrtcLocate, TheBuildIdIsReadFromAnyOfTheProgramHeadersWithinBounds) {
    cache_test::TempDir dir;
    std::string path = dir / "libnvrtc.so.99";
    for (uint16_t headers : {1, 7, 128}) {
        for (uint16_t note_index : {0, headers / 2, headers - 1}) {
            std::string hex = write_elf_with_build_id(path, headers, static_cast<uint16_t>(note_index));
            EXPECT_EQ(cuabi::read_build_id(path), hex) << "note " << note_index << " of " << headers << " headers";
        }
    }
    write_elf_with_build_id(path, 129, 0);
    EXPECT_EQ(cuabi::read_build_id(path), "") << "more program headers than cuabi reads";
    // A table cut short by the end of the file: the headers it holds are read.
    std::string hex = write_elf_with_build_id(path, 7, 2, 3);
    EXPECT_EQ(cuabi::read_build_id(path), hex) << "the note's header is before the cut";
    write_elf_with_build_id(path, 7, 3, 3);
    EXPECT_EQ(cuabi::read_build_id(path), "") << "the note's header is cut";
}
