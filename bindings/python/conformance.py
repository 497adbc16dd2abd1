"""The conformance scenario (tests/conformance/README.md) through the Python package: its
transcript must equal the C reference's line for line. Needs NumPy for the GPU steps' host data.

    CUABI_LIBRARY=build/libcuabi.so.1 python bindings/python/conformance.py
"""

from __future__ import annotations

import ctypes
import sys
import threading
from pathlib import Path
from typing import Any, Callable, List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cuabi  # noqa: E402
from cuabi import _library  # noqa: E402
from cuabi.errors import (ARGUMENT_SIZE, COMPILE, DRIVER_NOT_FOUND, INVALID_HANDLE, KERNEL_NOT_FOUND,  # noqa: E402
                          LAUNCH_BLOCK, LINK, NO_DEVICE, RANGE, CuabiError)

SOURCE = """extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
template <typename T>
__global__ void scale(T* data, T factor, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] *= factor;
}
"""
COUNT_DOWN_SOURCE = """extern "C" __device__ __cudart_builtin__ void cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value);
extern "C" __global__ void count_down(unsigned* counter, cudaGraphConditionalHandle condition) {
    if (--*counter == 0u) cudaGraphSetConditional(condition, 0u);
}
"""
BROKEN = "__global__ void broken( { }\n"
LINK_KERNEL = """extern "C" __device__ float twice(float x);
extern "C" __global__ void apply_twice(float* data, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = twice(data[i]);
}
"""
LINK_DEVICE = 'extern "C" __device__ float twice(float x) { return 2.0f * x; }\n'
NAME_EXPRESSIONS = ["scale<float>", "scale<double>"]
N = 1 << 20
GRID, BLOCK = 4096, 256
BATCH_LAUNCHES, GRAPH_LAUNCHES, WHILE_ITERATIONS, THREADS, THREAD_LAUNCHES = 4, 8, 5, 4, 1000


class Failed(Exception):
    pass


def expect_status(call: Callable[[], Any], status: int, what: str) -> CuabiError:
    try:
        call()
    except CuabiError as error:
        if error.status != status:
            raise Failed(f"{what} returned {error.name}, expected {cuabi.status_name(status)}") from None
        return error
    raise Failed(f"{what} succeeded, expected {cuabi.status_name(status)}")


