"""Linking with nvJitLink offline (cuabi 1.2): LTO-IR modules into a CUBIN whose kernels are
listed, bytes and options passed on, link errors with nvJitLink's log, checked inputs."""

from __future__ import annotations

import os
import time

import pytest

import cuabi
from conformance import LINK_DEVICE, LINK_KERNEL
from cuabi import errors


def lto_ir(source: str) -> cuabi.Module:
    module = cuabi.compile(source, target="sm_90", lto_ir=True, no_cache=True)
    info = module.info()
    assert info.image_kind == cuabi.IMAGE_LTOIR and not info.loaded
    return module


def test_two_lto_ir_modules_link_into_a_cubin_whose_kernels_are_listed() -> None:
    with lto_ir(LINK_KERNEL) as kernel, lto_ir(LINK_DEVICE) as device:
        with cuabi.link([kernel, device], target="sm_90", lto=True, no_cache=True) as linked:
            assert linked.info().image_kind == cuabi.IMAGE_CUBIN
            assert linked.kernel_names() == ["apply_twice"]


def unique_source(source: str) -> str:
    """`source` with a variable of a name no run has used: on a machine with a driver, nvJitLink
    serves a link it made before from the driver's JIT cache (CUDA_CACHE_PATH) without linking
    again, and writes no info log then."""
    return f"{source}__device__ int link_nonce_{os.getpid()}_{time.time_ns()};\n"


def test_bytes_names_and_options_reach_nvjitlink() -> None:
    with lto_ir(LINK_KERNEL) as kernel, lto_ir(unique_source(LINK_DEVICE)) as device:
        data = cuabi.LinkInput(cuabi.LINK_INPUT_LTOIR, data=device.image(), name="twice.ltoir")
        with cuabi.link([kernel, data], target="sm_90", lto=True, no_cache=True, in_process=True,
                        optimization_level=3, max_registers=64, options=["-verbose"]) as linked:
            assert linked.log() != ""
        with cuabi.link([kernel, device], target="sm_90", lto=True, ptx=True, no_cache=True) as ptx:
            assert ptx.info().image_kind == cuabi.IMAGE_PTX


def test_an_undefined_symbol_is_a_link_error_with_the_log() -> None:
    with lto_ir(LINK_KERNEL) as kernel:
        with pytest.raises(cuabi.CompileError) as raised:
            cuabi.link([kernel], target="sm_90", lto=True, no_cache=True)
    assert raised.value.status == errors.LINK
    assert "Fix:" in raised.value.message
    assert "twice" in raised.value.compile_log


def test_link_inputs_are_checked() -> None:
    garbage = bytes(64)
    for kind in (cuabi.LINK_INPUT_CUBIN, cuabi.LINK_INPUT_PTX, cuabi.LINK_INPUT_LTOIR, cuabi.LINK_INPUT_FATBIN,
                 cuabi.LINK_INPUT_OBJECT, cuabi.LINK_INPUT_LIBRARY):
        with pytest.raises(cuabi.CompileError) as raised:
            cuabi.link([cuabi.LinkInput(kind, data=garbage)], target="sm_90", lto=True)
        assert raised.value.name == "CUABI_ERROR_INVALID_IMAGE"
    with pytest.raises(cuabi.CuabiError) as missing:
        cuabi.link([cuabi.LinkInput(cuabi.LINK_INPUT_FATBIN, path="/nonexistent/x.fatbin")], target="sm_90")
    assert missing.value.name == "CUABI_ERROR_NOT_FOUND" and "/nonexistent/x.fatbin" in missing.value.message
    with pytest.raises(cuabi.CuabiError) as empty:
        cuabi.link([], target="sm_90")
    assert empty.value.status == errors.INVALID_ARGUMENT and "no inputs" in empty.value.message
    with pytest.raises(cuabi.CuabiError) as wrong:
        cuabi.link(["not an input"], target="sm_90")  # type: ignore[list-item]
    assert wrong.value.status == errors.INVALID_ARGUMENT
    with lto_ir(LINK_KERNEL) as kernel:
        with pytest.raises(cuabi.CuabiError) as no_lto:
            cuabi.link([kernel], target="sm_90")
        assert "CUABI_LINK_LTO" in no_lto.value.message
        with pytest.raises(cuabi.CuabiError) as names:
            kernel.kernel_names()
        assert names.value.status == errors.UNSUPPORTED


def test_relocatable_compiles_link_without_lto() -> None:
    with cuabi.compile(LINK_KERNEL, target="sm_90", relocatable=True, no_cache=True) as kernel, \
            cuabi.compile(LINK_DEVICE, target="sm_90", relocatable=True, no_cache=True) as device:
        with cuabi.link([kernel, device], target="sm_90", no_cache=True) as linked:
            assert linked.kernel_names() == ["apply_twice"]


def test_nvjitlink_reports_its_file_and_version() -> None:
    path = cuabi.nvjitlink_path()
    assert os.path.basename(path).startswith("libnvJitLink.so"), path
    major, minor = cuabi.nvjitlink_version()
    assert major >= 12 and minor >= 0
