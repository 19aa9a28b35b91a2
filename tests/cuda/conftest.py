"""Fixtures for the CUDA tests: an engine over a copy of the CUDA corpus, and NVVM for the ground truth."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from pyserver.analysis.engine import AnalysisEngine

HERE = Path(__file__).parent


@pytest.fixture(scope="session")
def cuda_workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cuda")
    shutil.copytree(HERE / "corpus", root / "corpus")
    shutil.copytree(HERE / "mistakes", root / "mistakes")
    return root


@pytest.fixture(scope="session")
def cuda_engine(cuda_workspace: Path) -> Iterator[AnalysisEngine]:
    engine = AnalysisEngine(cuda_workspace, timeout_s=120.0)
    engine.start()
    yield engine
    engine.close()


@pytest.fixture(scope="session")
def nvvm() -> str:
    """A CUDA_HOME holding NVVM (make nvvm), set for this process's compiles; skips without one."""
    from pyserver.numba_api import cuda

    home = cuda.nvvm_home()
    if home is None:
        pytest.skip("no NVVM: `make nvvm` installs PyPI's nvidia-cuda-nvcc-cu12 under .make/nvvm")
    os.environ["CUDA_HOME"] = home
    return home
