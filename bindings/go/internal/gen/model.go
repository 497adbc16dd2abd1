package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// model is the part of abi/cuabi_model.json the generator reads (docs/abi-policy.md describes the
// whole file).
type model struct {
	Handles []struct {
		Name string `json:"name"`
	} `json:"handles"`
	Families  []family   `json:"families"`
	Constants []constant `json:"constants"`
	Functions []struct {
		Name    string `json:"name"`
		Returns string `json:"returns"`
		Params  []struct {
			Name      string `json:"name"`
			Type      string `json:"type"`
			Direction string `json:"direction"`
		} `json:"params"`
	} `json:"functions"`
}

type family struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Kind   string `json:"kind"`
	Prefix string `json:"prefix"`
	Doc    string `json:"doc"`
}

type constant struct {
	Name   string          `json:"name"`
	Value  json.RawMessage `json:"value"`
	Type   string          `json:"type"`
	Family *string         `json:"family"`
	Doc    string          `json:"doc"`
}

func readModel(path string) (*model, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%v. Fix: pass -model with the path of abi/cuabi_model.json", err)
	}
	var m model
	if err := json.Unmarshal(text, &m); err != nil {
		return nil, fmt.Errorf("%s is not an ABI model: %v. Fix: regenerate it with scripts/regenerate.sh", path, err)
	}
	return &m, nil
}

// function is one function of the model.
type function struct {
	name   string // without the cuabi_ prefix: "context_create"
	result string // C return type
	params []param
}

type param struct {
	ctype     string // C type, with the * next to the type: "const cuabi_context_options*"
	name      string
	direction string // "in", "out" or "inout", as the header's annotations say
}

// cType spells a type as the header does: clang prints "const char *const *", the header
// "const char* const*".
func cType(clang string) string {
	t := strings.ReplaceAll(strings.TrimSpace(clang), " *", "*")
	return strings.ReplaceAll(t, "*const", "* const")
}

func (m *model) functions() ([]function, error) {
	var functions []function
	for _, f := range m.Functions {
		if !strings.HasPrefix(f.Name, "cuabi_") {
			return nil, fmt.Errorf("model function %q lacks the cuabi_ prefix", f.Name)
		}
		g := function{name: strings.TrimPrefix(f.Name, "cuabi_"), result: cType(f.Returns)}
		for _, p := range f.Params {
			if p.Name == "" {
				return nil, fmt.Errorf("%s: a parameter without a name. Fix: name it in the header", f.Name)
			}
			g.params = append(g.params, param{ctype: cType(p.Type), name: p.Name, direction: p.Direction})
		}
		functions = append(functions, g)
	}
	if len(functions) == 0 {
		return nil, fmt.Errorf("the model lists no function")
	}
	return functions, nil
}

// The opaque handle types. Go holds handles as uintptr, never in pointer-typed variables: they are
// bit patterns, not addresses, and the garbage collector inspects every pointer it finds.
var handleTypes map[string]bool

func (m *model) handleNames() map[string]bool {
	names := map[string]bool{}
	for _, h := range m.Handles {
		names[h.Name] = true
	}
	return names
}

type status struct {
	macro, goName, comment string
	value                  string
}

func (m *model) statuses() []status {
	var statuses []status
	for _, c := range m.Constants {
		if c.Family != nil && *c.Family == "cuabi_status" {
			statuses = append(statuses, status{macro: c.Name, goName: goStatusName(c.Name), value: string(c.Value), comment: oneLine(c.Doc)})
		}
	}
	return statuses
}

// oneLine: a doc comment's words on one line, without the closing period.
func oneLine(doc string) string {
	return strings.TrimSuffix(strings.Join(strings.Fields(doc), " "), ".")
}
