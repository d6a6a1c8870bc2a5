"""`python -m basketbench.cli ...`: the same app as the `basketbench` script."""

from basketbench.cli.app import app

app()
