"""Compare: the rows of two commits on one machine or of two machines at one commit.

request.py (what is asked) -> service.py (the sides, their codec series, the rows) ->
result.py (what is answered). sides.py loads a side, evidence.py finds what backs the
speed rows, rows.py builds the rows, view.py arranges and pages them and spells out the rule."""
