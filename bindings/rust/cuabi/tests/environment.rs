//! Environment values cuabi cannot use are listed by `environment_problems`, one sentence each
//! naming the variable and the value; usable ones are not. Its own process: the values are set
//! before the library reads them.

#[test]
fn refused_environment_values_are_listed_with_the_variable_and_value() {
    // The only test of this process, before any cuabi call: no other thread reads the environment.
    // Both values change nothing another call of this process would notice: ranges stay on, and
    // no image is verified here.
    std::env::set_var("CUABI_NVTX", "maybe");
    std::env::set_var("CUABI_IMAGE_VERIFY_TIMEOUT_MS", "soon");
    std::env::set_var("CUABI_COMPILE_WORKERS", "2");
    let problems = cuabi::environment_problems().unwrap();
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems.iter().any(|p| p.starts_with("CUABI_NVTX='maybe'")), "{problems:?}");
    assert!(
        problems.iter().any(|p| p.starts_with("CUABI_IMAGE_VERIFY_TIMEOUT_MS='soon' is not a whole number")),
        "{problems:?}"
    );
    assert!(
        !problems.iter().any(|p| p.contains("CUABI_COMPILE_WORKERS")),
        "a usable value is no problem: {problems:?}"
    );
    assert_eq!(cuabi::environment_problems().unwrap(), problems, "asking again lists each once");
}
