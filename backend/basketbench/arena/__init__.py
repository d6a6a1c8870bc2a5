"""The codec arena: upload of `basketbench-arena-v1` documents (candidate codecs against
ROOT's setting on a file's own buffers) into arena_runs / arena_results, the latest board
per file and machine, and one candidate's history over ROOT commits."""
