//! Compile options: everything NVRTC is told, as a builder.

use crate::error::Result;
use crate::ffi::{c_ptr, c_string, defaults};
use cuabi_sys as sys;
use std::ffi::CString;
use std::os::raw::c_char;

/// Options for [`Module::compile`](crate::Module::compile) and
/// [`Module::compile_offline`](crate::Module::compile_offline), built by chaining:
///
/// ```
/// let options = cuabi::CompileOptions::new()
///     .target("sm_90")
///     .name_expression("scale<float>")
///     .define("BLOCK=256")
///     .fast_math(true);
/// ```
///
/// Everything left unset has cuabi's default (NVRTC's, for the tri-state switches). Every option
/// that changes the output is part of the kernel cache's key. `docs/compile.md` lists each
/// option's NVRTC flag.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompileOptions {
    flags: u32,
    target: Option<String>,
    cpp_standard: Option<String>,
    program_name: Option<String>,
    fast_math: bool,
    ftz: Option<bool>,
    prec_div: Option<bool>,
    prec_sqrt: Option<bool>,
    fmad: Option<bool>,
    max_registers: u32,
    line_info: bool,
    device_debug: bool,
    defines: Vec<String>,
    include_dirs: Vec<String>,
    headers: Vec<(String, String)>,
    name_expressions: Vec<String>,
    extra_flags: Vec<String>,
    salt: Vec<u8>,
    timeout_ms: u32,
}

impl CompileOptions {
    /// cuabi's defaults: the context's device as target, through the kernel cache.
    pub fn new() -> CompileOptions {
        CompileOptions::default()
    }

    /// The target: `"sm_90"` (CUBIN), `"compute_90"` (PTX), optionally with an `a`/`f` suffix.
    /// Required for [`Module::compile_offline`](crate::Module::compile_offline).
    pub fn target(mut self, target: &str) -> Self {
        self.target = Some(target.to_owned());
        self
    }

    /// The C++ standard: `"c++17"`, `"c++20"` (or `"17"`, `"20"`).
    pub fn cpp_standard(mut self, standard: &str) -> Self {
        self.cpp_standard = Some(standard.to_owned());
        self
    }

    /// The file name used in the log and line info (default `kernel.cu`).
    pub fn program_name(mut self, name: &str) -> Self {
        self.program_name = Some(name.to_owned());
        self
    }

    /// Neither look up nor store in the kernel cache: always run NVRTC.
    pub fn no_cache(mut self) -> Self {
        self.flags |= sys::CUABI_COMPILE_NO_CACHE;
        self
    }

    /// Emit PTX for the target's `compute_XY` instead of a CUBIN.
    pub fn ptx(mut self) -> Self {
        self.flags |= sys::CUABI_COMPILE_PTX;
        self
    }

    /// Emit LTO-IR (relocatable, `-dlto`) for [`Module::link`](crate::Module::link) instead of a
    /// CUBIN; the module is a link input and is not loaded (since 1.2).
    pub fn lto_ir(mut self) -> Self {
        self.flags |= sys::CUABI_COMPILE_LTO_IR;
        self
    }

    /// Relocatable device code (`-rdc`): a CUBIN or PTX that may call `extern __device__`
    /// functions other link inputs define; a link input, not loaded (since 1.2).
    pub fn relocatable(mut self) -> Self {
        self.flags |= sys::CUABI_COMPILE_RELOCATABLE;
        self
    }

    /// Do not add the CUDA Toolkit's include directories.
    pub fn no_toolkit_includes(mut self) -> Self {
        self.flags |= sys::CUABI_COMPILE_NO_TOOLKIT_INCLUDES;
        self
    }

    /// Run NVRTC in this process rather than in cuabi's worker process.
    pub fn in_process(mut self) -> Self {
        self.flags |= sys::CUABI_COMPILE_IN_PROCESS;
        self
    }

    /// Run NVRTC in the worker even where the process default says otherwise.
    pub fn isolated(mut self) -> Self {
        self.flags |= sys::CUABI_COMPILE_ISOLATED;
        self
    }

    /// Never create nor use a precompiled header for this compile (the image is the same either
    /// way; `CUABI_PCH=off` turns them off for the whole process).
    pub fn no_pch(mut self) -> Self {
        self.flags |= sys::CUABI_COMPILE_NO_PCH;
        self
    }

    /// `--use_fast_math` (implies ftz, approximate division and square root, fmad).
    pub fn fast_math(mut self, on: bool) -> Self {
        self.fast_math = on;
        self
    }

    /// Flush denormals to zero, on or off (unset: NVRTC's default).
    pub fn ftz(mut self, on: bool) -> Self {
        self.ftz = Some(on);
        self
    }

    /// IEEE-rounded division, on or off (unset: NVRTC's default).
    pub fn prec_div(mut self, on: bool) -> Self {
        self.prec_div = Some(on);
        self
    }

    /// IEEE-rounded square root, on or off (unset: NVRTC's default).
    pub fn prec_sqrt(mut self, on: bool) -> Self {
        self.prec_sqrt = Some(on);
        self
    }

    /// Contract multiply-add into FMA, on or off (unset: NVRTC's default).
    pub fn fmad(mut self, on: bool) -> Self {
        self.fmad = Some(on);
        self
    }

    /// `--maxrregcount` (0: no limit).
    pub fn max_registers(mut self, registers: u32) -> Self {
        self.max_registers = registers;
        self
    }

    /// `--generate-line-info`: source lines for profilers.
    pub fn line_info(mut self, on: bool) -> Self {
        self.line_info = on;
        self
    }

    /// `--device-debug` (`-G`): unoptimized, debuggable code.
    pub fn device_debug(mut self, on: bool) -> Self {
        self.device_debug = on;
        self
    }

