//! Modules: compiled or loaded images, with their log and lowered names.

use crate::buffer::Buffer;
use crate::compile::CompileOptions;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::ffi::{c_string, call, defaults, destroy, fixed_text, raw, two_call, two_call_text};
use crate::kernel::Kernel;
use cuabi_sys as sys;

/// One compiled or loaded image (CUBIN, PTX or fatbin), with its NVRTC log and the lowered names
/// of the name expressions it was compiled with. Compiles go through the kernel cache.
///
/// A module keeps its context alive, and the kernels taken from it keep it alive: it need not
/// outlive them.
///
/// `Send + Sync`: modules may be used and compiled from any thread.
#[derive(Debug)]
pub struct Module {
    raw: *mut sys::cuabi_module,
}

unsafe impl Send for Module {}
unsafe impl Sync for Module {}

impl Module {
    /// Compiles CUDA C++ `source` for the context's device with NVRTC (or takes it from the kernel
    /// cache) and loads it.
    ///
    /// A compile error is [`Status::Compile`](crate::Status::Compile), with NVRTC's log in
    /// [`Error::compile_log`].
    pub fn compile(context: &Context, source: &str, options: &CompileOptions) -> Result<Module> {
        let source = c_string(source, "the source")?;
        let options = options.to_raw()?;
        let mut raw = std::ptr::null_mut();
        let status = raw!(cuabi_module_compile(context.as_raw(), source.as_ptr(), &options.raw, &mut raw));
        Module::compiled(status, raw)
    }

    /// Compiles `source` for the options' target (required) without a context, driver or GPU: for
    /// ahead-of-time builds, and to warm the cache. The module is not loaded: read its image, log
    /// and lowered names; [`Module::kernel`] refuses it.
    pub fn compile_offline(source: &str, options: &CompileOptions) -> Result<Module> {
        let source = c_string(source, "the source")?;
        let options = options.to_raw()?;
        let mut raw = std::ptr::null_mut();
        let status = raw!(cuabi_module_compile_offline(source.as_ptr(), &options.raw, &mut raw));
        Module::compiled(status, raw)
    }

    /// Takes ownership of a module handle the library returned.
    pub(crate) fn from_raw(raw: *mut sys::cuabi_module) -> Module {
        Module { raw }
    }

    fn compiled(status: sys::cuabi_status, raw: *mut sys::cuabi_module) -> Result<Module> {
        if status != sys::CUABI_SUCCESS {
            return Err(Error::last_compile(status));
        }
        Ok(Module { raw })
    }

    /// Loads a PTX, CUBIN or fatbin image into the context (the bytes are checked and copied).
    /// [`Status::InvalidImage`](crate::Status::InvalidImage) for damaged or unloadable bytes.
    pub fn load_image(context: &Context, image: &[u8]) -> Result<Module> {
        let mut raw = std::ptr::null_mut();
        call!(cuabi_module_load_image(context.as_raw(), image.as_ptr().cast(), image.len(), &mut raw))?;
        Ok(Module { raw })
    }

    /// Facts about the module: image kind and size, target, origin, cache key.
    pub fn info(&self) -> Result<ModuleInfo> {
        let mut raw: sys::cuabi_module_info = defaults()?;
        call!(cuabi_module_get_info(self.raw, &mut raw))?;
        Ok(ModuleInfo::from_raw(&raw))
    }

    /// The image: the CUBIN, the PTX with its terminating NUL, or the fatbin.
    pub fn image(&self) -> Result<Vec<u8>> {
        two_call(|image: *mut u8, capacity, size| {
            Ok(raw!(cuabi_module_get_image(self.raw, image.cast(), capacity, size)))
        })
    }

    /// The NVRTC log of the compile that made the module (warnings); empty for clean compiles and
    /// loaded images.
    pub fn log(&self) -> Result<String> {
        two_call_text(|text, capacity, size| Ok(raw!(cuabi_module_get_log(self.raw, text, capacity, size))))
    }

    /// The mangled name that `expression` (one of the options' name expressions) lowered to.
    /// [`Status::KernelNotFound`](crate::Status::KernelNotFound) for another expression.
    pub fn lowered_name(&self, expression: &str) -> Result<String> {
        let expression = c_string(expression, "the name expression")?;
        two_call_text(|text, capacity, size| {
            Ok(raw!(cuabi_module_get_lowered_name(self.raw, expression.as_ptr(), text, capacity, size)))
        })
    }

    /// The kernel named `name` (`"saxpy"` for an `extern "C"` kernel, or a mangled name) or by a
    /// name expression the module was compiled with (`"scale<float>"`).
    /// [`Status::KernelNotFound`](crate::Status::KernelNotFound) when there is none.
    pub fn kernel(&self, name: &str) -> Result<Kernel> {
        let name = c_string(name, "the kernel name")?;
        let mut raw = std::ptr::null_mut();
        call!(cuabi_module_get_kernel(self.raw, name.as_ptr(), &mut raw))?;
        Ok(Kernel::from_owned(raw))
    }

