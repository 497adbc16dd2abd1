#include "driver/nvrtc_api_files.hpp"

#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "core/dir_listing.hpp"

namespace cuabi {
namespace {

#if defined(__x86_64__)
constexpr uint16_t kMachine = EM_X86_64;
const char* const kTriplet = "x86_64-linux-gnu";
#elif defined(__aarch64__)
constexpr uint16_t kMachine = EM_AARCH64;
const char* const kTriplet = "aarch64-linux-gnu";
#elif defined(__powerpc64__)
constexpr uint16_t kMachine = EM_PPC64;
const char* const kTriplet = "powerpc64le-linux-gnu";
#else
#error "cuabi knows the ELF machine of x86-64, aarch64 and ppc64le only"
#endif

constexpr size_t kMaxNoteBytes = 64 * 1024;
constexpr uint16_t kMaxProgramHeaders = 128;
constexpr off_t kMaxLoaderCacheBytes = 64 * 1024 * 1024;

// Bytes read at `offset`, fewer than `size` only at the end of the file or on an error.
size_t read_up_to(int fd, void* data, size_t size, off_t offset) {
    size_t done = 0;
    while (done < size) {
        ssize_t got = pread(fd, static_cast<char*>(data) + done, size - done, offset + static_cast<off_t>(done));
        if (got <= 0) break;
        done += static_cast<size_t>(got);
    }
    return done;
}

bool read_at(int fd, void* data, size_t size, off_t offset) { return read_up_to(fd, data, size, offset) == size; }

// A 64-bit ELF header of this machine's architecture.
bool is_native_header(const Elf64_Ehdr& header) {
    return std::memcmp(header.e_ident, ELFMAG, SELFMAG) == 0 && header.e_ident[EI_CLASS] == ELFCLASS64 &&
           header.e_machine == kMachine;
}

bool read_native_header(int fd, Elf64_Ehdr* header) {
    return read_at(fd, header, sizeof *header, 0) && is_native_header(*header);
}

// /etc/ld.so.cache ("glibc-ld.so.cache1.1" layout, alone or after an old-format table), mapped
// once per process and searched in place, as the dynamic loader does: only the pages a lookup
// touches are read (copying the whole file cost a fresh process's first compile a dozen page
// faults). ldconfig replaces the file by renaming a new one over it, so the mapping stays whole.
// The cache is root's; every offset is checked against its size.
struct LoaderCache {
    const char* data = nullptr;
    size_t size = 0;
    size_t start = 0;    // of the new-format table
    uint32_t count = 0;  // its entries

