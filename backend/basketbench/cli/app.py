"""The `basketbench` command: one typer app, one module per command.

Each command lives in its own module of this package (run, run_io, corpus, advise,
server), `worker` in the workers package and `demo` in the developer tools, so that this
file never grows with their logic. The CLI is a composition root: the only part of
backend/ that may import the workers and the developer tools.
"""

from __future__ import annotations

import typer
from basketbench_devtools.demo import command as demo

from basketbench.cli import ab, advise, arena, corpus, headroom, lossy, replay, run, server

app = typer.Typer(
    help="Continuous performance tracking of ROOT's I/O compression.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)

app.add_typer(corpus.app, name="corpus", help="Extract and inspect basket corpora.")
app.add_typer(server.token_app, name="token", help="Manage API tokens.")
app.add_typer(server.db_app, name="db", help="Database migrations.")
app.command("serve", help="Start the API (and the built dashboard).")(server.serve)
app.command("run", help="Run the rzbench harness locally and print a table.")(run.run)
app.command("ab", help="Compare two builds' speeds interleaved in one process (A/B).")(
    ab.ab_command
)
app.command("arena", help="Candidate codecs and levels on a ROOT file's buffers vs ROOT's choice.")(
    arena.arena_command
)
app.command("headroom", help="What ROOT's framing costs against the bare codec library.")(
    headroom.headroom_command
)
app.command("advise", help="Which compression setting for this ROOT file? Measure and rank.")(
    advise.advise_command
)
app.command("lossy", help="How many bits can each float column lose? Size against precision.")(
    lossy.lossy_command
)
app.command("demo", help="Benchmark this machine end to end and serve the dashboard.")(demo.demo)
app.command("replay", help="ROOT's released compression sources through the pipeline: changes.")(
    replay.replay
)


@app.command("worker", help="Start a Celery worker for a hardware tag.")
def worker(
    tag: str | None = typer.Option(None, help="Hardware tag; detected from the CPU if omitted."),
    concurrency: int = typer.Option(
        1, help="Runs at a time (keep 1 so measurements do not overlap)."
    ),
) -> None:
    # Imported here so the API process never imports worker code.
    from basketbench_workers.cli import start_worker

    start_worker(tag=tag, concurrency=concurrency)


if __name__ == "__main__":
    app()
