"""The result-document contract: the versioned JSON Schema (harness-result-v1), its loader
(schema), the semantic checks and loading (contract), the compiled fast screen (screen),
the bounds (limits) and the one check ingest runs (validation)."""
