"""Runs: benchmark runs and their lifecycle, the dispatch outbox to workers, the CI
webhook that triggers runs, and why each run exists (causes)."""
