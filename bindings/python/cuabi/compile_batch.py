"""Compile batches: many compiles in parallel on cuabi's compile workers, each ending with its own
Module or its own exception, with progress to poll and a cancel that works from any thread (the
calls release the GIL, so another thread may wait, poll or cancel at the same time)."""

from __future__ import annotations

from typing import Any, List, Mapping, Optional, Sequence, Tuple, Union

from . import _library
from ._handle import Handle
from ._library import ffi
from .compile import Module, _key, _Request
from .errors import CuabiError, INVALID_ARGUMENT, binding_error, check, last_error

COMPILE_BATCH_MAX_REQUESTS = int(_library.CONSTANTS["CUABI_COMPILE_BATCH_MAX_REQUESTS"])
REQUEST_QUEUED = int(_library.CONSTANTS["CUABI_REQUEST_QUEUED"])
REQUEST_COMPILING = int(_library.CONSTANTS["CUABI_REQUEST_COMPILING"])
REQUEST_DONE = int(_library.CONSTANTS["CUABI_REQUEST_DONE"])


class CompileRequest:
    """One compile of a batch: compile()'s arguments, converted to C memory now."""

    __slots__ = ("context", "_request")

    def __init__(self, source: str, name_expressions: Sequence[str] = (), options: Sequence[str] = (), *,
                 context: Any = None, target: Optional[str] = None, std: Optional[str] = None,
                 defines: Sequence[str] = (), include_dirs: Sequence[str] = (),
                 headers: Optional[Mapping[str, str]] = None, fast_math: bool = False, line_info: bool = False,
                 no_cache: bool = False, ptx: bool = False, program_name: Optional[str] = None,
                 timeout_ms: int = 0, salt: bytes = b"") -> None:
        self.context = context
        self._request = _Request(*_key(source, name_expressions, options, target, std, defines, include_dirs,
                                        headers, fast_math, line_info, no_cache, ptx, program_name, timeout_ms,
                                        salt))


class CompileBatch(Handle):
    """Compiles `requests` in parallel, at most `jobs` at once (0: as many as CUABI_COMPILE_WORKERS
    allows). Memory-cache hits are done when it starts. close() (or the end of a `with` block)
    cancels what is not done and waits for the batch's threads."""

    __slots__ = ("_contexts",)
    _destroy_name = "cuabi_compile_batch_destroy"

    def __init__(self, requests: Sequence[CompileRequest], jobs: int = 0) -> None:
        raw = ffi.new("cuabi_compile_request[]", max(len(requests), 1))
        for slot, request in zip(raw, requests):
            slot.context = request.context._ptr if request.context is not None else ffi.NULL
            slot.source = request._request.source
            slot.options = request._request.options
        out = ffi.new("cuabi_compile_batch**")
        check(_library.F.cuabi_compile_batch_start(raw if requests else ffi.NULL, len(requests), jobs, out))
        super().__init__(out[0])
        self._contexts = [request.context for request in requests]

    def __len__(self) -> int:
        count = ffi.new("size_t*")
        check(_library.F.cuabi_compile_batch_get_count(self._ptr, count))
        return int(count[0])

    def state(self, index: int) -> Tuple[int, Optional[CuabiError]]:
        """(REQUEST_QUEUED, COMPILING or DONE, None), or (REQUEST_DONE, the request's exception)."""
        if index < 0:
            raise binding_error(INVALID_ARGUMENT, f"index {index} is negative. Fix: pass 0 to len(batch) - 1.")
        state, status = ffi.new("int32_t*"), ffi.new("cuabi_status*")
        check(_library.F.cuabi_compile_batch_get_state(self._ptr, index, state, status))
        failure = None if status[0] == 0 else CuabiError._binding(
            int(status[0]), f"request {index} failed. Fix: call module({index}) for its message and compile log.")
        return int(state[0]), failure

    def module(self, index: int) -> Module:
        """Waits for request `index`: its Module, or raises its own exception (CompileError with the
        NVRTC log, GeneralError with status CUABI_ERROR_CANCELLED after a cancel, ...)."""
        if index < 0:
            raise binding_error(INVALID_ARGUMENT, f"index {index} is negative. Fix: pass 0 to len(batch) - 1.")
        out = ffi.new("cuabi_module**")
        status = _library.F.cuabi_compile_batch_get_module(self._ptr, index, out)
        if status != 0:
            raise last_error(status)
        return Module(out[0], self._contexts[index])

    def cancel(self) -> None:
        """Ends every request not done with CUABI_ERROR_CANCELLED; returns without waiting."""
        check(_library.F.cuabi_compile_batch_cancel(self._ptr))

    def results(self) -> List[Union[Module, CuabiError]]:
        """Every request's Module or exception, in order, waiting for each."""
        results: List[Union[Module, CuabiError]] = []
        for index in range(len(self._contexts)):
            try:
                results.append(self.module(index))
            except CuabiError as error:
                results.append(error)
        return results


def compile_many(requests: Sequence[CompileRequest], jobs: int = 0) -> List[Union[Module, CuabiError]]:
    """Compiles `requests` in parallel; each one's Module or exception, in order."""
    with CompileBatch(requests, jobs) as batch:
        return batch.results()
