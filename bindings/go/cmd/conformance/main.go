// Command conformance is the Go implementation of the conformance scenario
// (tests/conformance/README.md): the seventeen steps through the cuabi package, printing the same
// transcript as the C reference, line for line. stdout carries only the transcript; the details of
// a failure go to stderr. The exit status is 0 exactly when no step failed.
//
// scripts/test.d/60-go.sh builds it as $CUABI_BUILD_DIR/conformance/bin/go, where
// scripts/conformance.sh finds it.
package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"

	"cuabi"
	"cuabi/internal/scenario"
)

const (
	n               = 1 << 20 // elements per buffer
	block           = 256     // threads per block of every launch
	grid            = n / block
	batchLaunches   = 4    // saxpy launches of step 14's batch
	graphLaunches   = 8    // saxpy launches captured in step 15
	whileIterations = 5    // runs of step 16's while body
	workers         = 4    // goroutines of step 17
	workerLaunches  = 1000 // launches per goroutine in step 17
)

const (
	source = scenario.Source
	broken = scenario.Broken
)

var nameExpressions = scenario.NameExpressions()

// state is what the steps share: what earlier steps made and what y should now hold.
type state struct {
	offline, offlineAgain *cuabi.Module // steps 4 and 5
	gpuMissing            cuabi.Status  // step 8: the status that means "no GPU here", or Success
	contextFailed         cuabi.Status  // step 8: any other failure to get a context, or Success
	context               *cuabi.Context
	stream                *cuabi.Stream
	x, y, x2, y2          *cuabi.Buffer
	module                *cuabi.Module
	saxpy, scale          *cuabi.Kernel
	graph                 *cuabi.Graph
	countDownModule       *cuabi.Module // step 16
	countDown             *cuabi.Kernel
	counter               *cuabi.Buffer
	whileGraph            *cuabi.Graph
	expect                []float32 // what y should hold, updated with the kernels' float operations
}

type step struct {
	name     string
	run      func(*state) error
	needsGPU bool
}

var steps = []step{
	{"load", (*state).load, false},
	{"status-names", (*state).statusNames, false},
	{"compile-error", (*state).compileError, false},
	{"offline-templates", (*state).offlineTemplates, false},
	{"memory-cache", (*state).memoryCache, false},
	{"ranges", (*state).ranges, false},
	{"link", (*state).link, false},
	{"context", (*state).openContext, false},
	{"buffers", (*state).buffers, true},
	{"launch-table", (*state).launchTable, true},
	{"launch-packed", (*state).launchPacked, true},
	{"launch-checks", (*state).launchChecks, true},
	{"template-kernel", (*state).templateKernel, true},
	{"launch-batch", (*state).launchBatch, true},
	{"graph", (*state).graphStep, true},
	{"conditional-graph", (*state).conditionalGraph, true},
	{"threads", (*state).threads, true},
	{"teardown", (*state).teardown, true},
}

func main() {
	s := &state{}
	passed, failed, skipped := 0, 0, 0
	for _, st := range steps {
		switch {
		case st.needsGPU && s.gpuMissing != cuabi.Success:
			fmt.Printf("skip %s: no GPU (%s)\n", st.name, cuabi.StatusName(s.gpuMissing))
			skipped++
		case st.needsGPU && s.contextFailed != cuabi.Success:
			fmt.Printf("FAIL %s: no context (%s)\n", st.name, cuabi.StatusName(s.contextFailed))
			failed++
		default:
			if err := st.run(s); err != nil {
				fmt.Printf("FAIL %s: %v\n", st.name, err)
				fmt.Fprintf(os.Stderr, "%s: %v\n", st.name, err)
				failed++
			} else {
				fmt.Printf("ok   %s\n", st.name)
				passed++
			}
		}
	}
	s.closeAll()
	fmt.Printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped)
	if failed != 0 {
		os.Exit(1)
	}
}

// expectStatus checks that err is a cuabi error of status want whose message contains text.
func expectStatus(err error, want cuabi.Status, text, what string) error {
	var e *cuabi.Error
	if !errors.As(err, &e) || e.Status != want {
		return fmt.Errorf("%s returned %v, expected %s", what, err, cuabi.StatusName(want))
	}
	if !strings.Contains(e.Message, text) {
		return fmt.Errorf("%s: the message has no '%s': %s", what, text, e.Message)
	}
	return nil
}

// ---- CPU steps -------------------------------------------------------------------------------

