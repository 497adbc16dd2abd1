// Facts about shared-library FILES, read without loading them: where the dynamic loader would
// find a library by name, and the GNU build-id note of an ELF file. NVRTC is large (over 100 MB)
// and costs milliseconds to load, so cuabi learns which NVRTC a process would use -- and keys its
// cache with that file's identity -- from these, and loads NVRTC only to compile.
#pragma once

#include <string>
#include <vector>

namespace cuabi {

// Directories the dynamic loader searches for a dlopen() by name from a library without RPATH
// or RUNPATH, in its order: $LD_LIBRARY_PATH (ignored by set-uid programs, as the loader does),
// then -- handled by find_library_file -- /etc/ld.so.cache, then the default directories.
std::vector<std::string> loader_path_directories();

// The file dlopen(name) would open, found the loader's way: each of loader_path_directories(),
// the entries of /etc/ld.so.cache for `name` (of this machine's ELF class and architecture),
// then the default directories (/lib/<triplet>, /usr/lib/<triplet>, /lib64, /usr/lib64, /lib,
// /usr/lib). Empty when there is none. `name` without a '/' only.
std::string find_library_file(const std::string& name);

// Where CUDA Toolkits usually are, most specific first: $CUDA_HOME, $CUDA_PATH, /usr/local/cuda,
// /usr/local/cuda-<version> (newest version first), /opt/cuda. Only existing directories.
std::vector<std::string> toolkit_roots();

// Python package directories where pip puts NVIDIA's nvidia-* wheels: the nvidia/ directory of
// lib/python3.*/{site,dist}-packages under $VIRTUAL_ENV, $CONDA_PREFIX and ~/.local, and of
// Python 3.8 to 3.14 under /usr/local and /usr (and Debian's /usr/lib/python3/dist-packages).
// First of all, the site-packages this library itself was installed in (a Python wheel carries
// libcuabi inside its package): that environment's NVRTC wheel is found even when it is not
// activated. Only existing ones.
std::vector<std::string> pip_nvidia_directories();

// The nearest directory named site-packages or dist-packages that contains `path` (a file's
// absolute path): "/venv/lib/python3.12/site-packages" for ".../site-packages/cuabi/lib/x.so";
// "" when there is none.
std::string enclosing_site_packages(const std::string& path);

// True when `path` (links followed) is a regular file.
bool regular_file(const std::string& path);

// The library an environment variable names (CUABI_NVRTC_PATH, CUABI_NVJITLINK_PATH): a path as
// given, or a bare file name found the loader's way (find_library_file). `set` is false when the
// variable is unset or empty; `path` is what to load (the name as given when nothing was found).
struct NamedLibrary {
    bool set = false;
    bool found = false;  // a regular file
    std::string path;
    std::string searched;  // "CUABI_NVRTC_PATH='<value>'", for messages
};
NamedLibrary library_named_by(const char* variable);

// True when `path` is an ELF shared object for this machine (class and architecture).
bool is_native_elf(const std::string& path);

// The hex GNU build-id of the ELF file at `path`, read from its PT_NOTE segments with bounded
// reads; "" when it has none or is not an ELF file of this machine.
std::string read_build_id(const std::string& path);

}  // namespace cuabi
