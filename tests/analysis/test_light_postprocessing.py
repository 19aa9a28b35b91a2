"""The light post-processing of the untyped passes (numba_api.inference, light_postprocessing_disabled) leaves out only
what object-mode lowering reads: every inference must be the same without it. Each jitted function of the
bundled examples, the first-sight corpus (30 scripts in the styles users write) and the debugger's
test programs (loops, branches, records, jitclasses, typed containers, parallel=True) is inferred for the
signatures its analysis found, once with it and once with Numba's own post-processing. So is a program of
what the closure-inlining pass inlines (it emits dels only where it may: a closure, `functools.reduce`,
a stencil, a list filled in a loop then made an array), each beside code with nothing to inline."""

from __future__ import annotations

import inspect
from pathlib import Path

from inference_comparison import FILES, analysed_inferences, outcome

from pyserver import numba_api


def test_inference_is_the_same_without_the_light_post_processing(tmp_path: Path) -> None:
    assert len(FILES) >= 25
    compared = light = 0
    for analyzer, path, memo, record in analysed_inferences(tmp_path, "light"):
        code = record.py_func.__code__
        light += (
            not code.co_flags & inspect.CO_GENERATOR
            and not numba_api.has_with_block(code)
            and not record.dispatcher.targetoptions.get("parallel")
        )
        with numba_api.light_postprocessing_disabled():
            with numba_api.callee_resolver(analyzer.resolve_callee):
                numba_own = numba_api.infer(record.dispatcher, memo.inference.args, None)
        assert outcome(memo.inference) == outcome(numba_own), (path.name, memo.function[1])
        compared += 1
    print(
        f"\n{compared} inferences compared ({light} with the light post-processing), {len(FILES) + 1} files"
    )
    assert compared >= 70 and light >= 60
