//! The committed declarations are what scripts/bindgen.sh makes from the header today, and the
//! function table lists exactly the header's functions.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

fn header() -> PathBuf {
    repository().join("include/cuabi/cuabi.h")
}

/// The test needs the repository around the crate; a copy of the crate without it has nothing
/// to compare with.
fn in_repository() -> bool {
    let present = header().is_file();
    if !present {
        eprintln!("skipped: {} is not there (the crate is outside the cuabi repository)", header().display());
    }
    present
}

#[test]
fn bindings_match_what_bindgen_makes_from_the_header() {
    if !in_repository() {
        return;
    }
    let script = repository().join("scripts/bindgen.sh");
    // From the repository root: bindgen formats with the rustfmt.toml it finds from its working
    // directory, and the committed file was made there.
    let output = Command::new("bash").arg(&script).arg(header()).current_dir(repository()).output().expect("bash runs");
    assert!(
        output.status.success(),
        "{} failed: {}Fix: install bindgen (scripts/setup.sh installs Debian's)",
        script.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let committed = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/bindings.rs")).unwrap();
    let fresh = String::from_utf8(output.stdout).unwrap();
    assert!(
        committed == fresh,
        "cuabi-sys/src/bindings.rs is stale: the header changed since it was generated. \
         Fix: from the repository root, scripts/bindgen.sh > bindings/rust/cuabi-sys/src/bindings.rs, review, commit"
    );
}

/// Every `CUABI_API ... cuabi_name(` declaration of the header, in order.
fn header_functions() -> Vec<String> {
    let text = std::fs::read_to_string(header()).unwrap();
    let mut names = Vec::new();
    for declaration in text.split("CUABI_API ").skip(1) {
        let Some(open) = declaration.find('(') else { continue };
        let Some(name) = declaration[..open].rsplit([' ', '*']).next() else { continue };
        if name.starts_with("cuabi_") {
            names.push(name.to_owned());
        }
    }
    names
}

#[test]
fn table_lists_exactly_the_headers_functions_in_order() {
    if !in_repository() {
        return;
    }
    let declared = header_functions();
    assert!(declared.len() >= 118, "found only {} functions in the header: the parser is broken", declared.len());
    let table: Vec<String> = cuabi_sys::Api::NAMES.iter().map(|name| name.to_string()).collect();
    let missing: Vec<&String> = declared.iter().filter(|name| !table.contains(name)).collect();
    let extra: Vec<&String> = table.iter().filter(|name| !declared.contains(name)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "the table (cuabi-sys/src/api.rs) and the header disagree: missing {missing:?}, not in the header {extra:?}. \
         Fix: add or remove the lines in api_table!"
    );
    assert_eq!(table, declared, "the table is not in the header's order");
}
