"""`basketbench run` (placeholder, filled in by the harness-python work)."""


def run() -> None:
    raise SystemExit("not implemented yet")
