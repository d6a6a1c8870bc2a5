"""Analysis: series of one configuration over commits (history), ratio against speed at
one commit (tradeoff, Pareto) and two commits or machines side by side (compare).
Reads results and confirmed changes; writes nothing."""
