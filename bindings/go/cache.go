package cuabi

// #include <stdlib.h>
// #include "zcalls.h"
import "C"

import "unsafe"

// The kernel cache: compiled kernels are kept per process in memory and, across processes, on disk
// in $CUABI_CACHE_DIR, else $XDG_CACHE_HOME/cuabi, else ~/.cache/cuabi (docs/cache.md has the
// format and the safety rules). The cache never fails a compile: when its directory is refused,
// read-only or full it works from memory and CacheDegradationReason says why. All its functions
// are safe for concurrent use, also with other processes.

// CacheStats are the kernel cache's statistics: counts of this process since it started; DiskEntries
// and DiskBytes are what the directory holds now, written by any process.
type CacheStats struct {
	DiskEnabled          bool // entries are looked up on disk
	DiskWritable         bool // new entries are written to disk
	NVRTCState           NVRTCState
	MemoryHits           uint64
	MemoryMisses         uint64
	MemoryEntries        uint64
	MemoryBytes          uint64
	MemoryMaxBytes       uint64
	MemoryEvictions      uint64
	DiskHits             uint64
	DiskMisses           uint64
	DiskEntries          uint64
	DiskBytes            uint64
	DiskMaxBytes         uint64
	DiskStores           uint64
	DiskStoreFailures    uint64
	DiskCorruptRecovered uint64
	DiskEvictions        uint64
	DiskLockTimeouts     uint64
	DiskTempFilesRemoved uint64
	Compiles             uint64 // NVRTC runs of this process
	CompilesJoined       uint64 // requests served by an identical compile already running
	// The read-only tier (since 1.2; zero from an older library): layers open, lookups they
	// served and missed, entries refused there, hits copied to disk.
	ReadOnlyLayers  uint64
	ReadOnlyHits    uint64
	ReadOnlyMisses  uint64
	ReadOnlyRefused uint64
	ReadOnlyCopies  uint64
	// The remote tier (since 1.2; zero from an older library): CUABI_CACHE_REMOTE is set; the
	// breaker skips the remote after failures in a row; verified entries served, keys it did not
	// have, failed or skipped operations, values refused by verification, entries published
	// first, compiles another node held (and of those, waits that ended with its entry), times
	// the breaker opened.
	RemoteConfigured    bool
	RemoteBreakerOpen   bool
	RemoteHits          uint64
	RemoteMisses        uint64
	RemoteErrors        uint64
	RemoteRefused       uint64
	RemotePublishes     uint64
	RemoteLeaseWaits    uint64
	RemoteLeaseWaitHits uint64
	RemoteBreakerOpens  uint64
}

// ReadCacheStats reads the kernel cache's statistics (it lists the cache directory).
func ReadCacheStats() (CacheStats, error) {
	if err := loaded(); err != nil {
		return CacheStats{}, err
	}
	s := new(C.cuabi_cache_stats)
	if err := takeFailure(C.cuabi_go_cache_get_stats(s)); err != nil {
		return CacheStats{}, err
	}
	return CacheStats{
		DiskEnabled: s.disk_enabled != 0, DiskWritable: s.disk_writable != 0, NVRTCState: NVRTCState(s.nvrtc_state),
		MemoryHits: uint64(s.memory_hits), MemoryMisses: uint64(s.memory_misses), MemoryEntries: uint64(s.memory_entries),
		MemoryBytes: uint64(s.memory_bytes), MemoryMaxBytes: uint64(s.memory_max_bytes), MemoryEvictions: uint64(s.memory_evictions),
		DiskHits: uint64(s.disk_hits), DiskMisses: uint64(s.disk_misses), DiskEntries: uint64(s.disk_entries),
		DiskBytes: uint64(s.disk_bytes), DiskMaxBytes: uint64(s.disk_max_bytes), DiskStores: uint64(s.disk_stores),
		DiskStoreFailures: uint64(s.disk_store_failures), DiskCorruptRecovered: uint64(s.disk_corrupt_recovered),
		DiskEvictions: uint64(s.disk_evictions), DiskLockTimeouts: uint64(s.disk_lock_timeouts),
		DiskTempFilesRemoved: uint64(s.disk_temp_files_removed), Compiles: uint64(s.compiles),
		CompilesJoined: uint64(s.compiles_joined),
		ReadOnlyLayers: uint64(s.readonly_layers), ReadOnlyHits: uint64(s.readonly_hits),
		ReadOnlyMisses: uint64(s.readonly_misses), ReadOnlyRefused: uint64(s.readonly_refused),
		ReadOnlyCopies:   uint64(s.readonly_copies),
		RemoteConfigured: s.remote_configured != 0, RemoteBreakerOpen: s.remote_breaker_open != 0,
		RemoteHits: uint64(s.remote_hits), RemoteMisses: uint64(s.remote_misses), RemoteErrors: uint64(s.remote_errors),
		RemoteRefused: uint64(s.remote_refused), RemotePublishes: uint64(s.remote_publishes),
		RemoteLeaseWaits: uint64(s.remote_lease_waits), RemoteLeaseWaitHits: uint64(s.remote_lease_wait_hits),
		RemoteBreakerOpens: uint64(s.remote_breaker_opens),
	}, nil
}

