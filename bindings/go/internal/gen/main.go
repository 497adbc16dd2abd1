// Command gen writes the package's generated files from the public header, so that the function
// table, the C trampolines and the status constants follow include/cuabi/cuabi.h by construction:
//
//	zcalls.h, zcalls.c  the table of every cuabi function (filled through cuabi_get_proc_address),
//	                    and one C trampoline per function that calls it and, on failure, copies
//	                    the thread's error before returning to Go
//	zstatus.go          the Status constants (the error sentinels) and their names
//
// Run it with `go generate` in bindings/go. Its test fails when the files are stale.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

func main() {
	header := flag.String("header", "../../include/cuabi/cuabi.h", "the public header")
	out := flag.String("out", ".", "the package directory")
	flag.Parse()
	text, err := os.ReadFile(*header)
	if err != nil {
		fail(err)
	}
	files, err := generate(text)
	if err != nil {
		fail(err)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(*out, name), content, 0o644); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gen:", err)
	os.Exit(1)
}

// function is one PFN_cuabi_* typedef of the header.
type function struct {
	name   string // without the cuabi_ prefix: "context_create"
	result string // C return type
	params []param
}

type param struct {
	ctype string // as the header spells it: "const cuabi_context_options*"
	name  string
}

// The opaque handle types. Go holds handles as uintptr, never in pointer-typed variables: they are
// bit patterns, not addresses, and the garbage collector inspects every pointer it finds.
var handleTypes = map[string]bool{
	"cuabi_context": true, "cuabi_stream": true, "cuabi_event": true, "cuabi_buffer": true,
	"cuabi_module": true, "cuabi_kernel": true, "cuabi_graph": true, "cuabi_range": true,
	"cuabi_host_memory": true,
}

// Functions with hand-written trampolines in shim.c: they build C-side tables or structs from
// Go memory (which may not hold pointers to Go memory) or capture the compile log.
var custom = map[string]bool{
	"launch": true, "launch_packed": true, "graph_update_kernel_args": true,
	"module_compile": true, "module_compile_offline": true, "kernel_get_max_active_clusters": true,
	"graph_update_memcpy": true,
}

// Functions only the shim itself calls: the thread's last-failure accessors, read inside each
// trampoline (reading them from Go after the call could be on another OS thread).
var shimOnly = map[string]bool{
	"last_error_message": true, "last_cu_result": true, "last_nvrtc_result": true, "last_compile_log": true,
}

// Statuses that answer a question rather than report a failure: no message is copied for them.
var quiet = map[string]string{
	"stream_query":       "CUABI_ERROR_NOT_READY",
	"event_query":        "CUABI_ERROR_NOT_READY",
	"graph_cache_lookup": "CUABI_ERROR_NOT_FOUND",
}

var (
	pfnLine    = regexp.MustCompile(`^typedef (.+?) \(\*PFN_cuabi_(\w+)\)\((.*)\);$`)
	statusLine = regexp.MustCompile(`^#define (CUABI_(?:SUCCESS|ERROR_\w+)) (\d+)\s*(?:/\*\s*(.*?)\s*\*/)?$`)
	paramSplit = regexp.MustCompile(`^(.*?[\s*])(\w+)$`)
)

func parseFunctions(header []byte) ([]function, error) {
	var functions []function
	for _, line := range strings.Split(string(header), "\n") {
		m := pfnLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		f := function{name: m[2], result: strings.TrimSpace(m[1])}
		if m[3] != "void" {
			for _, p := range strings.Split(m[3], ",") {
				pm := paramSplit.FindStringSubmatch(strings.TrimSpace(p))
				if pm == nil {
					return nil, fmt.Errorf("PFN_cuabi_%s: cannot read parameter %q", f.name, p)
				}
				f.params = append(f.params, param{ctype: strings.ReplaceAll(strings.TrimSpace(pm[1]), " *", "*"), name: pm[2]})
			}
		}
		functions = append(functions, f)
	}
	if len(functions) == 0 {
		return nil, fmt.Errorf("no PFN_cuabi_* typedefs found")
	}
	return functions, nil
}

type status struct {
	macro, goName, comment string
	value                  string
}

func parseStatuses(header []byte) []status {
	var statuses []status
	for _, line := range strings.Split(string(header), "\n") {
		if m := statusLine.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			statuses = append(statuses, status{macro: m[1], goName: goStatusName(m[1]), value: m[2], comment: m[3]})
		}
	}
	return statuses
}

// Words Go spells as initialisms.
var initialisms = map[string]string{"CUDA": "CUDA", "NVRTC": "NVRTC", "IO": "IO"}

// goStatusName: CUABI_ERROR_LAUNCH_BLOCK -> ErrLaunchBlock, CUABI_SUCCESS -> Success.
func goStatusName(macro string) string {
	name := strings.TrimPrefix(macro, "CUABI_")
	prefix := ""
	if strings.HasPrefix(name, "ERROR_") {
		name, prefix = strings.TrimPrefix(name, "ERROR_"), "Err"
	}
	var b strings.Builder
	b.WriteString(prefix)
	for _, word := range strings.Split(name, "_") {
		if spelled, ok := initialisms[word]; ok {
			b.WriteString(spelled)
		} else {
			b.WriteString(word[:1] + strings.ToLower(word[1:]))
		}
	}
	return b.String()
}

