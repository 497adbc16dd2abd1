package cuabi

import (
	"errors"
	"testing"
)

// captureSaxpy captures `launches` saxpy launches with a on the fixture's stream.
func captureSaxpy(t *testing.T, f *saxpyFixture, launches int, a float32) *Graph {
	t.Helper()
	g, err := f.stream.Capture(CaptureThreadLocal, saxpyLaunches(f, launches, a))
	must(t, err)
	t.Cleanup(func() { g.Close() })
	return g
}

func saxpyLaunches(f *saxpyFixture, launches int, a float32) func() error {
	return func() error {
		for i := 0; i < launches; i++ {
			if err := f.saxpy.Launch(f.config(), a, f.x, f.y, uint32(f.n)); err != nil {
				return err
			}
		}
		return nil
	}
}

func TestGPUGraphCaptureInventoryReplayAndNodeUpdates(t *testing.T) {
	f := newSaxpyFixture(t, 1<<20)
	n := uint32(f.n)
	g := captureSaxpy(t, f, 8, 1)
	f.checkY(t) // captured, not run

	count, err := g.NodeCount()
	must(t, err)
	if count != 8 {
		t.Fatalf("NodeCount = %d, want 8", count)
	}
	lastOffset, lastSize, err := f.saxpy.ParamInfo(3)
	must(t, err)
	for i := 0; i < count; i++ {
		node, err := g.Node(i)
		must(t, err)
		if node.Kind != NodeKernel || node.Grid != (Dim3{4096, 1, 1}) || node.Block != (Dim3{256, 1, 1}) ||
			node.ParamCount != 4 || node.ParamBytes != lastOffset+lastSize || node.Kernel == nil || node.Kernel.Name() != "saxpy" {
			t.Errorf("node %d = %+v", i, node)
		}
	}
	name, err := g.NodeKernelName(0)
	must(t, err)
	if name != "saxpy" {
		t.Errorf("NodeKernelName = %q", name)
	}
	nodeOffset, nodeSize, err := g.NodeParamInfo(0, 1)
	must(t, err)
	kernelOffset, kernelSize, err := f.saxpy.ParamInfo(1)
	must(t, err)
	if nodeOffset != kernelOffset || nodeSize != kernelSize {
		t.Errorf("NodeParamInfo(0, 1) = %d, %d; the kernel's %d, %d", nodeOffset, nodeSize, kernelOffset, kernelSize)
	}
	_, err = g.Node(8)
	wantStatus(t, err, ErrGraphNode)

	must(t, g.Upload(f.stream))
	must(t, g.Launch(f.stream))
	for i := 0; i < 8; i++ {
		f.expectSaxpy(1)
	}
	f.checkY(t)

	// Node 0 now works on a second pair of buffers.
	ones, zeros := make([]float32, f.n), make([]float32, f.n)
	for i := range ones {
		ones[i] = 1
	}
	x2, y2 := deviceSlice(t, f.ctx, ones), deviceSlice(t, f.ctx, zeros)
	must(t, g.UpdateKernelArgs(0, float32(1), x2, y2, n))
	must(t, g.Launch(f.stream))
	for i := 0; i < 7; i++ {
		f.expectSaxpy(1)
	}
	f.checkY(t)
	checkFloats(t, "y2", y2, ones)
	wantStatus(t, g.UpdateKernelArgs(0, float64(1), x2, y2, n), ErrArgumentSize, "parameter 0")
	wantStatus(t, g.UpdateKernelArgs(99, float32(1), x2, y2, n), ErrGraphNode)

	// Node 1 gets a = 2 through packed bytes; node 2 shrinks to one thread (element 0 only).
	node1, err := g.Node(1)
	must(t, err)
	packed := packSaxpy(t, f.saxpy, 2, f.x.Address(), f.y.Address(), n)
	if len(packed) != node1.ParamBytes {
		t.Fatalf("packed %d bytes, the node takes %d", len(packed), node1.ParamBytes)
	}
	must(t, g.UpdateKernelArgsPacked(1, packed))
	must(t, g.UpdateKernelGeometry(2, Dim3{X: 1}, Dim3{X: 1}, 0))
	node2, err := g.Node(2)
	must(t, err)
	if node2.Grid != (Dim3{1, 1, 1}) || node2.Block != (Dim3{1, 1, 1}) {
		t.Errorf("node 2 after the geometry update: %+v", node2)
	}
	wantStatus(t, g.UpdateKernelGeometry(2, Dim3{X: 1}, Dim3{X: 4096}, 0), ErrLaunchBlock)
	must(t, g.Launch(nil)) // synchronous replay
	for i := range f.want {
		f.want[i] = fma32(2, f.xs[i], f.want[i])
		if i == 0 {
			f.want[i] = fma32(1, f.xs[i], f.want[i])
		}
		for node := 3; node < 8; node++ {
			f.want[i] = fma32(1, f.xs[i], f.want[i])
		}
	}
	checkFloats(t, "y", f.y, f.want)
	for i := range ones {
		ones[i] = 2
	}
	checkFloats(t, "y2", y2, ones)

	graph, exec, err := g.Native()
	must(t, err)
	if graph == nil || exec == nil {
		t.Error("Graph.Native returned nil")
	}
}

