"""Lines and columns: the AST counts UTF-8 bytes, Python strings count code points, LSP clients
count UTF-16 units by default. Every logic module here works in code points on the source text;
the protocol layer converts at the edge with these helpers."""

from __future__ import annotations

import re

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(source: str) -> list[str]:
    """Lines as LSP and Python's tokenizer see them (not str.splitlines, which also splits at \\x0c)."""
    return _LINE_BREAK.split(source)


def line_at(lines: list[str], line: int) -> str:
    return lines[line] if 0 <= line < len(lines) else ""


def utf8_to_index(line_text: str, byte_col: int) -> int:
    """An AST col_offset (UTF-8 bytes) as a code-point index into `line_text`."""
    if line_text.isascii():
        return byte_col
    return len(line_text.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))


def _units(char: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(char.encode("utf-8"))
    if encoding == "utf-32":
        return 1
    return 2 if ord(char) > 0xFFFF else 1


def index_to_client(line_text: str, index: int, encoding: str = "utf-16") -> int:
    if line_text.isascii() or encoding == "utf-32":
        return index
    return sum(_units(char, encoding) for char in line_text[:index])


def client_to_index(line_text: str, units: int, encoding: str = "utf-16") -> int:
    if line_text.isascii() or encoding == "utf-32":
        return min(units, len(line_text)) if units >= 0 else 0
    counted = 0
    for index, char in enumerate(line_text):
        if counted >= units:
            return index
        counted += _units(char, encoding)
    return len(line_text)
