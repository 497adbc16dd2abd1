//! How this crate calls the C functions: one macro per call shape, strings, the two-call pattern,
//! and struct defaults from the library's `_init` functions.

use crate::error::{check, Error, Result, Status};
use crate::library::api;
use cuabi_sys as sys;
use std::ffi::CString;
use std::mem::MaybeUninit;
use std::os::raw::c_char;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// Calls the C function `name` with the arguments and gives its return value; returns
/// `Err(Unsupported)` from the enclosing function when the loaded library lacks it.
macro_rules! raw {
    ($name:ident ( $($argument:expr),* $(,)? )) => {{
        let api = $crate::library::api()?;
        match api.$name {
            // Safety: each call site passes what the header asks for (live handles, valid pointers).
            #[allow(unused_unsafe)]
            Some(function) => unsafe { function($($argument),*) },
            None => return Err($crate::error::Error::missing(stringify!($name))),
        }
    }};
}
pub(crate) use raw;

/// Calls a status-returning C function: `Ok(())`, or the thread's last failure.
macro_rules! call {
    ($name:ident ( $($argument:expr),* $(,)? )) => {
        $crate::error::check($crate::ffi::raw!($name($($argument),*)))
    };
}
pub(crate) use call;

/// Calls a destroy function from `Drop` (which cannot report): nothing when the library is not
/// loaded or lacks it. Destroy functions leave the thread's last error untouched.
macro_rules! destroy {
    ($name:ident ( $handle:expr )) => {
        if let Ok(api) = $crate::library::api() {
            if let Some(function) = api.$name {
                // Safety: the handle came from cuabi; a stale one is harmless by the header's rules.
                unsafe { function($handle) }
            }
        }
    };
}
pub(crate) use destroy;

/// `value` as a C string; an interior NUL is refused with a message naming `what`.
pub(crate) fn c_string(value: &str, what: &str) -> Result<CString> {
    CString::new(value).map_err(|error| {
        Error::binding(
            Status::InvalidArgument,
            format!(
                "{what} {value:?} contains a NUL byte at byte {}. Fix: pass text without NUL bytes",
                error.nul_position()
            ),
        )
    })
}

/// `path` as a C string (any bytes but NUL, as the OS takes them); an interior NUL is refused with
/// a message naming `what`.
pub(crate) fn c_path(path: &Path, what: &str) -> Result<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(|error| {
        Error::binding(
            Status::InvalidArgument,
            format!(
                "{what} {path:?} contains a NUL byte at byte {}. Fix: pass a path without NUL bytes",
                error.nul_position()
            ),
        )
    })
}

/// The two-call pattern: asks for the size with a NULL buffer, then fills a buffer of that size
/// (again if the result grew in between). `call(buffer, capacity, &mut size)` makes the C call.
pub(crate) fn two_call<T: Copy + Default>(
    mut call: impl FnMut(*mut T, usize, &mut usize) -> Result<sys::cuabi_status>,
) -> Result<Vec<T>> {
    let mut size = 0;
    check(call(std::ptr::null_mut(), 0, &mut size)?)?;
    loop {
        let mut buffer = vec![T::default(); size];
        let mut needed = 0;
        let status = call(buffer.as_mut_ptr(), buffer.len(), &mut needed)?;
        if status == sys::CUABI_ERROR_BUFFER_TOO_SMALL && needed > size {
            size = needed;
            continue;
        }
        check(status)?;
        buffer.truncate(needed);
        return Ok(buffer);
    }
}

/// Text through the two-call pattern (the count includes the terminating NUL).
pub(crate) fn two_call_text(
    mut call: impl FnMut(*mut c_char, usize, &mut usize) -> Result<sys::cuabi_status>,
) -> Result<String> {
    let mut bytes = two_call(|buffer: *mut u8, capacity, size| call(buffer.cast(), capacity, size))?;
    if bytes.last() == Some(&0) {
        bytes.pop();
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// `cuabi_last_compile_log`: the NVRTC log of this thread's last compile.
pub(crate) fn last_compile_log() -> Result<String> {
    two_call_text(|text, capacity, size| Ok(raw!(cuabi_last_compile_log(text, capacity, size))))
}

/// A versioned struct of the header (it begins with `uint32_t struct_size`) and its `_init`.
pub(crate) trait Versioned: Sized {
    /// The C name of the `_init` function, for the error when it is missing.
    const INIT: &'static str;
    /// The `_init` function in the table.
    fn init(api: &sys::Api) -> Option<unsafe extern "C" fn(u32, *mut Self) -> sys::cuabi_status>;
}

macro_rules! versioned {
    ($($ty:ident => $init:ident,)*) => {
        $(impl Versioned for sys::$ty {
            const INIT: &'static str = stringify!($init);
            fn init(api: &sys::Api) -> Option<unsafe extern "C" fn(u32, *mut Self) -> sys::cuabi_status> {
                api.$init
            }
        })*
    };
}

versioned! {
    cuabi_device_info => cuabi_device_info_init,
    cuabi_context_options => cuabi_context_options_init,
    cuabi_counters => cuabi_counters_init,
    cuabi_stream_options => cuabi_stream_options_init,
    cuabi_event_options => cuabi_event_options_init,
    cuabi_buffer_options => cuabi_buffer_options_init,
    cuabi_host_memory_options => cuabi_host_memory_options_init,
    cuabi_memory_pool_options => cuabi_memory_pool_options_init,
    cuabi_compile_options => cuabi_compile_options_init,
    cuabi_link_options => cuabi_link_options_init,
    cuabi_module_info => cuabi_module_info_init,
    cuabi_kernel_attributes => cuabi_kernel_attributes_init,
    cuabi_launch_config => cuabi_launch_config_init,
    cuabi_graph_options => cuabi_graph_options_init,
    cuabi_graph_node_info => cuabi_graph_node_info_init,
    cuabi_graph_update_info => cuabi_graph_update_info_init,
    cuabi_graph_memcpy_params => cuabi_graph_memcpy_params_init,
    cuabi_tensor_map_params => cuabi_tensor_map_params_init,
    cuabi_graph_cache_stats => cuabi_graph_cache_stats_init,
    cuabi_cache_stats => cuabi_cache_stats_init,
    cuabi_driver_jit_cache_info => cuabi_driver_jit_cache_info_init,
}

/// The struct as the library's `_init` fills it for this binding's `struct_size`: defaults for
/// the fields the library knows, zeros for any it does not (a library older than these bindings).
pub(crate) fn defaults<T: Versioned>() -> Result<T> {
    let init = T::init(api()?).ok_or_else(|| Error::missing(T::INIT))?;
    let mut value = MaybeUninit::<T>::zeroed();
    // Safety: `value` is zeroed and holds size_of::<T>() bytes, the size passed; every field of the
    // header's structs is an integer, array or pointer, for which any bytes are a valid value.
    unsafe {
        check(init(std::mem::size_of::<T>() as u32, value.as_mut_ptr()))?;
        Ok(value.assume_init())
    }
}

/// The text of a fixed-size `char` array that cuabi NUL-terminates (the whole array if it did not).
pub(crate) fn fixed_text(chars: &[c_char]) -> String {
    // Safety: c_char and u8 have the same size and alignment.
    let bytes = unsafe { std::slice::from_raw_parts(chars.as_ptr().cast::<u8>(), chars.len()) };
    let end = bytes.iter().position(|&byte| byte == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

/// `*const c_char` of an optional C string (NULL for `None`).
pub(crate) fn c_ptr(value: Option<&CString>) -> *const c_char {
    value.map_or(std::ptr::null(), |value| value.as_ptr())
}
