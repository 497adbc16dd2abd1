//! A library without one function (an older 1.x) loads, everything else works, and the missing
//! function fails with Unsupported when called, never at load.

#[path = "../../cuabi-sys/tests/support/mod.rs"]
mod support;

use cuabi::Status;

#[test]
fn a_missing_function_is_unsupported_when_called_and_nothing_else_suffers() {
    let Some(shim) = support::build_shim(1, "cuabi_range_get_catalog_count") else { return };
    cuabi::load(Some(&shim)).unwrap();
    assert_eq!(cuabi::library_path().unwrap(), shim);
    assert_eq!(cuabi::abi_version().unwrap(), 1);
    let error = cuabi::ranges::catalog().unwrap_err();
    assert_eq!(error.status(), Status::Unsupported);
    assert_eq!(error.name(), "CUABI_ERROR_UNSUPPORTED");
    assert!(error.message().contains("cuabi_range_get_catalog_count"), "{error}");
    assert!(error.message().contains("Fix: "), "{error}");
    assert_eq!(cuabi::status_name(42).unwrap(), "CUABI_ERROR_KERNEL_NOT_FOUND");
    cuabi::range("still works").unwrap().end().unwrap();
}
