"""CUDA graphs: captured from a stream in a `with` block, replayed with one call."""

from __future__ import annotations

from types import TracebackType
from typing import Any, NamedTuple, Optional, Sequence, Type

from . import _library, _structs
from ._handle import Handle
from .errors import check

ffi = _library.ffi

_C = _library.CONSTANTS
CAPTURE_MODE_GLOBAL, CAPTURE_MODE_THREAD_LOCAL, CAPTURE_MODE_RELAXED = (
    _C["CUABI_CAPTURE_MODE_" + name] for name in ("GLOBAL", "THREAD_LOCAL", "RELAXED"))
NODE_KERNEL = _C["CUABI_GRAPH_NODE_KERNEL"]
NODE_CONDITIONAL = _C["CUABI_GRAPH_NODE_CONDITIONAL"]
CONDITIONAL_IF, CONDITIONAL_WHILE, CONDITIONAL_SWITCH = (
    _C["CUABI_GRAPH_CONDITIONAL_" + name] for name in ("IF", "WHILE", "SWITCH"))
CONDITION_ASSIGN_DEFAULT = _C["CUABI_GRAPH_CONDITION_ASSIGN_DEFAULT"]


class ConditionalNode(NamedTuple):
    """What the inventory says of a conditional node cuabi added (all 0 for other nodes)."""

    type: int  # CONDITIONAL_IF, CONDITIONAL_WHILE or CONDITIONAL_SWITCH
    body_count: int
    condition: int
    body_nodes: int  # nodes in its bodies, nested bodies included


class Graph(Handle):
    """An instantiated graph: launch() replays it; its kernel nodes' arguments can be changed."""

    __slots__ = ()
    _destroy_name = "cuabi_graph_destroy"

    def launch(self, stream: Any = None) -> None:
        check(_library.F.cuabi_graph_launch(self._ptr, ffi.NULL if stream is None else stream._ptr))

    def upload(self, stream: Any = None) -> None:
        check(_library.F.cuabi_graph_upload(self._ptr, ffi.NULL if stream is None else stream._ptr))

    def node_count(self) -> int:
        count = ffi.new("size_t*")
        check(_library.F.cuabi_graph_get_node_count(self._ptr, count))
        return int(count[0])

    def node_kind(self, index: int) -> int:
        """The node's kind (NODE_KERNEL for a kernel launch)."""
        info = _structs.new("cuabi_graph_node_info")
        check(_library.F.cuabi_graph_get_node_info(self._ptr, index, info))
        return int(info.kind)

    def conditional_node(self, index: int) -> ConditionalNode:
        """Node `index` as a conditional node (zeros when it is not one cuabi added)."""
        info = _structs.new("cuabi_graph_node_info")
        check(_library.F.cuabi_graph_get_node_info(self._ptr, index, info))
        return ConditionalNode(int(info.conditional_type), int(info.conditional_body_count), int(info.condition),
                               int(info.conditional_body_nodes))

    def retain_buffer(self, buffer: Any) -> None:
        """Keeps `buffer` alive as long as the graph (for buffers it reaches only through arguments)."""
        check(_library.F.cuabi_graph_retain_buffer(self._ptr, buffer._ptr))

    def update_kernel_args(self, index: int, kernel: Any, *args: Any) -> None:
        """Sets kernel node `index`'s arguments, packed by `kernel`'s parameter layout."""
        data = kernel.pack(args)
        check(_library.F.cuabi_graph_update_kernel_args_packed(self._ptr, index, data, len(data)))

    def dot(self, verbose: bool = False) -> str:
        """The graph in Graphviz DOT."""
        return _structs.text(_library.F.cuabi_graph_get_dot, self._ptr, 1 if verbose else 0)


class Capture:
    """`with stream.capture() as capture:` captures what the block enqueues on the stream; at the
    end of the block `capture.graph` is the instantiated Graph. An exception in the block discards
    the capture (cuabi_graph_capture_abort) and propagates. A thread-local or global capture ends
    on the thread that began it."""

    def __init__(self, stream: Any, mode: Optional[int] = None) -> None:
        self.stream = stream
        self.mode = CAPTURE_MODE_THREAD_LOCAL if mode is None else mode
        self._graph: Optional[Graph] = None

    @property
    def graph(self) -> Graph:
        if self._graph is None:
            raise RuntimeError("the capture has not ended: use capture.graph after the with block")
        return self._graph

    def __enter__(self) -> "Capture":
        check(_library.F.cuabi_graph_capture_begin(self.stream._ptr, self.mode))
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException],
                 trace: Optional[TracebackType]) -> None:
        if kind is not None:
            _library.F.cuabi_graph_capture_abort(self.stream._ptr)
            return
        out = ffi.new("cuabi_graph**")
        check(_library.F.cuabi_graph_capture_end(self.stream._ptr, ffi.NULL, out))
        self._graph = Graph(out[0])

    def condition(self, default: int = 0, reset_each_replay: bool = True) -> int:
        """A condition for the graph the stream captures into now (the capture or the body being
        captured): an int to pass to kernels as a cudaGraphConditionalHandle (8 bytes) and to open
        conditional nodes with. With reset_each_replay every replay starts it at `default`."""
        out = ffi.new("uint64_t*")
        flags = CONDITION_ASSIGN_DEFAULT if reset_each_replay else 0
        check(_library.F.cuabi_graph_condition_create(self.stream._ptr, default, flags, out))
        return int(out[0])

    def conditional(self, condition: int, type: int, bodies: int = 1) -> "Conditional":
        """`with capture.conditional(condition, CONDITIONAL_SWITCH, 3) as node:` captures body 0
        in the block, `node.next_body()` moves to the next one."""
        return Conditional(self.stream, condition, type, bodies)

    def while_loop(self, condition: int) -> "Conditional":
        """`with capture.while_loop(condition):` -- the block's work runs while condition != 0."""
        return Conditional(self.stream, condition, CONDITIONAL_WHILE, 1)

    def if_then(self, condition: int, with_else: bool = False) -> "Conditional":
        """`with capture.if_then(condition, with_else=True) as node:` -- the block's work runs when
        condition != 0; after `node.next_body()`, what follows runs when it is 0."""
        return Conditional(self.stream, condition, CONDITIONAL_IF, 2 if with_else else 1)


class Conditional:
    """A conditional node being captured (Capture.conditional): the block captures its bodies.
    Any failure ends and discards the whole capture, which then raises."""

    def __init__(self, stream: Any, condition: int, type: int, bodies: int) -> None:
        self.stream, self.condition, self.type, self.bodies = stream, condition, type, bodies

    def __enter__(self) -> "Conditional":
        check(_library.F.cuabi_graph_capture_conditional_begin(self.stream._ptr, self.condition, self.type,
                                                                self.bodies))
        return self

    def next_body(self) -> None:
        """Ends the body being captured and captures the next (the else body, the next case)."""
        check(_library.F.cuabi_graph_capture_conditional_next(self.stream._ptr))

    def __exit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException],
                 trace: Optional[TracebackType]) -> None:
        if kind is None:
            check(_library.F.cuabi_graph_capture_conditional_end(self.stream._ptr))


def node_kinds(graph: Graph) -> Sequence[int]:
    return [graph.node_kind(i) for i in range(graph.node_count())]
