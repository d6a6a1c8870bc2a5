"""The catalog's routers: lookup (commits, datasets, configurations, dimensions),
machines, worker tags."""