func (s *state) load() error {
	if err := cuabi.Load(""); err != nil {
		return err
	}
	abi, err := cuabi.ABIVersion()
	if err != nil {
		return err
	}
	version, err := cuabi.LibraryVersion()
	if err != nil {
		return err
	}
	if abi != 1 {
		return fmt.Errorf("the ABI version is %d, expected 1", abi)
	}
	if version < 10000 {
		return fmt.Errorf("the library version is %d, expected at least 10000", version)
	}
	return nil
}

func (s *state) statusNames() error {
	for status, want := range map[cuabi.Status]string{0: "CUABI_SUCCESS", 67: "CUABI_ERROR_ARGUMENT_SIZE", 9999: "CUABI_UNKNOWN_STATUS"} {
		if got := cuabi.StatusName(status); got != want {
			return fmt.Errorf("the name of status %d is %s, expected %s", status, got, want)
		}
	}
	return nil
}

func (s *state) compileError() error {
	module, err := cuabi.CompileOffline(broken, &cuabi.CompileOptions{Target: "sm_90"})
	module.Close()
	if err := expectStatus(err, cuabi.ErrCompile, "Fix:", "compiling BROKEN"); err != nil {
		return err
	}
	var e *cuabi.Error
	if errors.As(err, &e) && e.Log == "" {
		return errors.New("the compile log is empty")
	}
	return nil
}

func offlineOptions() *cuabi.CompileOptions {
	return &cuabi.CompileOptions{Target: "sm_90", NameExpressions: nameExpressions}
}

func (s *state) offlineTemplates() (err error) {
	if s.offline, err = cuabi.CompileOffline(source, offlineOptions()); err != nil {
		return err
	}
	info, err := s.offline.Info()
	if err != nil {
		return err
	}
	if info.ImageKind != cuabi.ImageCUBIN {
		return fmt.Errorf("image kind %d, expected 2 (CUBIN)", info.ImageKind)
	}
	if info.ImageSize == 0 {
		return errors.New("the image is empty")
	}
	for i, want := range []string{"_Z5scaleIfEvPT_S0_j", "_Z5scaleIdEvPT_S0_j"} {
		got, err := s.offline.LoweredName(nameExpressions[i])
		if err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("%s lowered to %s, expected %s", nameExpressions[i], got, want)
		}
	}
	_, err = s.offline.LoweredName("scale<int>")
	return expectStatus(err, cuabi.ErrKernelNotFound, "", "the lowered name of scale<int>")
}

func (s *state) memoryCache() (err error) {
	if s.offlineAgain, err = cuabi.CompileOffline(source, offlineOptions()); err != nil {
		return err
	}
	info, err := s.offlineAgain.Info()
	if err != nil {
		return err
	}
	if info.Origin != cuabi.OriginMemoryCache {
		return fmt.Errorf("origin %d, expected 1 (memory cache)", info.Origin)
	}
	return nil
}

func (s *state) ranges() error {
	// Push and pop are per OS thread: this goroutine keeps its thread for the step, so a
	// goroutine started here runs on another one.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cuabi.PushRange("conformance", ""); err != nil {
		return err
	}
	if err := cuabi.PopRange(); err != nil {
		return err
	}
	r, err := cuabi.StartRange("conformance", "")
	if err != nil {
		return err
	}
	ended := make(chan error)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		ended <- r.End()
	}()
	if err := <-ended; err != nil {
		return err
	}
	if err := expectStatus(cuabi.PopRange(), cuabi.ErrRange, "", "PopRange with none open"); err != nil {
		return err
	}
	catalog, err := cuabi.RangeCatalog()
	if err != nil {
		return err
	}
	if len(catalog) < 13 {
		return fmt.Errorf("the catalog has %d entries, expected at least 13", len(catalog))
	}
	for i, entry := range catalog {
		if !strings.HasPrefix(entry.Name, "cuabi.") {
			return fmt.Errorf("catalog entry %d is named %s", i, entry.Name)
		}
	}
	return nil
}

