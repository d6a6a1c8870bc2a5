"""The `basketbench` command line: one module per command, shared options in options.py."""
