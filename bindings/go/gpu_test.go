package cuabi

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unsafe"
)

// Tests that need a GPU: without one they skip, saying why (see gpu in main_test.go).

func TestGPUDeviceInfo(t *testing.T) {
	ctx := gpu(t)
	info, err := ctx.DeviceInfo()
	must(t, err)
	if info.Name == "" || !info.ComputeCapability.AtLeast(7, 5) || info.MultiprocessorCount <= 0 || info.WarpSize != 32 ||
		info.MaxThreadsPerBlock < 256 || info.TotalMemoryBytes == 0 || info.MaxGridDim[0] <= 0 || info.MaxBlockDim[0] <= 0 {
		t.Errorf("DeviceInfo = %+v", info)
	}
	queried, err := QueryDevice(info.Ordinal)
	must(t, err)
	if queried != info {
		t.Errorf("QueryDevice = %+v\ncontext's  = %+v", queried, info)
	}
	count, err := DeviceCount()
	must(t, err)
	if count < 1 {
		t.Errorf("DeviceCount = %d", count)
	}
	_, err = QueryDevice(count)
	wantStatus(t, err, ErrInvalidDevice)
	_, err = NewContext(&ContextOptions{Device: count})
	wantStatus(t, err, ErrInvalidDevice)
	version, err := DriverVersion()
	must(t, err)
	if version < 12000 {
		t.Errorf("DriverVersion = %d", version)
	}
	native, err := ctx.Native()
	must(t, err)
	if native == nil {
		t.Error("Context.Native is nil")
	}
	must(t, ctx.Synchronize())
}

func TestGPUBuffersRoundTrip(t *testing.T) {
	ctx := gpu(t)
	const n = 1 << 20
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(i)
	}
	b := deviceSlice(t, ctx, xs)
	if b.Size() != 4*n || b.Address() == 0 {
		t.Fatalf("Size %d Address %#x", b.Size(), b.Address())
	}
	checkFloats(t, "b", b, xs)

	must(t, WriteSlice(b, 10, []float32{-1, -2}))
	window := make([]float32, 4)
	must(t, ReadSlice(b, 9, window))
	if window[0] != 9 || window[1] != -1 || window[2] != -2 || window[3] != 12 {
		t.Errorf("elements 9..12 = %v", window)
	}
	wantStatus(t, ReadSlice(b, n-1, make([]float32, 2)), ErrOutOfBounds)
	wantStatus(t, WriteSlice(b, -1, []float32{1}), ErrOutOfBounds)
	wantStatus(t, b.Read(-4, make([]byte, 4)), ErrOutOfBounds)

	must(t, Fill(b, nil, 0, 16, float32(3.5)))
	must(t, ReadSlice(b, 14, window))
	if window[0] != 3.5 || window[1] != 3.5 || window[2] != 16 {
		t.Errorf("after Fill, elements 14..17 = %v", window)
	}
	wantStatus(t, b.FillBytes(nil, 0, 1, 3, 4), ErrInvalidArgument)

	zeroed, err := ctx.NewBuffer(4*n, &BufferOptions{Flags: BufferZero})
	must(t, err)
	defer zeroed.Close()
	head := make([]byte, 64)
	must(t, zeroed.Read(0, head))
	for _, v := range head {
		if v != 0 {
			t.Fatalf("a BufferZero buffer holds % x", head)
		}
	}
	must(t, zeroed.Copy(nil, 0, b, 0, 4*n))
	must(t, b.Copy(nil, 0, zeroed, 4, 8)) // non-overlapping, between buffers
	wantStatus(t, b.Copy(nil, 0, b, 4, 8), ErrInvalidArgument)
	must(t, zeroed.Write(0, []byte{1, 2, 3}))
	must(t, zeroed.Read(0, head[:3]))
	if head[0] != 1 || head[2] != 3 {
		t.Errorf("bytes read back % x", head[:3])
	}

	ints := deviceSlice(t, ctx, []int64{-1, 1 << 40, 7})
	backInts := make([]int64, 3)
	must(t, ReadSlice(ints, 0, backInts))
	if backInts[1] != 1<<40 || backInts[0] != -1 {
		t.Errorf("int64 round trip %v", backInts)
	}

	_, err = ctx.NewBuffer(0, nil)
	wantStatus(t, err, ErrInvalidArgument)
	_, err = ctx.NewBuffer(-1, nil)
	wantStatus(t, err, ErrInvalidArgument)
	_, err = ctx.NewBuffer(16, &BufferOptions{Flags: 0x80})
	wantStatus(t, err, ErrInvalidArgument)

	held := make([]float32, 4)
	must(t, ReadSlice(b, 9, held))
	wrapped, err := ctx.WrapBuffer(b.Address(), b.Size())
	must(t, err)
	must(t, ReadSlice(wrapped, 9, window))
	for i := range held {
		if window[i] != held[i] {
			t.Fatalf("the wrapped buffer reads %v, the buffer %v", window, held)
		}
	}
	must(t, wrapped.Close())
	must(t, ReadSlice(b, 9, window)) // closing the wrapper leaves the memory to its owner
	_, err = ctx.WrapBuffer(b.Address()+4, b.Size())
	wantStatus(t, err, ErrOutOfBounds)

	must(t, b.Close())
	must(t, b.Close())
	wantStatus(t, ReadSlice(b, 0, window), ErrInvalidHandle)
	if b.Address() != 0 {
		t.Error("a closed buffer still reports its address")
	}
}