// AddReadOnlyCacheLayer adds a read-only layer searched after the disk cache: the absolute path of
// a cache directory or of a bundle written by ExportCache. Its entries are untrusted (verified
// before loading). ErrCacheUnsafe for a link or FIFO, ErrCacheIO for what cannot be read or a
// damaged bundle, ErrInvalidArgument for a relative path.
func AddReadOnlyCacheLayer(path string) error {
	if err := loaded(); err != nil {
		return err
	}
	text := C.CString(path)
	defer C.free(unsafe.Pointer(text))
	return takeFailure(C.cuabi_go_cache_add_readonly_layer(text))
}

// ExportCache writes the disk cache's entries to one bundle file at path: all of them when match
// is "", else those whose target or key matches the shell pattern. Errors as for PruneCache, and
// ErrCacheIO when the bundle cannot be written.
func ExportCache(path, match string) (entries, bytes uint64, err error) {
	if err := loaded(); err != nil {
		return 0, 0, err
	}
	text := C.CString(path)
	defer C.free(unsafe.Pointer(text))
	var pattern *C.char
	if match != "" {
		pattern = C.CString(match)
		defer C.free(unsafe.Pointer(pattern))
	}
	var count, size C.uint64_t
	err = takeFailure(C.cuabi_go_cache_export(text, pattern, &count, &size))
	return uint64(count), uint64(size), err
}

// ImportCache checks every entry of the bundle at path and adds the intact ones to the disk cache.
// The counts are returned also with an error: ErrCacheIO when some entries were damaged (the
// others are imported) or the bundle cannot be used at all.
func ImportCache(path string) (imported, refused uint64, err error) {
	if err := loaded(); err != nil {
		return 0, 0, err
	}
	text := C.CString(path)
	defer C.free(unsafe.Pointer(text))
	var added, damaged C.uint64_t
	err = takeFailure(C.cuabi_go_cache_import(text, &added, &damaged))
	return uint64(added), uint64(damaged), err
}

// CacheDirectory is the cache directory (absolute), reported even when the disk cache is off; ""
// when no location could be found.
func CacheDirectory() (string, error) {
	if err := loaded(); err != nil {
		return "", err
	}
	return twoCallText(func(out unsafe.Pointer, capacity C.size_t, size *C.size_t) *C.cuabi_go_failure {
		return C.cuabi_go_cache_get_directory((*C.char)(out), capacity, size)
	})
}

