//! Without a loadable library every call fails with NotFound and a fix, nothing panics, and a
//! later load of the right file still succeeds (a failed load is not remembered).

#[path = "../../cuabi-sys/tests/support/mod.rs"]
mod support;

use cuabi::Status;

#[test]
fn a_missing_library_fails_every_call_until_a_good_one_is_loaded() {
    let real = support::real_library();
    // The only test of this process, before any cuabi call: no other thread reads the environment.
    std::env::set_var("CUABI_LIBRARY", "/nonexistent/libcuabi.so.1");
    let error = cuabi::version().unwrap_err();
    assert_eq!(error.status(), Status::NotFound);
    assert!(
        error.message().contains("/nonexistent/libcuabi.so.1") && error.message().contains("CUABI_LIBRARY"),
        "{error}"
    );
    assert!(error.message().contains("Fix: "), "{error}");
    assert_eq!(cuabi::Context::new().unwrap_err().status(), Status::NotFound);
    assert_eq!(cuabi::range("x").unwrap_err().status(), Status::NotFound);
    assert_eq!(cuabi::LaunchConfig::new().as_raw().block, [1, 1, 1]);
    let error = cuabi::load(Some("/elsewhere/libcuabi.so.1".as_ref())).unwrap_err();
    assert_eq!(error.status(), Status::NotFound, "{error}");
    cuabi::load(Some(&real)).unwrap();
    assert!(cuabi::version().unwrap().number() >= 10000);
    assert_eq!(cuabi::library_path().unwrap(), real);
}
