package cuabi

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"cuabi/internal/scenario"
)

// ownCacheDir is the temporary cache directory the tests made ("" when CUABI_CACHE_DIR was set by
// the caller, whose cache the tests then never clear).
var ownCacheDir string

// The tests load the library as a program would: $CUABI_LIBRARY, else libcuabi.so.1 through the
// loader's path. The kernel cache goes to a temporary directory unless CUABI_CACHE_DIR is set.
// GPU tests skip without a GPU, saying why; CUABI_GO_REQUIRE_GPU=1 makes that a failure instead,
// so that a run on a GPU machine cannot pass by skipping.
func TestMain(m *testing.M) {
	if scenario := os.Getenv(scenarioVariable); scenario != "" {
		os.Exit(runScenario(scenario)) // a child process of a load test (load_test.go)
	}
	if os.Getenv("CUABI_CACHE_DIR") == "" {
		dir, err := os.MkdirTemp("", "cuabi-go-test-cache-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		ownCacheDir = dir
		os.Setenv("CUABI_CACHE_DIR", dir)
	}
	if err := Load(""); err != nil {
		fmt.Fprintf(os.Stderr, "the cuabi tests need libcuabi.so.1: %v\n", err)
		os.Exit(1)
	}
	code := m.Run()
	if ownCacheDir != "" {
		os.RemoveAll(ownCacheDir)
	}
	os.Exit(code)
}

// The conformance scenario's source: an extern "C" saxpy and a scale template.
var (
	testSource      = scenario.Source
	testExpressions = scenario.NameExpressions()
)

// gpu opens a context on device 0, or skips the test without a GPU (the driver's reason).
func gpu(t *testing.T) *Context {
	t.Helper()
	ctx, err := NewContext(nil)
	if IsNoGPU(err) && os.Getenv("CUABI_GO_REQUIRE_GPU") != "1" {
		t.Skipf("no GPU: %v", err)
	}
	if err != nil {
		t.Fatalf("NewContext: %v", err)
	}
	t.Cleanup(func() { ctx.Close() })
	return ctx
}

// must fails the test on err.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// wantStatus checks that err is an *Error of status want whose message contains every fragment
// and ends in a Fix.
func wantStatus(t *testing.T, err error, want Status, fragments ...string) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want a *cuabi.Error with %v, got %v", want, err)
	}
	if e.Status != want || !errors.Is(err, want) {
		t.Fatalf("want %v, got %v", want, err)
	}
	if e.Name != want.String() {
		t.Errorf("Name = %q, want %q", e.Name, want.String())
	}
	if !strings.Contains(e.Message, "Fix:") {
		t.Errorf("message has no Fix: %q", e.Message)
	}
	for _, f := range fragments {
		if !strings.Contains(e.Message, f) {
			t.Errorf("message does not contain %q: %q", f, e.Message)
		}
	}
	return e
}
