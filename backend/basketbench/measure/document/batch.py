"""A checked result document, typed: ``parse_document(doc) -> DocumentBatch``.

The contract's one entry point for code that stores or reads a document's contents (the
backend's ingest): it runs the ingest check (``validation.validate_result_document``: the
compiled screen, else the full JSON Schema, then the rules a schema cannot express) and
either raises DocumentError listing the problems or hands back the document's parts with
their types (``screen``'s TypedDicts, which mirror the schema).

Building the batch is O(1) beyond the check: the typed parts are the validated document's
own dicts and lists, never copied or re-validated (a document holds thousands of results;
per-result model objects would cost more than storing them).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from basketbench.measure.document.contract import DocumentError, parse_created_at
from basketbench.measure.document.screen import (
    Build,
    Codecs,
    Context,
    Dataset,
    Machine,
    Parameters,
    Result,
    Tool,
)
from basketbench.measure.document.validation import validate_result_document

__all__ = ["DocumentBatch", "DocumentError", "parse_document"]


@dataclass(frozen=True, slots=True)
class DocumentBatch:
    """One valid harness result document. ``document`` is the whole document as posted
    (for its content hash); the other fields are its parts, typed. Optional parts the
    document leaves out are None (``context``: empty)."""

    document: dict[str, Any]
    schema_version: str
    tool: Tool
    created_at: datetime
    backend: str
    root_commit: str | None
    context: Context
    machine: Machine
    codecs: Codecs | None
    build: Build | None
    parameters: Parameters
    datasets: list[Dataset]
    results: list[Result]
    # How busy the machine was (measure/rzbench/noise.py); its `busy` is a bool.
    load: dict[str, Any] | None
    # How instruction counts were made (measure/rzbench/counting.py), when the results have them.
    instructions: dict[str, Any] | None
    # Interference measured by the run itself (rzbench; judged by measure/rzbench/interference.py);
    # None in documents written before issue 32.
    interference: dict[str, Any] | None = None

    @property
    def tool_label(self) -> str:
        """``<name> <version>`` of the harness that wrote the document."""
        return f"{self.tool['name']} {self.tool['version']}"


def parse_document(doc: Any, source: str = "result document") -> DocumentBatch:
    """The typed parts of ``doc``; DocumentError (named by ``source``) listing its problems
    (at most MAX_LISTED, then a line counting the rest) when it is not a valid document."""
    errors = validate_result_document(doc)
    if errors:
        raise DocumentError(source, errors)
    # Valid: the schema (and so these types) holds. The casts are no-ops on the same dicts.
    valid = cast(dict[str, Any], doc)
    return DocumentBatch(
        document=valid,
        schema_version=valid["schema_version"],
        tool=valid["tool"],
        created_at=parse_created_at(valid["created_at"]),
        backend=valid["backend"],
        root_commit=valid.get("root_commit"),
        context=valid.get("context") or Context(),
        machine=valid["machine"],
        codecs=valid.get("codecs"),
        build=valid.get("build"),
        parameters=valid["parameters"],
        datasets=valid["datasets"],
        results=valid["results"],
        load=valid.get("load"),
        instructions=valid.get("instructions"),
        interference=valid.get("interference"),
    )
