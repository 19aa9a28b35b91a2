"""The call index's files: every workspace `.py` file under its real path, a linked file under its
target's, no linked folder entered; an editor buffer equal to the file on disk indexed once."""

from __future__ import annotations

import os
from pathlib import Path

from pyserver.analysis.worker.signatures.call_index import CallIndex


def test_files_are_indexed_under_their_real_paths(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    (workspace / "pkg").mkdir(parents=True)
    (workspace / "main.py").write_text("from pkg.kernels import k\nk(1.0)\n")
    (workspace / "pkg" / "kernels.py").write_text("def k(x):\n    return x\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "shared.py").write_text("def s(x):\n    return x\n")
    (outside / "hidden.py").write_text("def h(x):\n    return x\n")
    os.symlink(outside / "shared.py", workspace / "pkg" / "shared_link.py")  # a linked file
    os.symlink(outside, workspace / "linked_folder")  # a linked folder: not entered
    index = CallIndex(str(workspace))
    index.refresh()
    real = os.path.realpath
    assert sorted(index.files) == sorted(
        real(p) for p in (workspace / "main.py", workspace / "pkg" / "kernels.py", outside / "shared.py")
    )
    assert all(indexed.path == path for path, indexed in index.files.items())


def test_a_buffer_equal_to_the_file_keeps_its_index(tmp_path: Path) -> None:
    path = tmp_path / "main.py"
    text = "def k(x):\n    return x\n\nk(1.0)\n"
    path.write_text(text)
    index = CallIndex(str(tmp_path))
    index.refresh()
    indexed = index.files[str(path)]  # parsed on first use
    parsed = index.parsed
    index.refresh(str(path), text)  # the editor's text is the file's: nothing to index again
    assert (index.parsed, index.files[str(path)]) == (parsed, indexed)
    index.refresh(str(path), text + "k(2)\n")  # an edit: indexed from the buffer
    assert index.parsed == parsed + 1
    assert [site.call.lineno for site in index.files[str(path)].calls["k"]] == [4, 5]
    index.refresh(str(path), text)  # back to the file's text
    assert [site.call.lineno for site in index.files[str(path)].calls["k"]] == [4]
