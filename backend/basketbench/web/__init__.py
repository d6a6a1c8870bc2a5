"""HTTP layer: thin routes over basketbench.services."""