func TestGPUHostMemoryCopiesOnAStream(t *testing.T) {
	ctx := gpu(t)
	s, err := ctx.NewStream(&StreamOptions{Priority: -1})
	must(t, err)
	defer s.Close()
	host, err := NewHostMemory(4096)
	must(t, err)
	values := HostSlice[float32](host)
	if len(values) != 1024 {
		t.Fatalf("HostSlice has %d floats", len(values))
	}
	for i := range values {
		values[i] = float32(i) * 3
	}
	b, err := ctx.NewBuffer(4096, nil)
	must(t, err)
	defer b.Close()
	must(t, b.WriteAsync(s, 0, host, 0, 4096))
	must(t, s.Synchronize())
	for i := range values {
		values[i] = 0
	}
	must(t, b.ReadAsync(s, 0, host, 0, 4096))
	must(t, s.Synchronize())
	if done, err := s.Query(); err != nil || !done {
		t.Errorf("Query after Synchronize = %v, %v", done, err)
	}
	for i := range values {
		if values[i] != float32(i)*3 {
			t.Fatalf("values[%d] = %v", i, values[i])
		}
	}
	wantStatus(t, b.WriteAsync(s, 0, host, 4000, 200), ErrOutOfBounds)
	must(t, host.Close())
	must(t, host.Close())
	if host.Bytes() != nil {
		t.Error("a closed HostMemory still has bytes")
	}
	wantStatus(t, b.WriteAsync(s, 0, host, 0, 4), ErrInvalidHandle)
}

func TestGPULaunchFormsAgree(t *testing.T) {
	f := newSaxpyFixture(t, 1<<20)
	cfg, n := f.config(), uint32(f.n)
	must(t, f.saxpy.LaunchTable(cfg, float32(2), f.x, f.y, n))
	f.expectSaxpy(2)
	f.checkY(t)
	must(t, f.saxpy.Launch(cfg, float32(2), f.x.Address(), f.y, n))
	f.expectSaxpy(2)
	f.checkY(t)
	count, err := f.saxpy.ParamCount()
	must(t, err)
	if count != 4 {
		t.Fatalf("ParamCount = %d", count)
	}
	must(t, f.saxpy.LaunchPacked(cfg, packSaxpy(t, f.saxpy, 1, f.x.Address(), f.y.Address(), n)))
	f.expectSaxpy(1)
	f.checkY(t)
	_, _, err = f.saxpy.ParamInfo(4)
	wantStatus(t, err, ErrOutOfBounds)

	// Synchronous launches: the result is there when the call returns.
	blocking := cfg
	blocking.Stream = nil
	must(t, f.saxpy.Launch(blocking, float32(1), f.x, f.y, n))
	f.expectSaxpy(1)
	checkFloats(t, "y", f.y, f.want)
	blocking.Stream, blocking.Flags = f.stream, LaunchSynchronize
	must(t, f.saxpy.Launch(blocking, float32(1), f.x, f.y, n))
	f.expectSaxpy(1)
	checkFloats(t, "y", f.y, f.want)
}

