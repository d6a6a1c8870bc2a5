"""routes."""