func TestGPUCaptureEndsOnErrorsAndPanics(t *testing.T) {
	f := newSaxpyFixture(t, 1024)
	noCapture := func() {
		t.Helper()
		status, err := f.stream.CaptureStatus()
		must(t, err)
		if status != CaptureNone {
			t.Fatalf("the stream still captures (status %d)", status)
		}
	}
	boom := errors.New("boom")
	_, err := f.stream.Capture(CaptureThreadLocal, func() error {
		if err := saxpyLaunches(f, 1, 1)(); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("Capture returned %v, want fn's error", err)
	}
	noCapture()

	func() {
		defer func() {
			if recover() == nil {
				t.Error("the panic inside the capture did not reach the caller")
			}
		}()
		f.stream.Capture(CaptureGlobal, func() error { panic("inside the capture") })
	}()
	noCapture()

	bad := f.config()
	bad.Block = Dim3{X: 1024, Y: 2}
	_, err = f.stream.Capture(CaptureThreadLocal, func() error {
		return f.saxpy.Launch(bad, float32(1), f.x, f.y, uint32(f.n))
	})
	wantStatus(t, err, ErrLaunchBlock)
	noCapture()

	must(t, f.stream.BeginCapture(CaptureRelaxed))
	if status, _ := f.stream.CaptureStatus(); status != CaptureActive {
		t.Errorf("CaptureStatus = %d after BeginCapture", status)
	}
	wantStatus(t, f.stream.BeginCapture(CaptureRelaxed), ErrCapture)
	must(t, f.stream.AbortCapture())
	noCapture()
	_, err = f.stream.EndCapture(nil)
	wantStatus(t, err, ErrCapture)
	must(t, f.stream.AbortCapture()) // nothing to abort

	// A relaxed capture records work that another goroutine enqueues.
	g, err := f.stream.Capture(CaptureRelaxed, func() error {
		done := make(chan error)
		go func() { done <- saxpyLaunches(f, 1, 1)() }()
		return <-done
	})
	must(t, err)
	if count, err := g.NodeCount(); err != nil || count != 1 {
		t.Errorf("NodeCount = %d, %v", count, err)
	}
	must(t, g.Close())

	// None of the captured work ran, and the stream works.
	must(t, saxpyLaunches(f, 1, 1)())
	f.expectSaxpy(1)
	f.checkY(t)
}

func TestGPURecaptureUpdatesInPlaceOrRebuilds(t *testing.T) {
	f := newSaxpyFixture(t, 4096)
	g := captureSaxpy(t, f, 2, 1)
	info, err := g.Recapture(f.stream, CaptureThreadLocal, 0, saxpyLaunches(f, 2, 2))
	must(t, err)
	if info.Reinstantiated || info.Reason != "" || info.HasErrorNode {
		t.Errorf("same topology: %+v", info)
	}
	must(t, g.Launch(f.stream))
	f.expectSaxpy(2)
	f.expectSaxpy(2)
	f.checkY(t)

	info, err = g.Recapture(f.stream, CaptureThreadLocal, GraphUpdateNoReinstantiate, saxpyLaunches(f, 3, 1))
	wantStatus(t, err, ErrGraphUpdate)
	if info.Reinstantiated || info.Reason == "" {
		t.Errorf("refused update: %+v", info)
	}
	if status, _ := f.stream.CaptureStatus(); status != CaptureNone {
		t.Errorf("the stream still captures after a refused update")
	}
	if count, _ := g.NodeCount(); count != 2 {
		t.Errorf("a refused update changed the graph to %d nodes", count)
	}

	info, err = g.Recapture(f.stream, CaptureThreadLocal, 0, saxpyLaunches(f, 3, 1))
	must(t, err)
	if !info.Reinstantiated || info.Reason == "" {
		t.Errorf("new topology: %+v", info)
	}
	if count, _ := g.NodeCount(); count != 3 {
		t.Errorf("NodeCount = %d after re-instantiation", count)
	}
	must(t, g.Launch(f.stream))
	for i := 0; i < 3; i++ {
		f.expectSaxpy(1)
	}
	f.checkY(t)
}

func TestGPUGraphCache(t *testing.T) {
	f := newSaxpyFixture(t, 4096)
	g := captureSaxpy(t, f, 1, 1)
	key := []byte("go test " + t.Name())
	if _, err := f.ctx.LookupGraph(key, 1000); err != ErrNotFound {
		t.Fatalf("LookupGraph before InsertGraph = %v, want ErrNotFound", err)
	}
	before, err := ReadGraphCacheStats()
	must(t, err)
	must(t, f.ctx.InsertGraph(key, 1000, g))
	hit, err := f.ctx.LookupGraph(key, 1024) // the same capacity class
	must(t, err)
	defer hit.Close()
	if count, err := hit.NodeCount(); err != nil || count != 1 {
		t.Errorf("the cached graph has %d nodes (%v)", count, err)
	}
	must(t, hit.Launch(f.stream))
	f.expectSaxpy(1)
	f.checkY(t)
	if _, err := f.ctx.LookupGraph(key, 1025); err != ErrNotFound {
		t.Errorf("LookupGraph in another class = %v, want ErrNotFound", err)
	}
	after, err := ReadGraphCacheStats()
	must(t, err)
	if after.Hits-before.Hits < 1 || after.Insertions-before.Insertions < 1 || after.Misses-before.Misses < 1 || after.Entries < 1 {
		t.Errorf("graph cache stats before %+v after %+v", before, after)
	}
	must(t, f.ctx.ClearGraphCache())
	if _, err := f.ctx.LookupGraph(key, 1000); err != ErrNotFound {
		t.Errorf("LookupGraph after ClearGraphCache = %v", err)
	}
}

func TestGPUGraphMemsetNodeAndRetainedBuffer(t *testing.T) {
	f := newSaxpyFixture(t, 4096)
	flags, err := f.ctx.NewBuffer(4*f.n, nil)
	must(t, err)
	defer flags.Close()
	z, err := NewBufferFrom(f.ctx, f.xs)
	must(t, err)
	g, err := f.stream.Capture(CaptureThreadLocal, func() error {
		if err := Fill(flags, f.stream, 0, f.n, uint32(7)); err != nil {
			return err
		}
		// z reaches the kernel only as an address, which the graph cannot know about.
		return f.saxpy.Launch(f.config(), float32(1), z.Address(), f.y, uint32(f.n))
	})
	must(t, err)
	defer g.Close()
	node, err := g.Node(0)
	must(t, err)
	if node.Kind != NodeMemset || node.MemsetValue != 7 || node.MemsetElementSize != 4 {
		t.Errorf("node 0 = %+v, want a memset of 7 in 4-byte elements", node)
	}
	must(t, g.RetainBuffer(z))
	must(t, z.Close()) // the graph keeps z's memory

	checkFlags := func(want uint32) {
		t.Helper()
		values := make([]uint32, f.n)
		must(t, ReadSlice(flags, 0, values))
		for i, v := range values {
			if v != want {
				t.Fatalf("flags[%d] = %d, want %d", i, v, want)
			}
		}
	}
	must(t, g.Launch(f.stream))
	f.expectSaxpy(1)
	f.checkY(t)
	checkFlags(7)

	must(t, g.UpdateMemsetValue(0, 9))
	if node, _ := g.Node(0); node.MemsetValue != 9 {
		t.Errorf("MemsetValue = %d after the update", node.MemsetValue)
	}
	must(t, g.Launch(f.stream))
	f.expectSaxpy(1)
	f.checkY(t)
	checkFlags(9)
	wantStatus(t, g.UpdateMemsetValue(1, 9), ErrGraphNode)
}