func TestGPULaunchChecksRefuseBeforeRunning(t *testing.T) {
	f := newSaxpyFixture(t, 4096)
	cfg, n := f.config(), uint32(f.n)
	bad := cfg
	bad.Block = Dim3{X: 1024, Y: 2, Z: 1}
	wantStatus(t, f.saxpy.Launch(bad, float32(2), f.x, f.y, n), ErrLaunchBlock, "2048")
	wantStatus(t, f.saxpy.LaunchTable(bad, float32(2), f.x, f.y, n), ErrLaunchBlock, "2048")
	wantStatus(t, f.saxpy.LaunchTable(cfg, float64(2), f.x, f.y, n), ErrArgumentSize, "parameter 0")
	wantStatus(t, f.saxpy.Launch(cfg, float64(2), f.x, f.y, n), ErrArgumentSize, "parameter 0")
	wantStatus(t, f.saxpy.Launch(cfg, float32(2), f.x, f.y), ErrArgumentCount)
	wantStatus(t, f.saxpy.LaunchTable(cfg, float32(2), f.x, f.y), ErrArgumentCount)
	wantStatus(t, f.saxpy.LaunchPacked(cfg, make([]byte, 10)), ErrArgumentSize)
	wantStatus(t, f.saxpy.Launch(cfg, float32(2), f.x, f.y, f.n), ErrInvalidArgument, "Go int")
	zero := cfg
	zero.Grid = Dim3{}
	wantStatus(t, f.saxpy.Launch(zero, float32(2), f.x, f.y, n), ErrLaunchGrid)
	closed, err := f.ctx.NewStream(nil)
	must(t, err)
	closed.Close()
	onClosed := cfg
	onClosed.Stream = closed
	wantStatus(t, f.saxpy.Launch(onClosed, float32(2), f.x, f.y, n), ErrInvalidHandle, "cuabi.Stream")
	f.checkY(t) // nothing ran
}

func TestGPUTemplateKernelsByExpression(t *testing.T) {
	f := newSaxpyFixture(t, 1<<16)
	if f.scale.Name() != "scale<float>" {
		t.Errorf("Name = %q", f.scale.Name())
	}
	must(t, f.scale.Launch(f.config(), f.y, float32(0.5), uint32(f.n)))
	for i := range f.want {
		f.want[i] *= 0.5
	}
	f.checkY(t)
	double, err := f.module.Kernel("scale<double>")
	must(t, err)
	defer double.Close()
	ds := make([]float64, f.n)
	for i := range ds {
		ds[i] = float64(i)
	}
	b := deviceSlice(t, f.ctx, ds)
	must(t, double.Launch(f.config(), b, float64(2), uint32(f.n)))
	must(t, f.stream.Synchronize())
	must(t, ReadSlice(b, 0, ds))
	for i, v := range ds {
		if v != 2*float64(i) {
			t.Fatalf("ds[%d] = %v", i, v)
		}
	}
	_, err = f.module.Kernel("scale<int>")
	wantStatus(t, err, ErrKernelNotFound)
}