    /// The `__device__` or `__constant__` variable named `name` (`"scale"`), or found by a name
    /// expression the module was compiled with (`"table<float>"`), as a [`Buffer`] covering exactly
    /// its bytes: read and write it with the buffer's functions (writes on a stream are ordered with
    /// kernels on that stream; `__constant__` memory written so is seen by later launches), or pass
    /// it as a kernel argument (for `__device__` variables).
    ///
    /// ```no_run
    /// # fn demo(module: &cuabi::Module) -> cuabi::Result<()> {
    /// let gain = module.global("gain")?; // __constant__ float gain;
    /// gain.write(0, &[2.5f32])?;
    /// assert_eq!(gain.to_vec::<f32>()?, [2.5]);
    /// # Ok(()) }
    /// ```
    ///
    /// The buffer does not own the memory (dropping it frees nothing) and keeps the module loaded
    /// while it lives; each call gives a new handle. [`Status::NotFound`](crate::Status::NotFound)
    /// when the module has no such variable, [`Status::Unsupported`](crate::Status::Unsupported)
    /// for a module from [`Module::compile_offline`] (it is not loaded on a device).
    pub fn global(&self, name: &str) -> Result<Buffer> {
        let name = c_string(name, "the variable name")?;
        let mut raw = std::ptr::null_mut();
        call!(cuabi_module_get_global(self.raw, name.as_ptr(), &mut raw))?;
        // Safety: a new handle that only this value destroys.
        unsafe { Buffer::from_raw(raw) }
    }

    /// The names of the module's kernels, read from its CUBIN without a GPU (since 1.2).
    /// [`Status::Unsupported`](crate::Status::Unsupported) for PTX, fatbin and LTO-IR modules.
    pub fn kernel_names(&self) -> Result<Vec<String>> {
        let text = two_call_text(|text, capacity, size| {
            Ok(raw!(cuabi_module_get_kernel_names(self.raw, text, capacity, size)))
        })?;
        Ok(text.lines().map(str::to_owned).collect())
    }

    /// Wraps the result of a link, as [`Module::compiled`] a compile's.
    pub(crate) fn linked(status: sys::cuabi_status, raw: *mut sys::cuabi_module) -> Result<Module> {
        Module::compiled(status, raw)
    }

    /// The C handle, for the raw API. Owned by this value.
    pub fn as_raw(&self) -> *mut sys::cuabi_module {
        self.raw
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        destroy!(cuabi_module_destroy(self.raw));
    }
}

/// What a module's image is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ImageKind {
    /// PTX text, JIT-compiled by the driver at load.
    Ptx,
    /// An ELF binary for one GPU architecture.
    Cubin,
    /// A fat binary: CUBINs and/or PTX for several targets.
    Fatbin,
    /// LTO-IR ([`CompileOptions::lto_ir`]): an input to [`Module::link`], never loaded (since 1.2).
    LtoIr,
    /// A kind this binding does not know.
    Unknown(i32),
}

/// Where a module's image came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Origin {
    /// NVRTC ran for this call.
    Compiled,
    /// The in-process cache: no NVRTC, no disk.
    MemoryCache,
    /// The on-disk cache: no NVRTC.
    DiskCache,
    /// [`Module::load_image`]: the caller's bytes.
    Image,
    /// A read-only cache layer or bundle: no NVRTC (since 1.2).
    ReadOnlyCache,
    /// An origin this binding does not know.
    Unknown(i32),
}

/// Facts about a module ([`Module::info`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ModuleInfo {
    /// What the image is.
    pub image_kind: ImageKind,
    /// Where it came from.
    pub origin: Origin,
    /// Whether it is loaded (false for offline compiles).
    pub loaded: bool,
    /// Whether NVRTC did not know the device's architecture, so the image is PTX for the newest
    /// `compute_XY` it supports.
    pub ptx_fallback: bool,
    /// Entries of the lowered-name map.
    pub name_expression_count: u32,
    /// Bytes of the image, as [`Module::image`] returns them.
    pub image_size: u64,
    /// `"sm_90"`, `"compute_90"`; empty when unknown (a fatbin).
    pub target: String,
    /// 32 hex digits of the kernel-cache key; empty for loaded images.
    pub cache_key: String,
}

impl ModuleInfo {
    fn from_raw(raw: &sys::cuabi_module_info) -> ModuleInfo {
        ModuleInfo {
            image_kind: match raw.image_kind {
                sys::CUABI_IMAGE_PTX => ImageKind::Ptx,
                sys::CUABI_IMAGE_CUBIN => ImageKind::Cubin,
                sys::CUABI_IMAGE_FATBIN => ImageKind::Fatbin,
                sys::CUABI_IMAGE_LTOIR => ImageKind::LtoIr,
                other => ImageKind::Unknown(other),
            },
            origin: match raw.origin {
                sys::CUABI_MODULE_ORIGIN_COMPILED => Origin::Compiled,
                sys::CUABI_MODULE_ORIGIN_MEMORY_CACHE => Origin::MemoryCache,
                sys::CUABI_MODULE_ORIGIN_DISK_CACHE => Origin::DiskCache,
                sys::CUABI_MODULE_ORIGIN_IMAGE => Origin::Image,
                sys::CUABI_MODULE_ORIGIN_READONLY_CACHE => Origin::ReadOnlyCache,
                other => Origin::Unknown(other),
            },
            loaded: raw.loaded != 0,
            ptx_fallback: raw.ptx_fallback != 0,
            name_expression_count: raw.name_expression_count,
            image_size: raw.image_size,
            target: fixed_text(&raw.target),
            cache_key: fixed_text(&raw.cache_key),
        }
    }
}

/// The NVRTC log of this thread's last compile ([`Module::compile`] or
/// [`Module::compile_offline`]), failed or not. Failed compiles also carry it in
/// [`Error::compile_log`]. Read it on the thread that compiled.
pub fn last_compile_log() -> Result<String> {
    crate::ffi::last_compile_log()
}
