"""Bounds of a result document, shared by the schema check and the compiled screen."""

# The most results one document may hold (the schema's maxItems), checked before any
# per-result work: the largest real documents hold a few thousand.
MAX_RESULTS = 100_000
# Problems listed per document; the rest are counted, never listed (a 422 stays small and
# validating a document of broken results costs its size, not its size times its errors).
MAX_LISTED = 20
# A problem's message quotes the offending value: at most this much of it.
MAX_MESSAGE = 300
