"""Change detection: exact metrics, speed tests with FDR control, confirmation reruns,
change points over the whole history, drifts, reverts, bisection. Pure statistics live
in ``speed``, ``fdr``, ``edivisive``, ``engine`` and ``drift`` (shared with
bench/detection_quality.py); ``service`` is the one orchestrator over the database parts
(``screening``, ``confirm``, ``bisect``, ``rescreen``, ``pending``, ``budget``,
``revert``, ``ab``: per-commit A/B effects first, ``exclusions``: speeds left out and
why), which import ``common`` and never ``service``; ``queue`` drains the outbox through
``service``. The A/B, budget and revert rules are pure too: ``stats.abeffect``,
``stats.budget``, ``stats.revert``."""
