"""The result-document contract: what an rzbench result document must hold.

Shared by `basketbench run`, the advisor and the backend's ingest, with no web or
database code. ``batch.parse_document(doc) -> DocumentBatch`` is the entry point for a
document's contents (typed parts, or DocumentError listing the problems);
``contract`` holds the rules (JSON Schema and the rest) and ``load_document`` for files;
``validation`` the ingest check (``screen``, the compiled fast path, before the full
rules); ``schema`` the schema file's loader; ``limits`` the bounds.
"""
