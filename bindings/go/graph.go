package cuabi

// #include "zcalls.h"
import "C"

import (
	"runtime"
	"strconv"
	"unsafe"
)

// GraphOptions configure how a capture becomes a Graph; the zero value (or nil) has no flags.
type GraphOptions struct {
	Flags GraphFlags
}

// Graph is a captured sequence of GPU work with its executable, replayed with one call. It keeps
// alive its context, the kernels it launches, the buffers its captured transfers touch and those
// given to RetainBuffer; a buffer reached only through a kernel argument is not known to it.
//
// A Graph is safe for concurrent use: cuabi serializes calls on one graph.
type Graph struct {
	h handle
}

func newGraph(bits C.uintptr_t) *Graph {
	g := &Graph{}
	return own(g, &g.h, bits, (*Graph).Close)
}

// Close releases the graph; it dies with its last handle and graph-cache entry (replays still
// running finish first). Closing twice is harmless; it returns nil.
func (g *Graph) Close() error {
	if g != nil {
		g.h.release(g, func(bits C.uintptr_t) { C.cuabi_go_graph_destroy(bits) })
	}
	return nil
}

func (g *Graph) ref() (C.uintptr_t, error) {
	if g == nil {
		return 0, errClosed("cuabi.Graph")
	}
	return g.h.ref("cuabi.Graph")
}

// Capture records the GPU work fn enqueues on s (launches, copies, fills: recorded, not run) and
// returns it as a Graph to replay with Launch:
//
//	g, err := stream.Capture(cuabi.CaptureThreadLocal, func() error {
//		return saxpy.Launch(cuabi.LaunchConfig{Grid: grid, Block: block, Stream: stream}, a, x, y, n)
//	})
//
// When fn returns an error or panics, the capture is aborted (the stream never stays capturing)
// and the error or panic goes on to the caller. A global or thread-local capture must end on the
// OS thread that began it, so Capture locks the goroutine to its thread while fn runs; work that
// fn hands to other goroutines is subject to the mode's rules (see CaptureMode).
func (s *Stream) Capture(mode CaptureMode, fn func() error) (*Graph, error) {
	return s.CaptureWithOptions(mode, nil, fn)
}

// CaptureWithOptions is Capture with options for the instantiation.
func (s *Stream) CaptureWithOptions(mode CaptureMode, options *GraphOptions, fn func() error) (*Graph, error) {
	var g *Graph
	err := s.capture(mode, fn, func() (err error) {
		g, err = s.EndCapture(options)
		return err
	})
	return g, err
}

// Recapture records the work fn enqueues on s, as Capture does, and updates g from it: in place
// when the new capture has g's topology, else by instantiating the new capture (unless flags has
// GraphUpdateNoReinstantiate, then ErrGraphUpdate and g is unchanged). The info says which
// happened and why; every handle of the graph sees the result.
func (g *Graph) Recapture(s *Stream, mode CaptureMode, flags GraphUpdateFlags, fn func() error) (GraphUpdateInfo, error) {
	var info GraphUpdateInfo
	err := s.capture(mode, fn, func() (err error) {
		info, err = s.EndCaptureUpdate(g, flags)
		return err
	})
	return info, err
}

