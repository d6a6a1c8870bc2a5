"""`basketbench demo` (placeholder, filled in by the deploy work)."""


def demo() -> None:
    raise SystemExit("not implemented yet")
