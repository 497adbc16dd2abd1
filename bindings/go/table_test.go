package cuabi

import (
	"os"
	"regexp"
	"testing"
)

// The package's function table holds exactly the header's functions, and the library that was
// built with this header provides every one of them.
func TestTableMatchesHeader(t *testing.T) {
	header, err := os.ReadFile("../../include/cuabi/cuabi.h")
	if err != nil {
		t.Skipf("the header is not beside the package (run the tests from bindings/go): %v", err)
	}
	var want []string
	for _, m := range regexp.MustCompile(`(?m)^typedef .*\(\*PFN_(cuabi_\w+)\)`).FindAllStringSubmatch(string(header), -1) {
		want = append(want, m[1])
	}
	names, present := tableFunctions()
	if len(names) != len(want) {
		t.Fatalf("the table has %d functions, the header %d", len(names), len(want))
	}
	for i := range want {
		if names[i] != want[i] {
			t.Errorf("table entry %d is %s, the header's %s", i, names[i], want[i])
		}
		if !present[i] {
			t.Errorf("%s: the library %s does not provide it", names[i], LibraryPath())
		}
		if !HasFunction(want[i]) {
			t.Errorf("HasFunction(%q) = false", want[i])
		}
	}
	if HasFunction("cuabi_no_such_function") || HasFunction("") || HasFunction("cuabi_launch\x00") {
		t.Error("HasFunction accepts a name the library does not export")
	}
}

// Go's nil and zero-valued options build the same C structs as the library's cuabi_*_init.
func TestOptionDefaultsMatchTheLibrary(t *testing.T) {
	mismatches, err := defaultMismatches()
	must(t, err)
	for _, m := range mismatches {
		t.Errorf("%s differs from the library's defaults", m)
	}
}
