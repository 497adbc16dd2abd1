//! Every C function is reached through the safe crate: called through one of its macros or read
//! from the table, not merely named in a comment. The crate documentation says why the one
//! exception has no wrapper.

/// Functions the safe crate leaves to the raw layer on purpose (see the crate documentation).
const RAW_ONLY: &[&str] = &["cuabi_get_proc_address"];

#[test]
fn every_header_function_is_reached_by_the_safe_crate() {
    let sources = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut text = String::new();
    for entry in std::fs::read_dir(&sources).unwrap() {
        text += &std::fs::read_to_string(entry.unwrap().path()).unwrap();
    }
    let reached = |name: &str| {
        text.match_indices(name).any(|(at, _)| {
            let after = text[at + name.len()..].chars().next();
            let before = &text[..at];
            let whole_word = !matches!(after, Some(c) if c.is_alphanumeric() || c == '_');
            whole_word && (after == Some('(') || before.ends_with("api.") || before.ends_with("=> "))
        })
    };
    let unreached: Vec<&str> =
        cuabi::sys::Api::NAMES.iter().copied().filter(|name| !RAW_ONLY.contains(name) && !reached(name)).collect();
    assert!(
        unreached.is_empty(),
        "the safe crate does not reach {unreached:?}: wrap them, or list them in RAW_ONLY \
             and say why in the crate documentation"
    );
}
