// cuabi_compile_options into the compile layer's CompileOptions: the struct read with its
// struct_size (a caller's older, smaller struct gets the defaults for the fields it lacks), every
// field copied, then checked (check_compile_options) -- by compile() itself where that is where
// they go, since a repeated request skips most of the check there. The only place that reads the
// public struct.
#pragma once

#include "compile/compile_options.hpp"
#include "cuabi/cuabi.h"

namespace cuabi {

// NULL `user` means the defaults. The result's strings are views of the caller's.
Status read_compile_options(const cuabi_compile_options* user, CompileOptions* out);

// The same without check_compile_options: only for options that go to compile() (compile/
// compiler.hpp), which checks them.
Status read_compile_options_unchecked(const cuabi_compile_options* user, CompileOptions* out);

}  // namespace cuabi
