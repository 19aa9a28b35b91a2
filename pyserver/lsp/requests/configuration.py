"""workspace/didChangeConfiguration: settings pushed by the client, or a cue to pull them."""

from __future__ import annotations

import logging

from lsprotocol import types as lsp

from pyserver.lsp.session import SETTINGS_SECTION, Session
from pyserver.lsp.settings import parse_settings

logger = logging.getLogger("pyserver.lsp")


def did_change_configuration(session: Session, params: lsp.DidChangeConfigurationParams) -> None:
    # Applied before the next message is handled when the client pushes the values.
    pushed = params.settings
    if isinstance(pushed, dict) and isinstance(pushed.get(SETTINGS_SECTION), dict):
        session.apply_settings(parse_settings(pushed[SETTINGS_SECTION], session.settings, logger.warning))
    else:
        session.client.spawn(session.pull_settings())
