//! Loading `libcuabi.so.1` with `dlopen` and filling the [`Api`] table.

use crate::api::Api;
use crate::bindings::{cuabi_proc, CUABI_ABI_VERSION};
use std::ffi::{CStr, CString, OsStr};
use std::fmt;
use std::os::raw::{c_char, c_int, c_void};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

// From <dlfcn.h>. glibc 2.34 and later have these in libc itself, which the standard library links.
extern "C" {
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn dlerror() -> *mut c_char;
}
const RTLD_NOW: c_int = 2;
const RTLD_LOCAL: c_int = 0;

/// The file [`Library::open`] loads when `CUABI_LIBRARY` is not set: the SONAME, found through the
/// dynamic linker's search path (`LD_LIBRARY_PATH`, the cache, the default directories).
pub const DEFAULT_LIBRARY: &str = "libcuabi.so.1";

/// The environment variable that names the library file for [`Library::open`].
pub const LIBRARY_ENV: &str = "CUABI_LIBRARY";

/// What went wrong in [`Library::open`] or [`Library::open_path`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadErrorKind {
    /// `dlopen` failed: no such file, not a shared library, wrong architecture, missing dependencies.
    Open,
    /// The file loaded but exports no `cuabi_get_proc_address`: it is not cuabi.
    NotCuabi,
    /// The library's ABI major (`cuabi_abi_version()`) is not the one this crate was made for.
    AbiMismatch {
        /// What the loaded library reports.
        found: u32,
    },
}

/// Why the library could not be loaded, with a message that ends in `Fix: ...`.
#[derive(Clone, Debug)]
pub struct LoadError {
    kind: LoadErrorKind,
    message: String,
}

impl LoadError {
    /// What kind of failure it was.
    pub fn kind(&self) -> LoadErrorKind {
        self.kind
    }

    /// What was tried, what failed, and `Fix: ...`.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LoadError {}

/// A loaded cuabi library and its function table.
///
/// A `Library` is never unloaded: cuabi handles and function pointers copied out of the table may
/// outlive any Rust value, so dropping it leaves the library in the process (as the C library's own
/// handle guarantees expect). Loading the same file twice gives the same library (`dlopen` counts
/// references), so opening it again is cheap and harmless.
pub struct Library {
    handle: *mut c_void,
    api: Api,
    path: String,
}

// The handle is only passed back to dlsym, which is thread-safe; the table holds function pointers.
unsafe impl Send for Library {}
unsafe impl Sync for Library {}

impl Library {
    /// Loads the library named by `CUABI_LIBRARY`, or `libcuabi.so.1` through the dynamic linker's
    /// search path when the variable is unset or empty.
    ///
    /// # Safety
    /// The file must be a cuabi library: loading runs its initializers, and every function
    /// `cuabi_get_proc_address` returns is called through the header's types.
    pub unsafe fn open() -> Result<Library, LoadError> {
        match std::env::var_os(LIBRARY_ENV) {
            Some(path) if !path.is_empty() => Self::load(&path, LIBRARY_ENV),
            _ => Self::load(OsStr::new(DEFAULT_LIBRARY), "the default"),
        }
    }

    /// Loads the library at `path` (a file path, or a bare name for the dynamic linker's search).
    ///
    /// # Safety
    /// As for [`Library::open`].
    pub unsafe fn open_path(path: &Path) -> Result<Library, LoadError> {
        Self::load(path.as_os_str(), "the caller")
    }

    /// The table of every function the library exports.
    pub fn api(&self) -> &Api {
        &self.api
    }

    /// The path or name the library was loaded from, as given to `dlopen`.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// `cuabi_get_proc_address(name)`: any exported function by name, e.g. one newer than this
    /// crate's table. `None` when the library has no such function.
    pub fn get_proc_address(&self, name: &CStr) -> cuabi_proc {
        // Always present: load() refuses a library without it.
        let get = self.api.cuabi_get_proc_address.expect("resolved at load");
        unsafe { get(name.as_ptr()) }
    }

    unsafe fn load(path: &OsStr, chosen_by: &str) -> Result<Library, LoadError> {
        let shown = path.to_string_lossy().into_owned();
        let c_path = CString::new(path.as_bytes()).map_err(|_| LoadError {
            kind: LoadErrorKind::Open,
            message: format!(
                "the library path {shown:?} (from {chosen_by}) contains a NUL byte. Fix: pass a path without NUL bytes"
            ),
        })?;
        dlerror(); // clear a stale error so that the one read below is ours
        let handle = dlopen(c_path.as_ptr(), RTLD_NOW | RTLD_LOCAL);
        if handle.is_null() {
            return Err(LoadError {
                kind: LoadErrorKind::Open,
                message: format!(
                    "cannot load cuabi from {shown:?} (chosen by {chosen_by}): {}. Fix: build cuabi (cmake --build build) and \
                     set {LIBRARY_ENV} to its libcuabi.so.1, or add the directory holding libcuabi.so.1 to LD_LIBRARY_PATH",
                    last_dl_error()
                ),
            });
        }
        let symbol = dlsym(handle, b"cuabi_get_proc_address\0".as_ptr().cast());
        if symbol.is_null() {
            return Err(LoadError {
                kind: LoadErrorKind::NotCuabi,
                message: format!(
                    "{shown:?} (chosen by {chosen_by}) loaded but exports no cuabi_get_proc_address, so it is not cuabi. \
                     Fix: point {LIBRARY_ENV} at cuabi's libcuabi.so.1"
                ),
            });
        }
        let get_proc_address: unsafe extern "C" fn(*const c_char) -> cuabi_proc = std::mem::transmute(symbol);
        let api = Api::resolve(get_proc_address);
        let found = match api.cuabi_abi_version {
            Some(abi_version) => abi_version(),
            None => 0,
        };
        if found != CUABI_ABI_VERSION {
            return Err(LoadError {
                kind: LoadErrorKind::AbiMismatch { found },
                message: format!(
                    "{shown:?} (chosen by {chosen_by}) has ABI major {found}, but this binding was made for ABI \
                     {CUABI_ABI_VERSION} (libcuabi.so.{CUABI_ABI_VERSION}). Fix: load a libcuabi.so.{CUABI_ABI_VERSION}, or \
                     use the binding released with the library you have"
                ),
            });
        }
        Ok(Library { handle, api, path: shown })
    }
}

impl fmt::Debug for Library {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Library").field("path", &self.path).field("handle", &self.handle).finish()
    }
}

/// dlerror()'s text, or a placeholder when it has none.
unsafe fn last_dl_error() -> String {
    let text = dlerror();
    if text.is_null() {
        "dlopen gave no reason".to_owned()
    } else {
        CStr::from_ptr(text).to_string_lossy().into_owned()
    }
}
