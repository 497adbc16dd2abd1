//! Which libcuabi the process uses, loaded once, and the versions it reports.

use crate::error::{Error, Result, Status};
use cuabi_sys as sys;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// The loaded library, set once by the first successful load and never unloaded.
static LIBRARY: OnceLock<sys::Library> = OnceLock::new();
/// Serializes loading, so that two threads' first calls load the library once.
static LOADING: Mutex<()> = Mutex::new(());

/// Loads libcuabi now, from `path`, or when `path` is `None` from `CUABI_LIBRARY` or else
/// `libcuabi.so.1` through the dynamic linker's search path. The library is loaded once per
/// process; every cuabi call loads it the default way on first use, so call this first to choose
/// another file. A load that fails is not remembered: the next call tries again.
///
/// Errors: [`Status::NotFound`] when the file cannot be loaded or is not cuabi,
/// [`Status::Unsupported`] when its ABI major is not the one this crate was made for, and
/// [`Status::InvalidArgument`] when the library is already loaded from another path.
pub fn load(path: Option<&Path>) -> Result<()> {
    let library = loaded(path)?;
    match path {
        Some(path) if Path::new(library.path()) != path => Err(Error::binding(
            Status::InvalidArgument,
            format!(
                "cuabi is already loaded from {:?}, so {:?} cannot be loaded. Fix: call cuabi::load before any other cuabi \
                 call",
                library.path(),
                path
            ),
        )),
        _ => Ok(()),
    }
}

/// The loaded library, loading it from `path` (or the default way) if no load has succeeded yet.
fn loaded(path: Option<&Path>) -> Result<&'static sys::Library> {
    if let Some(library) = LIBRARY.get() {
        return Ok(library);
    }
    let _loading = LOADING.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(library) = LIBRARY.get() {
        return Ok(library);
    }
    // Safety: the file is taken to be cuabi, which is what this crate is for; the loader checks
    // that it exports cuabi_get_proc_address and has the right ABI major.
    let opened = unsafe {
        match path {
            Some(path) => sys::Library::open_path(path),
            None => sys::Library::open(),
        }
    };
    let library = opened.map_err(|error| Error::from_load(&error))?;
    Ok(LIBRARY.get_or_init(|| library))
}

/// The loaded library's function table, loading it the default way on first use.
#[inline]
pub(crate) fn api() -> Result<&'static sys::Api> {
    match LIBRARY.get() {
        Some(library) => Ok(library.api()),
        None => loaded(None).map(sys::Library::api),
    }
}

/// The loaded library's raw function table, for calls the safe crate does not make (see the crate
/// documentation). Every function in it is `unsafe` to call and follows the header's rules.
pub fn raw_api() -> Result<&'static sys::Api> {
    api()
}

/// The path or name the library was loaded from (what was given to `dlopen`).
pub fn library_path() -> Result<PathBuf> {
    Ok(PathBuf::from(loaded(None)?.path()))
}

/// A cuabi version, as the loaded library reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    /// The major version: the ABI major.
    pub major: u32,
    /// The minor version: functions are added in minor versions.
    pub minor: u32,
    /// The patch version.
    pub patch: u32,
}

impl Version {
    /// `10000 * major + 100 * minor + patch`, as `CUABI_VERSION_NUMBER` spells it.
    pub fn number(&self) -> u32 {
        10000 * self.major + 100 * self.minor + self.patch
    }

    pub(crate) fn from_number(number: u32) -> Version {
        Version { major: number / 10000, minor: number / 100 % 100, patch: number % 100 }
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// The version of the loaded library (`cuabi_version_number`). Compare it with
/// [`BINDING_VERSION`] when you depend on a function added after 1.0.
pub fn version() -> Result<Version> {
    Ok(Version::from_number(crate::ffi::raw!(cuabi_version_number())))
}

/// The version of the header this binding was generated from.
pub const BINDING_VERSION: Version =
    Version { major: sys::CUABI_VERSION_MAJOR, minor: sys::CUABI_VERSION_MINOR, patch: sys::CUABI_VERSION_PATCH };

/// The loaded library's ABI major (`cuabi_abi_version`): 1 for every 1.x; checked at load.
pub fn abi_version() -> Result<u32> {
    Ok(crate::ffi::raw!(cuabi_abi_version()))
}

/// The `CUABI_*` environment variables whose values cuabi cannot use
/// (`cuabi_environment_get_problems`): one sentence each, naming the variable, its value, what it
/// accepts and what is used instead; empty when every setting is usable. Each such value also
/// fails the first call it affects, once, with [`Status::InvalidArgument`] -- except the kernel
/// cache's settings and `CUABI_NVTX`, which fail no call.
pub fn environment_problems() -> Result<Vec<String>> {
    let text = crate::ffi::two_call_text(|text, capacity, size| {
        Ok(crate::ffi::raw!(cuabi_environment_get_problems(text, capacity, size)))
    })?;
    Ok(text.lines().map(str::to_owned).collect())
}

/// The CUDA driver's version, e.g. 13000 for 13.0 (`cuabi_driver_get_version`).
/// [`Status::DriverNotFound`] when libcuda.so.1 cannot be loaded.
pub fn driver_version() -> Result<i32> {
    let mut version = 0;
    crate::ffi::call!(cuabi_driver_get_version(&mut version))?;
    Ok(version)
}
