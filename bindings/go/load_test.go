package cuabi

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Loading happens once per process, so each way a load can go wrong is tried in a child process:
// the test binary itself, run with scenarioVariable naming what to try (see runScenario).
const scenarioVariable = "CUABI_GO_TEST_SCENARIO"

func runChild(t *testing.T, scenario string, env ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), scenarioVariable+"="+scenario), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scenario %s: %v\n%s", scenario, err, out)
	}
	return string(out)
}

// buildLibrary compiles a C file of testdata into a shared library, or skips without a compiler.
func buildLibrary(t *testing.T, source string, defines ...string) string {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skipf("no C compiler to build a test library: %v", err)
	}
	out := filepath.Join(t.TempDir(), strings.TrimSuffix(source, ".c")+".so")
	args := append([]string{"-shared", "-fPIC", "-o", out, filepath.Join("testdata", source)}, defines...)
	if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("cc %v: %v\n%s", args, err, b)
	}
	return out
}

// runScenario runs in the child process; it prints what went wrong and returns non-zero then.
func runScenario(scenario string) int {
	path := os.Getenv("CUABI_GO_TEST_PATH")
	check := func(err error, want Status, fragments ...string) error {
		var e *Error
		if !errors.As(err, &e) || e.Status != want {
			return fmt.Errorf("want %v, got %v", want, err)
		}
		for _, f := range append(fragments, "Fix:") {
			if !strings.Contains(e.Message, f) {
				return fmt.Errorf("message lacks %q: %s", f, e.Message)
			}
		}
		return nil
	}
	var err error
	switch scenario {
	case "missing-library":
		// The implicit load of the first call reports the failure, and later calls repeat it.
		_, err = LibraryVersion()
		if err = check(err, ErrNotFound, path, "CUABI_LIBRARY"); err == nil {
			_, err = NewContext(nil)
			err = check(err, ErrNotFound, path)
		}
	case "not-cuabi":
		err = check(Load(path), ErrNotFound, "cuabi_get_proc_address")
	case "other-abi":
		err = check(Load(path), ErrUnsupported, "ABI version 2")
		if _, present := tableFunctions(); err == nil {
			for i, p := range present {
				if p {
					err = fmt.Errorf("function %d of a refused library is still in the table", i)
				}
			}
		}
	case "lacking-functions":
		err = lackingFunctions(path, check)
	case "launch-allocations":
		err = launchAllocations(path)
	default:
		err = fmt.Errorf("unknown scenario %q", scenario)
	}
	if err != nil {
		fmt.Println(scenario+":", err)
		return 1
	}
	return 0
}

// lackingFunctions: a library that has only two functions loads, and every other call says which
// function it lacks.
func lackingFunctions(path string, check func(error, Status, ...string) error) error {
	if err := Load(path); err != nil {
		return err
	}
	if v, err := LibraryVersion(); err != nil || v != 10000 {
		return fmt.Errorf("LibraryVersion = %d, %v", v, err)
	}
	for _, call := range []struct {
		err  error
		name string
	}{
		{func() error { _, err := NewContext(nil); return err }(), "cuabi_context_create"},
		{func() error { _, err := CompileOffline("", &CompileOptions{Target: "sm_90"}); return err }(), "cuabi_module_compile_offline"},
		{PopRange(), "cuabi_range_pop"},
	} {
		if err := check(call.err, ErrUnsupported, call.name, path); err != nil {
			return err
		}
	}
	if HasFunction("cuabi_launch") || !HasFunction("cuabi_abi_version") {
		return errors.New("HasFunction does not reflect the library")
	}
	if StatusName(ErrLaunchBlock) != "CUABI_ERROR_LAUNCH_BLOCK" {
		return errors.New("StatusName does not fall back to the package's names")
	}
	_, present := tableFunctions()
	n := 0
	for _, p := range present {
		if p {
			n++
		}
	}
	if n != 3 { // the two it has, and cuabi_get_proc_address itself
		return fmt.Errorf("%d functions resolved, want 3", n)
	}
	return nil
}

