"""The Python side of the rzbench harness.

- corpus_format: read/write corpus files (docs/CORPUS_FORMAT.md)
- extract: ROOT files -> corpus with uproot (`extract_corpus`)
- root_files: where real ROOT files are found (`default_root_files`)
- rzbench: locate and run the C++ binary
- document: validate result documents against the versioned JSON Schema
- tables: rich tables for results and corpora
"""

from basketbench.measure.rootio.corpus_format import Corpus, CorpusFormatError, read_corpus
from basketbench.measure.rootio.extract import CorpusSummary, ExtractionError, extract_corpus
from basketbench.measure.rootio.root_files import default_root_files

__all__ = [
    "Corpus",
    "CorpusFormatError",
    "CorpusSummary",
    "ExtractionError",
    "default_root_files",
    "extract_corpus",
    "read_corpus",
]