func generate(header []byte) (map[string][]byte, error) {
	functions, err := parseFunctions(header)
	if err != nil {
		return nil, err
	}
	inits := map[string]bool{}
	for _, f := range functions {
		if strings.HasSuffix(f.name, "_init") {
			inits[f.name] = true
		}
	}
	statuses := parseStatuses(header)
	if len(statuses) == 0 {
		return nil, fmt.Errorf("no status codes found")
	}
	goSource, err := format.Source(zstatusGo(statuses))
	if err != nil {
		return nil, err
	}
	return map[string][]byte{
		"zcalls.h":   zcallsH(functions),
		"zcalls.c":   zcallsC(functions, inits),
		"zstatus.go": goSource,
	}, nil
}

const banner = "Code generated by internal/gen from include/cuabi/cuabi.h; DO NOT EDIT."

func isHandle(ctype string) bool {
	return handleTypes[strings.TrimSuffix(ctype, "*")] && strings.Count(ctype, "*") == 1
}
func isOutHandle(ctype string) bool {
	return handleTypes[strings.TrimSuffix(ctype, "**")] && strings.HasSuffix(ctype, "**")
}

// goParams: the trampoline's parameter list, handles as uintptr_t.
func goParams(f function) []string {
	var list []string
	for _, p := range f.params {
		switch {
		case isHandle(p.ctype):
			list = append(list, "uintptr_t "+p.name)
		case isOutHandle(p.ctype):
			list = append(list, "uintptr_t* "+p.name)
		default:
			list = append(list, p.ctype+" "+p.name)
		}
	}
	return list
}

type kind int

const (
	statusKind  kind = iota // returns cuabi_status
	destroyKind             // void ..._destroy(handle): cannot fail
	voidKind                // other void functions (the _init functions, set_capacity)
	valueKind               // returns a value
)

func kindOf(f function) kind {
	switch {
	case f.result == "cuabi_status":
		return statusKind
	case f.result == "void" && strings.HasSuffix(f.name, "_destroy"):
		return destroyKind
	case f.result == "void":
		return voidKind
	default:
		return valueKind
	}
}

func trampolineSignature(f function) string {
	params := goParams(f)
	switch kindOf(f) {
	case destroyKind:
		return fmt.Sprintf("void cuabi_go_%s(%s)", f.name, strings.Join(params, ", "))
	case valueKind:
		params = append(params, f.result+"* out_result")
	}
	if len(params) == 0 {
		params = []string{"void"}
	}
	return fmt.Sprintf("cuabi_go_failure* cuabi_go_%s(%s)", f.name, strings.Join(params, ", "))
}

func hasTrampoline(f function) bool { return !custom[f.name] && !shimOnly[f.name] }

func zcallsH(functions []function) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "/* %s */\n#ifndef CUABI_GO_ZCALLS_H\n#define CUABI_GO_ZCALLS_H\n\n#include \"shim.h\"\n\n", banner)
	b.WriteString("/* Every function of the header, resolved through cuabi_get_proc_address; NULL when the loaded\n * library lacks it (its trampoline then reports CUABI_ERROR_UNSUPPORTED). */\n")
	b.WriteString("typedef struct cuabi_go_functions {\n")
	for _, f := range functions {
		fmt.Fprintf(&b, "    PFN_cuabi_%s %s;\n", f.name, f.name)
	}
	b.WriteString("} cuabi_go_functions;\n\nextern cuabi_go_functions cuabi_go_fn;\n\n")
	fmt.Fprintf(&b, "#define CUABI_GO_FUNCTION_COUNT %d\n", len(functions))
	b.WriteString("extern const char* const cuabi_go_function_names[CUABI_GO_FUNCTION_COUNT];\n\n")
	b.WriteString("/* Fills cuabi_go_fn through `get`. */\nvoid cuabi_go_resolve(PFN_cuabi_get_proc_address get);\n\n")
	b.WriteString("/* 1 when function `index` (of cuabi_go_function_names) was resolved. */\nint cuabi_go_function_present(size_t index);\n\n")
	b.WriteString("/* Trampolines: each calls its function and returns NULL on success, or the failure with the\n * thread's message copied (release it with cuabi_go_failure_free). Handles cross as uintptr_t. */\n")
	for _, f := range functions {
		if hasTrampoline(f) {
			fmt.Fprintf(&b, "%s;\n", trampolineSignature(f))
		}
	}
	b.WriteString("\n#endif\n")
	return b.Bytes()
}

func callArgs(f function) string {
	var args []string
	for _, p := range f.params {
		switch {
		case isHandle(p.ctype):
			args = append(args, fmt.Sprintf("(%s)%s", p.ctype, p.name))
		case isOutHandle(p.ctype):
			args = append(args, "&"+p.name+"_handle")
		default:
			args = append(args, p.name)
		}
	}
	return strings.Join(args, ", ")
}