func (s *state) link() error {
	compile := &cuabi.CompileOptions{Target: "sm_90", Flags: cuabi.CompileLTOIR}
	kernel, err := cuabi.CompileOffline(scenario.LinkKernel, compile)
	if err != nil {
		return err
	}
	defer kernel.Close()
	device, err := cuabi.CompileOffline(scenario.LinkDevice, compile)
	if err != nil {
		return err
	}
	defer device.Close()
	options := &cuabi.LinkOptions{Target: "sm_90", Flags: cuabi.LinkLTO}
	linked, err := cuabi.LinkOffline([]cuabi.LinkInput{{Module: kernel}, {Module: device}}, options)
	if err != nil {
		return err
	}
	defer linked.Close()
	info, err := linked.Info()
	if err != nil {
		return err
	}
	if info.ImageKind != cuabi.ImageCUBIN {
		return fmt.Errorf("the linked image kind is %d, expected 2 (CUBIN)", info.ImageKind)
	}
	names, err := linked.KernelNames()
	if err != nil {
		return err
	}
	if len(names) != 1 || names[0] != "apply_twice" {
		return fmt.Errorf("the linked kernels are %q, expected apply_twice", names)
	}
	alone, err := cuabi.LinkOffline([]cuabi.LinkInput{{Module: kernel}}, options)
	if err == nil {
		alone.Close()
	}
	return expectStatus(err, cuabi.ErrLink, "Fix:", "linking LINK_KERNEL alone")
}

func (s *state) openContext() (err error) {
	s.context, err = cuabi.NewContext(nil)
	var e *cuabi.Error
	if errors.As(err, &e) && (e.Status == cuabi.ErrDriverNotFound || e.Status == cuabi.ErrNoDevice) {
		s.gpuMissing = e.Status
		if !strings.Contains(e.Message, "Fix:") {
			return fmt.Errorf("the message has no 'Fix:': %s", e.Message)
		}
		return nil
	}
	if err != nil {
		s.contextFailed = cuabi.ErrInternal
		if e != nil {
			s.contextFailed = e.Status
		}
		return err
	}
	info, err := s.context.DeviceInfo()
	if err != nil {
		return err
	}
	if info.Name == "" {
		return errors.New("the device has no name")
	}
	if !info.ComputeCapability.AtLeast(7, 5) {
		return fmt.Errorf("compute capability %v, expected at least 7.5", info.ComputeCapability)
	}
	return nil
}

// ---- GPU steps -------------------------------------------------------------------------------

// filled is n floats, element i being first + step*i.
func filled(first, step float32) []float32 {
	values := make([]float32, n)
	for i := range values {
		values[i] = first + step*float32(i)
	}
	return values
}

func sameFloats(what string, b *cuabi.Buffer, want []float32) error {
	got := make([]float32, len(want))
	if err := cuabi.ReadSlice(b, 0, got); err != nil {
		return err
	}
	for i := range want {
		if got[i] != want[i] {
			return fmt.Errorf("%s[%d] is %.9g, expected %.9g", what, i, got[i], want[i])
		}
	}
	return nil
}

func (s *state) buffers() (err error) {
	xs, ys := filled(0, 1), filled(1, 0)
	if s.x, err = cuabi.NewBufferFrom(s.context, xs); err != nil {
		return err
	}
	if s.y, err = cuabi.NewBufferFrom(s.context, ys); err != nil {
		return err
	}
	if err := sameFloats("x", s.x, xs); err != nil {
		return err
	}
	s.expect = ys
	return sameFloats("y", s.y, s.expect)
}

func (s *state) config() cuabi.LaunchConfig {
	return cuabi.LaunchConfig{Grid: cuabi.Dim3{X: grid}, Block: cuabi.Dim3{X: block}, Stream: s.stream}
}

// expectSaxpy applies y = a*x + y (x[i] = i) to the expected values, `times` times, in float32.
func (s *state) expectSaxpy(a float32, times int) {
	for k := 0; k < times; k++ {
		for i := range s.expect {
			s.expect[i] = float32(a*float32(i)) + s.expect[i]
		}
	}
}

// checkY synchronizes the stream and compares y with the expected values.
func (s *state) checkY() error {
	if err := s.stream.Synchronize(); err != nil {
		return err
	}
	return sameFloats("y", s.y, s.expect)
}

func (s *state) launchTable() (err error) {
	if s.module, err = s.context.Compile(source, &cuabi.CompileOptions{NameExpressions: nameExpressions}); err != nil {
		return err
	}
	if s.saxpy, err = s.module.Kernel("saxpy"); err != nil {
		return err
	}
	if s.stream, err = s.context.NewStream(nil); err != nil {
		return err
	}
	if err := s.saxpy.LaunchTable(s.config(), float32(2), s.x, s.y, uint32(n)); err != nil {
		return err
	}
	s.expectSaxpy(2, 1)
	return s.checkY()
}

func (s *state) launchPacked() error {
	if err := s.saxpy.Launch(s.config(), float32(2), s.x, s.y, uint32(n)); err != nil {
		return err
	}
	s.expectSaxpy(2, 1)
	return s.checkY()
}

