"""Compare: the rows of two commits on one machine or two machines at one commit
(service.py), and how they are shown (view.py)."""
