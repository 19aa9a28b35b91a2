"""The sampler of `%%numba_lens_profile`, in a process of its own (a process cannot stop its own
threads): `python -m pyserver.notebook.cell_sampler PID FOLDER RATE OUT`. It samples the kernel PID
(pyserver.profile.sampler, reading the layout and JIT objects the kernel writes to FOLDER) until OUT/stop
exists, then writes OUT/profile.json and OUT/speedscope.json, and OUT/done last."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path


def sample(pid: int, folder: str, rate: float, out: Path) -> None:
    from pyserver.profile import formats, report
    from pyserver.profile.jitmap import JitMap
    from pyserver.profile.sampler import Sampler

    sampler = Sampler(pid, folder, rate)
    stop = out / "stop"
    (out / "ready").write_text("", encoding="utf-8")
    started = time.monotonic()
    sampler.run(lambda: not stop.exists())
    duration = time.monotonic() - started
    sampler.finish()
    profile, resolved = report.build(sampler, JitMap(folder), str(out), duration, rate)
    (out / "profile.json").write_text(json.dumps(profile), encoding="utf-8")
    flame = formats.speedscope(profile, resolved, "notebook cell")
    (out / "speedscope.json").write_text(json.dumps(flame), encoding="utf-8")


def main(argv: list[str]) -> int:
    pid, folder, rate, out = int(argv[0]), argv[1], float(argv[2]), Path(argv[3])
    try:
        sample(pid, folder, rate, out)
    except BaseException as exc:
        (out / "error.txt").write_text(repr(exc), encoding="utf-8")
        raise
    finally:
        (out / "done").write_text("", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
