package cuabi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What 1.1 added, checked where no GPU is needed: arguments refused by the package or the library.
func TestAttributeArgumentsAreChecked(t *testing.T) {
	_, err := DeviceAttribute(1<<40, 16)
	wantStatus(t, err, ErrInvalidDevice, "does not fit")
	_, err = DeviceAttribute(-1, 16)
	wantStatus(t, err, ErrInvalidDevice)
	_, err = DeviceAttribute(0, 0)
	wantStatus(t, err, ErrInvalidArgument, "attribute 0")

	var k *Kernel
	wantStatus(t, k.SetAttribute(AttributeCacheConfig, CachePreferShared), ErrInvalidHandle)
	_, err = k.MaxActiveClusters(LaunchConfig{Cluster: Dim3{X: 2}})
	wantStatus(t, err, ErrInvalidHandle)

	var m *Module
	_, err = m.Global("scale")
	wantStatus(t, err, ErrInvalidHandle)
}

func TestGlobalOfAnOfflineModuleIsUnsupported(t *testing.T) {
	module, err := CompileOffline("__constant__ float scale = 2.0f;\n"+
		"extern \"C\" __global__ void k(float* x) { x[0] *= scale; }\n", &CompileOptions{Target: "sm_90"})
	must(t, err)
	defer module.Close()
	_, err = module.Global("scale")
	wantStatus(t, err, ErrUnsupported, "compiled offline")
	_, err = module.Global("sc\x00ale")
	wantStatus(t, err, ErrInvalidArgument, "NUL")
}

func TestHostMemoryPinningArgumentsAreChecked(t *testing.T) {
	var c *Context
	_, err := c.NewPinnedHostMemory(64, 0)
	wantStatus(t, err, ErrInvalidHandle)
	host, err := NewHostMemory(64)
	must(t, err)
	if host.Pinned() {
		t.Error("NewHostMemory's memory reports itself pinned")
	}
	wantStatus(t, host.Pin(nil, 0), ErrInvalidHandle)
	_, err = host.DeviceAddress()
	wantStatus(t, err, ErrInvalidHandle, "pinned cuabi.HostMemory")
	must(t, host.Close())
	wantStatus(t, host.Pin(nil, 0), ErrInvalidHandle)
}

func TestGraphControlArgumentsAreChecked(t *testing.T) {
	var g *Graph
	wantStatus(t, g.SetNodeEnabled(0, false), ErrInvalidHandle)
	_, err := g.NodeEnabled(0)
	wantStatus(t, err, ErrInvalidHandle)
	wantStatus(t, g.WriteDOT(filepath.Join(t.TempDir(), "g.dot"), false), ErrInvalidHandle)
	_, err = g.DOT(true)
	wantStatus(t, err, ErrInvalidHandle)
	wantStatus(t, g.UpdateMemcpy(0, MemcpyEnd{}, MemcpyEnd{}, 0), ErrInvalidArgument, "not positive")
	wantStatus(t, g.UpdateMemcpy(0, MemcpyEnd{}, MemcpyEnd{}, 8), ErrInvalidArgument, "exactly one")
	wantStatus(t, g.SetNodeEnabled(-1, true), ErrOutOfBounds)
	if _, err := os.Stat(filepath.Join(t.TempDir(), "g.dot")); err == nil {
		t.Error("a refused WriteDOT wrote a file")
	}
}

// GPU: each 1.1 feature end to end.

const globalsSource = `
__constant__ float coefficients[4];
template <typename T> __device__ T table[8];
extern "C" __global__ void apply(float* x, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = coefficients[i % 4] * x[i] + table<float>[i % 8];
}
extern "C" __global__ void rank(unsigned* out) {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    if (threadIdx.x == 0) out[blockIdx.x] = r;
}
`

