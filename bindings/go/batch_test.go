package cuabi

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestLaunchBatchRefusesCapacityOutOfRange(t *testing.T) {
	for _, capacity := range []int{0, -1, MaxBatchItems + 1} {
		_, err := NewLaunchBatch(capacity, 64)
		wantStatus(t, err, ErrInvalidArgument, "capacity", "Fix:")
	}
	_, err := NewLaunchBatch(4, -1)
	wantStatus(t, err, ErrInvalidArgument, "argBytes is -1")
}

func TestLaunchBatchEmptyLaunchesNothingAndAllocatesNothing(t *testing.T) {
	b, err := NewLaunchBatch(16, 1024)
	must(t, err)
	defer b.Close()
	submitted, err := b.Launch()
	if submitted != 0 || err != nil {
		t.Fatalf("empty batch: Launch() = %d, %v; want 0, nil", submitted, err)
	}
	if allocs := testing.AllocsPerRun(100, func() { b.Launch() }); allocs != 0 {
		t.Errorf("LaunchBatch.Launch allocates %v times per batch", allocs)
	}
}

// An entry naming no kernel, written as Add writes entries: the library refuses item 0 through the
// shim's one crossing, names it, and reports 0 submitted.
func TestLaunchBatchRefusedItemIsNamed(t *testing.T) {
	b, err := NewLaunchBatch(4, 64)
	must(t, err)
	defer b.Close()
	b.entries[0].config.grid = Dim3{X: 1}.c()
	b.entries[0].config.block = Dim3{X: 1}.c()
	b.count = 1
	submitted, err := b.Launch()
	wantRefusedAt(t, submitted, err, 0, 1, ErrInvalidHandle)
}

// wantRefusedAt checks a LaunchBatch.Launch refused at launch index of n: submitted is the index,
// err has status want and a message that begins by naming the launch.
func wantRefusedAt(t *testing.T, submitted int, err error, index, n int, want Status, fragments ...string) {
	t.Helper()
	if submitted != index {
		t.Errorf("submitted = %d, want %d", submitted, index)
	}
	e := wantStatus(t, err, want, fragments...)
	if prefix := fmt.Sprintf("cuabi_launch_batch item %d of %d: ", index, n); !strings.HasPrefix(e.Message, prefix) {
		t.Errorf("message does not begin with %q: %q", prefix, e.Message)
	}
}

func TestLaunchBatchClosedAndClosedKernel(t *testing.T) {
	b, err := NewLaunchBatch(1, 0)
	must(t, err)
	must(t, b.Close())
	must(t, b.Close()) // twice is harmless
	if _, err := b.Launch(); !errors.Is(err, ErrInvalidHandle) {
		t.Errorf("Launch on a closed batch: %v, want ErrInvalidHandle", err)
	}
	if err := b.Add(&Kernel{}, LaunchConfig{}); !errors.Is(err, ErrInvalidHandle) {
		t.Errorf("Add to a closed batch: %v, want ErrInvalidHandle", err)
	}
	open, err := NewLaunchBatch(1, 0)
	must(t, err)
	defer open.Close()
	if err := open.Add(&Kernel{}, LaunchConfig{}); !errors.Is(err, ErrInvalidHandle) {
		t.Errorf("Add of a closed kernel: %v, want ErrInvalidHandle", err)
	}
	if open.Len() != 0 {
		t.Errorf("a refused Add left Len() = %d", open.Len())
	}
}

func TestModuleOriginString(t *testing.T) {
	for origin, want := range map[ModuleOrigin]string{
		OriginCompiled: "compiled", OriginMemoryCache: "memory-cache", OriginDiskCache: "disk-cache",
		OriginImage: "image", ModuleOrigin(9): "ModuleOrigin(9)",
	} {
		if got := origin.String(); got != want {
			t.Errorf("ModuleOrigin(%d).String() = %q, want %q", int32(origin), got, want)
		}
	}
}

