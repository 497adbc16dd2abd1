//! Without a loadable library every call fails with NotFound and a fix; nothing panics.

use cuabi::Status;

#[test]
fn a_missing_library_makes_every_call_fail_with_not_found() {
    let error = cuabi::load(Some("/nonexistent/libcuabi.so.1".as_ref())).unwrap_err();
    assert_eq!(error.status(), Status::NotFound);
    assert!(error.message().contains("/nonexistent/libcuabi.so.1") && error.message().contains("Fix: "), "{error}");
    assert_eq!(cuabi::version().unwrap_err().status(), Status::NotFound);
    assert_eq!(cuabi::Context::new().unwrap_err().status(), Status::NotFound);
    assert_eq!(cuabi::range("x").unwrap_err().status(), Status::NotFound);
    let config = cuabi::LaunchConfig::new();
    assert_eq!(config.as_raw().block, [1, 1, 1]);
}