func TestGPUModuleGlobalsAndAttributes(t *testing.T) {
	ctx := gpu(t)
	major, err := DeviceAttribute(0, 75) // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
	must(t, err)
	info, err := ctx.DeviceInfo()
	must(t, err)
	if int(major) != info.ComputeCapability.Major {
		t.Errorf("DeviceAttribute(major) = %d, DeviceInfo says %d", major, info.ComputeCapability.Major)
	}
	module, err := ctx.Compile(globalsSource, &CompileOptions{NameExpressions: []string{"table<float>"}})
	must(t, err)
	defer module.Close()
	coefficients, err := module.Global("coefficients")
	must(t, err)
	defer coefficients.Close()
	table, err := module.Global("table<float>")
	must(t, err)
	defer table.Close()
	if coefficients.Size() != 16 || table.Size() != 32 {
		t.Fatalf("global sizes %d and %d, want 16 and 32", coefficients.Size(), table.Size())
	}
	must(t, WriteSlice(coefficients, 0, []float32{2, -1, 0.5, 4}))
	must(t, WriteSlice(table, 0, []float32{0, 1, 2, 3, 4, 5, 6, 7}))
	wantStatus(t, coefficients.Write(8, make([]byte, 16)), ErrOutOfBounds)
	_, err = module.Global("coefficent")
	wantStatus(t, err, ErrNotFound, "table<float>")

	apply, err := module.Kernel("apply")
	must(t, err)
	defer apply.Close()
	must(t, apply.SetAttribute(AttributeCacheConfig, CachePreferShared))
	must(t, apply.SetAttribute(AttributeSharedMemoryCarveout, 50))
	wantStatus(t, apply.SetAttribute(AttributeSharedMemoryCarveout, 101), ErrInvalidArgument)
	xs := make([]float32, 64)
	for i := range xs {
		xs[i] = float32(i)
	}
	x := deviceSlice(t, ctx, xs)
	must(t, apply.Launch(LaunchConfig{Grid: Dim3{X: 1}, Block: Dim3{X: 64}, Flags: LaunchPriority, Priority: -1},
		x, uint32(len(xs))))
	got := make([]float32, len(xs))
	must(t, ReadSlice(x, 0, got))
	factors := []float32{2, -1, 0.5, 4}
	for i := range got {
		if want := factors[i%4]*float32(i) + float32(i%8); got[i] != want {
			t.Fatalf("x[%d] = %v, want %v", i, got[i], want)
		}
	}

	if info.ComputeCapability.Major < 9 {
		t.Skipf("clusters need sm_90; the device is %s", info.ComputeCapability)
	}
	rank, err := module.Kernel("rank")
	must(t, err)
	defer rank.Close()
	clusters, err := rank.MaxActiveClusters(LaunchConfig{Block: Dim3{X: 32}, Cluster: Dim3{X: 2}})
	must(t, err)
	if clusters <= 0 {
		t.Errorf("MaxActiveClusters = %d for clusters of 2", clusters)
	}
	_, err = rank.MaxActiveClusters(LaunchConfig{Block: Dim3{X: 32}})
	wantStatus(t, err, ErrLaunchCluster)
	must(t, rank.SetAttribute(AttributeNonPortableClusterSize, 1))
	out, err := ctx.NewBuffer(16*4, nil)
	must(t, err)
	defer out.Close()
	must(t, rank.Launch(LaunchConfig{Grid: Dim3{X: 16}, Block: Dim3{X: 32}, Cluster: Dim3{X: 16}}, out))
	ranks := make([]uint32, 16)
	must(t, ReadSlice(out, 0, ranks))
	for i, r := range ranks {
		if r != uint32(i) {
			t.Fatalf("block %d has cluster rank %d", i, r)
		}
	}
}