func TestIsNoGPU(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{newError(ErrDriverNotFound, "no libcuda. Fix: install the driver."), true},
		{ErrNoDevice, true},
		{newError(ErrLaunchBlock, "too many threads. Fix: fewer."), false},
		{errors.New("unrelated"), false},
		{nil, false},
	} {
		if got := IsNoGPU(c.err); got != c.want {
			t.Errorf("IsNoGPU(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// fakeSaxpy is a Kernel whose handle is a stand-in and whose parameter layout is known, for the
// parts of a launch that never reach the library: Add reads only the handle bits and the layout.
func fakeSaxpy() *Kernel {
	k := &Kernel{name: "saxpy"}
	k.h.set(1)
	k.layout.Store(saxpyLayout)
	return k
}

// Filling a batch of 16 and resetting it, the Go half of every batched launch, allocates nothing:
// the arguments stay on the caller's stack and are encoded into the batch's C memory.
func TestLaunchBatchAddAllocatesNothing(t *testing.T) {
	b, err := NewLaunchBatch(16, 16*64)
	must(t, err)
	defer b.Close()
	k := fakeSaxpy()
	a, x, y, n := float32(2), DevicePtr(0x1000), DevicePtr(0x2000), uint32(1<<20)
	allocs := testing.AllocsPerRun(100, func() {
		for i := 0; i < 16; i++ {
			if err := b.Add(k, LaunchConfig{Grid: Dim3{X: 1}, Block: Dim3{X: 32}}, a, x, y, n); err != nil {
				t.Fatal(err)
			}
		}
		b.Reset()
	})
	if allocs != 0 {
		t.Errorf("16 Adds and a Reset allocate %v times", allocs)
	}
}

// The Go side of a batch of 16 launches, everything but the driver's work: 16 Adds, one crossing
// into libcuabi's cuabi_launch_batch (of no items here: without a GPU there is no kernel to
// launch), Reset. Reported per launch, the unit of the +30 ns goal (docs/performance.md).
func BenchmarkLaunchBatchOf16GoSide(bench *testing.B) {
	b, err := NewLaunchBatch(16, 16*64)
	if err != nil {
		bench.Fatal(err)
	}
	defer b.Close()
	empty, err := NewLaunchBatch(1, 0)
	if err != nil {
		bench.Fatal(err)
	}
	defer empty.Close()
	k := fakeSaxpy()
	a, x, y, n := float32(2), DevicePtr(0x1000), DevicePtr(0x2000), uint32(1<<20)
	config := LaunchConfig{Grid: Dim3{X: 1}, Block: Dim3{X: 32}}
	bench.ReportAllocs()
	cpu := startThreadCPU()
	for bench.Loop() {
		for i := 0; i < 16; i++ {
			if err := b.Add(k, config, a, x, y, n); err != nil {
				bench.Fatal(err)
			}
		}
		if _, err := empty.Launch(); err != nil {
			bench.Fatal(err)
		}
		b.Reset()
	}
	bench.ReportMetric(float64(bench.Elapsed().Nanoseconds())/float64(bench.N*16), "ns/launch")
	cpu.report(bench, 16, "cpu-ns/launch")
}

// One crossing into libcuabi and back (cuabi_launch_batch of no items): the fixed cost a batch
// pays once and a single launch pays every time.
func BenchmarkLaunchBatchCrossing(bench *testing.B) {
	empty, err := NewLaunchBatch(1, 0)
	if err != nil {
		bench.Fatal(err)
	}
	defer empty.Close()
	bench.ReportAllocs()
	cpu := startThreadCPU()
	for bench.Loop() {
		if _, err := empty.Launch(); err != nil {
			bench.Fatal(err)
		}
	}
	cpu.report(bench, 1, "cpu-ns/op")
}

// threadCPU measures the CPU time of the benchmark's own thread, which a loaded machine does not
// inflate as it does the wall time (the thread waiting for a core): the benchmark is locked to its
// thread from start to report.
type threadCPU struct{ start time.Duration }

func threadCPUNow() time.Duration {
	var usage syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD (Linux)
	if err := syscall.Getrusage(rusageThread, &usage); err != nil {
		return 0
	}
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
}

func startThreadCPU() threadCPU {
	runtime.LockOSThread()
	return threadCPU{start: threadCPUNow()}
}

// report adds the thread's CPU time per op / perOp as a metric (rusage counts in microseconds, so
// it is meaningful over many ops).
func (c threadCPU) report(bench *testing.B, perOp int, unit string) {
	spent := threadCPUNow() - c.start
	runtime.UnlockOSThread()
	bench.ReportMetric(float64(spent.Nanoseconds())/float64(bench.N*perOp), unit)
}
