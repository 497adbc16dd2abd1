//! Errors: cuabi's status, its name and message, read on the calling thread right after the call.

use crate::library::api;
use cuabi_sys as sys;
use std::ffi::CStr;
use std::fmt;

/// The result of every fallible call in this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Declares [`Status`]: one variant per cuabi error code, named after its constant.
macro_rules! statuses {
    ($($(#[doc = $doc:literal])* $variant:ident = $constant:ident,)*) => {
        /// A cuabi error status: every `CUABI_ERROR_*` code of the header, and [`Status::Unknown`]
        /// for a code this binding does not know (a newer library may add codes; they are never
        /// undefined behaviour here). `docs/errors.md` says when each happens and what fixes it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Status {
            $($(#[doc = $doc])* $variant,)*
            /// A code this binding does not know, kept as the library returned it.
            Unknown(i32),
        }

        impl Status {
            /// The status for a code the library returned. `0` (`CUABI_SUCCESS`) is not an error
            /// and gives `Unknown(0)`.
            pub fn from_code(code: i32) -> Status {
                match code {
                    $(sys::$constant => Status::$variant,)*
                    other => Status::Unknown(other),
                }
            }

            /// The numeric code, as the header defines it.
            pub fn code(self) -> i32 {
                match self {
                    $(Status::$variant => sys::$constant,)*
                    Status::Unknown(code) => code,
                }
            }

            /// The constant's name (`"CUABI_ERROR_INVALID_HANDLE"`), as `cuabi_status_name` gives
            /// it; `"CUABI_UNKNOWN_STATUS"` for [`Status::Unknown`].
            pub fn name(self) -> &'static str {
                match self {
                    $(Status::$variant => stringify!($constant),)*
                    Status::Unknown(_) => "CUABI_UNKNOWN_STATUS",
                }
            }
        }
    };
}

statuses! {
    /// A NULL pointer where one is required, or a value outside what the function accepts.
    InvalidArgument = CUABI_ERROR_INVALID_ARGUMENT,
    /// A destroyed, made-up or wrong-type handle.
    InvalidHandle = CUABI_ERROR_INVALID_HANDLE,
    /// A struct's `struct_size` that no version of the struct has.
    StructSize = CUABI_ERROR_STRUCT_SIZE,
    /// A host allocation failed, or the handle table is full.
    OutOfHostMemory = CUABI_ERROR_OUT_OF_HOST_MEMORY,
    /// A caller buffer smaller than the result (handled inside this crate).
    BufferTooSmall = CUABI_ERROR_BUFFER_TOO_SMALL,
    /// A looked-up item does not exist; also: libcuabi itself could not be loaded.
    NotFound = CUABI_ERROR_NOT_FOUND,
    /// The feature needs a newer driver, device or libcuabi (a function the loaded library lacks).
    Unsupported = CUABI_ERROR_UNSUPPORTED,
    /// Work is still running (queries answer this with `Ok(false)` instead).
    NotReady = CUABI_ERROR_NOT_READY,
    /// Objects of different devices were combined.
    ContextMismatch = CUABI_ERROR_CONTEXT_MISMATCH,
    /// cuabi broke one of its own invariants: a bug to report.
    Internal = CUABI_ERROR_INTERNAL,
    /// This process is a fork() child of one that started CUDA.
    Forked = CUABI_ERROR_FORKED,
    /// A deadline passed (a compile, the cache lock).
    Timeout = CUABI_ERROR_TIMEOUT,
    /// The caller cancelled the work (a [`CompileBatch`](crate::CompileBatch)'s cancel).
    Cancelled = CUABI_ERROR_CANCELLED,
    /// libcuda.so.1 cannot be loaded: no NVIDIA driver.
    DriverNotFound = CUABI_ERROR_DRIVER_NOT_FOUND,
    /// The driver lacks entry points cuabi requires.
    DriverTooOld = CUABI_ERROR_DRIVER_TOO_OLD,
    /// The driver loaded but sees no CUDA device.
    NoDevice = CUABI_ERROR_NO_DEVICE,
    /// A device ordinal outside `[0, count)`.
    InvalidDevice = CUABI_ERROR_INVALID_DEVICE,
    /// No supported NVRTC library could be loaded.
    NvrtcNotFound = CUABI_ERROR_NVRTC_NOT_FOUND,
    /// No nvJitLink could be loaded for a link the cache did not have, or it is older than an
    /// input needs (since 1.2).
    NvJitLinkNotFound = CUABI_ERROR_NVJITLINK_NOT_FOUND,
    /// A driver call failed; [`Error::cu_result`] has the `CUresult`.
    Cuda = CUABI_ERROR_CUDA,
    /// The device cannot hold an allocation.
    DeviceOutOfMemory = CUABI_ERROR_DEVICE_OUT_OF_MEMORY,
    /// A transfer past the end of a buffer, or a parameter index past the last parameter.
    OutOfBounds = CUABI_ERROR_OUT_OF_BOUNDS,
    /// NVRTC rejected the source; [`Error::compile_log`] has the log.
    Compile = CUABI_ERROR_COMPILE,
    /// An NVRTC call failed other than by a compile error; [`Error::nvrtc_result`] has the code.
    Nvrtc = CUABI_ERROR_NVRTC,
    /// The module has no kernel of that name or name expression.
    KernelNotFound = CUABI_ERROR_KERNEL_NOT_FOUND,
    /// A PTX, CUBIN or fatbin image is malformed or not loadable on the device.
    InvalidImage = CUABI_ERROR_INVALID_IMAGE,
    /// The cache directory could hold foreign code (wrong owner or permissions).
    CacheUnsafe = CUABI_ERROR_CACHE_UNSAFE,
    /// An explicit cache operation could not read or write the disk.
    CacheIo = CUABI_ERROR_CACHE_IO,
    /// nvJitLink refused a link (an undefined symbol, ...); [`Error::compile_log`] has its log
    /// (since 1.2).
    Link = CUABI_ERROR_LINK,
    /// A grid dimension is 0 or above the device's limit.
    LaunchGrid = CUABI_ERROR_LAUNCH_GRID,
    /// A block dimension or the block's thread count is above the device's limit.
    LaunchBlock = CUABI_ERROR_LAUNCH_BLOCK,
    /// The block has more threads than this kernel allows.
    LaunchKernelThreads = CUABI_ERROR_LAUNCH_KERNEL_THREADS,
    /// Shared memory above the device's opt-in maximum.
    LaunchSharedMemory = CUABI_ERROR_LAUNCH_SHARED_MEMORY,
    /// A cooperative launch the device cannot run with every block resident.
    LaunchCooperative = CUABI_ERROR_LAUNCH_COOPERATIVE,
    /// A thread block cluster the device or kernel cannot run.
    LaunchCluster = CUABI_ERROR_LAUNCH_CLUSTER,
    /// The argument count differs from the kernel's parameter count.
    ArgumentCount = CUABI_ERROR_ARGUMENT_COUNT,
    /// An argument's size differs from its parameter's size.
    ArgumentSize = CUABI_ERROR_ARGUMENT_SIZE,
    /// The driver refused a launch or replay after cuabi's checks passed.
    LaunchFailed = CUABI_ERROR_LAUNCH_FAILED,
    /// A capture was begun, ended or invalidated wrongly.
    Capture = CUABI_ERROR_CAPTURE,
    /// A graph node index out of range, or a node of another kind than the call needs.
    GraphNode = CUABI_ERROR_GRAPH_NODE,
    /// The driver refused a graph update.
    GraphUpdate = CUABI_ERROR_GRAPH_UPDATE,
    /// A replay refused while the graph's allocation from an earlier replay is still unfreed.
    GraphMemory = CUABI_ERROR_GRAPH_MEMORY,
    /// A range popped without a push, or ended twice.
    Range = CUABI_ERROR_RANGE,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Status::Unknown(code) => write!(f, "CUABI_UNKNOWN_STATUS ({code})"),
            known => f.write_str(known.name()),
        }
    }
}

