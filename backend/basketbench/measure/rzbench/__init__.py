"""rzbench."""
