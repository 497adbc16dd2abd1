// Which compiles use a precompiled header (PCH), under which key, and what came of it.
//
// A compile that misses the cache and runs in the compile worker uses a PCH when:
//   - $CUABI_PCH is "auto" (the default) and the compile does not set CUABI_COMPILE_NO_PCH or
//     CUABI_COMPILE_NO_CACHE (a compile that asks for NVRTC afresh gets NVRTC afresh);
//   - the loaded NVRTC and the worker can (pch_worker.hpp says when they cannot);
//   - the disk cache is in use (the PCH store is part of it);
//   - the source's header prefix -- the preprocessor lines before its first token -- #includes
//     something, and every file it can reach is known to the key: its #include names are
//     <angle> names (found in the toolkit headers, whose identity is in the key) or in-memory
//     headers (whose contents are), in-memory headers include only the same, and the compile adds
//     no include directory (include_dirs, -I, --include-path, -include). NVRTC never checks
//     whether the files a PCH was made from have changed since, so a file the key cannot see
//     could otherwise serve an old header to a new compile.
// The key hashes everything that decides the PCH: the header prefix, the in-memory headers, every
// NVRTC flag of the compile, the NVRTC, the toolkit headers and this cuabi. A compile with another
// body, other name expressions or another program name shares the PCH; one with other options
// (a -D, another target) gets its own. The PCH never changes what a compile produces.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "compile/compile_options.hpp"
#include "compile/nvrtc_program.hpp"
#include "compile/pch_worker.hpp"
#include "core/error.hpp"

namespace cuabi {

enum class PchMode { Auto, Off };

// $CUABI_PCH: "auto" (or unset) or "off" (or "0"). Another value counts as "auto" and is
// reported once: check_pch_environment() fails with it the first time.
PchMode pch_mode();
Status check_pch_environment();

// The header prefix of `source`: everything before its first token that is not part of a
// preprocessor directive (comments and blank lines included).
std::string_view header_prefix(std::string_view source);

// The PCH key (32 hex digits) for a compile of `request` made into `job`, or "" when it must not
// use a PCH (see the file comment; the NVRTC and worker are checked by the caller).
std::string pch_key(const CompileRequest& request, const NvrtcJob& job, uint64_t nvrtc_identity);

// Counts what a worker reported for one compile.
void count_pch(const PchReport& report);

struct PchStats {
    uint64_t created = 0;   // PCH made and stored
    uint64_t reused = 0;    // compiles that used a stored PCH
    uint64_t rejected = 0;  // stored PCH refused: damaged or foreign files, or NVRTC's refusal
    uint64_t not_created = 0;
    std::string last_note;  // why the last PCH that was not made was not
};
PchStats pch_stats();

}  // namespace cuabi
