"""The results domain: storing result documents (ingest: harness JSON through the
document contract, measure/document; Google Benchmark JSON through gbench), listing
stored results with their provenance, codec sets, and the end-to-end I/O breakdown."""