// launchAllocations: with a library whose launch does nothing, a Kernel.Launch and a Graph.Launch
// through the whole Go side (encoding, the cgo crossing, the C trampoline) allocate nothing; the
// time per call is printed for the parent to log.
func launchAllocations(path string) error {
	if err := Load(path); err != nil {
		return err
	}
	k := &Kernel{name: "saxpy"}
	k.h.set(1)
	g := &Graph{}
	g.h.set(1)
	cfg := LaunchConfig{Grid: Dim3{X: 1}, Block: Dim3{X: 32}}
	a, x, y, n := float32(1), DevicePtr(0x1000), DevicePtr(0x2000), uint32(1)
	for _, c := range []struct {
		name string
		call func() error
	}{
		{"Kernel.Launch", func() error { return k.Launch(cfg, a, x, y, n) }},
		{"Graph.Launch", func() error { return g.Launch(nil) }},
	} {
		if err := c.call(); err != nil {
			return fmt.Errorf("%s: %v", c.name, err)
		}
		if allocs := testing.AllocsPerRun(1000, func() { c.call() }); allocs != 0 {
			return fmt.Errorf("%s allocates %v times per call", c.name, allocs)
		}
		fmt.Printf("%s through the package, library call stubbed: %.0f ns of CPU time per call\n", c.name, cpuNanoseconds(c.call))
	}
	return nil
}

// cpuNanoseconds is the process's CPU time per call of f, the least of several rounds (CPU time
// rather than wall time, and the least: on a shared machine other processes' work would count).
func cpuNanoseconds(f func() error) float64 {
	const rounds, calls = 9, 200000
	cpu := func() int64 {
		var usage syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &usage)
		return usage.Utime.Nano() + usage.Stime.Nano()
	}
	best := math.Inf(1)
	for r := 0; r < rounds; r++ {
		start := cpu()
		for i := 0; i < calls; i++ {
			f()
		}
		best = math.Min(best, float64(cpu()-start)/calls)
	}
	return best
}

func TestLaunchAllocatesNothingThroughTheWholeGoSide(t *testing.T) {
	path := buildLibrary(t, "fakecuabi.c", "-DFAKE_ABI=1", "-DFAKE_LAUNCH")
	t.Log(strings.TrimSpace(runChild(t, "launch-allocations", "CUABI_GO_TEST_PATH="+path)))
}

func TestLoadReportsMissingLibraryWithFix(t *testing.T) {
	path := filepath.Join(t.TempDir(), "libcuabi.so.1")
	runChild(t, "missing-library", "CUABI_LIBRARY="+path, "CUABI_GO_TEST_PATH="+path)
}

func TestLoadRefusesLibraryWithoutProcAddress(t *testing.T) {
	path := buildLibrary(t, "notcuabi.c")
	runChild(t, "not-cuabi", "CUABI_GO_TEST_PATH="+path)
}

func TestLoadRefusesOtherABIMajor(t *testing.T) {
	path := buildLibrary(t, "fakecuabi.c", "-DFAKE_ABI=2")
	runChild(t, "other-abi", "CUABI_GO_TEST_PATH="+path)
}

func TestFunctionsTheLibraryLacksAreUnsupportedWhenCalled(t *testing.T) {
	path := buildLibrary(t, "fakecuabi.c", "-DFAKE_ABI=1")
	runChild(t, "lacking-functions", "CUABI_GO_TEST_PATH="+path)
}

func TestLoadIsOncePerProcess(t *testing.T) {
	must(t, Load(""))
	must(t, Load(LibraryPath()))
	err := Load(filepath.Join(t.TempDir(), "other.so"))
	wantStatus(t, err, ErrInvalidArgument, "already loaded", LibraryPath())
}

func TestVersions(t *testing.T) {
	abi, err := ABIVersion()
	must(t, err)
	if abi != 1 {
		t.Errorf("ABIVersion = %d, want 1", abi)
	}
	v, err := LibraryVersion()
	must(t, err)
	if v < 10000 || v >= 20000 {
		t.Errorf("LibraryVersion = %d, want 1.x (10000 .. 19999)", v)
	}
	if !filepath.IsAbs(LibraryPath()) {
		t.Errorf("LibraryPath = %q, want the absolute path the loader opened", LibraryPath())
	}
}
