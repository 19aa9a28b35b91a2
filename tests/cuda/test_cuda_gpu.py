"""The CUDA corpus on a real GPU (tests/cuda/gpu_check.py); skipped, saying so, where there is none."""

from __future__ import annotations

import pytest
from gpu_check import gpu_name, run_corpus


def test_corpus_on_a_gpu_gives_the_types_shown(capsys: pytest.CaptureFixture[str]) -> None:
    card = gpu_name()
    if card is None:
        pytest.skip("no GPU here (numba.cuda.is_available() is False): the corpus was not run on a device")
    programs, kernels, compared, differences = run_corpus()
    with capsys.disabled():
        print(f"\nCUDA on {card}: {programs} programs, {kernels} kernels, {compared} types compared")
    assert programs >= 15 and kernels and compared
    assert differences == []
