// Command overhead measures what a launch through the Go package costs over cuabi_launch called
// from C, in one process, on one stream and one kernel: the Go side's Kernel.Launch (packed, one
// cgo crossing) and Kernel.LaunchTable against a C loop calling cuabi_launch (the baseline) and
// cuabi_launch_packed through the same loaded library. It also counts the Go heap allocations of
// a Kernel.Launch and a Kernel.LaunchPacked (testing.AllocsPerRun), which must be zero. A last variant makes the launches 16
// per crossing through a LaunchBatch (cuabi_launch_batch), against the same C baseline.
//
//	overhead [-reps N] [-launches N] [-batch N] [-lock-thread=false]
//
// Method (as bench/bench_launch.cpp): host-side submission cost. Launches run in batches smaller
// than the driver's queue, the stream synchronized between batches outside the timing; every
// repetition runs each variant once, back to back, in an order rotated per repetition. Reported:
// each variant's median ns per launch, and the paired difference and ratio to the C baseline of
// the same repetition (median over repetitions, with the interquartile range), which cancels the
// drift of a virtualized GPU; and the CPU time per launch of the process's other threads while the
// variant ran. Those are the Go runtime's (sysmon, a thread woken to take over the P of a long cgo
// call): on a single pinned core every microsecond they run is one the launching thread waits, so
// a gap over C that this column explains is the runtime's, not the package's -- run it pinned to
// one core and to two to tell. Without a GPU it exits with the reason.
package main

// #cgo CFLAGS: -I${SRCDIR}/../../../../include -std=gnu99
// #cgo LDFLAGS: -ldl
// #include <stdlib.h>
// #include "baseline.h"
import "C"

import (
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"sort"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"cuabi"
)

// The kernel: saxpy with n = 0, so the GPU side is as short as possible.
const source = `extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
`

type variant struct {
	name  string
	batch func(launches int) (time.Duration, error)
}

func main() {
	reps := flag.Int("reps", 40, "repetitions")
	launches := flag.Int("launches", 10000, "launches per variant and repetition")
	batch := flag.Int("batch", 250, "launches per timed batch")
	lock := flag.Bool("lock-thread", true, "run every variant on one locked OS thread (the other-threads column needs it)")
	flag.Parse()
	if err := run(*reps, *launches, *batch, *lock); err != nil {
		fmt.Fprintln(os.Stderr, "overhead:", err)
		os.Exit(1)
	}
}

// bench is what the variants share: one context, stream, kernel and scratch buffer.
type bench struct {
	ctx     *cuabi.Context
	info    cuabi.DeviceInfo
	stream  *cuabi.Stream
	module  *cuabi.Module
	saxpy   *cuabi.Kernel
	scratch *cuabi.Buffer
}

