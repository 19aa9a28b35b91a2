"""The protocol's input read on the event loop: pygls's own stdio reader hands every header line and
every body to a thread (four thread hops per message); asyncio reads a pipe without any."""

from __future__ import annotations

import asyncio
import os
from typing import BinaryIO


class PipeReader:
    """pygls's AsyncReader over asyncio's StreamReader: b"" at the end of the input, as pygls expects."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self._stream = stream

    async def readline(self) -> bytes:
        return await self._stream.readline()

    async def readexactly(self, n: int) -> bytes:
        try:
            return await self._stream.readexactly(n)
        except asyncio.IncompleteReadError:
            return b""

    async def close(self) -> None:
        pass


async def pipe_reader(stdin: BinaryIO) -> PipeReader | None:
    """A reader of `stdin` on the running loop; None when asyncio cannot watch it (a regular file, or
    anything outside POSIX, where a pipe handle is not made for the event loop)."""
    if os.name != "posix":
        return None
    loop = asyncio.get_running_loop()
    stream = asyncio.StreamReader()
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream), stdin)
    except (ValueError, OSError, NotImplementedError):
        return None
    return PipeReader(stream)
