"""initialize, initialized and shutdown: where the session learns its workspace, trust and settings,
and where the analysis worker is stopped."""

from __future__ import annotations

import asyncio
import logging
import threading

from lsprotocol import types as lsp
from pygls.uris import to_fs_path

from pyserver import __version__
from pyserver.lsp.session import Session
from pyserver.lsp.settings import parse_settings

logger = logging.getLogger("pyserver.lsp")

UNTRUSTED_MESSAGE = (
    "Numba Lens: this workspace is not trusted, so none of its code is run: no Numba "
    "diagnostics, types or IR views. Trust the workspace to enable them."
)


def initialize(session: Session, params: lsp.InitializeParams) -> None:
    session.client.loop = asyncio.get_running_loop()
    options = params.initialization_options if isinstance(params.initialization_options, dict) else {}
    trusted = options.get("trusted", True)
    session.trusted = trusted if isinstance(trusted, bool) else True
    session.settings = parse_settings(options.get("settings"), session.settings, logger.warning)
    if params.workspace_folders:
        session.root = to_fs_path(params.workspace_folders[0].uri) or session.root
    elif params.root_uri:
        session.root = to_fs_path(params.root_uri) or session.root
    elif params.root_path:
        session.root = params.root_path
    if "trusted" not in options:
        logger.info("the client did not say whether the workspace is trusted: assuming it is")


async def initialized(session: Session, params: lsp.InitializedParams) -> None:
    logger.info("Numba Lens %s, workspace %s, trusted: %s", __version__, session.root, session.trusted)
    if not session.trusted:
        session.announce_once("untrusted", "untrusted", UNTRUSTED_MESSAGE, show=True)
        return
    session.engines.start_environment_check()
    await session.pull_settings()


async def shutdown(session: Session, params: None) -> None:
    # The worker goes now, not at exit: a client may wait for `shutdown` and then kill us.
    # Off the loop thread, since stopping a worker that hangs in user code takes a moment.
    closer = threading.Thread(target=session.close_engine, name="numba-lens-close", daemon=True)
    closer.start()
    await asyncio.get_running_loop().run_in_executor(None, closer.join, 10.0)
