package cuabi

import (
	"testing"
	"unsafe"
)

const memoryKernels = `
extern "C" __global__ void scale_add(float* out, const float* in, float a, float b, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * in[i] + b;
}`

func memoryKernel(t *testing.T, ctx *Context) *Kernel {
	t.Helper()
	m, err := ctx.Compile(memoryKernels, nil)
	must(t, err)
	t.Cleanup(func() { m.Close() })
	k, err := m.Kernel("scale_add")
	must(t, err)
	t.Cleanup(func() { k.Close() })
	return k
}

func TestGPUStreamOrderedBufferInAReplayedGraph(t *testing.T) {
	ctx := gpu(t)
	k := memoryKernel(t, ctx)
	s, err := ctx.NewStream(nil)
	must(t, err)
	defer s.Close()
	const n = 4096
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(i % 97)
	}
	input := deviceSlice(t, ctx, in)
	output := deviceSlice(t, ctx, make([]float32, n))
	config := LaunchConfig{Grid: Dim3{X: n / 256}, Block: Dim3{X: 256}, Stream: s}

	must(t, s.BeginCapture(CaptureThreadLocal))
	scratch, err := ctx.NewBufferAsync(n*4, nil, nil, s)
	must(t, err)
	must(t, k.Launch(config, scratch, input, float32(2), float32(1), uint32(n)))
	must(t, k.Launch(config, output, scratch, float32(1), float32(3), uint32(n)))
	must(t, scratch.FreeAsync(s))
	g, err := s.EndCapture(nil)
	must(t, err)
	defer g.Close()
	want := make([]float32, n)
	for i := range want {
		want[i] = 2*in[i] + 4
	}
	for round := 0; round < 3; round++ {
		must(t, output.FillBytes(nil, 0, 0, 4, n))
		must(t, g.Launch(s))
		must(t, s.Synchronize())
		checkFloats(t, "output", output, want)
	}
	_, err = scratch.HostBytes()
	wantStatus(t, err, ErrInvalidHandle)
}

func TestGPUMemoryPoolTrimShowsInItsAttributes(t *testing.T) {
	ctx := gpu(t)
	pool, err := ctx.NewMemoryPool(&MemoryPoolOptions{ReleaseThreshold: 64 << 20})
	must(t, err)
	defer pool.Close()
	threshold, err := pool.Attribute(PoolReleaseThreshold)
	must(t, err)
	if threshold != 64<<20 {
		t.Fatalf("release threshold %d, want %d", threshold, 64<<20)
	}
	s, err := ctx.NewStream(nil)
	must(t, err)
	defer s.Close()
	b, err := ctx.NewBufferAsync(32<<20, pool, &BufferOptions{Flags: BufferZero}, s)
	must(t, err)
	must(t, b.FreeAsync(s))
	must(t, s.Synchronize())
	reserved, err := pool.Attribute(PoolReservedCurrent)
	must(t, err)
	if reserved < 32<<20 {
		t.Fatalf("reserved %d after a free below the threshold, want at least %d", reserved, 32<<20)
	}
	must(t, pool.Trim(0))
	if reserved, _ = pool.Attribute(PoolReservedCurrent); reserved != 0 {
		t.Fatalf("reserved %d after Trim(0), want 0", reserved)
	}
	plain, err := ctx.NewBuffer(64, nil)
	must(t, err)
	defer plain.Close()
	wantStatus(t, plain.FreeAsync(nil), ErrInvalidArgument, "not allocated in stream order")
	if plain.Address() == 0 {
		t.Error("a refused FreeAsync closed the buffer")
	}
}

func TestGPUManagedBufferPrefetchAndAdvice(t *testing.T) {
	ctx := gpu(t)
	k := memoryKernel(t, ctx)
	s, err := ctx.NewStream(nil)
	must(t, err)
	defer s.Close()
	const n = 4096
	data, err := ctx.NewManagedBuffer(n*4, ManagedDefault)
	must(t, err)
	defer data.Close()
	host, err := data.HostBytes()
	must(t, err)
	values := unsafe.Slice((*float32)(unsafe.Pointer(&host[0])), n)
	for i := range values {
		values[i] = float32(i)
	}
	must(t, data.Advise(0, n*4, AdviceSetPreferredLocation, 0))
	must(t, data.Prefetch(s, 0, n*4, 0))
	must(t, k.Launch(LaunchConfig{Grid: Dim3{X: n / 256}, Block: Dim3{X: 256}, Stream: s}, data, data, float32(3), float32(1), uint32(n)))
	must(t, data.Prefetch(s, 0, n*4, LocationHost))
	must(t, s.Synchronize())
	for i, v := range values {
		if v != 3*float32(i)+1 {
			t.Fatalf("element %d is %v, want %v", i, v, 3*float32(i)+1)
		}
	}
	wantStatus(t, data.Prefetch(nil, n*4-4, 8, 0), ErrOutOfBounds)
	wantStatus(t, data.Advise(0, 64, AdviceSetAccessedBy, Location(4096)), ErrInvalidDevice)
}
