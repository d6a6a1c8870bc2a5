"""Response shapes shown by several domains (common.py)."""
