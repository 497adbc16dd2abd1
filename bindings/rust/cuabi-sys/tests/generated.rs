//! The committed declarations are what scripts/bindgen.sh makes from the header and the ABI model
//! today, and the function table lists exactly their functions.

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
        "cuabi-sys/src/bindings.rs is stale: the header or abi/cuabi_model.json changed since it was generated. \
         Fix: from the repository root, scripts/bindgen.sh > bindings/rust/cuabi-sys/src/bindings.rs, review, commit"
    );
}

/// The function-pointer types of the committed declarations (`pub type PFN_cuabi_name`), in
/// order: one per function of the ABI model, which the first test keeps current.
fn declared_functions() -> Vec<String> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/bindings.rs")).unwrap();
    text.lines()
        .filter_map(|line| line.strip_prefix("pub type PFN_"))
        .filter_map(|rest| rest.split(' ').next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn table_lists_exactly_the_declared_functions_in_order() {
    let declared = declared_functions();
    assert!(declared.len() >= 118, "found only {} PFN_ types in src/bindings.rs: the reader is broken", declared.len());
    let table: Vec<String> = cuabi_sys::Api::NAMES.iter().map(|name| name.to_string()).collect();
    let missing: Vec<&String> = declared.iter().filter(|name| !table.contains(name)).collect();
    let extra: Vec<&String> = table.iter().filter(|name| !declared.contains(name)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "the table (cuabi-sys/src/api.rs) and the declarations (src/bindings.rs) disagree: missing {missing:?}, not declared {extra:?}. \
         Fix: add or remove the lines in api_table!"
    );
    assert_eq!(table, declared, "the table is not in the order of the declarations");
}