// A struct parameter is passed as its bytes; a Go struct of the same field types has C's layout.
func TestGPUStructArgument(t *testing.T) {
	ctx := gpu(t)
	module, err := ctx.Compile(`struct Affine { float a; unsigned n; double b; };
extern "C" __global__ void affine(Affine p, float* y) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) y[i] = p.a * y[i] + (float)p.b;
}
`, nil)
	must(t, err)
	defer module.Close()
	k, err := module.Kernel("affine")
	must(t, err)
	defer k.Close()
	type affine struct {
		A float32
		N uint32
		B float64
	}
	p := affine{A: 2, N: 1000, B: 0.5}
	raw := unsafe.Slice((*byte)(unsafe.Pointer(&p)), unsafe.Sizeof(p))
	if _, size, err := k.ParamInfo(0); err != nil || size != len(raw) {
		t.Fatalf("parameter 0: %d bytes (%v), the Go struct %d", size, err, len(raw))
	}
	ys := make([]float32, 1024)
	for i := range ys {
		ys[i] = 1
	}
	y := deviceSlice(t, ctx, ys)
	must(t, k.Launch(LaunchConfig{Grid: Dim3{X: 4}, Block: Dim3{X: 256}}, raw, y))
	must(t, ReadSlice(y, 0, ys))
	for i, v := range ys {
		want := float32(1)
		if i < 1000 {
			want = 2.5
		}
		if v != want {
			t.Fatalf("y[%d] = %v, want %v", i, v, want)
		}
	}
	wantStatus(t, k.Launch(LaunchConfig{Grid: Dim3{X: 4}, Block: Dim3{X: 256}}, raw[:8], y), ErrArgumentSize, "parameter 0")
}

// A launch through the package allocates nothing once the kernel's layout is known, and neither
// does a graph replay.
func TestGPULaunchAllocatesNothing(t *testing.T) {
	f := newSaxpyFixture(t, 256)
	cfg := LaunchConfig{Grid: Dim3{X: 1}, Block: Dim3{X: 256}, Stream: f.stream}
	a, n, x := float32(1), uint32(f.n), f.x.Address()
	launches := 0
	launch := func() {
		if err := f.saxpy.Launch(cfg, a, x, f.y, n); err != nil {
			t.Fatal(err)
		}
		launches++
	}
	launch()
	if allocs := testing.AllocsPerRun(1000, launch); allocs != 0 {
		t.Errorf("Kernel.Launch allocates %v times per launch", allocs)
	}
	g, err := f.stream.Capture(CaptureThreadLocal, func() error { return f.saxpy.Launch(cfg, a, x, f.y, n) })
	must(t, err)
	defer g.Close()
	replay := func() {
		if err := g.Launch(f.stream); err != nil {
			t.Fatal(err)
		}
		launches++
	}
	if allocs := testing.AllocsPerRun(1000, replay); allocs != 0 {
		t.Errorf("Graph.Launch allocates %v times per replay", allocs)
	}
	for i := 0; i < launches; i++ {
		f.expectSaxpy(1)
	}
	f.checkY(t)
}

func TestGPUCountersCountLaunches(t *testing.T) {
	f := newSaxpyFixture(t, 1024)
	before, err := f.ctx.Counters()
	must(t, err)
	for i := 0; i < 3; i++ {
		must(t, f.saxpy.Launch(f.config(), float32(1), f.x, f.y, uint32(f.n)))
	}
	for i := 0; i < 2; i++ {
		must(t, f.saxpy.LaunchTable(f.config(), float32(1), f.x, f.y, uint32(f.n)))
	}
	must(t, f.stream.Synchronize())
	after, err := f.ctx.Counters()
	must(t, err)
	if after.Launches-before.Launches != 5 || after.LaunchesPacked-before.LaunchesPacked != 3 ||
		after.Synchronizations <= before.Synchronizations {
		t.Errorf("counters before %+v\nafter %+v", before, after)
	}
}

