// Ranges that users mark themselves: thread-scoped push/pop, and process-wide
// start/end ranges held by a cuabi_range handle so that another thread may end them.
//
// Names are checked (non-empty UTF-8) and push depth is tracked per thread whether or not a
// profiler is attached, so a program that is wrong unprofiled is told so, and one that is right
// stays right under Nsight.
#pragma once

#include <nvtx3/nvToolsExt.h>

#include <memory>

#include "core/error.hpp"
#include "core/handle_table.hpp"

namespace cuabi {
namespace range {

// Pushes `name` in `domain` (NULL: "cuabi") on the calling thread.
Status push_user(const char* name, const char* domain);

// Pops the calling thread's innermost user range, in the domain it was pushed in.
// CUABI_ERROR_RANGE when this thread has none open.
Status pop_user();

// The number of user ranges open on the calling thread (for tests and messages).
size_t user_depth();

// A started process range; ending it is what destroys the handle.
class UserRange final : public Object {
public:
    static constexpr HandleType kHandleType = HandleType::Range;

    static Status start(const char* name, const char* domain, std::shared_ptr<UserRange>* out);
    void end();

private:
    UserRange(nvtxDomainHandle_t domain, nvtxRangeId_t id) : domain_(domain), id_(id) {}
    nvtxDomainHandle_t domain_;
    nvtxRangeId_t id_;
};

}  // namespace range
}  // namespace cuabi
