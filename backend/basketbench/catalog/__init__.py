"""Catalog: repositories, commits, machines, datasets, configurations, worker tags and the
lookups every other domain uses to turn names into rows."""
