package cuabi

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

const (
	linkKernel = "extern \"C\" __device__ float twice(float x);\n" +
		"extern \"C\" __global__ void apply_twice(float* data, unsigned n) {\n" +
		"    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n" +
		"    if (i < n) data[i] = twice(data[i]);\n" +
		"}\n"
	linkDevice = "extern \"C\" __device__ float twice(float x) { return 2.0f * x; }\n"
)

func ltoIR(t *testing.T, source string) *Module {
	t.Helper()
	m, err := CompileOffline(source, &CompileOptions{Target: "sm_90", Flags: CompileLTOIR | CompileNoCache})
	must(t, err)
	t.Cleanup(func() { m.Close() })
	info, err := m.Info()
	must(t, err)
	if info.ImageKind != ImageLTOIR || info.Loaded {
		t.Fatalf("an LTO-IR compile gave %+v", info)
	}
	return m
}

func TestTwoLTOIRModulesLinkIntoACubinWhoseKernelsAreListed(t *testing.T) {
	kernel, device := ltoIR(t, linkKernel), ltoIR(t, linkDevice)
	linked, err := LinkOffline([]LinkInput{{Module: kernel}, {Module: device}},
		&LinkOptions{Target: "sm_90", Flags: LinkLTO | LinkNoCache})
	must(t, err)
	defer linked.Close()
	info, err := linked.Info()
	must(t, err)
	if info.ImageKind != ImageCUBIN || info.Target != "sm_90" {
		t.Errorf("Info = %+v", info)
	}
	names, err := linked.KernelNames()
	must(t, err)
	if len(names) != 1 || names[0] != "apply_twice" {
		t.Errorf("KernelNames = %q, want [apply_twice]", names)
	}
}

// uniqueSource is source with a variable of a name no run has used: on a machine with a driver,
// nvJitLink serves a link it made before from the driver's JIT cache (CUDA_CACHE_PATH) without
// linking again, and writes no info log then.
func uniqueSource(source string) string {
	return fmt.Sprintf("%s__device__ int link_nonce_%d_%d;\n", source, os.Getpid(), time.Now().UnixNano())
}

func TestLinkBytesNamesAndOptionsReachNvJitLink(t *testing.T) {
	kernel, device := ltoIR(t, linkKernel), ltoIR(t, uniqueSource(linkDevice))
	bytes, err := device.Image()
	must(t, err)
	level := 3
	linked, err := LinkOffline([]LinkInput{{Module: kernel}, {Kind: LinkInputLTOIR, Data: bytes, Name: "twice.ltoir"}},
		&LinkOptions{Target: "sm_90", Flags: LinkLTO | LinkNoCache | LinkInProcess, OptimizationLevel: &level,
			MaxRegisters: 64, ExtraOptions: []string{"-verbose"}})
	must(t, err)
	defer linked.Close()
	log, err := linked.Log()
	must(t, err)
	if log == "" {
		t.Error("-verbose gave no info log")
	}
	ptx, err := LinkOffline([]LinkInput{{Module: kernel}, {Module: device}},
		&LinkOptions{Target: "sm_90", Flags: LinkLTO | LinkPTX | LinkNoCache})
	must(t, err)
	defer ptx.Close()
	_, err = ptx.KernelNames()
	wantStatus(t, err, ErrUnsupported, "PTX")
}

func TestAnUndefinedSymbolIsALinkErrorWithTheLog(t *testing.T) {
	kernel := ltoIR(t, linkKernel)
	_, err := LinkOffline([]LinkInput{{Module: kernel}}, &LinkOptions{Target: "sm_90", Flags: LinkLTO | LinkNoCache})
	e := wantStatus(t, err, ErrLink)
	if !strings.Contains(e.Log, "twice") {
		t.Errorf("the log does not name the undefined symbol: %q", e.Log)
	}
}

func TestLinkInputsAreChecked(t *testing.T) {
	options := &LinkOptions{Target: "sm_90", Flags: LinkLTO | LinkNoCache}
	garbage := make([]byte, 64)
	for _, kind := range []LinkInputKind{LinkInputCUBIN, LinkInputPTX, LinkInputLTOIR, LinkInputFatbin, LinkInputObject, LinkInputLibrary} {
		_, err := LinkOffline([]LinkInput{{Kind: kind, Data: garbage}}, options)
		wantStatus(t, err, ErrInvalidImage)
	}
	_, err := LinkOffline([]LinkInput{{Kind: 99, Data: garbage}}, options)
	wantStatus(t, err, ErrInvalidArgument, "kind 99")
	_, err = LinkOffline([]LinkInput{{Kind: LinkInputLTOIR, Data: []byte{}}}, options)
	wantStatus(t, err, ErrInvalidArgument, "size of 0")
	_, err = LinkOffline([]LinkInput{{Kind: LinkInputFatbin, Path: "/nonexistent/x.fatbin"}}, options)
	wantStatus(t, err, ErrNotFound, "/nonexistent/x.fatbin")
	_, err = LinkOffline(nil, options)
	wantStatus(t, err, ErrInvalidArgument, "no inputs")
	_, err = LinkOffline([]LinkInput{{}}, options)
	wantStatus(t, err, ErrInvalidArgument, "sets 0 of module, data and path")
	kernel := ltoIR(t, linkKernel)
	_, err = LinkOffline([]LinkInput{{Module: kernel}}, &LinkOptions{Target: "sm_90"})
	wantStatus(t, err, ErrInvalidArgument, "CUABI_LINK_LTO")
	_, err = kernel.KernelNames()
	wantStatus(t, err, ErrUnsupported, "LTO-IR")
	closed := ltoIR(t, linkDevice)
	closed.Close()
	_, err = LinkOffline([]LinkInput{{Module: closed}}, options)
	if err == nil {
		t.Error("a closed module was linked")
	}
}

func TestRelocatableCompilesLinkWithoutLTO(t *testing.T) {
	compile := &CompileOptions{Target: "sm_90", Flags: CompileRelocatable | CompileNoCache}
	kernel, err := CompileOffline(linkKernel, compile)
	must(t, err)
	defer kernel.Close()
	device, err := CompileOffline(linkDevice, compile)
	must(t, err)
	defer device.Close()
	linked, err := LinkOffline([]LinkInput{{Module: kernel}, {Module: device}}, &LinkOptions{Target: "sm_90", Flags: LinkNoCache})
	must(t, err)
	defer linked.Close()
	names, err := linked.KernelNames()
	must(t, err)
	if len(names) != 1 || names[0] != "apply_twice" {
		t.Errorf("KernelNames = %q", names)
	}
}

func TestNVJitLinkReportsItsFileAndVersion(t *testing.T) {
	path, err := NVJitLinkPath()
	must(t, err)
	if !strings.Contains(path, "libnvJitLink.so") {
		t.Errorf("NVJitLinkPath = %q", path)
	}
	major, minor, err := NVJitLinkVersion()
	must(t, err)
	if major < 12 {
		t.Errorf("NVJitLinkVersion = %d.%d", major, minor)
	}
	if !strings.HasSuffix(path, ".so") && !strings.HasSuffix(path, fmt.Sprintf(".so.%d", major)) {
		t.Errorf("NVJitLinkPath %q is not nvJitLink %d", path, major)
	}
}
