//! The NVRTC library cuabi compiles with. Each function loads it (in this process) if needed.

use crate::error::Result;
use crate::ffi::{call, raw, two_call, two_call_text};
use std::path::PathBuf;

/// The NVRTC version as (major, minor). [`Status::NvrtcNotFound`](crate::Status::NvrtcNotFound),
/// saying where cuabi looked, when there is none.
pub fn version() -> Result<(i32, i32)> {
    let (mut major, mut minor) = (0, 0);
    call!(cuabi_nvrtc_get_version(&mut major, &mut minor))?;
    Ok((major, minor))
}

/// The architectures NVRTC compiles for, ascending (75 for sm_75, ...).
pub fn supported_archs() -> Result<Vec<i32>> {
    two_call(|archs, capacity, count| Ok(raw!(cuabi_nvrtc_get_supported_archs(archs, capacity, count))))
}

/// The NVRTC library cuabi loaded or would load.
pub fn path() -> Result<PathBuf> {
    two_call_text(|text, capacity, size| Ok(raw!(cuabi_nvrtc_get_path(text, capacity, size)))).map(PathBuf::from)
}

/// The toolkit include directories cuabi gives NVRTC, in search order (empty when no toolkit
/// headers were found). Does not load NVRTC.
pub fn include_dirs() -> Result<Vec<PathBuf>> {
    let text = two_call_text(|text, capacity, size| Ok(raw!(cuabi_nvrtc_get_include_dirs(text, capacity, size))))?;
    Ok(text.lines().filter(|line| !line.is_empty()).map(PathBuf::from).collect())
}
