"""`basketbench demo`, a developer tool: benchmark this machine end to end, serve the dashboard.

command.py (the options) runs steps.py (the steps in order), which uses: prerequisites
(system packages, the built dashboard), checkout (the commit measured), home (the demo's
folder and environment), database (schema, token, commit), suite (what is measured),
server (the API child process), releases and runs (measured through the API) and summary
(what is printed at the end); console has the `[demo]` lines and the error that stops it.
"""
