"""Lossy float sweeps (issue 36): stored per commit, file and codec set; served per column for
the size-against-error plot, and per (column, representation, bits, setting) over commits."""
