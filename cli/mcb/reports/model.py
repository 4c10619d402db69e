"""The one diagnostic model: every finding of every checker is a :class:`Diagnostic`."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Severity(str, Enum):  # noqa: UP042 (str() and format() of a StrEnum differ)
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@dataclass(frozen=True)
class Diagnostic:
    """One finding.

    ``rule`` is a stable id such as ``sponge.palette.max`` or ``recipe.block.unknown``; ``pointer`` is a JSON
    pointer (recipes) or an NBT path (schematics); ``line``/``column`` are 1-based where known. ``hint`` is a
    template (mcb.errors): it names arguments as the face that shows it does.
    """

    rule: str
    severity: Severity
    message: str
    file: str | None = None
    pointer: str | None = None
    line: int | None = None
    column: int | None = None
    hint: str | None = None

    def to_json(self) -> dict:
        from mcb.errors import render

        data = {
            "rule": self.rule,
            "severity": self.severity.value,
            "message": self.message,
            "file": self.file,
            "pointer": self.pointer,
            "line": self.line,
            "column": self.column,
            "hint": render(self.hint),
        }
        return data


@dataclass
class FileReport:
    """All diagnostics of one checked file, plus facts the checker wants to show (format, verdict, ...)."""

    file: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    facts: dict = field(default_factory=dict)

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity is Severity.ERROR)

    @property
    def warnings(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity is Severity.WARNING)

    @property
    def skipped(self) -> str | None:
        """Why a walk passed this file by (it is not a schematic), or None when it was checked."""
        return self.facts.get("skipped")

    def failed(self, strict: bool = False) -> bool:
        return self.errors > 0 or (strict and self.warnings > 0)

    def to_json(self) -> dict:
        return {
            "file": self.file,
            "ok": self.errors == 0,
            "errors": self.errors,
            "warnings": self.warnings,
            "facts": self.facts,
            "diagnostics": [d.to_json() for d in self.diagnostics],
        }
