//! The kernel cache (in memory and on disk) and the CUDA driver's JIT cache: statistics and
//! maintenance. Every function is thread-safe except [`configure_driver_jit`].

use crate::error::Result;
use crate::ffi::{c_path, c_string, call, defaults, raw, two_call_text};
use cuabi_sys as sys;
use std::path::{Path, PathBuf};

/// Where NVRTC stands for this process ([`CacheStats::nvrtc_state`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NvrtcState {
    /// Not needed yet: every compile so far was a cache hit.
    NotLoaded,
    /// Loaded (here or in the compile worker): misses compile.
    Loaded,
    /// Cannot be loaded: cached entries are served, misses fail.
    Unavailable,
    /// A state this binding does not know.
    Unknown(i32),
}

/// Kernel cache statistics ([`stats`]): counts of this process since it started; `disk_entries`
/// and `disk_bytes` are what the directory holds now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[allow(missing_docs)] // each field is the header's field of the same name
pub struct CacheStats {
    /// Whether entries are looked up on disk.
    pub disk_enabled: bool,
    /// Whether new entries are written to disk.
    pub disk_writable: bool,
    /// Where NVRTC stands.
    pub nvrtc_state: NvrtcState,
    pub memory_hits: u64,
    pub memory_misses: u64,
    pub memory_entries: u64,
    /// Approximate heap bytes held by memory entries.
    pub memory_bytes: u64,
    pub memory_max_bytes: u64,
    pub memory_evictions: u64,
    pub disk_hits: u64,
    pub disk_misses: u64,
    pub disk_entries: u64,
    pub disk_bytes: u64,
    pub disk_max_bytes: u64,
    /// Entries this process published.
    pub disk_stores: u64,
    /// Failed writes (full or read-only disk): see [`degradation_reason`].
    pub disk_store_failures: u64,
    /// Truncated, corrupt or foreign entries found and removed.
    pub disk_corrupt_recovered: u64,
    /// Entries this process evicted to respect the size cap.
    pub disk_evictions: u64,
    /// Operations that found the lock held past its deadline and went on from memory.
    pub disk_lock_timeouts: u64,
    /// Temp files of writers that died mid-write, swept.
    pub disk_temp_files_removed: u64,
    /// NVRTC runs of this process.
    pub compiles: u64,
    /// Compile requests served by an identical compile another thread was running.
    pub compiles_joined: u64,
    /// Read-only layers open now (since 1.2; 0 from an older library).
    pub readonly_layers: u64,
    /// Lookups served by a read-only layer.
    pub readonly_hits: u64,
    /// Lookups no read-only layer had (counted only when there are layers).
    pub readonly_misses: u64,
    /// Damaged, foreign or linked entries found in a layer and refused.
    pub readonly_refused: u64,
    /// Read-only hits handed to the disk (`CUABI_CACHE_READONLY_COPY=1`).
    pub readonly_copies: u64,
    /// `CUABI_CACHE_REMOTE` is set (since 1.2; false from an older library).
    pub remote_configured: bool,
    /// After failures in a row the remote is skipped until a probe succeeds.
    pub remote_breaker_open: bool,
    /// Verified entries served by the remote.
    pub remote_hits: u64,
    /// Keys the remote did not have.
    pub remote_misses: u64,
    /// Operations that failed (timeout, connection, helper) or that the open breaker skipped.
    pub remote_errors: u64,
    /// Values that failed verification (forged, damaged, oversized).
    pub remote_refused: u64,
    /// Entries this process stored there first.
    pub remote_publishes: u64,
    /// Compiles another node held, so this process waited.
    pub remote_lease_waits: u64,
    /// Of those, the waits that ended with the other node's entry.
    pub remote_lease_wait_hits: u64,
    /// Times the breaker opened.
    pub remote_breaker_opens: u64,
}

