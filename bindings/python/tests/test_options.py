"""Without a GPU: the context's image verification policy and the batch's own checks, through the
real library (it checks a context's options before it looks for a driver)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import cuabi
from cuabi import _library, errors


def test_image_verification_values_are_the_headers() -> None:
    header = (Path(_library.__file__).with_name("_cdef.h")).read_text(encoding="utf-8")
    for policy in cuabi.ImageVerification:
        assert re.search(rf"^#define CUABI_IMAGE_VERIFY_{policy.name} {int(policy)}$", header, re.MULTILINE)
    assert len(cuabi.ImageVerification) == len(re.findall(r"^#define CUABI_IMAGE_VERIFY_", header, re.MULTILINE))


def test_every_image_verification_passes_the_librarys_check() -> None:
    # The policy is checked before the ordinal: a negative ordinal is what refuses each of them.
    for policy in cuabi.ImageVerification:
        with pytest.raises(cuabi.CuabiError) as raised:
            cuabi.Context(device=-1, image_verification=policy)
        assert raised.value.status == errors.INVALID_DEVICE, raised.value


def test_an_unknown_image_verification_is_refused_naming_it() -> None:
    with pytest.raises(cuabi.GeneralError) as raised:
        cuabi.Context(image_verification=7)
    assert raised.value.status == errors.INVALID_ARGUMENT
    assert "image_verification is 7" in raised.value.message and "Fix:" in raised.value.message


@pytest.mark.parametrize("capacity", [0, cuabi.LAUNCH_BATCH_MAX_ITEMS + 1, 2.0])
def test_a_batch_capacity_out_of_range_is_refused(capacity: object) -> None:
    with pytest.raises(cuabi.GeneralError) as raised:
        cuabi.LaunchBatch(capacity)  # type: ignore[arg-type]
    assert raised.value.status == errors.INVALID_ARGUMENT and "Fix:" in raised.value.message


def test_an_empty_batch_launches_nothing() -> None:
    batch = cuabi.LaunchBatch(cuabi.LAUNCH_BATCH_MAX_ITEMS)
    batch.submitted = 5
    batch.launch()  # count 0: cuabi_launch_batch succeeds and writes 0
    assert batch.submitted == 0 and len(batch) == 0