func (s *state) launchChecks() error {
	wide := s.config()
	wide.Block = cuabi.Dim3{X: 1024, Y: 2, Z: 1}
	if err := expectStatus(s.saxpy.LaunchTable(wide, float32(2), s.x, s.y, uint32(n)), cuabi.ErrLaunchBlock, "2048",
		"block (1024,2,1)"); err != nil {
		return err
	}
	if err := expectStatus(s.saxpy.LaunchTable(s.config(), float64(2), s.x, s.y, uint32(n)), cuabi.ErrArgumentSize,
		"parameter 0", "8 bytes for parameter 0"); err != nil {
		return err
	}
	return s.checkY()
}

func (s *state) templateKernel() (err error) {
	if s.scale, err = s.module.Kernel("scale<float>"); err != nil {
		return err
	}
	if err := s.scale.LaunchTable(s.config(), s.y, float32(0.5), uint32(n)); err != nil {
		return err
	}
	for i := range s.expect {
		s.expect[i] *= 0.5
	}
	return s.checkY()
}

func (s *state) launchBatch() error {
	batch, err := cuabi.NewLaunchBatch(batchLaunches, batchLaunches*64)
	if err != nil {
		return err
	}
	defer batch.Close()
	for k := 0; k < batchLaunches; k++ {
		if err := batch.Add(s.saxpy, s.config(), float32(1), s.x, s.y, uint32(n)); err != nil {
			return err
		}
	}
	if submitted, err := batch.Launch(); err != nil || submitted != batchLaunches {
		return fmt.Errorf("LaunchBatch.Launch: %d of %d submitted: %v", submitted, batchLaunches, err)
	}
	s.expectSaxpy(1, batchLaunches)
	if err := s.checkY(); err != nil {
		return err
	}
	// Item 1 of 3 is refused: item 0 runs, item 2 does not.
	batch.Reset()
	tooLarge := s.config()
	tooLarge.Block = cuabi.Dim3{X: 1024, Y: 2, Z: 1}
	for _, config := range []cuabi.LaunchConfig{s.config(), tooLarge, s.config()} {
		if err := batch.Add(s.saxpy, config, float32(1), s.x, s.y, uint32(n)); err != nil {
			return err
		}
	}
	submitted, err := batch.Launch()
	if err := expectStatus(err, cuabi.ErrLaunchBlock, "cuabi_launch_batch item 1 of 3: ", "item 1's block (1024,2,1)"); err != nil {
		return err
	}
	if submitted != 1 {
		return fmt.Errorf("the refused item's index is %d, not 1", submitted)
	}
	s.expectSaxpy(1, 1)
	return s.checkY()
}

