"""Interleaved A/B comparisons (issue 32): upload of `basketbench-ab-v1` documents into
ab_runs / ab_effects, and their listing."""
