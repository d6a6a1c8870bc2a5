"""Change detection: exact metrics, speed tests with FDR control, confirmation reruns,
change points over the whole history, bisection. Pure statistics live in ``speed``,
``fdr`` and ``edivisive`` (shared with bench/changes_bench.py); the database side in
``service``, ``confirm`` and ``bisect``."""