/// A failed cuabi call: its status, the status's name, the message cuabi gave on the calling
/// thread right after the call (what was wrong, with the values, ending in `Fix: ...`), the
/// underlying `CUresult` / `nvrtcResult` where there is one, and the NVRTC log of a failed compile.
#[derive(Clone)]
pub struct Error {
    status: Status,
    name: &'static str,
    message: String,
    cu_result: i32,
    nvrtc_result: i32,
    compile_log: Option<String>,
}

impl Error {
    /// The status the call returned.
    pub fn status(&self) -> Status {
        self.status
    }

    /// The status's numeric code.
    pub fn code(&self) -> i32 {
        self.status.code()
    }

    /// The status's name as the loaded library spells it (`cuabi_status_name`), which also names
    /// codes newer than this binding.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// What was wrong, with the values involved, ending in `Fix: ...`.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The `CUresult` behind a driver-caused failure (`cuabi_last_cu_result`), if any.
    pub fn cu_result(&self) -> Option<i32> {
        (self.cu_result != 0).then_some(self.cu_result)
    }

    /// The `nvrtcResult` behind an NVRTC-caused failure (`cuabi_last_nvrtc_result`), if any.
    pub fn nvrtc_result(&self) -> Option<i32> {
        (self.nvrtc_result != 0).then_some(self.nvrtc_result)
    }

    /// The NVRTC log of a failed compile (`cuabi_last_compile_log`), when it is not empty.
    pub fn compile_log(&self) -> Option<&str> {
        self.compile_log.as_deref()
    }