func zcallsC(functions []function, inits map[string]bool) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "/* %s */\n#include \"zcalls.h\"\n\ncuabi_go_functions cuabi_go_fn;\n\n", banner)
	b.WriteString("const char* const cuabi_go_function_names[CUABI_GO_FUNCTION_COUNT] = {\n")
	for _, f := range functions {
		fmt.Fprintf(&b, "    \"cuabi_%s\",\n", f.name)
	}
	b.WriteString("};\n\nvoid cuabi_go_resolve(PFN_cuabi_get_proc_address get) {\n")
	for _, f := range functions {
		fmt.Fprintf(&b, "    cuabi_go_fn.%s = (PFN_cuabi_%s)get(\"cuabi_%s\");\n", f.name, f.name, f.name)
	}
	b.WriteString("}\n\nint cuabi_go_function_present(size_t index) {\n    switch (index) {\n")
	for i, f := range functions {
		fmt.Fprintf(&b, "    case %d: return cuabi_go_fn.%s != NULL;\n", i, f.name)
	}
	b.WriteString("    default: return 0;\n    }\n}\n")
	for _, f := range functions {
		if hasTrampoline(f) {
			b.WriteString("\n" + trampolineSignature(f) + " {\n")
			writeBody(&b, f, inits)
			b.WriteString("}\n")
		}
	}
	return b.Bytes()
}

func writeBody(b *bytes.Buffer, f function, inits map[string]bool) {
	missing := fmt.Sprintf("    if (cuabi_go_fn.%s == NULL) return cuabi_go_missing(\"cuabi_%s\");\n", f.name, f.name)
	switch kindOf(f) {
	case destroyKind:
		fmt.Fprintf(b, "    if (cuabi_go_fn.%s != NULL) cuabi_go_fn.%s(%s);\n", f.name, f.name, callArgs(f))
		return
	case voidKind:
		b.WriteString(missing)
		fmt.Fprintf(b, "    cuabi_go_fn.%s(%s);\n    return NULL;\n", f.name, callArgs(f))
		return
	case valueKind:
		b.WriteString(missing)
		fmt.Fprintf(b, "    *out_result = cuabi_go_fn.%s(%s);\n    return NULL;\n", f.name, callArgs(f))
		return
	}
	b.WriteString(missing)
	for _, p := range f.params {
		if isOutHandle(p.ctype) {
			fmt.Fprintf(b, "    %s %s_handle = NULL;\n", strings.TrimSuffix(p.ctype, "*"), p.name)
		}
		// Output structs are prepared by the library's own _init (struct_size, and zeroes).
		if base := strings.TrimPrefix(strings.TrimSuffix(p.ctype, "*"), "cuabi_"); strings.HasPrefix(p.name, "out_") &&
			strings.Count(p.ctype, "*") == 1 && inits[base+"_init"] && f.name != base+"_init" {
			fmt.Fprintf(b, "    if (%s != NULL) {\n", p.name)
			fmt.Fprintf(b, "        if (cuabi_go_fn.%s_init == NULL) return cuabi_go_missing(\"cuabi_%s_init\");\n", base, base)
			fmt.Fprintf(b, "        cuabi_status prepared = cuabi_go_fn.%s_init((uint32_t)sizeof *%s, %s);\n", base, p.name, p.name)
			b.WriteString("        if (prepared != CUABI_SUCCESS) return cuabi_go_capture(prepared, 0);\n    }\n")
		}
	}
	fmt.Fprintf(b, "    cuabi_status status = cuabi_go_fn.%s(%s);\n", f.name, callArgs(f))
	if q, ok := quiet[f.name]; ok {
		fmt.Fprintf(b, "    if (status == %s) return cuabi_go_quiet(status);\n", q)
	}
	b.WriteString("    if (status != CUABI_SUCCESS) return cuabi_go_capture(status, 0);\n")
	for _, p := range f.params {
		if isOutHandle(p.ctype) {
			fmt.Fprintf(b, "    *%s = (uintptr_t)%s_handle;\n", p.name, p.name)
		}
	}
	b.WriteString("    return NULL;\n")
}

func zstatusGo(statuses []status) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n\npackage cuabi\n\n", banner)
	b.WriteString("// The status codes of the C API. Every one but Success is also an error sentinel:\n")
	b.WriteString("// errors.Is(err, cuabi.ErrLaunchBlock) holds for an *Error with that Status.\n")
	b.WriteString("// docs/errors.md says when each happens and what fixes it.\nconst (\n")
	for _, s := range statuses {
		comment := fmt.Sprintf("%s is %s", s.goName, s.macro)
		if s.comment != "" {
			comment += ": " + s.comment
		}
		fmt.Fprintf(&b, "\t// %s.\n\t%s Status = %s\n", comment, s.goName, s.value)
	}
	b.WriteString(")\n\n// statusNames: each status's C name, as cuabi_status_name spells it.\nvar statusNames = map[Status]string{\n")
	for _, s := range statuses {
		fmt.Fprintf(&b, "\t%s: %q,\n", s.goName, s.macro)
	}
	b.WriteString("}\n")
	return b.Bytes()
}
