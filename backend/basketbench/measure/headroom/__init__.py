"""What ROOT's framing costs: its framed compression and decompression against the bare codec
library on the same buffers (issue part 3, docs/perf/headroom.md).

`run_headroom(source | synthetic, settings)` returns the basketbench-headroom-v1 document;
`parse_document(data)` validates one. Pure document handling lives in document.py, the runs of
`rzbench headroom` (timed, and counted under callgrind) in run.py."""

from basketbench.measure.headroom.document import (
    SCHEMA,
    HeadroomDocument,
    HeadroomDocumentError,
    build_document,
    cause_of,
    parse_callgrind_dump,
    parse_document,
)
from basketbench.measure.headroom.run import (
    DEFAULT_PAIRS,
    DEFAULT_SETTINGS,
    DEFAULT_TARGET_MS,
    HeadroomError,
    HeadroomInputError,
    run_headroom,
)
from basketbench.measure.headroom.table import headroom_markdown, headroom_table

__all__ = ["DEFAULT_PAIRS", "DEFAULT_SETTINGS", "DEFAULT_TARGET_MS", "SCHEMA", "HeadroomDocument",
           "HeadroomDocumentError", "HeadroomError", "HeadroomInputError", "build_document",
           "cause_of", "headroom_markdown", "headroom_table", "parse_callgrind_dump",
           "parse_document", "run_headroom"]