    /// Whether the failure means "no usable GPU here" (no driver, or no device): the status a
    /// program without a GPU gets from its first GPU call.
    pub fn is_no_gpu(&self) -> bool {
        matches!(self.status, Status::DriverNotFound | Status::NoDevice)
    }

    /// The thread's last failure after a call returned `status`. Must run right after that call,
    /// on the same thread, before any other cuabi call.
    #[cold]
    pub(crate) fn last(status: sys::cuabi_status) -> Error {
        let Ok(api) = api() else { return Error::binding(Status::from_code(status), String::new()) };
        // The message first: it is valid only until the next cuabi call on this thread.
        let message = match api.cuabi_last_error_message {
            Some(message) => unsafe { text(message()) },
            None => String::from("(the loaded library has no cuabi_last_error_message)"),
        };
        let cu_result = api.cuabi_last_cu_result.map_or(0, |f| unsafe { f() });
        let nvrtc_result = api.cuabi_last_nvrtc_result.map_or(0, |f| unsafe { f() });
        let name = match api.cuabi_status_name {
            Some(name) => unsafe { static_text(name(status)) },
            None => Status::from_code(status).name(),
        };
        Error { status: Status::from_code(status), name, message, cu_result, nvrtc_result, compile_log: None }
    }

    /// [`Error::last`] with the thread's compile log: after a failed compile.
    #[cold]
    pub(crate) fn last_compile(status: sys::cuabi_status) -> Error {
        let mut error = Error::last(status);
        error.compile_log = crate::ffi::last_compile_log().ok().filter(|log| !log.is_empty());
        error
    }

    /// A failure this crate detects itself, before or instead of a cuabi call.
    #[cold]
    pub(crate) fn binding(status: Status, message: String) -> Error {
        Error { status, name: status.name(), message, cu_result: 0, nvrtc_result: 0, compile_log: None }
    }

    /// The error for a function the loaded library does not export.
    #[cold]
    pub(crate) fn missing(function: &str) -> Error {
        let loaded = crate::library::library_path().map(|p| p.display().to_string()).unwrap_or_default();
        // Not crate::version(): that call could be the missing one.
        let version = match api().ok().and_then(|api| api.cuabi_version_number) {
            Some(number) => crate::library::Version::from_number(unsafe { number() }).to_string(),
            None => "unknown".to_owned(),
        };
        Error::binding(
            Status::Unsupported,
            format!(
                "the loaded libcuabi ({loaded}, version {version}) has no {function}: it is older than this binding \
                 ({}). Fix: install libcuabi {} or newer, or point CUABI_LIBRARY at one",
                crate::BINDING_VERSION,
                crate::BINDING_VERSION
            ),
        )
    }

    /// The error for a library that could not be loaded.
    #[cold]
    pub(crate) fn from_load(error: &sys::LoadError) -> Error {
        let status = match error.kind() {
            sys::LoadErrorKind::AbiMismatch { .. } => Status::Unsupported,
            _ => Status::NotFound,
        };
        Error::binding(status, error.message().to_owned())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.name, self.message)?;
        if let Some(log) = &self.compile_log {
            write!(f, "\n{log}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("status", &self.status)
            .field("name", &self.name)
            .field("message", &self.message)
            .field("cu_result", &self.cu_result)
            .field("nvrtc_result", &self.nvrtc_result)
            .field("compile_log", &self.compile_log)
            .finish()
    }
}

impl std::error::Error for Error {}

/// `Ok(())` for `CUABI_SUCCESS`, else the thread's last failure.
#[inline]
pub(crate) fn check(status: sys::cuabi_status) -> Result<()> {
    if status == sys::CUABI_SUCCESS {
        Ok(())
    } else {
        Err(Error::last(status))
    }
}

/// A C string cuabi returned, copied.
unsafe fn text(pointer: *const std::os::raw::c_char) -> String {
    if pointer.is_null() {
        String::new()
    } else {
        CStr::from_ptr(pointer).to_string_lossy().into_owned()
    }
}

/// A static C string cuabi returned (status names, catalog entries), borrowed for good.
pub(crate) unsafe fn static_text(pointer: *const std::os::raw::c_char) -> &'static str {
    if pointer.is_null() {
        return "";
    }
    CStr::from_ptr(pointer).to_str().unwrap_or("")
}

/// The name of any status code as the loaded library spells it (`cuabi_status_name`):
/// `"CUABI_SUCCESS"` for 0, `"CUABI_UNKNOWN_STATUS"` for a code it does not know.
pub fn status_name(code: i32) -> Result<&'static str> {
    // Safety: status names are static strings of the library, which is never unloaded.
    Ok(unsafe { static_text(crate::ffi::raw!(cuabi_status_name(code))) })
}
