"""Developer tools that are not part of the service: the demo's orchestrator (demo).
They may import everything (backend, workers); nothing in backend/ imports them except
the CLI, which registers `basketbench demo`."""
