package cuabi

import "testing"

// 16 dependent launches in one batch: saxpy with a = 1..16 on the same y, each reading what the one
// before wrote; then the same batch launched again, allocating nothing.
func TestGPULaunchBatchDependentKernels(t *testing.T) {
	f := newSaxpyFixture(t, 4096)
	b, err := NewLaunchBatch(16, 16*32)
	must(t, err)
	defer b.Close()
	cfg, x, n := f.config(), f.x, uint32(f.n)
	for a := 1; a <= 16; a++ {
		must(t, b.Add(f.saxpy, cfg, float32(a), x, f.y, n))
		f.expectSaxpy(float32(a))
	}
	submitted, err := b.Launch()
	must(t, err)
	if submitted != 16 {
		t.Fatalf("submitted = %d, want 16", submitted)
	}
	f.checkY(t)
	relaunch := func() {
		if _, err := b.Launch(); err != nil {
			t.Fatal(err)
		}
		for a := 1; a <= 16; a++ {
			f.expectSaxpy(float32(a))
		}
	}
	if allocs := testing.AllocsPerRun(100, relaunch); allocs != 0 {
		t.Errorf("LaunchBatch.Launch allocates %v times per batch", allocs)
	}
	refill := func() {
		b.Reset()
		for a := 1; a <= 16; a++ {
			if err := b.Add(f.saxpy, cfg, float32(a), x, f.y, n); err != nil {
				t.Fatal(err)
			}
		}
	}
	if allocs := testing.AllocsPerRun(100, refill); allocs != 0 {
		t.Errorf("LaunchBatch.Reset + 16 Adds allocate %v times", allocs)
	}
	f.checkY(t)
}

// Launch 5 of 8 has a block no device allows: 0..4 run, 5 is named, 6 and 7 never run.
func TestGPULaunchBatchStopsAtTheRefusedLaunch(t *testing.T) {
	f := newSaxpyFixture(t, 1024)
	b, err := NewLaunchBatch(8, 8*32)
	must(t, err)
	defer b.Close()
	cfg, bad := f.config(), f.config()
	bad.Block = Dim3{X: 1024, Y: 2}
	for i := 0; i < 8; i++ {
		c := cfg
		if i == 5 {
			c = bad
		}
		must(t, b.Add(f.saxpy, c, float32(1), f.x, f.y, uint32(f.n)))
		if i < 5 {
			f.expectSaxpy(1)
		}
	}
	submitted, err := b.Launch()
	wantRefusedAt(t, submitted, err, 5, 8, ErrLaunchBlock, "block (1024,2,1)")
	f.checkY(t)
}