func TestGPUPinnedHostMemory(t *testing.T) {
	ctx := gpu(t)
	s, err := ctx.NewStream(nil)
	must(t, err)
	defer s.Close()
	pinned, err := ctx.NewPinnedHostMemory(1<<20, HostMemoryDeviceMapped)
	must(t, err)
	defer pinned.Close()
	if !pinned.Pinned() {
		t.Fatal("NewPinnedHostMemory's memory is not pinned")
	}
	if address, err := pinned.DeviceAddress(); err != nil || address == 0 {
		t.Errorf("DeviceAddress = %#x, %v", address, err)
	}
	bytes := pinned.Bytes()
	for i := range bytes {
		bytes[i] = byte(i * 7)
	}
	b, err := ctx.NewBuffer(1<<20, nil)
	must(t, err)
	defer b.Close()
	must(t, b.WriteAsync(s, 0, pinned, 0, 1<<20))

	registered, err := NewHostMemory(1 << 20)
	must(t, err)
	must(t, registered.Pin(ctx, 0))
	wantStatus(t, registered.Pin(ctx, 0), ErrInvalidArgument, "already")
	_, err = registered.DeviceAddress()
	wantStatus(t, err, ErrUnsupported)
	must(t, b.ReadAsync(s, 0, registered, 0, 1<<20))
	must(t, s.Synchronize())
	for i, v := range registered.Bytes() {
		if v != byte(i*7) {
			t.Fatalf("byte %d = %d after the pinned round trip", i, v)
		}
	}
	must(t, registered.Close())
	must(t, pinned.Close())
	if pinned.Pinned() || pinned.Bytes() != nil {
		t.Error("a closed HostMemory is still pinned or has bytes")
	}
}

func TestGPUGraphControl(t *testing.T) {
	ctx := gpu(t)
	s, err := ctx.NewStream(nil)
	must(t, err)
	defer s.Close()
	src := deviceSlice(t, ctx, []uint32{1, 2, 3, 4})
	dst, err := ctx.NewBuffer(16, nil)
	must(t, err)
	defer dst.Close()
	other := deviceSlice(t, ctx, []uint32{9, 8, 7, 6})
	must(t, s.BeginCapture(CaptureRelaxed))
	must(t, dst.Copy(s, 0, src, 0, 16))
	g, err := s.EndCapture(nil)
	must(t, err)
	defer g.Close()

	must(t, g.UpdateMemcpy(0, MemcpyEnd{Buffer: dst}, MemcpyEnd{Buffer: other}, 16))
	must(t, g.Launch(s))
	must(t, s.Synchronize())
	got := make([]uint32, 4)
	must(t, ReadSlice(dst, 0, got))
	if got[0] != 9 || got[3] != 6 {
		t.Fatalf("after UpdateMemcpy the replay copied %v", got)
	}
	wantStatus(t, g.UpdateMemcpy(0, MemcpyEnd{Buffer: dst}, MemcpyEnd{Buffer: other, Offset: 4}, 16), ErrOutOfBounds)

	must(t, g.SetNodeEnabled(0, false))
	if on, err := g.NodeEnabled(0); err != nil || on {
		t.Errorf("NodeEnabled after turning it off = %v, %v", on, err)
	}
	must(t, dst.FillBytes(nil, 0, 0, 1, 16))
	must(t, g.Launch(s))
	must(t, s.Synchronize())
	must(t, ReadSlice(dst, 0, got))
	if got[0] != 0 {
		t.Errorf("a disabled node still copied: %v", got)
	}
	must(t, g.SetNodeEnabled(0, true))

	dot, err := g.DOT(false)
	must(t, err)
	if !strings.Contains(dot, "digraph") {
		t.Errorf("DOT text lacks 'digraph': %q", dot)
	}
	path := filepath.Join(t.TempDir(), "graph.dot")
	must(t, g.WriteDOT(path, true))
	written, err := os.ReadFile(path)
	must(t, err)
	if !strings.Contains(string(written), "digraph") || len(written) < len(dot) {
		t.Errorf("WriteDOT wrote %d bytes (DOT text has %d)", len(written), len(dot))
	}
}
