#!/usr/bin/env python3
"""Container healthcheck of a worker: its Celery node on this host answers a control ping.

The prefork parent answers while its child is busy measuring, so a long run stays healthy;
a hung or disconnected worker (broker unreachable) does not.
"""

from __future__ import annotations

import os
import socket
import sys


def main() -> int:
    from basketbench_workers.celery_app import app
    from basketbench_workers.config import get_settings

    host = socket.gethostname()
    # `basketbench worker` names its node "<machine>-<tag>-<pid>@<host>".
    machine = get_settings().machine_name or host
    tag = os.environ.get("BASKETBENCH_TAG", "")
    prefix = f"{machine}-{tag}-" if tag else f"{machine}-"
    try:
        # Ping waits the whole timeout for answers (it cannot know how many nodes exist).
        timeout = float(os.environ.get("BASKETBENCH_HEALTHCHECK_TIMEOUT", "10"))
        replies = app.control.ping(timeout=timeout)
    except Exception as exc:  # broker unreachable: unhealthy, say why
        print(f"unhealthy: cannot reach the broker: {exc}", file=sys.stderr)
        return 1
    nodes = [name for reply in replies for name in reply]
    if any(name.startswith(prefix) and name.endswith("@" + host) for name in nodes):
        return 0
    print(f"unhealthy: no worker {prefix}*@{host} answered (answers: {nodes})", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
