"""Recommendations with a database: ranking requests over stored results and branch
sizes, winners over history, and advise runs that a worker executes on its data root.
The pure ranking lives in measure/advise."""
