"""Reading ROOT files: TTree baskets and RNTuple pages as ROOT wrote them.

- corpus_format: read/write corpus files (docs/CORPUS_FORMAT.md)
- extract: ROOT files -> corpus with uproot (`extract_corpus`)
- rntuple: RNTuple anchor, envelopes, page lists and pages
- old_cs: ROOT's old "CS" compression blocks
- repage: RNTuple pages re-paged at another page size
- root_files: where real ROOT files are found (`default_root_files`)
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