/// The kernel cache's statistics (costs a scan of the cache directory).
pub fn stats() -> Result<CacheStats> {
    let mut raw: sys::cuabi_cache_stats = defaults()?;
    call!(cuabi_cache_get_stats(&mut raw))?;
    Ok(CacheStats {
        disk_enabled: raw.disk_enabled != 0,
        disk_writable: raw.disk_writable != 0,
        nvrtc_state: match raw.nvrtc_state {
            sys::CUABI_NVRTC_STATE_NOT_LOADED => NvrtcState::NotLoaded,
            sys::CUABI_NVRTC_STATE_LOADED => NvrtcState::Loaded,
            sys::CUABI_NVRTC_STATE_UNAVAILABLE => NvrtcState::Unavailable,
            other => NvrtcState::Unknown(other),
        },
        memory_hits: raw.memory_hits,
        memory_misses: raw.memory_misses,
        memory_entries: raw.memory_entries,
        memory_bytes: raw.memory_bytes,
        memory_max_bytes: raw.memory_max_bytes,
        memory_evictions: raw.memory_evictions,
        disk_hits: raw.disk_hits,
        disk_misses: raw.disk_misses,
        disk_entries: raw.disk_entries,
        disk_bytes: raw.disk_bytes,
        disk_max_bytes: raw.disk_max_bytes,
        disk_stores: raw.disk_stores,
        disk_store_failures: raw.disk_store_failures,
        disk_corrupt_recovered: raw.disk_corrupt_recovered,
        disk_evictions: raw.disk_evictions,
        disk_lock_timeouts: raw.disk_lock_timeouts,
        disk_temp_files_removed: raw.disk_temp_files_removed,
        compiles: raw.compiles,
        compiles_joined: raw.compiles_joined,
        readonly_layers: raw.readonly_layers,
        readonly_hits: raw.readonly_hits,
        readonly_misses: raw.readonly_misses,
        readonly_refused: raw.readonly_refused,
        readonly_copies: raw.readonly_copies,
        remote_configured: raw.remote_configured != 0,
        remote_breaker_open: raw.remote_breaker_open != 0,
        remote_hits: raw.remote_hits,
        remote_misses: raw.remote_misses,
        remote_errors: raw.remote_errors,
        remote_refused: raw.remote_refused,
        remote_publishes: raw.remote_publishes,
        remote_lease_waits: raw.remote_lease_waits,
        remote_lease_wait_hits: raw.remote_lease_wait_hits,
        remote_breaker_opens: raw.remote_breaker_opens,
    })
}

/// Adds a read-only layer searched after the disk cache: the absolute path of a cache directory or
/// of a bundle written by [`export`]. Its entries are untrusted (verified before loading).
pub fn add_readonly_layer(path: &Path) -> Result<()> {
    let path = c_path(path, "path")?;
    call!(cuabi_cache_add_readonly_layer(path.as_ptr()))
}

/// What [`export`] wrote or [`import`] added.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Transferred {
    /// Entries written to the bundle, or added to the disk cache.
    pub entries: u64,
    /// The bundle's size ([`export`]); damaged entries refused ([`import`]).
    pub other: u64,
}

/// Writes the disk cache's entries to one bundle file: all of them when `pattern` is `None`, else
/// those whose target (`sm_90`) or key (32 hex digits) matches the shell pattern. `other` is the
/// bundle's size in bytes.
pub fn export(path: &Path, pattern: Option<&str>) -> Result<Transferred> {
    let path = c_path(path, "path")?;
    let pattern = pattern.map(|text| c_string(text, "pattern")).transpose()?;
    let mut done = Transferred::default();
    call!(cuabi_cache_export(
        path.as_ptr(),
        pattern.as_ref().map_or(std::ptr::null(), |text| text.as_ptr()),
        &mut done.entries,
        &mut done.other
    ))?;
    Ok(done)
}

/// Checks every entry of a bundle and adds the intact ones to the disk cache; `other` is the
/// number of damaged entries refused. A bundle with damaged entries is an error
/// (`CUABI_ERROR_CACHE_IO`) after the intact ones were imported.
pub fn import(path: &Path) -> Result<Transferred> {
    let path = c_path(path, "path")?;
    let mut done = Transferred::default();
    call!(cuabi_cache_import(path.as_ptr(), &mut done.entries, &mut done.other))?;
    Ok(done)
}

/// The cache directory (reported even when the disk cache is off or refused); empty when no
/// location could be found.
pub fn directory() -> Result<PathBuf> {
    two_call_text(|text, capacity, size| Ok(raw!(cuabi_cache_get_directory(text, capacity, size)))).map(PathBuf::from)
}

