#pragma once

#include "core/error.hpp"

namespace cuabi {

// The name of a status code as spelled in cuabi.h, or "CUABI_UNKNOWN_STATUS".
const char* status_name(Status status);

}  // namespace cuabi
