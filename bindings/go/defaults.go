package cuabi

// #include <string.h>
// #include "zcalls.h"
import "C"

import "unsafe"

// defaultMismatches lists the options structs whose Go defaults (nil options, zero-valued Go
// options) differ byte for byte from what the library's cuabi_*_init gives. The package builds its
// C structs itself, as C callers do with the CUABI_*_INIT macros; this is how its test proves the
// defaults agree (and the reason the _init functions are in the table).
func defaultMismatches() ([]string, error) {
	var mismatches []string
	compare := func(name string, goSide, library unsafe.Pointer, size C.size_t, f *C.cuabi_go_failure) error {
		if err := takeFailure(f); err != nil {
			return err
		}
		if C.memcmp(goSide, library, size) != 0 {
			mismatches = append(mismatches, name)
		}
		return nil
	}
	ctx, _ := contextOptions(nil)
	zeroCtx, _ := contextOptions(&ContextOptions{})
	var libCtx C.cuabi_context_options
	stream, zeroStream, libStream := streamOptions(nil), streamOptions(&StreamOptions{}), new(C.cuabi_stream_options)
	event, zeroEvent, libEvent := eventOptions(nil), eventOptions(&EventOptions{}), new(C.cuabi_event_options)
	buffer, zeroBuffer, libBuffer := bufferOptions(nil), bufferOptions(&BufferOptions{}), new(C.cuabi_buffer_options)
	graph, zeroGraph, libGraph := graphOptions(nil), graphOptions(&GraphOptions{}), new(C.cuabi_graph_options)
	for _, c := range []struct {
		name          string
		nilGo, zeroGo unsafe.Pointer
		library       unsafe.Pointer
		size          C.size_t
		init          func() *C.cuabi_go_failure
	}{
		{"cuabi_context_options", unsafe.Pointer(ctx), unsafe.Pointer(zeroCtx), unsafe.Pointer(&libCtx), C.sizeof_cuabi_context_options,
			func() *C.cuabi_go_failure {
				return C.cuabi_go_context_options_init(C.sizeof_cuabi_context_options, &libCtx)
			}},
		{"cuabi_stream_options", unsafe.Pointer(stream), unsafe.Pointer(zeroStream), unsafe.Pointer(libStream), C.sizeof_cuabi_stream_options,
			func() *C.cuabi_go_failure {
				return C.cuabi_go_stream_options_init(C.sizeof_cuabi_stream_options, libStream)
			}},
		{"cuabi_event_options", unsafe.Pointer(event), unsafe.Pointer(zeroEvent), unsafe.Pointer(libEvent), C.sizeof_cuabi_event_options,
			func() *C.cuabi_go_failure {
				return C.cuabi_go_event_options_init(C.sizeof_cuabi_event_options, libEvent)
			}},
		{"cuabi_buffer_options", unsafe.Pointer(buffer), unsafe.Pointer(zeroBuffer), unsafe.Pointer(libBuffer), C.sizeof_cuabi_buffer_options,
			func() *C.cuabi_go_failure {
				return C.cuabi_go_buffer_options_init(C.sizeof_cuabi_buffer_options, libBuffer)
			}},
		{"cuabi_graph_options", unsafe.Pointer(graph), unsafe.Pointer(zeroGraph), unsafe.Pointer(libGraph), C.sizeof_cuabi_graph_options,
			func() *C.cuabi_go_failure {
				return C.cuabi_go_graph_options_init(C.sizeof_cuabi_graph_options, libGraph)
			}},
	} {
		f := c.init()
		if err := compare(c.name+" (nil options)", c.nilGo, c.library, c.size, f); err != nil {
			return nil, err
		}
		if err := compare(c.name+" (zero options)", c.zeroGo, c.library, c.size, nil); err != nil {
			return nil, err
		}
	}
	// Compile options: the shim starts from the library's init and sets the scalars Go encodes.
	var compile C.cuabi_compile_options
	if err := takeFailure(C.cuabi_go_compile_options_init(C.sizeof_cuabi_compile_options, &compile)); err != nil {
		return nil, err
	}
	r, _, err := encodeCompile("", &CompileOptions{})
	if err != nil {
		return nil, err
	}
	if r.flags != compile.flags || r.fast_math != compile.fast_math || r.ftz != compile.ftz || r.prec_div != compile.prec_div ||
		r.prec_sqrt != compile.prec_sqrt || r.fmad != compile.fmad || r.max_registers != compile.max_registers ||
		r.line_info != compile.line_info || r.device_debug != compile.device_debug || r.timeout_ms != compile.timeout_ms {
		mismatches = append(mismatches, "cuabi_compile_options (zero options)")
	}
	return mismatches, nil
}
