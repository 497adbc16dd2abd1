"""What a launch from Python costs the calling thread: an empty kernel and a 4-argument kernel
through cuabi (its extension's C launcher, and the pure-Python launcher it falls back to), through
raw cuLaunchKernel called with ctypes, and through cuda.core and CuPy when they are importable
(their rows are left out otherwise); 16 launches of the 4-argument kernel as one LaunchBatch
(refilled every time, and built once); and the memory-cache hit of compile.

    CUABI_LIBRARY=build/libcuabi.so.1 python bindings/python/bench/launch_overhead.py [--reps N]

Method as bench/bench_launch.cpp's (docs/performance.md): launches are timed in batches of 250,
smaller than the driver's launch queue, with the stream synchronized between batches outside the
timed region, so no variant waits for the GPU to drain. Every variant runs once per repetition,
in an order rotated per repetition; each row gives the median per launch over repetitions and the
median of its per-repetition ratio to raw cuLaunchKernel. Without a GPU only the compile rows run.

The compile rows keep a module of the same source open while they compile and close, as a running
application would (bench/bench_compile.cpp does the same): closing the only module of a source
for a context makes cuabi unload its CUmodule, and the next hit load it again (~20 us), which is
not what a memory-cache hit costs an application that uses its kernels.
"""

from __future__ import annotations

import argparse
import ctypes
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cuabi  # noqa: E402

SOURCE = """extern "C" __global__ void empty() {}
extern "C" __global__ void four(float a, const float* x, float* y, unsigned n) {
    if (n == 0xffffffffu) y[0] = a * x[0];
}
"""
BATCH = 250


def raw_launcher(kernel: cuabi.Kernel, stream: cuabi.Stream, args: List[Any]) -> Callable[[], None]:
    """cuLaunchKernel through ctypes, its argument array built once (the cheapest raw call)."""
    cuda = ctypes.CDLL("libcuda.so.1")
    launch = cuda.cuLaunchKernel
    launch.restype = ctypes.c_int
    launch.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p] * 3
    function = ctypes.c_void_p()
    check = cuabi._library.F.cuabi_kernel_get_native
    out = cuabi._library.ffi.new("void**")
    cuabi.errors.check(check(kernel._ptr, out))
    function = ctypes.c_void_p(int(cuabi._library.ffi.cast("uintptr_t", out[0])))
    values = [ctypes.c_float(a) if isinstance(a, float) else
              ctypes.c_uint32(a) if isinstance(a, int) else ctypes.c_uint64(a.address) for a in args]
    params = (ctypes.c_void_p * max(len(values), 1))(*[ctypes.addressof(v) for v in values])
    native = ctypes.c_void_p(stream.native)

    def call() -> None:
        if launch(function, 1, 1, 1, 32, 1, 1, 0, native, params, None) != 0:
            raise RuntimeError("cuLaunchKernel failed")

    call.keep = (values, params)  # type: ignore[attr-defined]
    return call


