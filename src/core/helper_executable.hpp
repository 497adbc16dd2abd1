// Where one of cuabi's helper executables is, and whether it may be started: it must be as
// trustworthy as the library it serves.
#pragma once

#include <string>

namespace cuabi {

// `name` in the cuabi/ folder beside the file this code was loaded from (libcuabi.so, or a test
// executable), unless the environment variable `override_variable` names another file. Resolved
// (realpath) here, so that the file checked is the file started, whatever the working directory
// is later and wherever links point later. It must be a regular, executable file that only its
// owner -- root or this user -- may change; otherwise "" and *why says what was looked for and why
// it was refused.
std::string helper_executable(const char* name, const char* override_variable, std::string* why);

}  // namespace cuabi
