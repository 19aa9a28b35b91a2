"""What a launch or attach request is read as (pyserver/debug/launch_spec.py); no process is started."""

from __future__ import annotations

import dataclasses
import sys

import pytest

from pyserver.debug.dap import DapError
from pyserver.debug.launch_spec import AttachSpec, LaunchSpec, launch_mode
from pyserver.debug.stop_intent import IntentKind, StopIntent


def test_the_mode_is_mixed_unless_said_and_an_unknown_one_is_refused() -> None:
    assert launch_mode({}) == "mixed"
    assert launch_mode({"mode": "cudasim"}) == "cudasim"
    with pytest.raises(DapError, match="Unknown \"mode\": 'gpu'"):
        launch_mode({"mode": "gpu"})


def test_attach_by_process_id_or_by_port() -> None:
    by_pid = AttachSpec.from_args({"processId": "123", "justMyCode": False})
    assert (by_pid.process_id, by_pid.port, by_pid.just_my_code) == (123, None, False)
    assert by_pid.python == sys.executable and by_pid.host == "127.0.0.1"
    # A port wins over a process id: debugpy is there already, gdb stays out.
    by_port = AttachSpec.from_args({"processId": 123, "connect": {"host": "localhost", "port": "5678"}})
    assert (by_port.process_id, by_port.host, by_port.port) == (None, "localhost", 5678)


def test_specs_and_intents_are_values() -> None:
    spec = LaunchSpec(
        mode="mixed",
        python=sys.executable,
        program=None,
        module="pkg.main",
        args=("--n", "3"),
        env={"NUMBA_OPT": "0"},
        cwd="/tmp",
        port=5678,
        stop_at_jit_function=None,
        gdb_path=None,
        console="internalConsole",
        show_internal=False,
        just_my_code=True,
        stop_on_entry=False,
        reverse=False,
    )
    assert spec.target == "pkg.main"
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.port = 1  # type: ignore[misc]
    intent = StopIntent()
    assert intent.kind is IntentKind.RUN and not intent.python_caller
    assert dataclasses.replace(intent, kind=IntentKind.PAUSE).kind is IntentKind.PAUSE