    /// A macro definition, `"NAME"` or `"NAME=VALUE"` (as `-D`).
    pub fn define(mut self, definition: &str) -> Self {
        self.defines.push(definition.to_owned());
        self
    }

    /// A directory searched for `#include`, before the toolkit's own. Files found there are not
    /// tracked by the cache key: see [`CompileOptions::salt`].
    pub fn include_dir(mut self, directory: &str) -> Self {
        self.include_dirs.push(directory.to_owned());
        self
    }

    /// An in-memory header: the name `#include` uses, and its contents.
    pub fn header(mut self, name: &str, source: &str) -> Self {
        self.headers.push((name.to_owned(), source.to_owned()));
        self
    }

    /// A C++ name expression to look kernels up by later (`"reduce<float, 256>"`).
    pub fn name_expression(mut self, expression: &str) -> Self {
        self.name_expressions.push(expression.to_owned());
        self
    }

    /// A further NVRTC option, passed as given.
    pub fn flag(mut self, flag: &str) -> Self {
        self.extra_flags.push(flag.to_owned());
        self
    }

    /// Bytes mixed into the cache key (e.g. a hash of the files reached through include dirs).
    pub fn salt(mut self, salt: &[u8]) -> Self {
        self.salt = salt.to_vec();
        self
    }

    /// The deadline for NVRTC in the worker, after which the compile fails with
    /// [`Status::Timeout`](crate::Status::Timeout) (0: cuabi's default).
    pub fn timeout_ms(mut self, milliseconds: u32) -> Self {
        self.timeout_ms = milliseconds;
        self
    }

    /// The C struct, with the strings and arrays it points at.
    pub(crate) fn to_raw(&self) -> Result<RawCompileOptions> {
        let strings = |values: &[String], what: &str| -> Result<Vec<CString>> {
            values.iter().map(|value| c_string(value, what)).collect()
        };
        let optional = |value: &Option<String>, what: &str| value.as_deref().map(|v| c_string(v, what)).transpose();
        let header_names: Vec<String> = self.headers.iter().map(|(name, _)| name.clone()).collect();
        let header_sources: Vec<String> = self.headers.iter().map(|(_, source)| source.clone()).collect();
        let mut owned = RawCompileOptions {
            raw: defaults()?,
            target: optional(&self.target, "the target")?,
            cpp_standard: optional(&self.cpp_standard, "the C++ standard")?,
            program_name: optional(&self.program_name, "the program name")?,
            lists: [
                strings(&self.defines, "a define")?,
                strings(&self.include_dirs, "an include directory")?,
                strings(&header_names, "a header name")?,
                strings(&header_sources, "a header's source")?,
                strings(&self.name_expressions, "a name expression")?,
                strings(&self.extra_flags, "a flag")?,
            ],
            pointers: Default::default(),
            salt: self.salt.clone(),
        };
        owned.point();
        self.fill(&mut owned.raw);
        Ok(owned)
    }

    /// The scalar fields (the pointers are set by [`RawCompileOptions::point`]).
    fn fill(&self, raw: &mut sys::cuabi_compile_options) {
        let tristate = |value: Option<bool>| match value {
            None => sys::CUABI_TRISTATE_DEFAULT,
            Some(false) => sys::CUABI_TRISTATE_OFF,
            Some(true) => sys::CUABI_TRISTATE_ON,
        };
        raw.flags = self.flags;
        raw.fast_math = self.fast_math.into();
        raw.ftz = tristate(self.ftz);
        raw.prec_div = tristate(self.prec_div);
        raw.prec_sqrt = tristate(self.prec_sqrt);
        raw.fmad = tristate(self.fmad);
        raw.max_registers = self.max_registers;
        raw.line_info = self.line_info.into();
        raw.device_debug = self.device_debug.into();
        raw.timeout_ms = self.timeout_ms;
    }
}

/// A `cuabi_compile_options` and everything its pointers point at, alive as long as it is.
pub(crate) struct RawCompileOptions {
    pub(crate) raw: sys::cuabi_compile_options,
    target: Option<CString>,
    cpp_standard: Option<CString>,
    program_name: Option<CString>,
    /// defines, include dirs, header names, header sources, name expressions, extra flags
    lists: [Vec<CString>; 6],
    pointers: [Vec<*const c_char>; 6],
    salt: Vec<u8>,
}

impl RawCompileOptions {
    /// Points the C struct at the owned strings (they live on the heap: moving `self` keeps them).
    fn point(&mut self) {
        for (pointers, list) in self.pointers.iter_mut().zip(&self.lists) {
            *pointers = list.iter().map(|value| value.as_ptr()).collect();
        }
        let [defines, include_dirs, header_names, header_sources, name_expressions, extra_flags] = &self.pointers;
        let raw = &mut self.raw;
        raw.target = c_ptr(self.target.as_ref());
        raw.cpp_standard = c_ptr(self.cpp_standard.as_ref());
        raw.program_name = c_ptr(self.program_name.as_ref());
        (raw.defines, raw.define_count) = (defines.as_ptr(), defines.len());
        (raw.include_dirs, raw.include_dir_count) = (include_dirs.as_ptr(), include_dirs.len());
        (raw.header_names, raw.header_sources, raw.header_count) =
            (header_names.as_ptr(), header_sources.as_ptr(), header_names.len());
        (raw.name_expressions, raw.name_expression_count) = (name_expressions.as_ptr(), name_expressions.len());
        (raw.extra_flags, raw.extra_flag_count) = (extra_flags.as_ptr(), extra_flags.len());
        (raw.salt, raw.salt_size) = (self.salt.as_ptr().cast(), self.salt.len());
    }
}
