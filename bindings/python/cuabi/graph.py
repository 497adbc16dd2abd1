"""CUDA graphs: captured from a stream in a `with` block, replayed with one call."""

from __future__ import annotations

from types import TracebackType
from typing import Any, Optional, Sequence, Type

from . import _library, _structs
from ._handle import Handle
from .errors import check

ffi = _library.ffi

CAPTURE_MODE_GLOBAL, CAPTURE_MODE_THREAD_LOCAL, CAPTURE_MODE_RELAXED = 0, 1, 2
NODE_KERNEL = 1


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


def node_kinds(graph: Graph) -> Sequence[int]:
    return [graph.node_kind(i) for i in range(graph.node_count())]
