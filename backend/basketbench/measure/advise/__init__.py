"""advise."""