func (s *Stream) capture(mode CaptureMode, fn func() error, end func() error) error {
	if mode != CaptureRelaxed {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	if err := s.BeginCapture(mode); err != nil {
		return err
	}
	ended := false
	defer func() {
		if !ended {
			s.AbortCapture() // fn failed or panicked; its own error or panic is what the caller needs
		}
	}()
	if err := fn(); err != nil {
		return err
	}
	ended = true
	return end() // on failure cuabi ends the capture itself
}

// BeginCapture starts recording work enqueued on s. Prefer Capture, which also ends the capture on
// every path. With CaptureGlobal or CaptureThreadLocal, end it on the same OS thread (hold
// runtime.LockOSThread in between). ErrCapture when s already captures.
func (s *Stream) BeginCapture(mode CaptureMode) error {
	return call(s, func(bits C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_graph_capture_begin(bits, C.int32_t(mode))
	})
}

// EndCapture ends the capture on s and instantiates it. On failure a capture cuabi began is
// discarded. ErrCapture when s does not capture, when the capture was invalidated or forked
// streams never joined, or on another OS thread than a global or thread-local capture began on.
func (s *Stream) EndCapture(options *GraphOptions) (*Graph, error) {
	var graph C.uintptr_t
	o := graphOptions(options)
	if err := call(s, func(bits C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_graph_capture_end(bits, o, &graph) }); err != nil {
		return nil, err
	}
	return newGraph(graph), nil
}

func graphOptions(options *GraphOptions) *C.cuabi_graph_options {
	o := &C.cuabi_graph_options{struct_size: C.sizeof_cuabi_graph_options, flags: C.CUABI_GRAPH_DEFAULT}
	if options != nil {
		o.flags = C.uint32_t(options.Flags)
	}
	return o
}

// GraphUpdateInfo says what a whole-graph update did.
type GraphUpdateInfo struct {
	Reinstantiated bool   // the executable could not be updated in place and was rebuilt
	DriverResult   int32  // the driver's CUgraphExecUpdateResult; 0 when updated in place
	HasErrorNode   bool   // ErrorNode names the node of the new capture the refusal is about
	ErrorNode      int    // that node (0 when HasErrorNode is false)
	Reason         string // why it was not updated in place; "" when it was
}

// EndCaptureUpdate ends the capture on s and updates g from it (see Recapture, which also begins
// the capture). ErrContextMismatch when s and g belong to different contexts; otherwise the
// errors of EndCapture and ErrGraphUpdate.
func (s *Stream) EndCaptureUpdate(g *Graph, flags GraphUpdateFlags) (GraphUpdateInfo, error) {
	graph, err := g.ref()
	if err != nil {
		return GraphUpdateInfo{}, err
	}
	info := new(C.cuabi_graph_update_info)
	err = call(s, func(bits C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_graph_capture_end_update(bits, graph, C.uint32_t(flags), info)
	})
	runtime.KeepAlive(g)
	return GraphUpdateInfo{
		Reinstantiated: info.reinstantiated != 0,
		DriverResult:   int32(info.driver_result),
		HasErrorNode:   info.has_error_node != 0,
		ErrorNode:      int(info.error_node_index),
		Reason:         C.GoString(&info.reason[0]),
	}, err
}

// AbortCapture ends and discards the capture cuabi began on s, if any; nothing when s does not
// capture. ErrCapture, ending nothing, for a capture other code began.
func (s *Stream) AbortCapture() error {
	return call(s, func(bits C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_graph_capture_abort(bits) })
}

// CaptureStatus is whether s captures, whoever began the capture.
func (s *Stream) CaptureStatus() (CaptureStatus, error) {
	var status C.int32_t
	err := call(s, func(bits C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_graph_capture_get_status(bits, &status) })
	return CaptureStatus(status), err
}

// Launch enqueues one replay on s, any stream of the graph's context; nil replays synchronously.
// ErrContextMismatch for a stream of another context. Allocates nothing.
func (g *Graph) Launch(s *Stream) error {
	stream, err := optionalStream(s)
	if err != nil {
		return err
	}
	err = call(g, func(bits C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_graph_launch(bits, stream) })
	runtime.KeepAlive(s)
	return err
}

// Upload prepares the graph's device resources on s (nil: synchronously), so that its first
// Launch is as fast as later ones.
func (g *Graph) Upload(s *Stream) error {
	stream, err := optionalStream(s)
	if err != nil {
		return err
	}
	err = call(g, func(bits C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_graph_upload(bits, stream) })
	runtime.KeepAlive(s)
	return err
}

// RetainBuffer makes the graph keep b's memory alive for its life, as it does for buffers its
// captured transfers touch: for buffers its kernels reach through arguments. b may be closed right
// after. ErrContextMismatch for a buffer of another device.
func (g *Graph) RetainBuffer(b *Buffer) error {
	buffer, err := b.ref()
	if err != nil {
		return err
	}
	err = call(g, func(bits C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_graph_retain_buffer(bits, buffer) })
	runtime.KeepAlive(b)
	return err
}

// Native is the underlying CUgraph and CUgraphExec, owned by the graph (valid until it dies or a
// Recapture re-instantiates it). Changes made through the driver are not seen by cuabi.
func (g *Graph) Native() (graph, exec unsafe.Pointer, err error) {
	err = call(g, func(bits C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_graph_get_native(bits, &graph, &exec) })
	return graph, exec, err
}

// NodeCount is the number of nodes. Nodes are numbered in capture order.
func (g *Graph) NodeCount() (int, error) {
	var n C.size_t
	err := call(g, func(bits C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_graph_get_node_count(bits, &n) })
	return int(n), err
}

// NodeInfo describes a graph node; fields that do not apply to its kind are zero.
type NodeInfo struct {
	Kind NodeKind
	// Kernel nodes:
	Kernel            *Kernel // the cuabi kernel it launches (borrowed from the graph), nil if not from cuabi
	Grid, Block       Dim3
	SharedMemoryBytes uint32
	ParamCount        int // -1 when the driver cannot tell (before CUDA 12.4)
	ParamBytes        int // the packed argument buffer's size (UpdateKernelArgsPacked)
	// Memset nodes:
	MemsetValue       uint32
	MemsetElementSize int // 1, 2 or 4 bytes
	// Conditional nodes cuabi added (zero for other nodes):
	ConditionalType      ConditionalType
	ConditionalBodyCount int
	Condition            Condition
	ConditionalBodyNodes int // nodes in its bodies, nested bodies included
}

// Node describes node index, reflecting updates made through cuabi. ErrGraphNode for an index
// beyond the node count.
func (g *Graph) Node(index int) (NodeInfo, error) {
	c := new(C.cuabi_graph_node_info)
	if err := g.nodeCall(index, func(bits C.uintptr_t, node C.size_t) *C.cuabi_go_failure {
		return C.cuabi_go_graph_get_node_info(bits, node, c)
	}); err != nil {
		return NodeInfo{}, err
	}
	info := NodeInfo{
		Kind:                 NodeKind(c.kind),
		Grid:                 Dim3{uint32(c.grid[0]), uint32(c.grid[1]), uint32(c.grid[2])},
		Block:                Dim3{uint32(c.block[0]), uint32(c.block[1]), uint32(c.block[2])},
		SharedMemoryBytes:    uint32(c.shared_memory_bytes),
		ParamCount:           int(c.param_count),
		ParamBytes:           int(c.param_bytes),
		MemsetValue:          uint32(c.memset_value),
		MemsetElementSize:    int(c.memset_element_size),
		ConditionalType:      ConditionalType(c.conditional_type),
		ConditionalBodyCount: int(c.conditional_body_count),
		Condition:            Condition(c.condition),
		ConditionalBodyNodes: int(c.conditional_body_nodes),
	}
	if c.param_count == C.CUABI_GRAPH_PARAM_COUNT_UNKNOWN {
		info.ParamCount = -1
	}
	if kernel := C.uintptr_t(uintptr(unsafe.Pointer(c.kernel))); kernel != 0 {
		name, err := g.NodeKernelName(index)
		if err != nil {
			return NodeInfo{}, err
		}
		info.Kernel = &Kernel{name: name, graph: g}
		info.Kernel.h.set(kernel)
	}
	return info, nil
}

// NodeKernelName is the name of kernel node index's kernel: for a cuabi kernel the name or
// expression it was looked up by, else the driver's (mangled) name. ErrGraphNode for a bad index
// or a node that is not a kernel node.
func (g *Graph) NodeKernelName(index int) (string, error) {
	bits, err := g.ref()
	if err != nil {
		return "", err
	}
	if err := checkOffset(index); err != nil {
		return "", err
	}
	name, err := twoCallText(func(out unsafe.Pointer, capacity C.size_t, size *C.size_t) *C.cuabi_go_failure {
		return C.cuabi_go_graph_get_node_kernel_name(bits, C.size_t(index), (*C.char)(out), capacity, size)
	})
	runtime.KeepAlive(g)
	return name, err
}

// NodeParamInfo is where parameter param of kernel node index lies in its packed argument buffer.
// ErrOutOfBounds for a bad parameter, ErrGraphNode for a bad node, ErrUnsupported before CUDA 12.4.
func (g *Graph) NodeParamInfo(index, param int) (offset, size int, err error) {
	if err := checkOffset(param); err != nil {
		return 0, 0, err
	}
	var o, s C.size_t
	err = g.nodeCall(index, func(bits C.uintptr_t, node C.size_t) *C.cuabi_go_failure {
		return C.cuabi_go_graph_get_node_param_info(bits, node, C.size_t(param), &o, &s)
	})
	return int(o), int(s), err
}

// UpdateKernelArgs replaces every argument of kernel node index for later replays, values encoded
// as for Kernel.Launch and checked by cuabi as a launch is (ErrArgumentCount, ErrArgumentSize).
// Replays already enqueued are not affected. ErrGraphNode for a bad index or a node that is not a
// kernel node, ErrGraphUpdate when the driver refuses (the node keeps its arguments).
func (g *Graph) UpdateKernelArgs(index int, args ...any) error {
	values, sizes, err := argTable(args, "graph node "+strconv.Itoa(index))
	if err != nil {
		return err
	}
	err = g.nodeCall(index, func(bits C.uintptr_t, node C.size_t) *C.cuabi_go_failure {
		return C.cuabi_go_graph_update_kernel_args(bits, node, bytesPointer(values), sizesPointer(sizes), C.size_t(len(sizes)))
	})
	runtime.KeepAlive(args)
	return err
}

// UpdateKernelArgsPacked is UpdateKernelArgs with the arguments packed as NodeParamInfo lays them
// out; len(packed) must be the node's ParamBytes.
func (g *Graph) UpdateKernelArgsPacked(index int, packed []byte) error {
	return g.nodeCall(index, func(bits C.uintptr_t, node C.size_t) *C.cuabi_go_failure {
		return C.cuabi_go_graph_update_kernel_args_packed(bits, node, bytesPointer(packed), C.size_t(len(packed)))
	})
}

// UpdateKernelGeometry changes kernel node index's grid, block and dynamic shared memory for later
// replays, checked as a launch is (ErrLaunchGrid, ErrLaunchBlock, ...). Dim3 zeros count as for
// LaunchConfig.
func (g *Graph) UpdateKernelGeometry(index int, grid, block Dim3, sharedMemoryBytes uint32) error {
	gridC, blockC := grid.c(), block.c()
	return g.nodeCall(index, func(bits C.uintptr_t, node C.size_t) *C.cuabi_go_failure {
		return C.cuabi_go_graph_update_kernel_geometry(bits, node, &gridC[0], &blockC[0], C.uint32_t(sharedMemoryBytes))
	})
}

// UpdateMemsetValue changes the value memset node index writes (it must fit the node's element
// size). ErrGraphNode for a bad index or a node that is not a memset node.
func (g *Graph) UpdateMemsetValue(index int, value uint32) error {
	return g.nodeCall(index, func(bits C.uintptr_t, node C.size_t) *C.cuabi_go_failure {
		return C.cuabi_go_graph_update_memset_value(bits, node, C.uint32_t(value))
	})
}

// nodeCall makes one cuabi call about node index of g.
func (g *Graph) nodeCall(index int, f func(graph C.uintptr_t, node C.size_t) *C.cuabi_go_failure) error {
	if err := checkOffset(index); err != nil {
		return err
	}
	return call(g, func(bits C.uintptr_t) *C.cuabi_go_failure { return f(bits, C.size_t(index)) })
}

// MemcpyEnd is one end of a memcpy node (Graph.UpdateMemcpy): a range of a Buffer starting at
// Offset, or HostMemory starting at Offset. Set exactly one of Buffer and Host.
type MemcpyEnd struct {
	Buffer *Buffer
	Host   *HostMemory
	Offset int
}

func (e MemcpyEnd) c(size int) (buffer, host C.uintptr_t, offset C.uint64_t, err error) {
	if err := checkOffset(e.Offset); err != nil {
		return 0, 0, 0, err
	}
	switch {
	case e.Buffer != nil && e.Host == nil:
		buffer, err = e.Buffer.ref()
		return buffer, 0, C.uint64_t(e.Offset), err
	case e.Host != nil && e.Buffer == nil:
		p, err := e.Host.hostRange(e.Offset, size)
		return 0, C.uintptr_t(uintptr(p)), 0, err
	}
	return 0, 0, 0, newError(ErrInvalidArgument, "a MemcpyEnd sets both or neither of Buffer and Host. Fix: set exactly one.")
}

// UpdateMemcpy points memcpy node index at new end points for the following replays, each checked
// against its bounds (ErrOutOfBounds); the graph keeps the new buffers alive, and host memory must
// stay open while the graph may replay. ErrInvalidArgument for a direction other than the node's,
// ErrGraphNode for a node that is not a memcpy node, ErrGraphUpdate when the driver refuses.
func (g *Graph) UpdateMemcpy(index int, dst, src MemcpyEnd, size int) error {
	if size <= 0 {
		return newError(ErrInvalidArgument, "memcpy size %d is not positive. Fix: copy at least 1 byte.", size)
	}
	var u C.cuabi_go_memcpy_update
	var err error
	if u.dst_buffer, u.dst_host, u.dst_offset, err = dst.c(size); err != nil {
		return err
	}
	if u.src_buffer, u.src_host, u.src_offset, err = src.c(size); err != nil {
		return err
	}
	u.size = C.uint64_t(size)
	err = g.nodeCall(index, func(bits C.uintptr_t, node C.size_t) *C.cuabi_go_failure {
		return C.cuabi_go_graph_update_memcpy(bits, node, u)
	})
	runtime.KeepAlive(dst.Buffer)
	runtime.KeepAlive(src.Buffer)
	return err
}

// SetNodeEnabled turns node index of the executable off (replays skip it; its dependencies still
// order the nodes around it) or back on. Kernel, memcpy and memset nodes only (ErrGraphNode).
func (g *Graph) SetNodeEnabled(index int, enabled bool) error {
	return g.nodeCall(index, func(bits C.uintptr_t, node C.size_t) *C.cuabi_go_failure {
		return C.cuabi_go_graph_set_node_enabled(bits, node, boolC(enabled))
	})
}

// NodeEnabled says whether node index runs on replay.
func (g *Graph) NodeEnabled(index int) (bool, error) {
	var enabled C.uint32_t
	err := g.nodeCall(index, func(bits C.uintptr_t, node C.size_t) *C.cuabi_go_failure {
		return C.cuabi_go_graph_get_node_enabled(bits, node, &enabled)
	})
	return enabled != 0, err
}

func dotFlags(verbose bool) C.uint32_t {
	if verbose {
		return C.CUABI_GRAPH_DOT_VERBOSE
	}
	return C.CUABI_GRAPH_DOT_DEFAULT
}

// WriteDOT writes the graph as Graphviz DOT text to the file at path (created or replaced);
// verbose adds every parameter the driver knows of every node. ErrCUDA when the file cannot be
// written.
func (g *Graph) WriteDOT(path string, verbose bool) error {
	p, err := text("the DOT path", path)
	if err != nil {
		return err
	}
	return call(g, func(bits C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_graph_write_dot(bits, p, dotFlags(verbose))
	})
}

// DOT is the graph as Graphviz DOT text, as WriteDOT writes it, without touching the file system.
func (g *Graph) DOT(verbose bool) (string, error) {
	bits, err := g.ref()
	if err != nil {
		return "", err
	}
	text, err := twoCallText(func(out unsafe.Pointer, capacity C.size_t, size *C.size_t) *C.cuabi_go_failure {
		return C.cuabi_go_graph_get_dot(bits, dotFlags(verbose), (*C.char)(out), capacity, size)
	})
	runtime.KeepAlive(g)
	return text, err
}
