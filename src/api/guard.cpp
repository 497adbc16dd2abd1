#include "api/guard.hpp"

#include <cxxabi.h>

#include <new>
#include <stdexcept>

namespace cuabi {
namespace guard {

Status failed(const char* function) {
    try {
        throw;
    } catch (abi::__forced_unwind&) {
        throw;
    } catch (const std::bad_alloc&) {
        return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory (or pass smaller inputs), then retry",
                    "%s could not allocate host memory", function);
    } catch (const std::length_error&) {
        return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "pass smaller inputs",
                    "%s needed a host allocation larger than the C++ library can make", function);
    } catch (const std::exception& thrown) {
        return fail(CUABI_ERROR_INTERNAL, "report this cuabi bug with the message; the call did not complete",
                    "%s failed inside cuabi with an unexpected C++ exception: %s", function, thrown.what());
    } catch (...) {
        return fail(CUABI_ERROR_INTERNAL, "report this cuabi bug with the message; the call did not complete",
                    "%s failed inside cuabi with an unexpected exception of unknown type", function);
    }
}

void swallowed() {
    try {
        throw;
    } catch (abi::__forced_unwind&) {
        throw;
    } catch (...) {
    }
}

}  // namespace guard
}  // namespace cuabi
