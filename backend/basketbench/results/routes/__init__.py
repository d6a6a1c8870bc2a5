"""The results domain's routers: results (ingest and listing) and io (end-to-end I/O)."""
