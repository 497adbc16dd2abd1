#include "compile/owned_compile_options.hpp"

namespace cuabi {

OwnedCompileOptions::OwnedCompileOptions(const CompileOptions& view) : options_(view) {
    options_.target = keep(view.target);
    options_.cpp_standard = keep(view.cpp_standard);
    options_.program_name = keep(view.program_name);
    options_.defines = keep(view.defines, view.define_count);
    options_.include_dirs = keep(view.include_dirs, view.include_dir_count);
    options_.header_names = keep(view.header_names, view.header_count);
    options_.header_sources = keep(view.header_sources, view.header_count);
    options_.name_expressions = keep(view.name_expressions, view.name_expression_count);
    options_.extra_flags = keep(view.extra_flags, view.extra_flag_count);
    if (view.salt != nullptr) {
        const auto* bytes = static_cast<const unsigned char*>(view.salt);
        salt_.assign(bytes, bytes + view.salt_size);
        options_.salt = salt_.data();
    }
}

const char* OwnedCompileOptions::keep(const char* text) {
    if (text == nullptr) return nullptr;
    return strings_.emplace_back(text).c_str();
}

const char* const* OwnedCompileOptions::keep(const char* const* texts, size_t count) {
    if (texts == nullptr) return nullptr;
    std::vector<const char*>& copy = arrays_.emplace_back();
    copy.reserve(count);
    for (size_t i = 0; i < count; ++i) copy.push_back(keep(texts[i]));
    return copy.data();
}

}  // namespace cuabi
