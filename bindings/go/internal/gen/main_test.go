package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

const (
	headerPath = "../../../../include/cuabi/cuabi.h"
	packageDir = "../.."
)

func readHeader(t *testing.T) []byte {
	t.Helper()
	header, err := os.ReadFile(headerPath)
	if err != nil {
		t.Fatalf("reading the public header: %v", err)
	}
	return header
}

func TestGeneratedFilesAreCurrent(t *testing.T) {
	files, err := generate(readHeader(t))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(packageDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run `go generate` in bindings/go", name)
		}
	}
}

// Every function of the header must be reachable from the Go API: called by the package's Go code
// through its trampoline, used by the hand-written shim (the custom trampolines, error capture),
// or an output struct's _init that a trampoline the Go code calls runs first.
func TestEveryHeaderFunctionIsReachableFromGo(t *testing.T) {
	functions, err := parseFunctions(readHeader(t))
	if err != nil {
		t.Fatal(err)
	}
	goSource := readAll(t, func(name string) bool {
		return strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") && !strings.HasPrefix(name, "z")
	})
	shim := readAll(t, func(name string) bool { return strings.HasSuffix(name, ".c") && !strings.HasPrefix(name, "z") })
	generated := readAll(t, func(name string) bool { return name == "zcalls.c" })

	reached := map[string]bool{}
	for _, m := range regexp.MustCompile(`C\.cuabi_go_(\w+)\(`).FindAllStringSubmatch(goSource, -1) {
		reached[m[1]] = true
	}
	for _, m := range regexp.MustCompile(`cuabi_go_fn\.(\w+)`).FindAllStringSubmatch(shim, -1) {
		reached[m[1]] = true
	}
	body := regexp.MustCompile(`(?s)cuabi_go_failure\* cuabi_go_(\w+)\([^)]*\) \{(.*?)\n\}`)
	for _, m := range body.FindAllStringSubmatch(generated, -1) {
		if !reached[m[1]] {
			continue
		}
		for _, init := range regexp.MustCompile(`cuabi_go_fn\.(\w+_init)\(`).FindAllStringSubmatch(m[2], -1) {
			reached[init[1]] = true
		}
	}
	var missing []string
	for _, f := range functions {
		if !reached[f.name] {
			missing = append(missing, "cuabi_"+f.name)
		}
	}
	sort.Strings(missing)
	if len(missing) != 0 {
		t.Errorf("%d header functions are not reachable from the Go package: %s", len(missing), strings.Join(missing, ", "))
	}
}

func readAll(t *testing.T, want func(name string) bool) string {
	t.Helper()
	entries, err := os.ReadDir(packageDir)
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, e := range entries {
		if e.IsDir() || !want(e.Name()) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(packageDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	return all.String()
}

func TestStatusNamesFollowGoStyle(t *testing.T) {
	for macro, want := range map[string]string{
		"CUABI_SUCCESS":                  "Success",
		"CUABI_ERROR_LAUNCH_BLOCK":       "ErrLaunchBlock",
		"CUABI_ERROR_CUDA":               "ErrCUDA",
		"CUABI_ERROR_NVRTC_NOT_FOUND":    "ErrNVRTCNotFound",
		"CUABI_ERROR_CACHE_IO":           "ErrCacheIO",
		"CUABI_ERROR_OUT_OF_HOST_MEMORY": "ErrOutOfHostMemory",
	} {
		if got := goStatusName(macro); got != want {
			t.Errorf("goStatusName(%s) = %s, want %s", macro, got, want)
		}
	}
}

func TestHandlesCrossAsIntegers(t *testing.T) {
	functions, err := parseFunctions(readHeader(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range functions {
		if f.name != "context_create" {
			continue
		}
		if got, want := trampolineSignature(f), "cuabi_go_failure* cuabi_go_context_create(const cuabi_context_options* options, uintptr_t* out_context)"; got != want {
			t.Errorf("signature\n got %s\nwant %s", got, want)
		}
		return
	}
	t.Fatal("cuabi_context_create not found in the header")
}
