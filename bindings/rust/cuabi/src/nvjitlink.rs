//! The nvJitLink library cuabi links with ([`Module::link`](crate::Module::link)).

use crate::error::Result;
use crate::ffi::{call, raw, two_call_text};
use std::path::PathBuf;

/// The nvJitLink version as (major, minor), loading it in this process if needed.
/// [`Status::NvJitLinkNotFound`](crate::Status::NvJitLinkNotFound), saying where cuabi looked or
/// why the file could not be loaded, when there is none.
pub fn version() -> Result<(i32, i32)> {
    let (mut major, mut minor) = (0, 0);
    call!(cuabi_nvjitlink_get_version(&mut major, &mut minor))?;
    Ok((major, minor))
}

/// The nvJitLink library cuabi links with, located without loading it.
pub fn path() -> Result<PathBuf> {
    two_call_text(|text, capacity, size| Ok(raw!(cuabi_nvjitlink_get_path(text, capacity, size)))).map(PathBuf::from)
}
