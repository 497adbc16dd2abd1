package cuabi

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestKernelCacheMaintenance(t *testing.T) {
	dir, err := CacheDirectory()
	must(t, err)
	if want := os.Getenv("CUABI_CACHE_DIR"); dir != want {
		t.Errorf("CacheDirectory = %q, want CUABI_CACHE_DIR %q", dir, want)
	}
	reason, err := CacheDegradationReason()
	must(t, err)
	if reason != "" {
		t.Errorf("the disk cache is degraded in a fresh directory: %s", reason)
	}
	m, err := CompileOffline(testSource, &CompileOptions{Target: "sm_90", Defines: []string{"MAINTENANCE=1"}})
	must(t, err)
	m.Close()
	stats, err := ReadCacheStats()
	must(t, err)
	if !stats.DiskEnabled || !stats.DiskWritable || stats.DiskEntries == 0 || stats.DiskBytes == 0 || stats.MemoryMaxBytes == 0 {
		t.Errorf("ReadCacheStats = %+v", stats)
	}
	if ownCacheDir == "" {
		t.Skip("CUABI_CACHE_DIR is the caller's: not pruning or clearing it")
	}
	checked, removed, err := VerifyCache()
	must(t, err)
	if checked != stats.DiskEntries || removed != 0 {
		t.Errorf("VerifyCache checked %d removed %d; %d entries on disk", checked, removed, stats.DiskEntries)
	}
	entries, bytes, err := PruneCache(0)
	must(t, err)
	if entries != stats.DiskEntries || bytes == 0 {
		t.Errorf("PruneCache(0) removed %d entries (%d bytes) of %d", entries, bytes, stats.DiskEntries)
	}
	if _, _, err := ClearCache(); err != nil {
		t.Error(err)
	}
	after, err := ReadCacheStats()
	must(t, err)
	if after.DiskEntries != 0 || after.MemoryEntries != 0 {
		t.Errorf("after ClearCache: %+v", after)
	}
}

func TestDriverJITCacheSettingsAreReadable(t *testing.T) {
	info, err := ReadDriverJITCacheInfo()
	must(t, err)
	if info.PathSource < SetByDriverDefault || info.PathSource > SetByCuabi {
		t.Errorf("ReadDriverJITCacheInfo = %+v", info)
	}
	path, err := DriverJITCachePath()
	must(t, err)
	if path == "" && os.Getenv("HOME") != "" {
		t.Error("DriverJITCachePath is empty")
	}
}

func TestGraphCacheWithoutGPU(t *testing.T) {
	for size, want := range map[uint64]uint64{0: 1, 1: 1, 3: 4, 1000: 1024, 1 << 40: 1 << 40, 1<<63 + 1: ^uint64(0)} {
		got, err := GraphCacheCapacityClass(size)
		must(t, err)
		if got != want {
			t.Errorf("GraphCacheCapacityClass(%d) = %d, want %d", size, got, want)
		}
	}
	wantStatus(t, SetGraphCacheCapacity(-1), ErrInvalidArgument)
	must(t, SetGraphCacheCapacity(17))
	stats, err := ReadGraphCacheStats()
	must(t, err)
	if stats.Capacity != 17 {
		t.Errorf("capacity %d after SetGraphCacheCapacity(17)", stats.Capacity)
	}
	must(t, SetGraphCacheCapacity(256))
	must(t, ClearGraphCache())
}

