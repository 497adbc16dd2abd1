package main

import (
	"os/exec"
	"path/filepath"
	"testing"

	"cuabi"
)

// The benchmark runs end to end against a stand-in library whose calls do nothing, so its control
// flow is tested without a GPU, and its table then shows the Go package's own cost per launch
// against a C loop (cuabi's work taken out).
func TestBenchmarkRunsAgainstAStubLibrary(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skipf("no C compiler to build the stub library: %v", err)
	}
	stub := filepath.Join(t.TempDir(), "libcuabi-stub.so")
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-I../../../../include", "-o", stub, "testdata/stub.c").CombinedOutput(); err != nil {
		t.Fatalf("building the stub: %v\n%s", err, out)
	}
	if err := cuabi.Load(stub); err != nil {
		t.Fatal(err)
	}
	if err := run(5, 20000, 250, true); err != nil {
		t.Fatal(err)
	}
}
