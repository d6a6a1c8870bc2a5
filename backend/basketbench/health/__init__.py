"""Health: /health, what an operator or a load balancer asks (database, broker, workers,
detection backlog)."""
