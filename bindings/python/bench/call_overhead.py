"""What the Python side of a launch costs the calling thread, without a GPU: run against the
stand-in libcuabi whose every call returns at once (bindings/go/cmd/overhead/testdata/stub.c), so
that what is measured is the package's own work and the call into C, with cuabi's taken out.

    cc -O2 -shared -fPIC -Iinclude -o /tmp/stub.so bindings/go/cmd/overhead/testdata/stub.c
    CUABI_LIBRARY=/tmp/stub.so CUABI_PYTHON_EXTENSION_DIR=build/python/cuabi \\
      python bindings/python/bench/call_overhead.py [--reps N]

The stub's kernels all have saxpy's parameters (float, float*, float*, unsigned). Rows, in ns per
launch, each the best of N repetitions of 100000 calls (the least disturbed one, as this measures
CPU work alone): a launch with Python values (1.0, Buffer, Buffer, 32) through the extension's
launcher and through the pure-Python Launcher; the same with NumPy scalars (numpy.float32,
numpy.uint32: the extension packs them once the Python packer has met their types); cffi's call of cuabi_launch_packed alone with the bytes packed beforehand (the
floor of any cffi-based launcher); and 16 launches as one LaunchBatch, refilled before each
launch() and built once, per launch. Without the extension (no CUABI_PYTHON_EXTENSION_DIR in a
source checkout) the extension rows are left out.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy  # noqa: E402

import cuabi  # noqa: E402
from launch_overhead import batch_launchers  # noqa: E402  (beside this file)

CALLS = 100000


def best(call: Callable[[], Any], reps: int, per_call: int = 1) -> float:
    """Nanoseconds per launch, the best of `reps` runs of CALLS calls."""
    fastest = float("inf")
    for _ in range(reps):
        start = time.perf_counter()
        for _ in range(CALLS):
            call()
        fastest = min(fastest, time.perf_counter() - start)
    return fastest / CALLS / per_call * 1e9


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=7)
    reps = parser.parse_args().reps
    context = cuabi.Context()
    kernel = context.compile("stub").kernel("saxpy")
    stream = context.stream()
    x = context.alloc(128)
    config = cuabi.LaunchConfig(1, 32, stream)
    args = (1.0, x, x, 32)
    typed = (numpy.float32(1.0), x, x, numpy.uint32(32))
    launcher = kernel[1, 32, stream]
    python = cuabi.Launcher(kernel, config)
    packed = kernel.pack(args)
    call = kernel._launch_packed
    rows = {}
    if cuabi._library.native is not None:
        rows["extension launcher, Python values"] = best(lambda: launcher(*args), reps)
        rows["extension launcher, NumPy scalars"] = best(lambda: launcher(*typed), reps)
    rows["Python Launcher, Python values"] = best(lambda: python(*args), reps)
    rows["Python Launcher, NumPy scalars"] = best(lambda: python(*typed), reps)
    rows["cffi call of cuabi_launch_packed alone (bytes packed before)"] = best(
        lambda: call(kernel._ptr, config._c, packed, len(packed)), reps)
    refill, built = batch_launchers(kernel, config, args)
    rows["LaunchBatch of 16, refilled (per launch)"] = best(refill, max(1, reps // 4), 16)
    rows["LaunchBatch of 16, built once (per launch)"] = best(built, reps, 16)
    print(f"\nlaunch overhead against {cuabi._library.lib().path} (launcher: {type(launcher).__module__}."
          f"{type(launcher).__name__}), best of {reps} x {CALLS} calls")
    print("| variant | ns per launch |")
    print("|---|---|")
    for name, ns in rows.items():
        print(f"| {name} | {ns:.0f} |")


if __name__ == "__main__":
    main()