    LoaderCache() {
        static const char kOldMagic[] = "ld.so-1.7.0";
        static const char kNewMagic[] = "glibc-ld.so.cache1.1";
        int fd = open("/etc/ld.so.cache", O_RDONLY | O_CLOEXEC);
        if (fd < 0) return;
        struct stat info;
        if (fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0 && info.st_size < kMaxLoaderCacheBytes) {
            void* mapped = mmap(nullptr, static_cast<size_t>(info.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
            if (mapped != MAP_FAILED) {
                data = static_cast<const char*>(mapped);
                size = static_cast<size_t>(info.st_size);
            }
        }
        close(fd);
        if (size >= 16 && std::memcmp(data, kOldMagic, sizeof kOldMagic - 1) == 0) {
            uint32_t old_count = 0;
            std::memcpy(&old_count, data + 12, 4);
            start = (16 + size_t(old_count) * 12 + 7) & ~size_t{7};
        }
        if (size < start + kHeader || std::memcmp(data + start, kNewMagic, sizeof kNewMagic - 1) != 0) return;
        std::memcpy(&count, data + start + 20, 4);
        if (count > (size - start - kHeader) / kEntry) count = 0;
    }
    ~LoaderCache() {
        if (data != nullptr) munmap(const_cast<char*>(data), size);
    }
    LoaderCache(const LoaderCache&) = delete;
    LoaderCache& operator=(const LoaderCache&) = delete;

    const char* string_at(uint32_t offset) const {
        size_t at = start + offset;
        if (at >= size || std::memchr(data + at, '\0', size - at) == nullptr) return nullptr;
        return data + at;
    }

    // The path for `name` of this machine's ELF class and architecture, or "".
    std::string find(const std::string& name) const {
        for (uint32_t i = 0; i < count; ++i) {
            const char* entry = data + start + kHeader + size_t(i) * kEntry;
            uint32_t key = 0, value = 0;
            std::memcpy(&key, entry + 4, 4);
            std::memcpy(&value, entry + 8, 4);
            const char* library = string_at(key);
            if (library == nullptr || name != library) continue;
            const char* path = string_at(value);
            if (path != nullptr && is_native_elf(path)) return path;
        }
        return "";
    }

    static constexpr size_t kHeader = 48, kEntry = 24;
};

std::string from_loader_cache(const std::string& name) {
    static const LoaderCache cache;
    return cache.find(name);
}

bool is_directory(const std::string& path) {
    struct stat info;
    return stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

// Names in `directory` that start with `prefix`, sorted descending (newest version first for
// "cuda-12.4", "cuda-13.0"; "python3.12" before "python3.10" is not needed, order is kept stable).
std::vector<std::string> names_starting_with(const std::string& directory, const char* prefix) {
    std::vector<std::string> names;
    DirListing listing = DirListing::of_path(directory.c_str());
    if (!listing.ok()) return names;
    size_t length = std::strlen(prefix);
    while (struct dirent* item = listing.next())
        if (std::strncmp(item->d_name, prefix, length) == 0) names.push_back(item->d_name);
    // Versions compare by number: cuda-13.0 > cuda-12.10 > cuda-12.9.
    std::sort(names.begin(), names.end(), [length](const std::string& a, const std::string& b) {
        return strverscmp(a.c_str() + length, b.c_str() + length) > 0;
    });
    return names;
}

}  // namespace

std::vector<std::string> toolkit_roots() {
    std::vector<std::string> roots;
    auto add = [&roots](const std::string& root) {
        if (!root.empty() && is_directory(root) && std::find(roots.begin(), roots.end(), root) == roots.end())
            roots.push_back(root);
    };
    for (const char* variable : {"CUDA_HOME", "CUDA_PATH"}) {
        const char* value = secure_getenv(variable);
        if (value != nullptr) add(value);
    }
    add("/usr/local/cuda");
    for (const std::string& name : names_starting_with("/usr/local", "cuda-")) add("/usr/local/" + name);
    add("/opt/cuda");
    return roots;
}

std::string enclosing_site_packages(const std::string& path) {
    for (size_t end = path.rfind('/'); end != std::string::npos && end > 0; end = path.rfind('/', end - 1)) {
        size_t start = path.rfind('/', end - 1);
        if (start == std::string::npos) break;
        std::string name = path.substr(start + 1, end - start - 1);
        if (name == "site-packages" || name == "dist-packages") return path.substr(0, end);
    }
    return "";
}

std::vector<std::string> pip_nvidia_directories() {
    std::vector<std::string> found;
    Dl_info self{};
    char resolved[4096];
    if (dladdr(reinterpret_cast<void*>(&pip_nvidia_directories), &self) != 0 && self.dli_fname != nullptr &&
        realpath(self.dli_fname, resolved) != nullptr) {
        std::string site = enclosing_site_packages(resolved);
        if (!site.empty() && is_directory(site + "/nvidia")) found.push_back(site + "/nvidia");
    }
    // Environments of one user are small: their lib/ is listed. The system's lib/ directories are
    // large, so there the usual interpreter versions are tried by name instead.
    std::vector<std::string> pythons;
    for (const char* variable : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
        const char* value = secure_getenv(variable);
        if (value == nullptr || *value != '/') continue;
        for (const std::string& python : names_starting_with(std::string(value) + "/lib", "python3"))
            pythons.push_back(std::string(value) + "/lib/" + python);
    }
    const char* home = secure_getenv("HOME");
    if (home != nullptr && *home == '/') {
        std::string local = std::string(home) + "/.local/lib";
        for (const std::string& python : names_starting_with(local, "python3")) pythons.push_back(local + "/" + python);
    }
    for (const char* prefix : {"/usr/local/lib/python3.", "/usr/lib/python3."})
        for (int minor = 14; minor >= 8; --minor) pythons.push_back(prefix + std::to_string(minor));
    pythons.push_back("/usr/lib/python3");  // Debian's dist-packages for every version
    for (const std::string& python : pythons) {
        for (const char* packages : {"/site-packages/nvidia", "/dist-packages/nvidia"})
            if (is_directory(python + packages) &&
                std::find(found.begin(), found.end(), python + packages) == found.end())
                found.push_back(python + packages);
    }
    return found;
}

std::vector<std::string> loader_path_directories() {
    std::vector<std::string> directories;
    const char* path = secure_getenv("LD_LIBRARY_PATH");
    if (path == nullptr) return directories;
    std::string list = path;
    for (size_t start = 0; start <= list.size();) {
        size_t end = list.find_first_of(":;", start);
        if (end == std::string::npos) end = list.size();
        directories.push_back(end > start ? list.substr(start, end - start) : ".");  // empty = current dir
        start = end + 1;
    }
    return directories;
}

bool is_native_elf(const std::string& path) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return false;
    Elf64_Ehdr header;
    struct stat info;
    bool native = fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && read_native_header(fd, &header);
    close(fd);
    return native;
}

std::string find_library_file(const std::string& name) {
    if (name.empty() || name.find('/') != std::string::npos) return "";
    for (const std::string& directory : loader_path_directories()) {
        std::string path = directory + "/" + name;
        if (regular_file(path) && is_native_elf(path)) return path;
    }
    std::string cached = from_loader_cache(name);
    if (!cached.empty()) return cached;
    const std::string defaults[] = {std::string("/lib/") + kTriplet, std::string("/usr/lib/") + kTriplet, "/lib64",
                                    "/usr/lib64", "/lib", "/usr/lib"};
    for (const std::string& directory : defaults) {
        std::string path = directory + "/" + name;
        if (regular_file(path) && is_native_elf(path)) return path;
    }
    return "";
}

namespace {

// The file's first bytes, read once: an ELF file's header, program headers and build-id note
// normally all lie in them, so identifying NVRTC costs one read (a fresh process's first compile
// pays for each system call).
struct FileHead {
    int fd;
    unsigned char bytes[2048];
    size_t size;

