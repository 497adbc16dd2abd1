package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	modelPath  = "../../../../abi/cuabi_model.json"
	packageDir = "../.."
)

func readTestModel(t *testing.T) *model {
	t.Helper()
	m, err := readModel(modelPath)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestGeneratedFilesAreCurrent(t *testing.T) {
	files, err := generate(readTestModel(t))
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

// The typed constants keep the names the package had before they were generated.
func TestFamilyConstantsKeepTheirGoNames(t *testing.T) {
	families, err := readTestModel(t).goFamilies()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, f := range families {
		for _, c := range f.constants {
			names[c.macro] = f.typeName + " " + c.goName
		}
	}
	for macro, want := range map[string]string{
		"CUABI_IMAGE_PTX":                     "ImageKind ImagePTX",
		"CUABI_IMAGE_CUBIN":                   "ImageKind ImageCUBIN",
		"CUABI_GRAPH_NODE_EVENT_WAIT":         "NodeKind NodeEventWait",
		"CUABI_NVRTC_STATE_NOT_LOADED":        "NVRTCState NVRTCNotLoaded",
		"CUABI_SETTING_CUABI":                 "SettingSource SetByCuabi",
		"CUABI_COMPILE_NO_CACHE":              "CompileFlags CompileNoCache",
		"CUABI_GRAPH_UPDATE_NO_REINSTANTIATE": "GraphUpdateFlags GraphUpdateNoReinstantiate",
	} {
		if got := names[macro]; got != want {
			t.Errorf("%s is %q in Go, want %q", macro, got, want)
		}
	}
}

func TestAFamilyTheModelLacksIsReported(t *testing.T) {
	m := readTestModel(t)
	m.Families = m.Families[:0]
	if _, err := m.goFamilies(); err == nil || !strings.Contains(err.Error(), "which the model does not have") {
		t.Errorf("goFamilies on a model without families: %v, want an error naming the missing family", err)
	}
}

func TestHandlesCrossAsIntegers(t *testing.T) {
	m := readTestModel(t)
	handleTypes = m.handleNames()
	functions, err := m.functions()
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
	t.Fatal("cuabi_context_create not found in the model")
}