func run(reps, launches, batch int, lock bool) error {
	// Every variant runs on this thread, so that the CPU time of the process's other threads (the Go
	// runtime's) can be told apart from the launching thread's. Unlocked (-lock-thread=false) the
	// goroutine runs as an ordinary program's does, and that column mixes threads.
	if lock {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	b, err := setUp()
	if err != nil {
		return err
	}
	defer b.close()
	native, err := b.stream.Native()
	if err != nil {
		return err
	}
	if err := openBaseline(native, b.scratch.Address()); err != nil {
		return err
	}
	defer C.baseline_close()

	cfg := cuabi.LaunchConfig{Grid: cuabi.Dim3{X: 1}, Block: cuabi.Dim3{X: 32}, Stream: b.stream}
	a, x, y, n := float32(1), b.scratch.Address(), b.scratch.Address(), uint32(0)
	packed, err := pack(b.saxpy, a, x, y, n)
	if err != nil {
		return err
	}
	variants := []variant{
		{"C cuabi_launch (baseline)", cLoop(func(n C.int, e *C.char, c C.size_t) C.double { return C.baseline_table(n, e, c) })},
		{"C cuabi_launch_packed", cLoop(func(n C.int, e *C.char, c C.size_t) C.double { return C.baseline_packed(n, e, c) })},
		{"Go Kernel.Launch", goLoop(func() error { return b.saxpy.Launch(cfg, a, x, y, n) })},
		{"Go Kernel.LaunchTable", goLoop(func() error { return b.saxpy.LaunchTable(cfg, a, x, y, n) })},
		{"C cuabi_launch, 1 cgo call each", goLoop(launchOnce)},
		{"Go Kernel.LaunchPacked", goLoop(func() error { return b.saxpy.LaunchPacked(cfg, packed) })},
		{"Go LaunchBatch, 16 per call", batchLoop(b.saxpy, cfg, a, x, y, n)},
	}
	samples, others, err := measure(variants, reps, launches, batch, b.stream)
	if err != nil {
		return err
	}
	allocs := testing.AllocsPerRun(1000, func() {
		if err := b.saxpy.Launch(cfg, a, x, y, n); err != nil {
			panic(err)
		}
	})
	allocs += testing.AllocsPerRun(1000, func() {
		if err := b.saxpy.LaunchPacked(cfg, packed); err != nil {
			panic(err)
		}
	})
	if err := b.stream.Synchronize(); err != nil {
		return err
	}
	report(b.info, variants, samples, others, allocs, reps, launches, batch)
	if allocs != 0 {
		return fmt.Errorf("Kernel.Launch and Kernel.LaunchPacked allocate %v times per launch", allocs)
	}
	return nil
}

func setUp() (*bench, error) {
	b := &bench{}
	var err error
	if b.ctx, err = cuabi.NewContext(nil); err != nil {
		return nil, fmt.Errorf("no GPU to measure on: %w", err)
	}
	if b.info, err = b.ctx.DeviceInfo(); err == nil {
		b.stream, err = b.ctx.NewStream(nil)
	}
	if err == nil {
		b.module, err = b.ctx.Compile(source, nil)
	}
	if err == nil {
		b.saxpy, err = b.module.Kernel("saxpy")
	}
	if err == nil {
		b.scratch, err = b.ctx.NewBuffer(256, nil)
	}
	if err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

func (b *bench) close() {
	for _, c := range []interface{ Close() error }{b.scratch, b.saxpy, b.module, b.stream, b.ctx} {
		c.Close()
	}
}

// goLoop times a batch of Go launches.
func goLoop(launch func() error) func(int) (time.Duration, error) {
	return func(count int) (time.Duration, error) {
		start := time.Now()
		for i := 0; i < count; i++ {
			if err := launch(); err != nil {
				return 0, err
			}
		}
		return time.Since(start), nil
	}
}

// batchLoop times launches made 16 per LaunchBatch.Launch (one cgo crossing per 16): full batches,
// then one of the remainder. Each batch is filled once, on first use (the untimed warm-up).
func batchLoop(k *cuabi.Kernel, cfg cuabi.LaunchConfig, args ...any) func(int) (time.Duration, error) {
	const perCall = 16
	batches := map[int]*cuabi.LaunchBatch{}
	batchOf := func(size int) (*cuabi.LaunchBatch, error) {
		if b := batches[size]; b != nil {
			return b, nil
		}
		b, err := cuabi.NewLaunchBatch(size, size*64)
		for i := 0; err == nil && i < size; i++ {
			err = b.Add(k, cfg, args...)
		}
		if err != nil {
			return nil, err
		}
		batches[size] = b
		return b, nil
	}
	return func(count int) (time.Duration, error) {
		full, err := batchOf(perCall)
		if err != nil {
			return 0, err
		}
		rest := (*cuabi.LaunchBatch)(nil)
		if count%perCall != 0 {
			if rest, err = batchOf(count % perCall); err != nil {
				return 0, err
			}
		}
		start := time.Now()
		for i := 0; i < count/perCall; i++ {
			if _, err := full.Launch(); err != nil {
				return 0, err
			}
		}
		if rest != nil {
			if _, err := rest.Launch(); err != nil {
				return 0, err
			}
		}
		return time.Since(start), nil
	}
}

// measure runs every variant once per repetition, in an order rotated per repetition, after one
// untimed batch each; it returns ns per launch, per variant and repetition, and per variant the CPU
// time per launch that the process's other threads spent while its launches were timed.
func measure(variants []variant, reps, launches, batch int, stream *cuabi.Stream) ([][]float64, []float64, error) {
	others := make([]time.Duration, len(variants))
	perLaunch := func(v int, count int) (float64, error) {
		var total time.Duration
		for done := 0; done < count; done += batch {
			before := otherThreadsCPU()
			d, err := variants[v].batch(min(batch, count-done))
			others[v] += otherThreadsCPU() - before
			if err != nil {
				return 0, fmt.Errorf("%s: %w", variants[v].name, err)
			}
			total += d
			if err := stream.Synchronize(); err != nil { // untimed: the queue never fills
				return 0, err
			}
		}
		return float64(total.Nanoseconds()) / float64(count), nil
	}
	for v := range variants {
		if _, err := perLaunch(v, batch); err != nil {
			return nil, nil, err
		}
	}
	clear(others)
	samples := make([][]float64, len(variants))
	for rep := 0; rep < reps; rep++ {
		for i := range variants {
			v := (i + rep) % len(variants)
			ns, err := perLaunch(v, launches)
			if err != nil {
				return nil, nil, err
			}
			samples[v] = append(samples[v], ns)
		}
	}
	perLaunchOthers := make([]float64, len(variants))
	for v := range variants {
		perLaunchOthers[v] = float64(others[v].Nanoseconds()) / float64(reps*launches)
	}
	return samples, perLaunchOthers, nil
}

// otherThreadsCPU is the CPU time the process has spent outside the calling thread: the Go
// runtime's threads (sysmon, idle workers woken to take over a P). Pinned to one core, it is time
// the launching thread did not get. getrusage counts in microseconds: meaningful over many launches.
func otherThreadsCPU() time.Duration {
	var process, thread syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD (Linux)
	if syscall.Getrusage(syscall.RUSAGE_SELF, &process) != nil || syscall.Getrusage(rusageThread, &thread) != nil {
		return 0
	}
	cpu := func(u *syscall.Rusage) int64 { return u.Utime.Nano() + u.Stime.Nano() }
	return time.Duration(cpu(&process) - cpu(&thread))
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}

func report(info cuabi.DeviceInfo, variants []variant, samples [][]float64, others []float64, allocs float64, reps, launches, batch int) {
	driver, _ := cuabi.DriverVersion()
	fmt.Printf("launch overhead of the Go package: %s, driver %d.%d\n", info.Name, driver/1000, driver%1000/10)
	fmt.Printf("method: %d reps x %d launches per variant, batches of %d with untimed stream syncs; grid 1 x block 32;\n"+
		"        one process, one CUstream, one kernel; paired = median over reps of (variant - baseline) of the same rep\n\n",
		reps, launches, batch)
	fmt.Printf("%-28s %14s %26s %22s %16s\n", "variant", "median ns", "paired diff ns [IQR]", "paired ratio [IQR]",
		"other threads ns")
	for v := range variants {
		diff, ratio := paired(samples[v], samples[0])
		fmt.Printf("%-28s %14.1f %26s %22s %16.1f\n", variants[v].name, quantile(samples[v], 0.5),
			fmt.Sprintf("%+.1f [%+.1f, %+.1f]", diff[1], diff[0], diff[2]),
			fmt.Sprintf("%.3f [%.3f, %.3f]", ratio[1], ratio[0], ratio[2]), others[v])
	}
	fmt.Printf("(other threads ns: CPU per launch of the process's threads but the launching one -- the Go runtime's --\n" +
		" while the variant ran; on a single pinned core the launching thread waits for it)\n")
	diff, _ := paired(samples[2], samples[0])
	verdict := "met"
	if diff[1] > 250 || allocs != 0 {
		verdict = "NOT met"
	}
	batchDiff, _ := paired(samples[6], samples[0])
	batchVerdict := "met"
	if batchDiff[1] > 30 {
		batchVerdict = "NOT met"
	}
	crossing, _ := paired(samples[4], samples[0])
	package_, _ := paired(samples[2], samples[4])
	fmt.Printf("\none cgo crossing around the C call adds %+.1f ns [%+.1f, %+.1f]; the package's own work over that: %+.1f ns [%+.1f, %+.1f]\n",
		crossing[1], crossing[0], crossing[2], package_[1], package_[0], package_[2])
	fmt.Printf("Go heap allocations per Kernel.Launch and Kernel.LaunchPacked: %v\n", allocs)
	fmt.Printf("target (at most 250 ns over C cuabi_launch, no allocation): %s (%+.1f ns, %v allocations)\n", verdict, diff[1], allocs)
	fmt.Printf("batch target (LaunchBatch of 16: at most 30 ns per launch over C cuabi_launch): %s (%+.1f ns)\n", batchVerdict, batchDiff[1])
}

func openBaseline(stream unsafe.Pointer, address cuabi.DevicePtr) error {
	library := C.CString(cuabi.LibraryPath())
	defer C.free(unsafe.Pointer(library))
	src := C.CString(source)
	defer C.free(unsafe.Pointer(src))
	name := C.CString("saxpy")
	defer C.free(unsafe.Pointer(name))
	var reason [1024]C.char
	if C.baseline_open(library, src, name, stream, C.uint64_t(address), C.uint64_t(address), 0, &reason[0], C.size_t(len(reason))) != 0 {
		return fmt.Errorf("the C baseline: %s", C.GoString(&reason[0]))
	}
	return nil
}

// pack lays saxpy's arguments out at the offsets the kernel reports, as a caller of LaunchPacked does
// once before a hot loop.
func pack(k *cuabi.Kernel, a float32, x, y cuabi.DevicePtr, n uint32) ([]byte, error) {
	values := [][]byte{
		binary.LittleEndian.AppendUint32(nil, math.Float32bits(a)),
		binary.LittleEndian.AppendUint64(nil, uint64(x)),
		binary.LittleEndian.AppendUint64(nil, uint64(y)),
		binary.LittleEndian.AppendUint32(nil, n),
	}
	var packed []byte
	for i, value := range values {
		offset, size, err := k.ParamInfo(i)
		if err != nil {
			return nil, err
		}
		if size != len(value) {
			return nil, fmt.Errorf("saxpy parameter %d is %d bytes, not %d", i, size, len(value))
		}
		for len(packed) < offset+size {
			packed = append(packed, 0)
		}
		copy(packed[offset:], value)
	}
	return packed, nil
}

// launchOnce is one C cuabi_launch behind one cgo crossing and nothing else: the floor for any
// Go binding that makes one crossing per launch.
func launchOnce() error {
	if status := C.baseline_launch_once(); status != 0 {
		return fmt.Errorf("cuabi_launch: status %d", int(status))
	}
	return nil
}

// cLoop times a batch inside C, so the baseline pays no cgo crossing per launch.
func cLoop(batch func(C.int, *C.char, C.size_t) C.double) func(int) (time.Duration, error) {
	return func(count int) (time.Duration, error) {
		var reason [1024]C.char
		ns := batch(C.int(count), &reason[0], C.size_t(len(reason)))
		if ns < 0 {
			return 0, fmt.Errorf("%s", C.GoString(&reason[0]))
		}
		return time.Duration(ns), nil
	}
}

// paired gives the quartiles of v[i] - base[i] and of v[i] / base[i].
func paired(v, base []float64) (diff, ratio [3]float64) {
	d := make([]float64, len(v))
	r := make([]float64, len(v))
	for i := range v {
		d[i] = v[i] - base[i]
		r[i] = v[i] / base[i]
	}
	for q, at := range []float64{0.25, 0.5, 0.75} {
		diff[q], ratio[q] = quantile(d, at), quantile(r, at)
	}
	return diff, ratio
}

// quantile by linear interpolation between order statistics (q = 0.5 is the usual median).
func quantile(values []float64, q float64) float64 {
	if len(values) == 0 {
		return 0
	}
	sorted := append([]float64(nil), values...)
	sort.Float64s(sorted)
	position := q * float64(len(sorted)-1)
	below := int(position)
	if below+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[below] + (position-float64(below))*(sorted[below+1]-sorted[below])
}
