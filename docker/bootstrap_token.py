#!/usr/bin/env python3
"""Register the workers' shared API token from BASKETBENCH_WORKER_TOKEN (run by the API
container's entrypoint after migrations), so a compose stack works in one `up`. It is a
machine token: workers build and run commits' code, so their token can register, claim and
report runs and upload results, and nothing else (people create user tokens with
`basketbench token create --scope user`).

Stores only the token's hash, like `basketbench token create`; idempotent: an already
registered token is left alone, a revoked one stays revoked (and is reported).
"""

from __future__ import annotations

import os
import sys

from basketbench.core.config import get_settings
from basketbench.core.db import make_engine, make_sessionmaker
from basketbench.core.security import hash_token
from basketbench.models import ApiToken
from sqlalchemy import select

NAME = "workers (BASKETBENCH_WORKER_TOKEN)"
MIN_LENGTH = 24


def main() -> int:
    token = os.environ.get("BASKETBENCH_WORKER_TOKEN", "").strip()
    if not token:
        print("bootstrap-token: BASKETBENCH_WORKER_TOKEN is empty; nothing to register")
        return 0
    if len(token) < MIN_LENGTH:
        print(
            f"bootstrap-token: BASKETBENCH_WORKER_TOKEN is shorter than {MIN_LENGTH} characters; "
            "make one with: openssl rand -hex 32",
            file=sys.stderr,
        )
        return 2
    engine = make_engine(get_settings())
    try:
        with make_sessionmaker(engine)() as session:
            digest = hash_token(token)
            existing = session.scalar(select(ApiToken).where(ApiToken.token_hash == digest))
            if existing is not None:
                state = "revoked" if existing.revoked_at is not None else "active"
                print(f"bootstrap-token: worker token already registered ({state}, "
                      f"scope {existing.scope})")
                return 0
            session.add(ApiToken(name=NAME, token_hash=digest, scope="machine"))
            session.commit()
            print("bootstrap-token: worker token registered")
    finally:
        engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
