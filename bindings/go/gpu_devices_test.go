package cuabi

import (
	"os"
	"strings"
	"testing"
)

// 1.2's several GPUs and tensor maps on real devices: a TMA copy kernel reads the tile a
// TensorMap describes (zeros past the tensor's edge), and a copy between two devices is refused
// without peer access naming both, staged on request, and direct once enabled. The two-device
// test skips on one device.

// tmaSource returns the tensor-map kernels that the C suite and every binding compile alike
// (tests/gpu/kernels/tma_copy.cu), read from the repository: the tests run in bindings/go.
func tmaSource(t *testing.T) string {
	t.Helper()
	text, err := os.ReadFile("../../tests/gpu/kernels/tma_copy.cu")
	must(t, err)
	return string(text)
}

func TestGPUATMAKernelCopiesTheTileATensorMapDescribes(t *testing.T) {
	ctx := gpu(t)
	info, err := ctx.DeviceInfo()
	must(t, err)
	if info.ComputeCapability.Major < 9 {
		t.Skipf("tensor maps need compute capability 9.0; device 0 is %v", info.ComputeCapability)
	}
	const width, height = 64, 32
	values := make([]float32, width*height)
	for i := range values {
		values[i] = float32(i/width*1000 + i%width)
	}
	tensor, err := NewBufferFrom(ctx, values)
	must(t, err)
	defer tensor.Close()
	params := validTensorMapParams()
	m, err := NewTensorMap(tensor, &params)
	must(t, err)
	module, err := ctx.Compile(tmaSource(t), nil)
	must(t, err)
	defer module.Close()
	kernel, err := module.Kernel("copy_tile")
	must(t, err)
	defer kernel.Close()
	out, err := ctx.NewBuffer(8*32*4, nil)
	must(t, err)
	defer out.Close()
	for _, at := range [][2]int32{{32, 16}, {48, 28}} {
		must(t, kernel.Launch(LaunchConfig{Grid: Dim3{1, 1, 1}, Block: Dim3{128, 1, 1}}, m, out, at[0], at[1]))
		tile := make([]float32, 8*32)
		must(t, ReadSlice(out, 0, tile))
		for y := 0; y < 8; y++ {
			for x := 0; x < 32; x++ {
				gx, gy := int(at[0])+x, int(at[1])+y
				want := float32(0)
				if gx < width && gy < height {
					want = float32(gy*1000 + gx)
				}
				if got := tile[y*32+x]; got != want {
					t.Fatalf("element (%d, %d) of the tile at %v: %v, want %v", x, y, at, got, want)
				}
			}
		}
	}
	params.GlobalDims[1] = height + 1
	_, err = NewTensorMap(tensor, &params)
	wantStatus(t, err, ErrOutOfBounds, "spans 8448 bytes")
}

func TestGPUCopiesBetweenTwoDevicesNeedPeerAccessOrStaging(t *testing.T) {
	first := gpu(t)
	count, err := DeviceCount()
	must(t, err)
	if count < 2 {
		t.Skipf("needs two devices; this machine has %d", count)
	}
	second, err := NewContext(&ContextOptions{Device: 1})
	must(t, err)
	defer second.Close()
	data := make([]uint32, 4096)
	for i := range data {
		data[i] = uint32(i) * 2654435761
	}
	source, err := NewBufferFrom(first, data)
	must(t, err)
	defer source.Close()
	target, err := second.NewBuffer(len(data)*4, nil)
	must(t, err)
	defer target.Close()
	must(t, second.DisablePeerAccess(first))
	e := wantStatus(t, target.CopyPeer(nil, 0, source, 0, len(data)*4, PeerCopyDefault), ErrContextMismatch,
		"device 0 (", "device 1 (")
	if !strings.Contains(e.Message, "EnablePeerAccess") && !strings.Contains(e.Message, "enable_peer_access") {
		t.Errorf("the refusal does not say how to enable peer access: %s", e.Message)
	}
	check := func() {
		got := make([]uint32, len(data))
		must(t, ReadSlice(target, 0, got))
		for i := range got {
			if got[i] != data[i] {
				t.Fatalf("word %d: %#x, want %#x", i, got[i], data[i])
			}
		}
	}
	must(t, target.CopyPeer(nil, 0, source, 0, len(data)*4, PeerCopyStaged))
	check()
	can, err := second.CanAccessPeer(first)
	must(t, err)
	if !can {
		return
	}
	must(t, target.FillBytes(nil, 0, 0, 4, len(data)))
	must(t, second.EnablePeerAccess(first))
	must(t, second.EnablePeerAccess(first))
	enabled, err := second.PeerAccessEnabled(first)
	must(t, err)
	if !enabled {
		t.Fatal("peer access is not reported enabled after EnablePeerAccess")
	}
	must(t, target.CopyPeer(nil, 0, source, 0, len(data)*4, PeerCopyDefault))
	check()
	must(t, second.DisablePeerAccess(first))
}
