//! Loading: the real library resolves every function; wrong files, other ABI majors and missing
//! functions are reported the way the crate promises.

mod support;

use cuabi_sys::{Api, Library, LoadErrorKind};
use std::path::Path;

fn open_real() -> Library {
    let path = support::real_library();
    unsafe { Library::open_path(&path) }.unwrap_or_else(|error| panic!("{error}"))
}

#[test]
fn real_library_resolves_every_function_in_the_table() {
    let library = open_real();
    let api: &Api = library.api();
    let version = unsafe { api.cuabi_version_number.unwrap()() };
    assert!(version >= 10000, "version {version}");
    for name in Api::NAMES {
        let c_name = std::ffi::CString::new(*name).unwrap();
        assert!(library.get_proc_address(&c_name).is_some(), "{name} is not exported");
    }
    assert!(api.cuabi_launch.is_some() && api.cuabi_range_end.is_some());
}

#[test]
fn unknown_function_name_resolves_to_none() {
    assert!(open_real()
        .get_proc_address(std::ffi::CStr::from_bytes_with_nul(b"cuabi_no_such_function\0").unwrap())
        .is_none());
}

#[test]
fn missing_file_is_an_open_error_with_a_fix() {
    let error = unsafe { Library::open_path(Path::new("/nonexistent/libcuabi.so.1")) }.unwrap_err();
    assert_eq!(error.kind(), LoadErrorKind::Open);
    assert!(error.message().contains("/nonexistent/libcuabi.so.1"), "{error}");
    assert!(error.message().contains("Fix: "), "{error}");
}

#[test]
fn library_that_is_not_cuabi_is_refused() {
    let error = unsafe { Library::open_path(Path::new("libm.so.6")) }.unwrap_err();
    assert_eq!(error.kind(), LoadErrorKind::NotCuabi, "{error}");
    assert!(error.message().contains("cuabi_get_proc_address"), "{error}");
}

#[test]
fn other_abi_major_is_refused_at_load() {
    let Some(shim) = support::build_shim(2, "cuabi_none") else { return };
    let error = unsafe { Library::open_path(&shim) }.unwrap_err();
    assert_eq!(error.kind(), LoadErrorKind::AbiMismatch { found: 2 });
    assert!(error.message().contains("ABI major 2"), "{error}");
}

#[test]
fn function_the_library_lacks_is_none_and_the_load_succeeds() {
    let Some(shim) = support::build_shim(1, "cuabi_graph_retain_buffer") else { return };
    let library = unsafe { Library::open_path(&shim) }.unwrap_or_else(|error| panic!("{error}"));
    assert!(library.api().cuabi_graph_retain_buffer.is_none());
    assert!(library.api().cuabi_graph_launch.is_some());
}
