package cuabi

import (
	"strings"
	"testing"
	"time"
)

func TestCompileErrorCarriesFixAndLog(t *testing.T) {
	_, err := CompileOffline("__global__ void broken( { }\n", &CompileOptions{Target: "sm_90", ProgramName: "broken.cu"})
	e := wantStatus(t, err, ErrCompile, "broken.cu")
	if !strings.Contains(e.Log, "error") || !strings.Contains(e.Log, "broken.cu") {
		t.Errorf("the log does not hold NVRTC's errors: %q", e.Log)
	}
}

func TestOfflineTemplatesLowerTheirNames(t *testing.T) {
	m, err := CompileOffline(testSource, &CompileOptions{Target: "sm_90", NameExpressions: testExpressions})
	must(t, err)
	defer m.Close()
	info, err := m.Info()
	must(t, err)
	if info.ImageKind != ImageCUBIN || info.ImageSize <= 0 || info.Loaded || info.Target != "sm_90" ||
		info.NameExpressionCount != 2 || len(info.CacheKey) != 32 {
		t.Errorf("Info = %+v", info)
	}
	image, err := m.Image()
	must(t, err)
	if len(image) != info.ImageSize || string(image[1:4]) != "ELF" {
		t.Errorf("Image: %d bytes starting %q, want the %d-byte CUBIN", len(image), image[:4], info.ImageSize)
	}
	for expression, want := range map[string]string{"scale<float>": "_Z5scaleIfEvPT_S0_j", "scale<double>": "_Z5scaleIdEvPT_S0_j"} {
		got, err := m.LoweredName(expression)
		must(t, err)
		if got != want {
			t.Errorf("LoweredName(%s) = %q, want %q", expression, got, want)
		}
	}
	_, err = m.LoweredName("scale<int>")
	wantStatus(t, err, ErrKernelNotFound, "scale<int>")
	_, err = m.Kernel("saxpy")
	wantStatus(t, err, ErrInvalidArgument) // an offline module has no kernels to launch
}

func TestIdenticalCompileIsAMemoryCacheHit(t *testing.T) {
	options := &CompileOptions{Target: "sm_90", NameExpressions: testExpressions, Defines: []string{"CACHE_TEST=1"}}
	first, err := CompileOffline(testSource, options)
	must(t, err)
	defer first.Close()
	second, err := CompileOffline(testSource, options)
	must(t, err)
	defer second.Close()
	a, _ := first.Info()
	b, err := second.Info()
	must(t, err)
	if b.Origin != OriginMemoryCache || a.CacheKey != b.CacheKey {
		t.Errorf("second compile: origin %v key %s, first key %s", b.Origin, b.CacheKey, a.CacheKey)
	}
	salted, err := CompileOffline(testSource, &CompileOptions{Target: "sm_90", NameExpressions: testExpressions,
		Defines: []string{"CACHE_TEST=1"}, Salt: []byte{1, 2, 3}})
	must(t, err)
	defer salted.Close()
	c, _ := salted.Info()
	if c.CacheKey == a.CacheKey {
		t.Error("the salt does not change the cache key")
	}
}

// CompileNoPch keeps precompiled headers out of one compile; the image does not depend on them, so
// neither does the cache key: the second compile is the first one's entry.
func TestCompileNoPchLeavesTheCacheKeyAlone(t *testing.T) {
	source := "#include <cuda/std/limits>\nextern \"C\" __global__ void pch_limits(int* out) { *out = cuda::std::numeric_limits<int>::max(); }\n"
	with, err := CompileOffline(source, &CompileOptions{Target: "sm_90"})
	must(t, err)
	defer with.Close()
	without, err := CompileOffline(source, &CompileOptions{Target: "sm_90", Flags: CompileNoPch})
	must(t, err)
	defer without.Close()
	a, _ := with.Info()
	b, _ := without.Info()
	if a.CacheKey != b.CacheKey || b.Origin != OriginMemoryCache {
		t.Errorf("with PCH %+v, without %+v: want one key, the second from memory", a, b)
	}
}

// Every string option reaches NVRTC: the source only compiles when each one arrived intact.
func TestCompileOptionsReachNVRTC(t *testing.T) {
	source := `#include "answer.cuh"
#if !defined(FROM_DEFINE) || ANSWER != 42 || FROM_DEFINE != 7
#error options did not arrive
#endif
extern "C" __global__ void k(int* out) { *out = ANSWER + FROM_DEFINE; }
`
	options := &CompileOptions{
		Target:      "compute_90",
		Flags:       CompilePTX | CompileNoCache,
		CPPStandard: "c++17",
		ProgramName: "options.cu",
		Defines:     []string{"FROM_DEFINE=7"},
		Headers:     []Header{{Name: "answer.cuh", Source: "#define ANSWER 42\n"}},
		ExtraFlags:  []string{"-lineinfo"},
		FTZ:         ToggleOn, PrecDiv: ToggleOff, PrecSqrt: ToggleOn, FMAD: ToggleOff,
		MaxRegisters: 64, LineInfo: true, Timeout: time.Minute,
	}
	m, err := CompileOffline(source, options)
	must(t, err)
	defer m.Close()
	info, err := m.Info()
	must(t, err)
	if info.ImageKind != ImagePTX || info.Origin != OriginCompiled {
		t.Errorf("Info = %+v, want freshly compiled PTX", info)
	}
	options.Defines = nil
	_, err = CompileOffline(source, options)
	e := wantStatus(t, err, ErrCompile)
	if !strings.Contains(e.Log, "options did not arrive") || !strings.Contains(e.Log, "options.cu") {
		t.Errorf("log = %q", e.Log)
	}
}

func TestCompileRefusesBadOptionsBeforeNVRTC(t *testing.T) {
	for name, options := range map[string]*CompileOptions{
		"NUL in a define":    {Target: "sm_90", Defines: []string{"A\x00B"}},
		"NUL in the target":  {Target: "sm_90\x00"},
		"unknown toggle":     {Target: "sm_90", FTZ: Toggle(9)},
		"negative timeout":   {Target: "sm_90", Timeout: -time.Second},
		"negative registers": {Target: "sm_90", MaxRegisters: -1},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := CompileOffline(testSource, options)
			wantStatus(t, err, ErrInvalidArgument)
		})
	}
	_, err := CompileOffline(testSource, &CompileOptions{Target: "sm_90", ExtraFlags: []string{"--no-such-flag"}})
	wantStatus(t, err, ErrInvalidArgument) // refused by NVRTC, reported by cuabi
	_, err = CompileOffline(testSource, nil)
	wantStatus(t, err, ErrInvalidArgument) // offline needs a target
}

func TestNVRTCInformation(t *testing.T) {
	major, minor, err := NVRTCVersion()
	must(t, err)
	if major < 12 || minor < 0 {
		t.Errorf("NVRTCVersion = %d.%d", major, minor)
	}
	archs, err := NVRTCSupportedArchs()
	must(t, err)
	if len(archs) == 0 || !containsInt(archs, 90) {
		t.Errorf("NVRTCSupportedArchs = %v, want a list with 90", archs)
	}
	for i := 1; i < len(archs); i++ {
		if archs[i] <= archs[i-1] {
			t.Errorf("archs not ascending: %v", archs)
		}
	}
	path, err := NVRTCPath()
	must(t, err)
	if !strings.Contains(path, "nvrtc") {
		t.Errorf("NVRTCPath = %q", path)
	}
	dirs, err := NVRTCIncludeDirs()
	must(t, err)
	for _, d := range dirs {
		if d == "" {
			t.Errorf("empty include directory in %q", dirs)
		}
	}
}

func containsInt(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
