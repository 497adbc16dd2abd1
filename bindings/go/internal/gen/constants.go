package main

import (
	"bytes"
	"fmt"
	"strings"
)

// goFamily: how the package spells one constant family of the model.
type goFamily struct {
	typeName string // the Go type: "NodeKind"
	prefix   string // put before each constant's own words: "Node" + "EventWait"
	use      string // where the package takes or gives it, added to the type's doc comment
}

// The families the package declares as Go types. A family not listed here is handled by hand (the
// tristate becomes Toggle, the cache preferences are attribute values, the DOT flags a bool) and
// its constants must be reached by hand-written code (tests/abi/binding_coverage.py checks).
// cuabi_status is Status, written to zstatus.go with the error sentinels.
var goFamilies = map[string]goFamily{
	"cuabi_image_kind":         {"ImageKind", "Image", "ModuleInfo.ImageKind"},
	"cuabi_image_verification": {"ImageVerification", "ImageVerify", "ContextOptions.ImageVerification"},
	"cuabi_module_origin":      {"ModuleOrigin", "Origin", "ModuleInfo.Origin"},
	"cuabi_kernel_attribute":   {"KernelAttribute", "Attribute", "Kernel.SetAttribute"},
	"cuabi_capture_mode": {"CaptureMode", "Capture", "Stream.Capture and Stream.BeginCapture. In Go prefer CaptureThreadLocal or " +
		"CaptureRelaxed: finalizers run on other threads at any time, and under CaptureGlobal one that frees " +
		"device memory during the capture invalidates it"},
	"cuabi_capture_status":         {"CaptureStatus", "Capture", "Stream.CaptureStatus"},
	"cuabi_graph_node_kind":        {"NodeKind", "Node", "NodeInfo.Kind"},
	"cuabi_nvrtc_state":            {"NVRTCState", "NVRTC", "CacheStats.NVRTCState"},
	"cuabi_setting_source":         {"SettingSource", "SetBy", "DriverJITCacheInfo"},
	"cuabi_event_flags":            {"EventFlags", "Event", "EventOptions.Flags"},
	"cuabi_buffer_flags":           {"BufferFlags", "Buffer", "BufferOptions.Flags"},
	"cuabi_host_memory_flags":      {"HostMemoryFlags", "HostMemory", "NewPinnedHostMemory, HostMemory.Pin"},
	"cuabi_compile_flags":          {"CompileFlags", "Compile", "CompileOptions.Flags"},
	"cuabi_launch_flags":           {"LaunchFlags", "Launch", "LaunchConfig.Flags"},
	"cuabi_graph_flags":            {"GraphFlags", "Graph", "GraphOptions.Flags"},
	"cuabi_graph_update_flags":     {"GraphUpdateFlags", "GraphUpdate", "Graph.Recapture, Stream.EndCaptureUpdate"},
	"cuabi_location":               {"Location", "Location", "Buffer.Prefetch, Buffer.Advise; a device ordinal is Location(n)"},
	"cuabi_advice":                 {"Advice", "Advice", "Buffer.Advise"},
	"cuabi_managed_flags":          {"ManagedFlags", "Managed", "Context.NewManagedBuffer"},
	"cuabi_memory_pool_attribute":  {"PoolAttribute", "Pool", "MemoryPool.Attribute"},
	"cuabi_peer_copy_flags":        {"PeerCopyFlags", "PeerCopy", "Buffer.CopyPeer"},
	"cuabi_tensor_data_type":       {"TensorDataType", "TensorData", "TensorMapParams.DataType"},
	"cuabi_tensor_interleave":      {"TensorInterleave", "TensorInterleave", "TensorMapParams.Interleave"},
	"cuabi_tensor_swizzle":         {"TensorSwizzle", "TensorSwizzle", "TensorMapParams.Swizzle"},
	"cuabi_tensor_l2_promotion":    {"TensorL2Promotion", "TensorL2Promotion", "TensorMapParams.L2Promotion"},
	"cuabi_tensor_oob_fill":        {"TensorOOBFill", "TensorOOBFill", "TensorMapParams.OOBFill"},
	"cuabi_graph_conditional_type": {"ConditionalType", "Conditional", "Stream.CaptureConditional, NodeInfo.ConditionalType"},
	"cuabi_graph_condition_flags":  {"ConditionFlags", "Condition", "Stream.CreateCondition"},
	"cuabi_link_input_kind":        {"LinkInputKind", "LinkInput", "LinkInput.Kind"},
	"cuabi_link_flags":             {"LinkFlags", "Link", "LinkOptions.Flags"},
}

