"""The server's view of the `numbaLens.*` settings.

Settings arrive three ways: `initializationOptions.settings`, a `workspace/configuration` pull of the
"numbaLens" section, and the payload of `workspace/didChangeConfiguration`. VS Code sends dotted keys
as nested objects (`{"inlayHints": {"maxLength": 30}}`); other clients may send them flat
(`{"inlayHints.maxLength": 30}`). Both are accepted; anything malformed keeps its default and is
reported once in the log, never raised.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

SEVERITY_LEVELS = ("error", "warning", "information", "hint", "off")
MODULE_LOADING = ("definitions", "full")


@dataclass(frozen=True)
class Settings:
    analyze_on_type: bool = False
    analyze_on_type_delay_ms: int = 500
    timeout_s: float = 20.0
    inlay_variable_types: bool = True
    inlay_return_types: bool = True
    inlay_max_length: int = 30
    code_lens_enable: bool = True
    signature_files: tuple[str, ...] = ()
    severity: Mapping[str, str] = field(default_factory=dict)
    type_hints: bool = False  # Hint-severity type-instability diagnostics
    module_loading: str = "definitions"  # "definitions" | "full" (numbaLens.moduleLoading)

    def engine_key(self) -> tuple[float, tuple[str, ...], str]:
        """The settings the analysis engine is built from: a change means a new engine."""
        return (self.timeout_s, self.signature_files, self.module_loading)


def _flatten(raw: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in raw.items():
        name = f"{prefix}{key}"
        # `severity` is itself a mapping value, not a group of settings.
        if isinstance(value, Mapping) and name != "severity":
            flat.update(_flatten(value, name + "."))
        else:
            flat[name] = value
    return flat


def parse_settings(
    raw: Any, base: Settings | None = None, warn: Callable[[str], None] | None = None
) -> Settings:
    """Merge the `numbaLens` section `raw` over `base` (defaults when None)."""
    settings = base or Settings()
    if not isinstance(raw, Mapping):
        return settings
    if isinstance(raw.get("numbaLens"), Mapping):  # a whole-configuration payload
        raw = raw["numbaLens"]
    flat = {key.removeprefix("numbaLens."): value for key, value in _flatten(raw).items()}
    flat_severity = {
        key[len("severity.") :]: value for key, value in flat.items() if key.startswith("severity.")
    }
    if flat_severity:
        merged = dict(flat["severity"]) if isinstance(flat.get("severity"), Mapping) else {}
        flat["severity"] = {**merged, **flat_severity}

    def report(key: str, value: Any, expected: str) -> None:
        if warn is not None:
            warn(f"setting numbaLens.{key}: expected {expected}, got {value!r}; keeping the previous value")

    changes: dict[str, Any] = {}

    def take_bool(key: str, attr: str) -> None:
        if key in flat and flat[key] is not None:
            if isinstance(flat[key], bool):
                changes[attr] = flat[key]
            else:
                report(key, flat[key], "true or false")

    def take_number(key: str, attr: str, convert: Callable[[Any], Any], minimum: float) -> None:
        if key in flat and flat[key] is not None:
            value = flat[key]
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= minimum:
                changes[attr] = convert(value)
            else:
                report(key, value, f"a number >= {minimum}")

    take_bool("analyzeOnType", "analyze_on_type")
    take_number("analyzeOnTypeDelay", "analyze_on_type_delay_ms", int, 0)
    take_number("timeout", "timeout_s", float, 1)
    take_bool("inlayHints.variableTypes", "inlay_variable_types")
    take_bool("inlayHints.returnTypes", "inlay_return_types")
    take_number("inlayHints.maxLength", "inlay_max_length", int, 4)
    take_bool("codeLens.enable", "code_lens_enable")
    take_bool("typeHints", "type_hints")
    if "moduleLoading" in flat and flat["moduleLoading"] is not None:
        if flat["moduleLoading"] in MODULE_LOADING:
            changes["module_loading"] = flat["moduleLoading"]
        else:
            report("moduleLoading", flat["moduleLoading"], " | ".join(MODULE_LOADING))
    if "signatureFiles" in flat and flat["signatureFiles"] is not None:
        files = flat["signatureFiles"]
        if isinstance(files, list) and all(isinstance(item, str) for item in files):
            changes["signature_files"] = tuple(files)
        else:
            report("signatureFiles", files, "a list of paths")
    if "severity" in flat and flat["severity"] is not None:
        severity = flat["severity"]
        if isinstance(severity, Mapping):
            accepted: dict[str, str] = {}
            for code, level in severity.items():
                if isinstance(level, str) and level.lower() in SEVERITY_LEVELS:
                    accepted[str(code)] = level.lower()
                else:
                    report(f"severity.{code}", level, " | ".join(SEVERITY_LEVELS))
            changes["severity"] = accepted
        else:
            report("severity", severity, "an object mapping codes to severities")
    return replace(settings, **changes)
