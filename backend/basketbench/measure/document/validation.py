"""The ingest check of a harness result document (parse_document, batch.py, runs it).

The rules live in ``contract`` (JSON Schema plus the rules a schema cannot express),
shared with `basketbench run`.

Bounded work whatever the body holds: the result count is checked first (MAX_RESULTS),
and a rejected document lists at most MAX_LISTED problems plus a line counting the rest.
jsonschema needs ~60 us per result, too slow for bulk ingest, so the compiled pydantic
screen (screen.py, at least as strict as the schema) goes first: a document it accepts
only gets the cheap semantic rules; a document it rejects goes through the full
validator, which stops at the listing limit.
"""

from __future__ import annotations

from typing import Any

from basketbench.measure.document.contract import (
    MAX_LISTED,
    capped,
    semantic_errors,
    too_many_results,
    validate_document,
)
from basketbench.measure.document.screen import passes_screen


def validate_result_document(doc: Any) -> list[str]:
    """The reasons the document is unacceptable (at most MAX_LISTED, then a line counting
    the rest); empty when it can be stored."""
    too_many = too_many_results(doc)
    if too_many:
        return too_many
    if passes_screen(doc):
        return capped(semantic_errors(doc), MAX_LISTED)
    return validate_document(doc, MAX_LISTED)