func (s *state) graphStep() (err error) {
	// Made first: nothing is allocated or synchronous while the stream captures.
	if s.x2, err = cuabi.NewBufferFrom(s.context, filled(1, 0)); err != nil {
		return err
	}
	if s.y2, err = cuabi.NewBufferFrom(s.context, filled(0, 0)); err != nil {
		return err
	}
	s.graph, err = s.stream.Capture(cuabi.CaptureThreadLocal, func() error {
		for i := 0; i < graphLaunches; i++ {
			if err := s.saxpy.Launch(s.config(), float32(1), s.x, s.y, uint32(n)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	count, err := s.graph.NodeCount()
	if err != nil {
		return err
	}
	if count != graphLaunches {
		return fmt.Errorf("the graph has %d nodes, expected %d", count, graphLaunches)
	}
	for i := 0; i < count; i++ {
		node, err := s.graph.Node(i)
		if err != nil {
			return err
		}
		if node.Kind != cuabi.NodeKernel {
			return fmt.Errorf("node %d is of kind %d, expected 1 (kernel)", i, node.Kind)
		}
	}
	if err := s.graph.Launch(s.stream); err != nil {
		return err
	}
	s.expectSaxpy(1, graphLaunches)
	if err := s.checkY(); err != nil {
		return err
	}
	// The graph reaches x2 and y2 only through kernel arguments: it must be told to keep them.
	for _, b := range []*cuabi.Buffer{s.x2, s.y2} {
		if err := s.graph.RetainBuffer(b); err != nil {
			return err
		}
	}
	if err := s.graph.UpdateKernelArgs(0, float32(1), s.x2, s.y2, uint32(n)); err != nil {
		return err
	}
	if err := s.graph.Launch(s.stream); err != nil {
		return err
	}
	s.expectSaxpy(1, graphLaunches-1)
	if err := s.checkY(); err != nil {
		return err
	}
	return sameFloats("y2", s.y2, filled(1, 0))
}

// captureWhile captures a while node whose body is saxpy(1, x, y) and count_down(counter, condition).
func (s *state) captureWhile() (*cuabi.Graph, error) {
	one := cuabi.LaunchConfig{Grid: cuabi.Dim3{X: 1}, Block: cuabi.Dim3{X: 1}, Stream: s.stream}
	return s.stream.Capture(cuabi.CaptureThreadLocal, func() error {
		condition, err := s.stream.CreateCondition(1, cuabi.ConditionAssignDefault)
		if err != nil {
			return err
		}
		return s.stream.CaptureWhile(condition, func() error {
			if err := s.saxpy.Launch(s.config(), float32(1), s.x, s.y, uint32(n)); err != nil {
				return err
			}
			return s.countDown.Launch(one, s.counter, condition)
		})
	})
}

func (s *state) conditionalGraph() (err error) {
	if s.countDownModule, err = s.context.Compile(scenario.CountDownSource, nil); err != nil {
		return err
	}
	if s.countDown, err = s.countDownModule.Kernel("count_down"); err != nil {
		return err
	}
	if s.counter, err = cuabi.NewBufferFrom(s.context, []uint32{whileIterations}); err != nil {
		return err
	}
	if s.whileGraph, err = s.captureWhile(); err != nil {
		return err
	}
	count, err := s.whileGraph.NodeCount()
	if err != nil {
		return err
	}
	if count != 1 {
		return fmt.Errorf("the graph has %d nodes, expected 1", count)
	}
	node, err := s.whileGraph.Node(0)
	if err != nil {
		return err
	}
	if node.Kind != cuabi.NodeConditional || node.ConditionalType != cuabi.ConditionalWhile || node.ConditionalBodyNodes != 2 {
		return fmt.Errorf("node 0 is of kind %d, type %d with %d body nodes, expected 14, 2 with 2", node.Kind,
			node.ConditionalType, node.ConditionalBodyNodes)
	}
	if err := s.whileGraph.Launch(s.stream); err != nil {
		return err
	}
	s.expectSaxpy(1, whileIterations)
	if err := s.checkY(); err != nil {
		return err
	}
	left := make([]uint32, 1)
	if err := cuabi.ReadSlice(s.counter, 0, left); err != nil {
		return err
	}
	if left[0] != 0 {
		return fmt.Errorf("the counter is %d after the replay, expected 0", left[0])
	}
	return nil
}

func (s *state) threads() error {
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range errs {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			errs[w] = s.worker()
		}(w)
	}
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			return fmt.Errorf("goroutine %d: %v", w, err)
		}
	}
	return nil
}

// worker is one goroutine of step 17: its own stream and buffers, workerLaunches launches.
func (s *state) worker() error {
	stream, err := s.context.NewStream(nil)
	if err != nil {
		return err
	}
	defer stream.Close()
	buffers := make([]*cuabi.Buffer, 2)
	for i := range buffers {
		if buffers[i], err = s.context.NewBuffer(4*n, nil); err != nil {
			return err
		}
		defer buffers[i].Close()
	}
	x, y := buffers[0], buffers[1]
	if err := cuabi.Fill(x, stream, 0, n, float32(1)); err != nil {
		return err
	}
	if err := cuabi.Fill(y, stream, 0, n, float32(0)); err != nil {
		return err
	}
	config := cuabi.LaunchConfig{Grid: cuabi.Dim3{X: grid}, Block: cuabi.Dim3{X: block}, Stream: stream}
	for i := 0; i < workerLaunches; i++ {
		if err := s.saxpy.Launch(config, float32(1), x, y, uint32(n)); err != nil {
			return err
		}
	}
	if err := stream.Synchronize(); err != nil {
		return err
	}
	return sameFloats("y", y, filled(workerLaunches, 0))
}

// closeAll closes every object the scenario holds, the context first; safe to repeat.
func (s *state) closeAll() {
	for _, c := range []interface{ Close() error }{s.context, s.graph, s.whileGraph, s.saxpy, s.scale, s.countDown,
		s.module, s.offline, s.offlineAgain, s.countDownModule, s.stream, s.x, s.y, s.x2, s.y2, s.counter} {
		c.Close()
	}
}

func (s *state) teardown() error {
	s.closeAll()
	s.closeAll() // every object a second time: harmless
	return expectStatus(s.x.Read(0, make([]byte, 4)), cuabi.ErrInvalidHandle, "", "reading a closed buffer")
}