    explicit FileHead(int descriptor) : fd(descriptor), size(read_up_to(descriptor, bytes, sizeof bytes, 0)) {}
    // `length` bytes at `offset`: from the head when they are in it, else read from the file.
    bool copy(void* out, size_t length, uint64_t offset) const {
        if (offset <= size && length <= size - offset) {
            std::memcpy(out, bytes + offset, length);
            return true;
        }
        return read_at(fd, out, length, static_cast<off_t>(offset));
    }
};

// The hex of the NT_GNU_BUILD_ID note in `notes`, or "".
std::string build_id_in(const std::string& notes) {
    auto align4 = [](size_t n) { return (n + 3) & ~size_t{3}; };
    for (size_t at = 0; at + sizeof(Elf64_Nhdr) <= notes.size();) {
        Elf64_Nhdr note;
        std::memcpy(&note, notes.data() + at, sizeof note);
        size_t name_at = at + sizeof note, desc_at = name_at + align4(note.n_namesz);
        if (note.n_namesz > notes.size() || note.n_descsz > notes.size() || desc_at + note.n_descsz > notes.size())
            return "";
        if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 && std::memcmp(notes.data() + name_at, "GNU", 4) == 0) {
            std::string hex;
            char digits[3];
            for (uint32_t b = 0; b < note.n_descsz; ++b) {
                std::snprintf(digits, sizeof digits, "%02x", static_cast<unsigned char>(notes[desc_at + b]));
                hex += digits;
            }
            return hex;
        }
        at = desc_at + align4(note.n_descsz);
    }
    return "";
}

}  // namespace

std::string read_build_id(const std::string& path) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return "";
    std::string hex;
    struct stat info;
    if (fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) {
        const FileHead head(fd);
        Elf64_Ehdr header;
        bool usable = head.copy(&header, sizeof header, 0) && is_native_header(header) &&
                      header.e_phentsize == sizeof(Elf64_Phdr) && header.e_phnum <= kMaxProgramHeaders;
        for (uint16_t i = 0; usable && hex.empty() && i < header.e_phnum; ++i) {
            Elf64_Phdr segment;
            // A table cut short by the end of the file yields the headers it holds.
            if (!head.copy(&segment, sizeof segment, header.e_phoff + uint64_t{i} * sizeof segment)) break;
            if (segment.p_type != PT_NOTE || segment.p_filesz > kMaxNoteBytes || segment.p_filesz < sizeof(Elf64_Nhdr))
                continue;
            std::string notes(segment.p_filesz, '\0');
            if (head.copy(&notes[0], notes.size(), segment.p_offset)) hex = build_id_in(notes);
        }
    }
    close(fd);
    return hex;
}

bool regular_file(const std::string& path) {
    struct stat info;
    return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

NamedLibrary library_named_by(const char* variable) {
    NamedLibrary named;
    const char* value = secure_getenv(variable);
    if (value == nullptr || *value == '\0') return named;
    named.set = true;
    std::string given = value;
    std::string path = given.find('/') == std::string::npos ? find_library_file(given) : given;
    named.path = path.empty() ? given : path;
    named.found = !path.empty() && regular_file(path);
    named.searched = std::string(variable) + "='" + given + "'";
    return named;
}

}  // namespace cuabi