/// Why the disk cache is off, refused or not taking writes, with a `Fix: ...`; `None` while it
/// works normally.
pub fn degradation_reason() -> Result<Option<String>> {
    let reason =
        two_call_text(|text, capacity, size| Ok(raw!(cuabi_cache_get_degradation_reason(text, capacity, size))))?;
    Ok((!reason.is_empty()).then_some(reason))
}

/// What a maintenance call removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Removed {
    /// Entries removed.
    pub entries: u64,
    /// Bytes removed.
    pub bytes: u64,
}

/// Removes least recently used disk entries until the directory holds at most `max_bytes`.
pub fn prune(max_bytes: u64) -> Result<Removed> {
    let mut removed = Removed::default();
    call!(cuabi_cache_prune(max_bytes, &mut removed.entries, &mut removed.bytes))?;
    Ok(removed)
}

/// Empties this process's memory cache and removes every disk entry (of every process).
pub fn clear() -> Result<Removed> {
    let mut removed = Removed::default();
    call!(cuabi_cache_clear(&mut removed.entries, &mut removed.bytes))?;
    Ok(removed)
}

/// What [`verify`] found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Verified {
    /// Entries read and checked.
    pub checked: u64,
    /// Bad entries (and non-entries) removed.
    pub removed: u64,
}

/// Reads and checks every disk entry, removing the bad ones.
pub fn verify() -> Result<Verified> {
    let mut verified = Verified::default();
    call!(cuabi_cache_verify(&mut verified.checked, &mut verified.removed))?;
    Ok(verified)
}

/// Gives the CUDA driver a persistent JIT cache under the cuabi cache directory, where the
/// operator has not chosen one (sets `CUDA_CACHE_PATH` and `CUDA_CACHE_MAXSIZE`).
///
/// # Safety
/// It changes the process environment, which races with every other thread reading or writing it
/// (as `std::env::set_var` does): call it at start-up, before other threads exist and before any
/// CUDA call.
pub unsafe fn configure_driver_jit() -> Result<()> {
    call!(cuabi_cache_configure_driver_jit())
}

/// Who chose a driver JIT cache setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SettingSource {
    /// Nobody: the driver's default applies.
    DriverDefault,
    /// The operator, through the environment.
    Environment,
    /// [`configure_driver_jit`], because the operator had not.
    Cuabi,
    /// A source this binding does not know.
    Unknown(i32),
}

impl SettingSource {
    fn from_code(code: i32) -> SettingSource {
        match code {
            sys::CUABI_SETTING_DRIVER_DEFAULT => SettingSource::DriverDefault,
            sys::CUABI_SETTING_ENVIRONMENT => SettingSource::Environment,
            sys::CUABI_SETTING_CUABI => SettingSource::Cuabi,
            other => SettingSource::Unknown(other),
        }
    }
}

/// The CUDA driver's JIT cache settings in effect ([`driver_jit_info`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DriverJitInfo {
    /// False when `CUDA_CACHE_DISABLE=1`.
    pub enabled: bool,
    /// Who chose `CUDA_CACHE_PATH`.
    pub path_source: SettingSource,
    /// Who chose `CUDA_CACHE_MAXSIZE`.
    pub max_bytes_source: SettingSource,
    /// `CUDA_CACHE_MAXSIZE` in effect; 0 = the driver's default.
    pub max_bytes: u64,
    /// The driver started before [`configure_driver_jit`] ran, so it changed nothing.
    pub driver_started_first: bool,
}

/// The CUDA driver's JIT cache settings in effect (loads the driver if it can).
pub fn driver_jit_info() -> Result<DriverJitInfo> {
    let mut raw: sys::cuabi_driver_jit_cache_info = defaults()?;
    call!(cuabi_cache_get_driver_jit_info(&mut raw))?;
    Ok(DriverJitInfo {
        enabled: raw.enabled != 0,
        path_source: SettingSource::from_code(raw.path_source),
        max_bytes_source: SettingSource::from_code(raw.max_bytes_source),
        max_bytes: raw.max_bytes,
        driver_started_first: raw.driver_started_first != 0,
    })
}

/// The CUDA driver JIT cache directory in effect.
pub fn driver_jit_path() -> Result<PathBuf> {
    two_call_text(|text, capacity, size| Ok(raw!(cuabi_cache_get_driver_jit_path(text, capacity, size))))
        .map(PathBuf::from)
}
