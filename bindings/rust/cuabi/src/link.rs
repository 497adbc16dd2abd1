//! Linking device code with nvJitLink (since 1.2): modules compiled to LTO-IR or relocatable
//! code, and device libraries and objects as bytes or files, joined into one module.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::context::Context;
use crate::error::{Error, Result, Status};
use crate::ffi::{c_string, defaults, raw};
use crate::module::Module;
use cuabi_sys as sys;

/// The most inputs one link takes (`CUABI_LINK_MAX_INPUTS`).
pub const MAX_LINK_INPUTS: usize = sys::CUABI_LINK_MAX_INPUTS as usize;

/// What the bytes or file of a [`LinkInput`] are (nvJitLink's input kinds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LinkInputKind {
    /// A CUBIN for the link's architecture.
    Cubin,
    /// PTX text.
    Ptx,
    /// LTO-IR (NVRTC `-dlto`, `nvcc -dlto -dc`); needs [`LinkOptions::lto`].
    LtoIr,
    /// A fatbin (`nvcc -fatbin`, also of LTO-IR).
    Fatbin,
    /// A host object with embedded device code (`nvcc -dc -c`).
    Object,
    /// A static library of such objects (`nvcc -lib`).
    Library,
}

impl LinkInputKind {
    fn to_raw(self) -> sys::cuabi_link_input_kind {
        match self {
            LinkInputKind::Cubin => sys::CUABI_LINK_INPUT_CUBIN,
            LinkInputKind::Ptx => sys::CUABI_LINK_INPUT_PTX,
            LinkInputKind::LtoIr => sys::CUABI_LINK_INPUT_LTOIR,
            LinkInputKind::Fatbin => sys::CUABI_LINK_INPUT_FATBIN,
            LinkInputKind::Object => sys::CUABI_LINK_INPUT_OBJECT,
            LinkInputKind::Library => sys::CUABI_LINK_INPUT_LIBRARY,
        }
    }
}

/// One input of a link. Borrows what it names for the length of the link call only.
#[derive(Clone, Copy, Debug)]
pub enum LinkInput<'a> {
    /// A module of this library: its image (LTO-IR, CUBIN, PTX).
    Module(&'a Module),
    /// The caller's bytes, with the name nvJitLink's log gives them (`None`: derived).
    Bytes {
        /// What the bytes are.
        kind: LinkInputKind,
        /// The bytes, copied during the call.
        data: &'a [u8],
        /// The input's name in nvJitLink's log.
        name: Option<&'a str>,
    },
    /// A file, read during the call.
    File {
        /// What the file holds.
        kind: LinkInputKind,
        /// Its path.
        path: &'a Path,
    },
}

/// Options of a link: the target, LTO, output and nvJitLink's own options.
///
/// ```no_run
/// # fn demo(a: &cuabi::Module, b: &cuabi::Module) -> cuabi::Result<()> {
/// use cuabi::{LinkInput, LinkOptions, Module};
/// let linked = Module::link_offline(&[LinkInput::Module(a), LinkInput::Module(b)],
///                                   &LinkOptions::new().target("sm_90").lto())?;
/// assert_eq!(linked.kernel_names()?, ["apply_twice"]);
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, Default)]
pub struct LinkOptions {
    flags: u32,
    target: Option<String>,
    optimization_level: Option<u32>,
    max_registers: u32,
    extra_options: Vec<String>,
    timeout_ms: u32,
}

impl LinkOptions {
    /// The defaults: the context's device, no LTO, a CUBIN, through the kernel cache.
    pub fn new() -> LinkOptions {
        LinkOptions::default()
    }
    /// The architecture, `"sm_90"` (required for [`Module::link_offline`]).
    pub fn target(mut self, target: &str) -> Self {
        self.target = Some(target.to_owned());
        self
    }
    /// Link-time optimization (`-lto`): required when an input is LTO-IR.
    pub fn lto(mut self) -> Self {
        self.flags |= sys::CUABI_LINK_LTO;
        self
    }
    /// Neither look up nor store in the kernel cache: always run nvJitLink.
    pub fn no_cache(mut self) -> Self {
        self.flags |= sys::CUABI_LINK_NO_CACHE;
        self
    }
    /// Emit PTX instead of a CUBIN (with [`LinkOptions::lto`]).
    pub fn ptx(mut self) -> Self {
        self.flags |= sys::CUABI_LINK_PTX;
        self
    }
    /// Run nvJitLink in this process rather than in a worker process.
    pub fn in_process(mut self) -> Self {
        self.flags |= sys::CUABI_LINK_IN_PROCESS;
        self
    }
    /// `-O0` to `-O3` for LTO (default: nvJitLink's own).
    pub fn optimization_level(mut self, level: u32) -> Self {
        self.optimization_level = Some(level);
        self
    }
    /// `-maxrregcount` (0: no limit).
    pub fn max_registers(mut self, registers: u32) -> Self {
        self.max_registers = registers;
        self
    }
    /// A further nvJitLink option, passed as given (`"-lineinfo"`).
    pub fn extra_option(mut self, option: &str) -> Self {
        self.extra_options.push(option.to_owned());
        self
    }
    /// The deadline for nvJitLink in its worker (0: the compile default).
    pub fn timeout_ms(mut self, milliseconds: u32) -> Self {
        self.timeout_ms = milliseconds;
        self
    }
}