// A bundle exported from the disk cache serves as a read-only layer once memory and disk are
// cleared, is imported back whole, and a file that is not a bundle is refused.
func TestCacheBundleExportLayerAndImport(t *testing.T) {
	if ownCacheDir == "" {
		t.Skip("CUABI_CACHE_DIR is the caller's: not clearing it")
	}
	options := &CompileOptions{Target: "sm_90", Defines: []string{"BUNDLE=1"}}
	m, err := CompileOffline(testSource, options)
	must(t, err)
	compiled, err := m.Info()
	must(t, err)
	m.Close()
	// Only this test's entry: the layer stays for the rest of the process.
	bundle := filepath.Join(t.TempDir(), "kernels.cuabibundle")
	entries, size, err := ExportCache(bundle, compiled.CacheKey)
	must(t, err)
	if entries != 1 || size == 0 {
		t.Fatalf("ExportCache wrote %d entries, %d bytes", entries, size)
	}
	must(t, AddReadOnlyCacheLayer(bundle))
	_, _, err = ClearCache()
	must(t, err)
	m, err = CompileOffline(testSource, options)
	must(t, err)
	info, err := m.Info()
	must(t, err)
	m.Close()
	if info.Origin != OriginReadonlyCache {
		t.Errorf("after clearing, the compile came from origin %d, want the read-only layer", info.Origin)
	}
	stats, err := ReadCacheStats()
	must(t, err)
	if stats.ReadOnlyLayers != 1 || stats.ReadOnlyHits == 0 {
		t.Errorf("ReadCacheStats = %+v", stats)
	}
	imported, refused, err := ImportCache(bundle)
	must(t, err)
	if imported != entries || refused != 0 {
		t.Errorf("ImportCache = %d imported, %d refused; exported %d", imported, refused, entries)
	}
	garbage := filepath.Join(t.TempDir(), "garbage")
	must(t, os.WriteFile(garbage, make([]byte, 4096), 0o600))
	if _, _, err := ImportCache(garbage); !errors.Is(err, ErrCacheIO) {
		t.Errorf("ImportCache(garbage) = %v, want ErrCacheIO", err)
	}
	if err := AddReadOnlyCacheLayer("relative/path"); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("AddReadOnlyCacheLayer(relative) = %v, want ErrInvalidArgument", err)
	}
}

// remoteChildEnv marks the child process of TestRemoteTierStats: the remote tier is configured
// once per process, from the environment it starts with.
const remoteChildEnv = "CUABI_GO_TEST_REMOTE_CHILD"

func TestRemoteTierStats(t *testing.T) {
	if os.Getenv(remoteChildEnv) != "" {
		t.Skip("the child runs TestRemoteTierStatsChild only")
	}
	stats, err := ReadCacheStats()
	must(t, err)
	if stats.RemoteConfigured || stats.RemoteBreakerOpen || stats.RemoteHits != 0 || stats.RemoteErrors != 0 {
		t.Errorf("no CUABI_CACHE_REMOTE, yet ReadCacheStats = %+v", stats)
	}
	child := exec.Command(os.Args[0], "-test.run=^TestRemoteTierStatsChild$", "-test.v")
	child.Env = append(os.Environ(), remoteChildEnv+"=1", "CUABI_CACHE_REMOTE=rediss://127.0.0.1:1")
	output, err := child.CombinedOutput()
	if err != nil || !strings.Contains(string(output), "--- PASS: TestRemoteTierStatsChild") {
		t.Errorf("the child with a remote failed (%v):\n%s", err, output)
	}
}

// A remote whose every operation is skipped (TLS is refused at configuration, no network needed):
// the compile goes on locally and the statistics say so.
func TestRemoteTierStatsChild(t *testing.T) {
	if os.Getenv(remoteChildEnv) == "" {
		t.Skip("run by TestRemoteTierStats in a child process")
	}
	m, err := CompileOffline(testSource, &CompileOptions{Target: "sm_90", Defines: []string{fmt.Sprintf("REMOTE_CHILD=%d", os.Getpid())}})
	must(t, err)
	m.Close()
	stats, err := ReadCacheStats()
	must(t, err)
	if !stats.RemoteConfigured || stats.RemoteErrors == 0 || stats.RemoteHits != 0 || stats.RemotePublishes != 0 {
		t.Errorf("ReadCacheStats with a refused remote = %+v", stats)
	}
}
