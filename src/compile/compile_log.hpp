// The NVRTC log of the last compile on this thread, successful or not, for
// cuabi_last_compile_log(): the one way to read the log of a compile that produced no module.
//
// Held as a shared pointer so that a cache hit records the cached image's log without copying
// it (an aliasing pointer into the image), keeping hits free of allocation.
#pragma once

#include <memory>
#include <string>

#include "core/error.hpp"

namespace cuabi {

void set_last_compile_log(std::shared_ptr<const std::string> log);
const std::string& last_compile_log();  // "" before the first compile on this thread
const std::shared_ptr<const std::string>& last_compile_log_shared();  // NULL for none

// Records on this thread a compile failure that happened elsewhere (the compile worker, or
// another thread's compile of the same key): `message` is what fail() wrote there ("<what>.
// Fix: <fix>"), `nvrtc_result` the nvrtcResult behind it.
Status fail_as_recorded(Status status, int32_t nvrtc_result, const std::string& message);

}  // namespace cuabi