func TestGPUKernelAttributesAndOccupancy(t *testing.T) {
	f := newSaxpyFixture(t, 256)
	info, err := f.ctx.DeviceInfo()
	must(t, err)
	attrs, err := f.saxpy.Attributes()
	must(t, err)
	cc := info.ComputeCapability
	if attrs.MaxThreadsPerBlock < 256 || attrs.RegistersPerThread <= 0 || attrs.BinaryVersion != cc.Major*10+cc.Minor {
		t.Errorf("Attributes = %+v on sm_%d%d", attrs, cc.Major, cc.Minor)
	}
	blocks, err := f.saxpy.MaxActiveBlocksPerSM(256, 0)
	must(t, err)
	if blocks < 1 {
		t.Errorf("MaxActiveBlocksPerSM(256) = %d", blocks)
	}
	threads, grid, err := f.saxpy.SuggestBlockSize(0)
	must(t, err)
	if threads < 32 || threads > attrs.MaxThreadsPerBlock || grid < 1 {
		t.Errorf("SuggestBlockSize = %d threads, %d blocks", threads, grid)
	}
	_, err = f.saxpy.MaxActiveBlocksPerSM(info.MaxThreadsPerBlock*2, 0)
	if !errors.Is(err, ErrLaunchBlock) && !errors.Is(err, ErrLaunchKernelThreads) {
		t.Errorf("MaxActiveBlocksPerSM(too many threads) = %v", err)
	}
	_, err = f.saxpy.MaxActiveBlocksPerSM(-1, 0)
	wantStatus(t, err, ErrInvalidArgument)
	native, err := f.saxpy.Native()
	must(t, err)
	if native == nil {
		t.Error("Kernel.Native is nil")
	}
}

func TestGPUEventsTimeWork(t *testing.T) {
	f := newSaxpyFixture(t, 1<<20)
	start, err := f.ctx.NewEvent(nil)
	must(t, err)
	defer start.Close()
	end, err := f.ctx.NewEvent(&EventOptions{Flags: EventBlockingSync})
	must(t, err)
	defer end.Close()
	must(t, start.Record(f.stream))
	for i := 0; i < 10; i++ {
		must(t, f.saxpy.Launch(f.config(), float32(1), f.x, f.y, uint32(f.n)))
	}
	must(t, end.Record(f.stream))
	must(t, end.Synchronize())
	if done, err := end.Query(); err != nil || !done {
		t.Errorf("Query after Synchronize = %v, %v", done, err)
	}
	elapsed, err := ElapsedTime(start, end)
	must(t, err)
	if elapsed <= 0 {
		t.Errorf("ElapsedTime = %v for 10 launches over a million elements", elapsed)
	}
	other, err := f.ctx.NewStream(nil)
	must(t, err)
	defer other.Close()
	must(t, other.WaitEvent(end))

	untimed, err := f.ctx.NewEvent(&EventOptions{Flags: EventDisableTiming})
	must(t, err)
	defer untimed.Close()
	must(t, untimed.Record(nil))
	must(t, untimed.Synchronize())
	_, err = ElapsedTime(start, untimed)
	wantStatus(t, err, ErrInvalidArgument)
	never, err := f.ctx.NewEvent(nil)
	must(t, err)
	defer never.Close()
	_, err = ElapsedTime(start, never)
	wantStatus(t, err, ErrInvalidArgument)
	_, err = f.ctx.NewEvent(&EventOptions{Flags: 0x80})
	wantStatus(t, err, ErrInvalidArgument)
}

func TestGPUWrappedStream(t *testing.T) {
	f := newSaxpyFixture(t, 4096)
	native, err := f.stream.Native()
	must(t, err)
	wrapped, err := f.ctx.WrapStream(native)
	must(t, err)
	cfg := f.config()
	cfg.Stream = wrapped
	must(t, f.saxpy.Launch(cfg, float32(2), f.x, f.y, uint32(f.n)))
	must(t, wrapped.Synchronize())
	must(t, wrapped.Close())
	f.expectSaxpy(2)
	f.checkY(t) // the owner's stream still works after the wrapper is closed
	_, err = f.ctx.WrapStream(nil)
	wantStatus(t, err, ErrInvalidArgument)
}

