"""The debuggee's pty forwards whole lines, and a partial line (a prompt) after a short pause."""

from __future__ import annotations

import os
import threading
import time

from pyserver.debug.gdb.launcher import InferiorPty


def test_lines_arrive_whole_and_prompts_are_not_held() -> None:
    chunks: list[str] = []
    prompt_seen = threading.Event()

    def on_output(text: str) -> None:
        chunks.append(text)
        if text.endswith("name? "):
            prompt_seen.set()

    pty = InferiorPty(on_output)
    try:
        writer = os.open(pty.name, os.O_WRONLY | os.O_NOCTTY)
        try:
            # One line written in three pieces, as print() does, then a prompt with no newline.
            for piece in (b"results:", b" [1.0, 2.0]", b"\nnext line\nname? "):
                os.write(writer, piece)
            assert prompt_seen.wait(5.0), chunks
            # A character split across writes is decoded once whole.
            snowman = "\u2603\n".encode()
            os.write(writer, snowman[:1])
            os.write(writer, snowman[1:])
            deadline = time.monotonic() + 5.0
            while "\u2603\n" not in chunks and time.monotonic() < deadline:
                time.sleep(0.01)
        finally:
            os.close(writer)
    finally:
        pty.close()
    assert chunks[0] == "results: [1.0, 2.0]\nnext line\n"
    assert chunks[1] == "name? "
    assert chunks[2] == "\u2603\n"