/// The C structs of a link and everything they point at, alive as long as they are.
struct RawLink {
    options: sys::cuabi_link_options,
    inputs: Vec<sys::cuabi_link_input>,
    _strings: Vec<CString>,
    _option_pointers: Vec<*const std::os::raw::c_char>,
}

fn to_raw(inputs: &[LinkInput<'_>], options: &LinkOptions) -> Result<RawLink> {
    if inputs.len() > MAX_LINK_INPUTS {
        return Err(Error::binding(
            Status::InvalidArgument,
            format!("{} link inputs are more than the {MAX_LINK_INPUTS} one link takes", inputs.len()),
        ));
    }
    let mut strings = Vec::new();
    let mut keep = |text: CString| {
        let pointer = text.as_ptr();
        strings.push(text); // the heap buffer stays where it is when the CString moves
        pointer
    };
    let mut raw_inputs = Vec::with_capacity(inputs.len());
    for input in inputs {
        // Safety: every field is an integer or a pointer, for which zero is a valid value.
        let mut raw: sys::cuabi_link_input = unsafe { std::mem::zeroed() };
        match *input {
            LinkInput::Module(module) => raw.module = module.as_raw(),
            LinkInput::Bytes { kind, data, name } => {
                raw.kind = kind.to_raw();
                (raw.data, raw.size) = (data.as_ptr().cast(), data.len());
                if let Some(name) = name {
                    raw.name = keep(c_string(name, "the input's name")?);
                }
            }
            LinkInput::File { kind, path } => {
                raw.kind = kind.to_raw();
                let path = CString::new(path.as_os_str().as_bytes()).map_err(|_| {
                    Error::binding(Status::InvalidArgument, "a link input's path contains a NUL byte".into())
                })?;
                raw.path = keep(path);
            }
        }
        raw_inputs.push(raw);
    }
    let mut raw_options: sys::cuabi_link_options = defaults()?;
    raw_options.flags = options.flags;
    if let Some(target) = &options.target {
        raw_options.target = keep(c_string(target, "the target")?);
    }
    raw_options.optimization_level = options.optimization_level.map_or(-1, |level| level.min(i32::MAX as u32) as i32);
    raw_options.max_registers = options.max_registers;
    raw_options.timeout_ms = options.timeout_ms;
    let option_pointers: Vec<_> = options
        .extra_options
        .iter()
        .map(|option| c_string(option, "an nvJitLink option").map(&mut keep))
        .collect::<Result<_>>()?;
    (raw_options.extra_options, raw_options.extra_option_count) = (option_pointers.as_ptr(), option_pointers.len());
    Ok(RawLink { options: raw_options, inputs: raw_inputs, _strings: strings, _option_pointers: option_pointers })
}

impl Module {
    /// Links `inputs` with nvJitLink for the context's device (or the options' target) and loads
    /// the result; a repeated link is a kernel-cache hit. nvJitLink's refusals are
    /// [`Status::Link`] with its log in [`Error::compile_log`](crate::Error::compile_log).
    pub fn link(context: &Context, inputs: &[LinkInput<'_>], options: &LinkOptions) -> Result<Module> {
        let raw_link = to_raw(inputs, options)?;
        let mut raw = std::ptr::null_mut();
        let status = raw!(cuabi_module_link(
            context.as_raw(),
            raw_link.inputs.as_ptr(),
            raw_link.inputs.len(),
            &raw_link.options,
            &mut raw
        ));
        Module::linked(status, raw)
    }

    /// As [`Module::link`] for the options' target (required), without a context, driver or GPU.
    /// The module is not loaded: read its image, log and [`Module::kernel_names`].
    pub fn link_offline(inputs: &[LinkInput<'_>], options: &LinkOptions) -> Result<Module> {
        let raw_link = to_raw(inputs, options)?;
        let mut raw = std::ptr::null_mut();
        let status = raw!(cuabi_module_link_offline(
            raw_link.inputs.as_ptr(),
            raw_link.inputs.len(),
            &raw_link.options,
            &mut raw
        ));
        Module::linked(status, raw)
    }
}