class Scenario:
    def __init__(self) -> None:
        self.gpu_missing = 0
        self.context_failed = 0
        self.handles: List[Any] = []
        self.context: Any = None

    def keep(self, handle: Any) -> Any:
        self.handles.append(handle)
        return handle

    # ---- CPU steps
    def load(self) -> None:
        if cuabi.abi_version() != 1:
            raise Failed(f"cuabi_abi_version() is {cuabi.abi_version()}, expected 1")
        if cuabi.version_number() < 10000:
            raise Failed(f"cuabi_version_number() is {cuabi.version_number()}, expected at least 10000")

    def status_names(self) -> None:
        for status, name in ((0, "CUABI_SUCCESS"), (67, "CUABI_ERROR_ARGUMENT_SIZE"), (9999, "CUABI_UNKNOWN_STATUS")):
            got = cuabi.status_name(status)
            if got != name:
                raise Failed(f"the name of status {status} is {got}, expected {name}")

    def compile_error(self) -> None:
        error = expect_status(lambda: cuabi.compile(BROKEN, target="sm_90"), COMPILE, "compiling BROKEN")
        if "Fix:" not in error.message:
            raise Failed(f"the message has no 'Fix:': {error.message}")
        if len(error.compile_log) == 0:
            raise Failed("the compile log is empty")

    def offline_templates(self) -> None:
        module = self.keep(cuabi.compile(SOURCE, NAME_EXPRESSIONS, target="sm_90"))
        info = module.info()
        if info.image_kind != cuabi.IMAGE_CUBIN:
            raise Failed(f"image kind {info.image_kind}, expected 2 (CUBIN)")
        if info.image_size == 0:
            raise Failed("the image is empty")
        for expression, lowered in zip(NAME_EXPRESSIONS, ["_Z5scaleIfEvPT_S0_j", "_Z5scaleIdEvPT_S0_j"]):
            got = module.lowered_name(expression)
            if got != lowered:
                raise Failed(f"{expression} lowered to {got}, expected {lowered}")
        expect_status(lambda: module.lowered_name("scale<int>"), KERNEL_NOT_FOUND, "the lowered name of scale<int>")

    def memory_cache(self) -> None:
        module = self.keep(cuabi.compile(SOURCE, NAME_EXPRESSIONS, target="sm_90"))
        if module.info().origin != cuabi.ORIGIN_MEMORY_CACHE:
            raise Failed(f"origin {module.info().origin}, expected 1 (memory cache)")

    def ranges(self) -> None:
        with cuabi.range("conformance"):
            pass
        started = cuabi.Range("conformance")
        ender = threading.Thread(target=started.end)
        ender.start()
        ender.join()
        if not started.closed:
            raise Failed("the range did not end on the other thread")
        expect_status(cuabi.pop, RANGE, "cuabi_range_pop() with none open")
        catalog = cuabi.ranges.catalog()
        if len(catalog) < 13:
            raise Failed(f"the catalog has {len(catalog)} entries, expected at least 13")
        for index, (name, _) in enumerate(catalog):
            if not name.startswith("cuabi."):
                raise Failed(f"catalog entry {index} is named {name}")

    def link(self) -> None:
        with cuabi.compile(LINK_KERNEL, target="sm_90", lto_ir=True) as kernel, \
                cuabi.compile(LINK_DEVICE, target="sm_90", lto_ir=True) as device:
            with cuabi.link([kernel, device], target="sm_90", lto=True) as linked:
                if linked.info().image_kind != cuabi.IMAGE_CUBIN:
                    raise Failed(f"the linked image kind is {linked.info().image_kind}, expected 2 (CUBIN)")
                names = linked.kernel_names()
                if names != ["apply_twice"]:
                    raise Failed(f"the linked kernels are {names}, expected apply_twice")
            error = expect_status(lambda: cuabi.link([kernel], target="sm_90", lto=True), LINK,
                                  "linking LINK_KERNEL alone")
            if "Fix:" not in error.message:
                raise Failed(f"the message has no 'Fix:': {error.message}")

    def context_step(self) -> None:
        try:
            self.context = cuabi.Context()
        except CuabiError as error:
            if error.status in (DRIVER_NOT_FOUND, NO_DEVICE):
                self.gpu_missing = error.status
                if "Fix:" not in error.message:
                    raise Failed(f"the message has no 'Fix:': {error.message}") from None
                return
            self.context_failed = error.status
            raise Failed(f"cuabi_context_create returned {error.name}, expected CUABI_SUCCESS") from None
        info = self.context.device_info()
        if not info.name:
            raise Failed("the device has no name")
        major, minor = info.compute_capability
        if major * 10 + minor < 75:
            raise Failed(f"compute capability {major}.{minor}, expected at least 7.5")

    # ---- GPU steps
    def buffers(self) -> None:
        import numpy as np

        self.x_host = np.arange(N, dtype=np.float32)
        self.y_host = np.ones(N, dtype=np.float32)
        self.x = self.keep(self.context.to_device(self.x_host))
        self.y = self.keep(self.context.to_device(self.y_host))
        self.check(self.x, self.x_host, "x")
        self.check(self.y, self.y_host, "y")

    def check(self, buffer: Any, want: Any, what: str) -> None:
        import numpy as np

        got = buffer.read(np.empty(N, dtype=np.float32))
        differs = np.flatnonzero(got != want)
        if differs.size:
            i = int(differs[0])
            raise Failed(f"{what}[{i}] is {got[i]:.9g}, expected {want[i]:.9g}")

    def saxpy_expect(self, a: float, times: int, x: Any = None) -> None:
        import numpy as np

        for _ in range(times):
            self.y_host = (np.float32(a) * (self.x_host if x is None else x) + self.y_host).astype(np.float32)

    def launch_table(self) -> None:
        self.module = self.keep(self.context.compile(SOURCE, NAME_EXPRESSIONS))
        self.saxpy = self.keep(self.module.kernel("saxpy"))
        self.stream = self.keep(self.context.stream())
        self.config = cuabi.LaunchConfig(GRID, BLOCK, self.stream)
        self.saxpy.launch_table(self.config, 2.0, self.x, self.y, N)
        self.stream.synchronize()
        self.saxpy_expect(2.0, 1)
        self.check(self.y, self.y_host, "y")

    def launch_packed(self) -> None:
        if self.saxpy.layout.size != 28:
            raise Failed(f"the packed size is {self.saxpy.layout.size}, expected 28")
        self.saxpy.launch(self.config, 2.0, self.x, self.y, N)
        self.stream.synchronize()
        self.saxpy_expect(2.0, 1)
        self.check(self.y, self.y_host, "y")

    def launch_checks(self) -> None:
        wide = cuabi.LaunchConfig(GRID, (1024, 2, 1), self.stream)
        error = expect_status(lambda: self.saxpy.launch_table(wide, 2.0, self.x, self.y, N), LAUNCH_BLOCK,
                              "a launch with block (1024, 2, 1)")
        if "2048" not in error.message:
            raise Failed(f"the message does not name 2048 threads: {error.message}")
        error = expect_status(lambda: self.saxpy.launch_table(self.config, ctypes.c_double(2.0), self.x, self.y, N),
                              ARGUMENT_SIZE, "a launch with a double as parameter 0")
        if "parameter 0" not in error.message:
            raise Failed(f"the message does not name parameter 0: {error.message}")
        self.check(self.y, self.y_host, "y")

    def template_kernel(self) -> None:
        import numpy as np

        scale = self.keep(self.module.kernel("scale<float>"))
        scale.launch_table(self.config, self.y, 0.5, N)
        self.stream.synchronize()
        self.y_host = (self.y_host * np.float32(0.5)).astype(np.float32)
        self.check(self.y, self.y_host, "y")

    def launch_batch(self) -> None:
        batch = cuabi.LaunchBatch(BATCH_LAUNCHES)
        for _ in range(BATCH_LAUNCHES):
            batch.add(self.saxpy, self.config, 1.0, self.x, self.y, N)
        batch.launch()
        if batch.submitted != BATCH_LAUNCHES:
            raise Failed(f"{batch.submitted} of {BATCH_LAUNCHES} launches submitted")
        self.stream.synchronize()
        self.saxpy_expect(1.0, BATCH_LAUNCHES)
        self.check(self.y, self.y_host, "y")
        # Item 1 of 3 is refused: item 0 runs, item 2 does not.
        batch.clear()
        too_large = cuabi.LaunchConfig(GRID, (1024, 2, 1), self.stream)
        for config in (self.config, too_large, self.config):
            batch.add(self.saxpy, config, 1.0, self.x, self.y, N)
        error = expect_status(batch.launch, LAUNCH_BLOCK, "item 1's block (1024,2,1)")
        if "cuabi_launch_batch item 1 of 3: " not in error.message:
            raise Failed(f"item 1's block (1024,2,1): the message has no 'cuabi_launch_batch item 1 of 3: ': "
                         f"{error.message}")
        if batch.submitted != 1:
            raise Failed(f"the refused item's index is {batch.submitted}, not 1")
        self.stream.synchronize()
        self.saxpy_expect(1.0, 1)
        self.check(self.y, self.y_host, "y")

    def graph(self) -> None:
        import numpy as np

        x2 = self.keep(self.context.to_device(np.ones(N, dtype=np.float32)))
        y2 = self.keep(self.context.to_device(np.zeros(N, dtype=np.float32)))
        with self.stream.capture(cuabi.CAPTURE_MODE_THREAD_LOCAL) as capture:
            for _ in range(GRAPH_LAUNCHES):
                self.saxpy.launch(self.config, 1.0, self.x, self.y, N)
        graph = self.keep(capture.graph)
        if graph.node_count() != GRAPH_LAUNCHES:
            raise Failed(f"the graph has {graph.node_count()} nodes, expected {GRAPH_LAUNCHES}")
        for index in range(GRAPH_LAUNCHES):
            if graph.node_kind(index) != 1:
                raise Failed(f"node {index} is of kind {graph.node_kind(index)}, expected 1 (kernel)")
        graph.launch(self.stream)
        self.stream.synchronize()
        self.saxpy_expect(1.0, GRAPH_LAUNCHES)
        self.check(self.y, self.y_host, "y")
        graph.retain_buffer(x2)
        graph.retain_buffer(y2)
        graph.update_kernel_args(0, self.saxpy, 1.0, x2, y2, N)
        graph.launch(self.stream)
        self.stream.synchronize()
        self.saxpy_expect(1.0, GRAPH_LAUNCHES - 1)
        self.check(self.y, self.y_host, "y")
        self.check(y2, np.ones(N, dtype=np.float32), "y2")

    def conditional_graph(self) -> None:
        import numpy as np

        module = self.keep(self.context.compile(COUNT_DOWN_SOURCE))
        count_down = self.keep(module.kernel("count_down"))
        counter = self.keep(self.context.to_device(np.array([WHILE_ITERATIONS], dtype=np.uint32)))
        with self.stream.capture(cuabi.CAPTURE_MODE_THREAD_LOCAL) as capture:
            condition = capture.condition(default=1, reset_each_replay=True)
            with capture.while_loop(condition):
                self.saxpy.launch(self.config, 1.0, self.x, self.y, N)
                count_down[1, 1, self.stream](counter, condition)
        graph = self.keep(capture.graph)
        if graph.node_count() != 1:
            raise Failed(f"the graph has {graph.node_count()} nodes, expected 1")
        node = graph.conditional_node(0)
        if graph.node_kind(0) != cuabi.NODE_CONDITIONAL or node.type != cuabi.CONDITIONAL_WHILE or node.body_nodes != 2:
            raise Failed(f"node 0 is of kind {graph.node_kind(0)}, type {node.type} with {node.body_nodes} body nodes, "
                         "expected 14, 2 with 2")
        graph.launch(self.stream)
        self.stream.synchronize()
        self.saxpy_expect(1.0, WHILE_ITERATIONS)
        self.check(self.y, self.y_host, "y")
        left = counter.read(np.empty(1, dtype=np.uint32))
        if left[0] != 0:
            raise Failed(f"the counter is {left[0]} after the replay, expected 0")

    def threads(self) -> None:
        import numpy as np

        failures: List[str] = []

        def work() -> None:
            try:
                with self.context.stream() as stream, self.context.alloc(4 * N) as x, \
                        self.context.alloc(4 * N) as y:
                    x.fill(0x3F800000, 4, N, stream=stream)  # 1.0f
                    y.fill(0, 4, N, stream=stream)
                    launch = self.saxpy[GRID, BLOCK, stream]
                    for _ in range(THREAD_LAUNCHES):
                        launch(1.0, x, y, N)
                    stream.synchronize()
                    got = y.read(np.empty(N, dtype=np.float32))
                    wrong = np.flatnonzero(got != THREAD_LAUNCHES)
                    if wrong.size:
                        i = int(wrong[0])
                        failures.append(f"y[{i}] is {got[i]:.9g}, expected {THREAD_LAUNCHES}")
            except CuabiError as error:
                print(error, file=sys.stderr)
                failures.append(f"{error.name}")

        workers = [threading.Thread(target=work) for _ in range(THREADS)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        if failures:
            raise Failed(failures[0])

    def teardown(self) -> None:
        # The context first, then everything else in the order made: any order is safe.
        for _ in range(2):  # every handle a second time: harmless
            self.context.close()
            for handle in self.handles:
                handle.close()
        expect_status(lambda: self.x.read(bytearray(4)), INVALID_HANDLE, "a read of a destroyed buffer")


STEPS = [
    ("load", "load", False), ("status-names", "status_names", False), ("compile-error", "compile_error", False),
    ("offline-templates", "offline_templates", False), ("memory-cache", "memory_cache", False),
    ("ranges", "ranges", False), ("link", "link", False), ("context", "context_step", False), ("buffers", "buffers", True),
    ("launch-table", "launch_table", True), ("launch-packed", "launch_packed", True),
    ("launch-checks", "launch_checks", True), ("template-kernel", "template_kernel", True),
    ("launch-batch", "launch_batch", True), ("graph", "graph", True),
    ("conditional-graph", "conditional_graph", True), ("threads", "threads", True),
    ("teardown", "teardown", True),
]


def main(library: Optional[str] = None) -> int:
    _library.load(library)
    scenario = Scenario()
    passed = failed = skipped = 0
    for name, method, needs_gpu in STEPS:
        if needs_gpu and scenario.gpu_missing:
            print(f"skip {name}: no GPU ({cuabi.status_name(scenario.gpu_missing)})")
            skipped += 1
            continue
        if needs_gpu and scenario.context_failed:
            print(f"FAIL {name}: no context ({cuabi.status_name(scenario.context_failed)})")
            failed += 1
            continue
        try:
            getattr(scenario, method)()
        except Failed as failure:
            print(f"FAIL {name}: {failure}")
            failed += 1
        except CuabiError as error:
            print(f"{name}: {error}", file=sys.stderr)
            print(f"FAIL {name}: {error.name}")
            failed += 1
        else:
            print(f"ok   {name}")
            passed += 1
        sys.stdout.flush()
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else None))
