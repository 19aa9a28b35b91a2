"""Per-document analysis scheduling: debounce, supersede, serialise, never publish stale results.

The analysis engine is blocking and serves one caller at a time, so every engine call (analyses and
IR views) runs on one executor thread behind one asyncio lock. Each document has a generation
number that every request bumps; a run publishes only if its generation is still the newest when it
finishes, so a stale result can never overwrite a newer one. A newer request for a document whose
run is in flight cancels that run in the engine (the engine abandons it and may recycle its worker).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Generic, TypeVar

R = TypeVar("R")
T = TypeVar("T")

logger = logging.getLogger(__name__)


@dataclass
class _DocumentState:
    generation: int = 0
    running_generation: int | None = None
    debounce: asyncio.TimerHandle | None = None
    tasks: set[asyncio.Task[None]] = field(default_factory=set)


@dataclass(frozen=True)
class Outcome(Generic[R]):
    uri: str
    generation: int
    source: str  # the exact text analysed
    tag: object  # whatever the caller attached to the request (the document version)
    result: R | None
    error: BaseException | None


class AnalysisScheduler(Generic[R]):
    def __init__(
        self,
        executor: Executor,
        analyze: Callable[[str, str], R],
        cancel_in_flight: Callable[[], None],
        on_start: Callable[[str, int], None],
        on_outcome: Callable[[Outcome[R]], None],
        on_idle: Callable[[str, int], None],
    ) -> None:
        self._executor = executor
        self._analyze = analyze
        self._cancel_in_flight = cancel_in_flight
        self._on_start = on_start
        self._on_outcome = on_outcome
        self._on_idle = on_idle
        self._lock = asyncio.Lock()
        self._documents: dict[str, _DocumentState] = {}

    def schedule(self, uri: str, source: str, delay_s: float = 0.0, tag: object = None) -> int:
        """Analyse `source` for `uri` after `delay_s`; supersedes every earlier request for `uri`."""
        state = self._documents.setdefault(uri, _DocumentState())
        state.generation += 1
        generation = state.generation
        if state.debounce is not None:
            state.debounce.cancel()  # a newer request restarts the on-type debounce
            state.debounce = None
        if delay_s > 0:
            loop = asyncio.get_running_loop()
            state.debounce = loop.call_later(delay_s, self._start, uri, generation, source, tag)
        else:
            self._start(uri, generation, source, tag)
        return generation

    def _start(self, uri: str, generation: int, source: str, tag: object) -> None:
        state = self._documents[uri]
        if state.generation != generation:
            return
        task = asyncio.ensure_future(self._run(uri, generation, source, tag))
        state.tasks.add(task)
        task.add_done_callback(state.tasks.discard)

    def forget(self, uri: str) -> None:
        """The document closed: supersede whatever is pending or running for it."""
        state = self._documents.get(uri)
        if state is None:
            return
        state.generation += 1
        if state.debounce is not None:
            state.debounce.cancel()
            state.debounce = None
        if state.running_generation is not None:
            self._cancel_in_flight()

    def is_current(self, uri: str, generation: int) -> bool:
        state = self._documents.get(uri)
        return state is not None and state.generation == generation

    def busy(self, uri: str) -> bool:
        state = self._documents.get(uri)
        return state is not None and (state.running_generation is not None or bool(state.tasks))

    async def run_exclusive(self, function: Callable[..., T], *args: object) -> T:
        """Run another engine call (an IR view) on the engine thread, between analyses."""
        async with self._lock:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._executor, function, *args)

    async def wait_idle(self) -> None:
        """Wait until nothing is pending or running (used at shutdown and by benchmarks)."""
        while True:
            pending = [task for state in self._documents.values() for task in state.tasks]
            if not pending:
                return
            await asyncio.gather(*pending, return_exceptions=True)

    async def _run(self, uri: str, generation: int, source: str, tag: object) -> None:
        state = self._documents[uri]
        if state.generation != generation:
            return
        if state.running_generation is not None:
            # The run in flight analyses an older text of this document: abandon it.
            self._cancel_in_flight()
        async with self._lock:
            if state.generation != generation:
                return
            state.running_generation = generation
            result: R | None = None
            error: BaseException | None = None

            def analyze_if_current() -> R | None:
                # A newer request may have arrived while this one waited for the engine thread: its
                # cancel found no call in progress (the engine drops such a cancel), so skip here.
                if state.generation != generation:
                    return None
                return self._analyze(uri, source)

            try:
                loop = asyncio.get_running_loop()
                running = loop.run_in_executor(self._executor, analyze_if_current)
                self._on_start(uri, generation)  # the client hears of it while the engine works
                result = await running
            except Exception as exc:  # the engine never raises for user code; this is our bug or a cancel
                error = exc
            finally:
                state.running_generation = None
        try:
            if state.generation == generation:
                self._on_outcome(Outcome(uri, generation, source, tag, result, error))
            else:
                logger.debug(
                    "dropped a stale analysis of %s (generation %d < %d)", uri, generation, state.generation
                )
        finally:
            self._on_idle(uri, generation)
