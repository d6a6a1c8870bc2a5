"""basketbench_devtools."""
