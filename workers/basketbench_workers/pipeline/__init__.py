"""The pipeline of a run: its stages (checkout, build, corpora, measure, upload), the
suites that say what a run measures, corpora, advise runs and bisection."""
