// A copy of a request's compile options that owns every string and array it points to, for a
// compile that outlives the call that asked for it (a batch: cuabi copies what it needs, and the
// caller may free its options on return).
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "compile/compile_options.hpp"

namespace cuabi {

class OwnedCompileOptions {
public:
    // Copies `view` deeply; a NULL string or array stays NULL (check_compile_options judges it).
    explicit OwnedCompileOptions(const CompileOptions& view);
    OwnedCompileOptions(const OwnedCompileOptions&) = delete;  // points into itself
    OwnedCompileOptions& operator=(const OwnedCompileOptions&) = delete;

    const CompileOptions& get() const { return options_; }

private:
    const char* keep(const char* text);
    const char* const* keep(const char* const* texts, size_t count);

    CompileOptions options_;
    std::deque<std::string> strings_;                   // a deque: its elements never move
    std::deque<std::vector<const char*>> arrays_;
    std::vector<unsigned char> salt_;
};

}  // namespace cuabi