// CacheDegradationReason says why the disk cache is off, refused or not taking writes, with a Fix;
// "" while it works normally.
func CacheDegradationReason() (string, error) {
	if err := loaded(); err != nil {
		return "", err
	}
	return twoCallText(func(out unsafe.Pointer, capacity C.size_t, size *C.size_t) *C.cuabi_go_failure {
		return C.cuabi_go_cache_get_degradation_reason((*C.char)(out), capacity, size)
	})
}

// PruneCache removes least recently used disk entries until the directory holds at most maxBytes,
// and says what it removed. ErrCacheUnsafe for a refused directory, ErrCacheIO when entries cannot
// be removed, ErrTimeout when the directory's lock stays held past its deadline.
func PruneCache(maxBytes uint64) (removedEntries, removedBytes uint64, err error) {
	if err := loaded(); err != nil {
		return 0, 0, err
	}
	var entries, bytes C.uint64_t
	err = takeFailure(C.cuabi_go_cache_prune(C.uint64_t(maxBytes), &entries, &bytes))
	return uint64(entries), uint64(bytes), err
}

// ClearCache empties this process's memory cache and removes every disk entry (other processes
// then compile again). Loaded modules are unaffected. Errors as for PruneCache.
func ClearCache() (removedEntries, removedBytes uint64, err error) {
	if err := loaded(); err != nil {
		return 0, 0, err
	}
	var entries, bytes C.uint64_t
	err = takeFailure(C.cuabi_go_cache_clear(&entries, &bytes))
	return uint64(entries), uint64(bytes), err
}

// VerifyCache reads and checks every disk entry and removes the bad ones. Errors as for PruneCache.
func VerifyCache() (checkedEntries, removedEntries uint64, err error) {
	if err := loaded(); err != nil {
		return 0, 0, err
	}
	var checked, removed C.uint64_t
	err = takeFailure(C.cuabi_go_cache_verify(&checked, &removed))
	return uint64(checked), uint64(removed), err
}

// ConfigureDriverJITCache gives the CUDA driver a persistent JIT cache under the cuabi cache
// directory (CUDA_CACHE_PATH, CUDA_CACHE_MAXSIZE) where the operator has not chosen one. It
// changes the process environment, so call it first thing in main, before other goroutines run
// and before any other cuabi call starts the driver.
func ConfigureDriverJITCache() error {
	if err := loaded(); err != nil {
		return err
	}
	return takeFailure(C.cuabi_go_cache_configure_driver_jit())
}

// DriverJITCacheInfo are the CUDA driver's JIT cache settings in effect.
type DriverJITCacheInfo struct {
	Enabled            bool
	PathSource         SettingSource
	MaxBytesSource     SettingSource
	MaxBytes           uint64 // 0: the driver's default
	DriverStartedFirst bool   // the driver started before ConfigureDriverJITCache, which changed nothing
}

// ReadDriverJITCacheInfo reads the driver JIT cache settings in effect (loading the driver, if
// there is one, so that what it shows is what the driver uses).
func ReadDriverJITCacheInfo() (DriverJITCacheInfo, error) {
	if err := loaded(); err != nil {
		return DriverJITCacheInfo{}, err
	}
	i := new(C.cuabi_driver_jit_cache_info)
	if err := takeFailure(C.cuabi_go_cache_get_driver_jit_info(i)); err != nil {
		return DriverJITCacheInfo{}, err
	}
	return DriverJITCacheInfo{
		Enabled: i.enabled != 0, PathSource: SettingSource(i.path_source), MaxBytesSource: SettingSource(i.max_bytes_source),
		MaxBytes: uint64(i.max_bytes), DriverStartedFirst: i.driver_started_first != 0,
	}, nil
}

// DriverJITCachePath is the CUDA driver's JIT cache directory in effect.
func DriverJITCachePath() (string, error) {
	if err := loaded(); err != nil {
		return "", err
	}
	return twoCallText(func(out unsafe.Pointer, capacity C.size_t, size *C.size_t) *C.cuabi_go_failure {
		return C.cuabi_go_cache_get_driver_jit_path((*C.char)(out), capacity, size)
	})
}