// Words Go spells as initialisms.
var initialisms = map[string]string{"CUDA": "CUDA", "NVRTC": "NVRTC", "IO": "IO", "PTX": "PTX", "CUBIN": "CUBIN",
	"LTO": "LTO", "IR": "IR", "LTOIR": "LTOIR", "NVJITLINK": "NVJitLink"}

// camel: "EVENT_WAIT" -> "EventWait", initialisms kept.
func camel(words string) string {
	var b strings.Builder
	for _, word := range strings.Split(words, "_") {
		if spelled, ok := initialisms[word]; ok {
			b.WriteString(spelled)
		} else if word != "" {
			b.WriteString(word[:1] + strings.ToLower(word[1:]))
		}
	}
	return b.String()
}

// goStatusName: CUABI_ERROR_LAUNCH_BLOCK -> ErrLaunchBlock, CUABI_SUCCESS -> Success.
func goStatusName(macro string) string {
	name := strings.TrimPrefix(macro, "CUABI_")
	if strings.HasPrefix(name, "ERROR_") {
		return "Err" + camel(strings.TrimPrefix(name, "ERROR_"))
	}
	return camel(name)
}

var goIntegerTypes = map[string]string{"int32_t": "int32", "uint32_t": "uint32", "int64_t": "int64", "uint64_t": "uint64"}

type goConstant struct {
	goName, macro, value, doc string
}

type goFamilyConstants struct {
	goFamily
	family    family
	goType    string
	constants []goConstant
}

// goFamilies: the model's families that goFamilies names, in model order, with their constants.
func (m *model) goFamilies() ([]goFamilyConstants, error) {
	var out []goFamilyConstants
	for _, f := range m.Families {
		spelling, ok := goFamilies[f.Name]
		if !ok {
			continue
		}
		goType, ok := goIntegerTypes[f.Type]
		if !ok {
			return nil, fmt.Errorf("family %s has type %q, which has no Go type here. Fix: add it to goIntegerTypes", f.Name, f.Type)
		}
		g := goFamilyConstants{goFamily: spelling, family: f, goType: goType}
		for _, c := range m.Constants {
			if c.Family == nil || *c.Family != f.Name {
				continue
			}
			if !strings.HasPrefix(c.Name, f.Prefix) {
				return nil, fmt.Errorf("constant %s of family %s lacks the family's prefix %s", c.Name, f.Name, f.Prefix)
			}
			g.constants = append(g.constants, goConstant{goName: spelling.prefix + camel(strings.TrimPrefix(c.Name, f.Prefix)),
				macro: c.Name, value: string(c.Value), doc: c.Doc})
		}
		out = append(out, g)
	}
	for name := range goFamilies {
		if !m.hasFamily(name) {
			return nil, fmt.Errorf("goFamilies names %s, which the model does not have. Fix: remove or rename its entry", name)
		}
	}
	return out, nil
}

func (m *model) hasFamily(name string) bool {
	for _, f := range m.Families {
		if f.Name == name {
			return true
		}
	}
	return false
}

// comment writes text as // lines of at most about 100 columns, each line starting with indent.
func comment(b *bytes.Buffer, indent, text string) {
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(indent)*4+3+len(line)+1+len(word) > 100 {
			fmt.Fprintf(b, "%s// %s\n", indent, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		fmt.Fprintf(b, "%s// %s\n", indent, line)
	}
}

// sentence: "Head is NAME: doc." or "Head is NAME." when doc is empty.
func sentence(head, name, doc string) string {
	if doc = oneLine(doc); doc != "" {
		return fmt.Sprintf("%s is %s: %s.", head, name, doc)
	}
	return fmt.Sprintf("%s is %s.", head, name)
}

func zconstantsGo(families []goFamilyConstants) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n\npackage cuabi\n", banner)
	for _, f := range families {
		b.WriteString("\n")
		comment(&b, "", sentence(f.typeName, f.family.Name, f.family.Doc)+" Used in "+f.use+".")
		fmt.Fprintf(&b, "type %s %s\n\nconst (\n", f.typeName, f.goType)
		for _, c := range f.constants {
			comment(&b, "\t", sentence(c.goName, c.macro, c.doc))
			fmt.Fprintf(&b, "\t%s %s = %s\n", c.goName, f.typeName, c.value)
		}
		b.WriteString(")\n")
	}
	return b.Bytes()
}
