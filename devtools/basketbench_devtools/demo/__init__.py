"""`basketbench demo`: benchmark this machine end to end and serve the dashboard."""
