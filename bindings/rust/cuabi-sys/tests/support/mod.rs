//! What the loader tests of both crates share: where the real library is, and a stand-in library
//! built from shim.c that reports another ABI major or lacks a function.
#![allow(dead_code)] // each test binary uses part of it

use std::path::{Path, PathBuf};
use std::process::Command;

/// The real libcuabi.so.1: $CUABI_LIBRARY, else the repository's build/.
pub fn real_library() -> PathBuf {
    match std::env::var_os("CUABI_LIBRARY") {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../build/libcuabi.so.1"),
    }
}

/// Builds shim.c into a library that reports ABI major `abi` and lacks `hide`; None (with a note)
/// when no C compiler is installed.
pub fn build_shim(abi: u32, hide: &str) -> Option<PathBuf> {
    let real = real_library().canonicalize().expect("the real library exists (set CUABI_LIBRARY)");
    let dir = std::env::temp_dir().join(format!("cuabi-shim-{}-{abi}-{hide}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("shim.c");
    std::fs::write(&source, include_str!("shim.c")).unwrap();
    let output = dir.join("libcuabi-shim.so");
    let built = Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&output)
        .arg(&source)
        .arg(format!("-DCUABI_REAL=\"{}\"", real.display()))
        .arg(format!("-DSHIM_ABI={abi}u"))
        .arg(format!("-DSHIM_HIDE=\"{hide}\""))
        .arg("-ldl")
        .status();
    match built {
        Ok(status) if status.success() => Some(output),
        Ok(status) => panic!("cc failed to build the shim library ({status})"),
        Err(error) => {
            eprintln!("skipped: no C compiler to build the shim library ({error})");
            None
        }
    }
}
