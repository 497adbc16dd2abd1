//! A library of another ABI major is refused at load; the refusal is not remembered, so the next
//! call loads the default library.

#[path = "../../cuabi-sys/tests/support/mod.rs"]
mod support;

use cuabi::Status;

#[test]
fn a_library_of_another_abi_major_is_refused_with_a_fix() {
    let Some(shim) = support::build_shim(2, "cuabi_none") else { return };
    let error = cuabi::load(Some(&shim)).unwrap_err();
    assert_eq!(error.status(), Status::Unsupported);
    assert!(error.message().contains("ABI major 2") && error.message().contains("Fix: "), "{error}");
    assert_eq!(cuabi::abi_version().unwrap(), 1, "the default library (CUABI_LIBRARY) loads after the refusal");
}