// Objects keep what they need alive in the library: closing the context, then the module, leaves
// the kernel, stream and buffers working; every second Close is harmless.
func TestGPUCloseInAnyOrder(t *testing.T) {
	f := newSaxpyFixture(t, 4096)
	must(t, f.ctx.Close())
	must(t, f.module.Close())
	must(t, f.saxpy.Launch(f.config(), float32(2), f.x, f.y, uint32(f.n)))
	f.expectSaxpy(2)
	f.checkY(t)
	for _, c := range []interface{ Close() error }{f.ctx, f.module, f.saxpy, f.scale, f.stream, f.x, f.y, f.ctx, f.x} {
		must(t, c.Close())
	}
	wantStatus(t, f.saxpy.Launch(f.config(), float32(2), f.x, f.y, uint32(f.n)), ErrInvalidHandle)
}

// Goroutines launch at once, each on its own stream and buffers, and those whose launches fail get
// their own messages.
func TestGPUGoroutinesLaunchConcurrently(t *testing.T) {
	f := newSaxpyFixture(t, 1)
	const workers, launches, n = 8, 1000, 1 << 14
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			errs <- launchRepeatedly(f, w, launches, n)
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func launchRepeatedly(f *saxpyFixture, w, launches, n int) error {
	s, err := f.ctx.NewStream(nil)
	if err != nil {
		return err
	}
	defer s.Close()
	ones, zeros := make([]float32, n), make([]float32, n)
	for i := range ones {
		ones[i] = 1
	}
	x, err := NewBufferFrom(f.ctx, ones)
	if err != nil {
		return err
	}
	defer x.Close()
	y, err := NewBufferFrom(f.ctx, zeros)
	if err != nil {
		return err
	}
	defer y.Close()
	cfg := LaunchConfig{Grid: Dim3{X: uint32(n / 256)}, Block: Dim3{X: 256}, Stream: s}
	bad := cfg
	bad.Block = Dim3{X: 1024, Y: uint32(w + 2)}
	for i := 0; i < launches; i++ {
		if err := f.saxpy.Launch(cfg, float32(1), x, y, uint32(n)); err != nil {
			return err
		}
		if i%100 == 0 {
			threads := fmt.Sprint(1024 * (w + 2))
			if err := f.saxpy.Launch(bad, float32(1), x, y, uint32(n)); !errors.Is(err, ErrLaunchBlock) ||
				!strings.Contains(err.Error(), threads) {
				return fmt.Errorf("goroutine %d: want its own ErrLaunchBlock naming %s threads, got %v", w, threads, err)
			}
		}
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	if err := ReadSlice(y, 0, zeros); err != nil {
		return err
	}
	for i, v := range zeros {
		if v != float32(launches) {
			return fmt.Errorf("goroutine %d: y[%d] = %v, want %d", w, i, v, launches)
		}
	}
	return nil
}

func TestGPULoadImageRoundTrip(t *testing.T) {
	f := newSaxpyFixture(t, 4096)
	image, err := f.module.Image()
	must(t, err)
	loaded, err := f.ctx.LoadImage(image)
	must(t, err)
	defer loaded.Close()
	info, err := loaded.Info()
	must(t, err)
	if info.Origin != OriginImage || !info.Loaded {
		t.Errorf("Info = %+v", info)
	}
	k, err := loaded.Kernel("saxpy")
	must(t, err)
	defer k.Close()
	must(t, k.Launch(f.config(), float32(2), f.x, f.y, uint32(f.n)))
	f.expectSaxpy(2)
	f.checkY(t)
	_, err = f.ctx.LoadImage([]byte("not an image at all"))
	wantStatus(t, err, ErrInvalidImage)
}