def timed(call: Callable[..., None], args: Tuple[Any, ...], launches: int, sync: Callable[[], None],
          per_call: int = 1) -> float:
    """Seconds per launch: `launches` launches in batches of BATCH, synchronizing between batches
    untimed; a call makes `per_call` launches (a LaunchBatch of 16 makes 16)."""
    calls = max(1, BATCH // per_call)
    total = 0.0
    for _ in range(launches // BATCH):
        start = time.perf_counter()
        for _ in range(calls):
            call(*args)
        total += time.perf_counter() - start
        sync()
    return total / (launches // BATCH * calls * per_call)


def cuda_core() -> Any:
    """The cuda.core namespace that has launch(): the package itself since cuda.core 1.0 dropped
    cuda.core.experimental, that module in the 0.x releases that had nothing at the top."""
    import importlib

    failures = []
    for name in ("cuda.core", "cuda.core.experimental"):
        try:
            module = importlib.import_module(name)
        except ImportError as error:
            failures.append(f"{name}: {error}")
            continue
        if hasattr(module, "launch"):
            return module
        failures.append(f"{name} has no launch()")
    raise ImportError("; ".join(failures))


def peers(args_empty: Tuple[Any, ...], four: bool) -> Dict[str, Tuple[Callable[..., None], Tuple[Any, ...],
                                                                    Callable[[], None]]]:
    """cuda.core and CuPy launchers of the same kernels, where installed. Their kernels have names
    of their own: the closures read them when they run, after both are made."""
    found: Dict[str, Tuple[Callable[..., None], Tuple[Any, ...], Callable[[], None]]] = {}
    try:
        import cupy  # type: ignore[import-not-found]

        raw_kernel = cupy.RawKernel(SOURCE, "four" if four else "empty")
        stream = cupy.cuda.Stream(non_blocking=True)
        if four:
            x = cupy.zeros(32, dtype=cupy.float32)
            args: Tuple[Any, ...] = ((1,), (32,), (cupy.float32(1.0), x, x, cupy.uint32(32)))
        else:
            args = ((1,), (32,), ())

        def cupy_launch(grid: Any, block: Any, arguments: Any) -> None:
            raw_kernel(grid, block, arguments, stream=stream)

        cupy_launch(*args)  # a launch that fails leaves the row out here, not mid-measurement
        stream.synchronize()
        found["CuPy RawKernel"] = (cupy_launch, args, stream.synchronize)
    except Exception as error:  # not installed, or no GPU for it
        print(f"note: CuPy row left out ({type(error).__name__}: {error})", file=sys.stderr)
    try:
        core = cuda_core()
        device = core.Device()
        device.set_current()
        arch = "".join(str(v) for v in device.compute_capability)
        program = core.Program(SOURCE, "c++", core.ProgramOptions(arch=f"sm_{arch}"))
        module = program.compile("cubin")
        core_kernel = module.get_kernel("four" if four else "empty")
        core_stream = device.create_stream()
        config = core.LaunchConfig(grid=1, block=32)
        if four:
            import numpy

            # The device memory is cuda.core's own, so the row needs no CuPy.
            x_buffer = device.allocate(32 * 4, stream=core_stream)
            kernel_args: Tuple[Any, ...] = (numpy.float32(1.0), x_buffer, x_buffer, numpy.uint32(32))
        else:
            kernel_args = ()

        def core_launch(*arguments: Any) -> None:
            core.launch(core_stream, config, core_kernel, *arguments)

        core_launch(*kernel_args)
        core_stream.sync()
        found["cuda.core launch"] = (core_launch, kernel_args, core_stream.sync)
    except Exception as error:
        print(f"note: cuda.core row left out ({type(error).__name__}: {error})", file=sys.stderr)
    return found


def batch_launchers(kernel: cuabi.Kernel, config: cuabi.LaunchConfig, args: Tuple[Any, ...]) -> Tuple[
        Callable[[], None], Callable[[], None]]:
    """16 launches as one LaunchBatch: refilled before every launch(), and built once."""
    refilled, built = cuabi.LaunchBatch(16), cuabi.LaunchBatch(16)
    for _ in range(16):
        built.add(kernel, config, *args)

    def refill_and_launch() -> None:
        refilled.clear()
        for _ in range(16):
            refilled.add(kernel, config, *args)
        refilled.launch()

    return refill_and_launch, built.launch


def launch_rows(context: cuabi.Context, reps: int, launches: int) -> None:
    module = context.compile(SOURCE)
    stream = context.stream()
    x = context.alloc(128)
    for name, args in (("empty", ()), ("four", (1.0, x, x, 32))):
        kernel = module.kernel(name)
        cuabi_launch = kernel[1, 32, stream]
        cuabi_launch(*args)  # builds the packing; makes the context current for the raw calls
        stream.synchronize()
        config = cuabi.LaunchConfig(1, 32, stream)
        variants: Dict[str, Tuple[Callable[..., None], Tuple[Any, ...], Callable[[], None]]] = {
            "cuLaunchKernel (ctypes)": (raw_launcher(kernel, stream, list(args)), (), stream.synchronize),
            "cuabi kernel[grid, block, stream](...)": (cuabi_launch, args, stream.synchronize),
            "cuabi without its extension (Python Launcher)": (cuabi.Launcher(kernel, config), args,
                                                                stream.synchronize),
        }
        print(f"note: cuabi launches through {type(cuabi_launch).__module__}.{type(cuabi_launch).__name__}",
              file=sys.stderr)
        variants.update(peers((), name == "four"))
        batches: Tuple[str, ...] = ()
        if name == "four":
            refill, built = batch_launchers(kernel, config, args)
            batches = ("LaunchBatch of 16, refilled (per launch)", "LaunchBatch of 16, built once (per launch)")
            variants[batches[0]] = (refill, (), stream.synchronize)
            variants[batches[1]] = (built, (), stream.synchronize)
        seconds: Dict[str, List[float]] = {v: [] for v in variants}
        order = list(variants)
        for rep in range(reps):
            rotated = order[rep % len(order):] + order[:rep % len(order)]
            for variant in rotated:
                call, call_args, sync = variants[variant]
                seconds[variant].append(timed(call, call_args, launches, sync, 16 if variant in batches else 1))
        raw = seconds["cuLaunchKernel (ctypes)"]
        print(f"\n{name} kernel ({len(args)} arguments), {reps} reps x {launches} launches, one stream")
        print("| variant | median us/launch | median ratio to cuLaunchKernel |")
        print("|---|---|---|")
        for variant in order:
            ratios = [s / r for s, r in zip(seconds[variant], raw)]
            print(f"| {variant} | {statistics.median(seconds[variant]) * 1e6:.2f} | {statistics.median(ratios):.2f} |")


def compile_rows(context: Any, reps: int) -> None:
    source = SOURCE + "// compile-hit bench\n"
    settings: Dict[str, Any] = {"context": context} if context is not None else {"target": "sm_90"}
    kept = cuabi.compile(source, **settings)  # open for the whole row: see the module's docstring
    kernel = kept.kernel("empty") if context is not None else None
    per_call = []
    for _ in range(reps):
        start = time.perf_counter()
        for _ in range(1000):
            cuabi.compile(source, **settings).close()
        per_call.append((time.perf_counter() - start) / 1000)
    kept.close()
    del kernel
    where = "for the context" if context is not None else "offline (sm_90)"
    print(f"\n| compile, memory-cache hit {where}, incl. Module.close() | "
          f"{statistics.median(per_call) * 1e6:.2f} us (median of {reps} x 1000) |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--launches", type=int, default=10000)
    options = parser.parse_args()
    compile_rows(None, options.reps)
    try:
        context = cuabi.Context()
    except cuabi.DriverError as error:
        print(f"\nlaunch rows left out: no GPU ({error.name})")
        return
    compile_rows(context, options.reps)
    launch_rows(context, options.reps, options.launches)


if __name__ == "__main__":
    main()
