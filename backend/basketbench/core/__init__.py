"""Settings, database engine, auth primitives and the task queue."""
