"""Change detection: exact metrics, speed tests with FDR control, confirmation reruns,
change points over the whole history, drifts, reverts, bisection. Pure statistics live
in ``speed``, ``fdr``, ``edivisive``, ``engine`` and ``drift`` (shared with
bench/detection_quality.py); ``service`` is the one orchestrator over the database parts
(``screening``, ``confirm``, ``bisect``, ``rescreen``, ``pending``, ``budget``,
``revert``), which import ``common`` and never ``service``; ``queue`` drains the outbox
through ``service``."""
