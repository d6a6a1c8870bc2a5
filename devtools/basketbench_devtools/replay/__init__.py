"""`basketbench replay`: ROOT's own compression history, replayed through the real pipeline.

sources (the cppyy-cling sdists, cached and checked), history (their git history in ROOT's
layout, with the release wheels as tagged commits), suites (what is measured), pipeline
(the steps: API, webhook, runs, detection) and report (the changes and measurements read
back through the API). docs/replay.md has what it found.
"""
