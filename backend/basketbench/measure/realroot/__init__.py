"""realroot."""
