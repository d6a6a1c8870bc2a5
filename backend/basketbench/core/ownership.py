"""Which runs a machine token may touch: the runs of its hardware tags (a token created with
``--tag``), and, once a run is claimed, only the token that claimed it. An admin token may
update any run; no token but the claimer may store a run's advice."""

from __future__ import annotations

from sqlalchemy.orm import Session

from basketbench.core.errors import Conflict, Forbidden, Invalid
from basketbench.models import ApiToken, Machine, Run


def check_tag(token: ApiToken, tag: str) -> None:
    """A machine token limited to some tags serves those only (claims, registrations)."""
    if token.scope == "machine" and token.tags and tag not in token.tags:
        raise Forbidden(f"token {token.name!r} serves tags {', '.join(token.tags)}, "
                        f"not {tag!r}")


def upload_machine(session: Session, machine_id: int, uploader: ApiToken | None) -> Machine:
    """The machine an upload names (422 when there is none), which ``uploader`` (an HTTP
    upload's token; None for a trusted caller) must serve by its tags (403)."""
    machine = session.get(Machine, machine_id)
    if machine is None:
        raise Invalid(f"unknown machine {machine_id}", [f"machine_id: no machine {machine_id}"])
    if uploader is not None:
        check_tag(uploader, machine.tag)
    return machine


def check_updater(token: ApiToken, run: Run) -> None:
    """Progress, status and logs of a run come from its tag's workers, and once it is
    claimed from the claiming token alone."""
    if token.scope == "admin":
        return
    check_tag(token, run.tag)
    if run.claimed_by_token_id is not None and run.claimed_by_token_id != token.id:
        raise Forbidden(f"run {run.id} was claimed by another worker's token")


def check_claimer(token: ApiToken, run: Run) -> None:
    """Only the worker that claimed a run stores what it found (its advice)."""
    if run.claimed_by_token_id is None:
        raise Conflict(f"run {run.id} is {run.status} and not claimed by a worker: "
                       "its results come from the worker that claims it")
    if run.claimed_by_token_id != token.id:
        raise Forbidden(f"run {run.id} was claimed by another worker's token")
