"""Results: ingest of result documents and Google Benchmark output, codec sets, build
provenance, end-to-end I/O results and the results listing."""
