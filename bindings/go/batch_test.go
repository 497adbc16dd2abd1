package cuabi

import (
	"errors"
	"fmt"
	"strings"
	"testing"
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
