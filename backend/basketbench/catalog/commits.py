"""Storing commits with an order that follows the git graph.

order = 1 + max(order of known parents); a root commit gets 0; a commit whose
parents are all unknown is appended after the newest known commit. Ties (siblings
on different branches) are broken by commit date when listing.

Whatever order commits arrive in, every stored commit ends up after its known parents:
a commit that arrives (or learns its parents) after its children pushes them later.
Orders of one repository are assigned under a per-repository lock (a PostgreSQL
advisory lock held to the end of the transaction), so concurrent writers never read
the same "newest" order nor insert the same commit twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from sqlalchemy import Engine, bindparam, select, text
from sqlalchemy.orm import Session

from basketbench.catalog.lookup import max_order, normalise_sha
from basketbench.core.errors import Invalid
from basketbench.core.sqlutil import chunked
from basketbench.measure.realroot.releases import release_for_sha
from basketbench.models import Commit, Repository


@dataclass
class CommitInfo:
    sha: str
    parents: list[str] = field(default_factory=list)
    author: str | None = None
    author_email: str | None = None
    date: datetime | None = None
    message: str | None = None
    branch: str | None = None


# First key of the advisory lock: "bb" + 1, so no other lock user collides by chance.
COMMIT_ORDER_LOCK = 0x62620001
MAX_PROPAGATION_ROUNDS = 100_000


def lock_repository(session: Session, repository_id: int) -> None:
    """Serialise order assignment in one repository until this transaction ends (SQLite
    serialises writers by itself)."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:k, :r)"),
                        {"k": COMMIT_ORDER_LOCK, "r": repository_id})


def store_commits(session: Session, repo: Repository,
                  infos: list[CommitInfo]) -> tuple[list[Commit], list[Commit]]:
    """Insert unknown commits (given parents first). Returns (all, newly created)."""
    shas = [normalise_sha(i.sha) for i in infos]
    parent_shas = {normalise_sha(p) for i in infos for p in i.parents}
    lock_repository(session, repo.id)
    known = {
        c.sha: c for piece in chunked(sorted(set(shas) | parent_shas))
        for c in session.scalars(
            select(Commit).where(Commit.repository_id == repo.id, Commit.sha.in_(piece))
            .execution_options(populate_existing=True))
    }
    newest = max_order(session, repo.id)
    result: list[Commit] = []
    created: list[Commit] = []
    moved: list[Commit] = []
    for given, sha in zip(infos, shas, strict=True):
        info = release_info(given, sha)
        commit = known.get(sha)
        if commit is None:
            parents = [normalise_sha(p) for p in info.parents]
            orders = [known[p].order for p in parents if p in known]
            if orders:
                order = 1 + max(orders)
            elif not parents:
                order = 0 if newest < 0 else newest + 1
            else:
                order = newest + 1
            commit = Commit(
                repository_id=repo.id, sha=sha, parents=parents, author=_cut(info.author),
                author_email=_cut(info.author_email), date=info.date, message=info.message,
                branch=_cut(info.branch), order=order,
            )
            session.add(commit)
            session.flush()
            known[sha] = commit
            newest = max(newest, order)
            created.append(commit)
            moved.append(commit)
        else:
            # Fill what an earlier, thinner source (e.g. ingest ?commit=) did not know.
            commit.author = commit.author or _cut(info.author)
            commit.date = commit.date or info.date
            commit.message = info.message if release_for_sha(sha) else (
                commit.message or info.message)
            commit.branch = commit.branch or _cut(info.branch)
            if not commit.parents and info.parents:
                commit.parents = [normalise_sha(p) for p in info.parents]
                orders = [known[p].order for p in commit.parents if p in known]
                if orders and commit.order != 1 + max(orders):
                    # It was appended when its parents were unknown: place it after them.
                    commit.order = 1 + max(orders)
                    moved.append(commit)
        result.append(commit)
    if moved:
        session.flush()
        _push_children_after(session, repo.id, moved)
    return result, created


def _children(session: Session, repository_id: int, shas: list[str]) -> list[Commit]:
    """Stored commits of the repository that name one of `shas` as a parent."""
    if session.get_bind().dialect.name == "postgresql":
        stmt = text("SELECT id FROM commits WHERE repository_id = :r "
                    "AND jsonb_exists_any(parents::jsonb, CAST(:shas AS text[]))")
        ids = list(session.scalars(stmt, {"r": repository_id, "shas": shas}))
    else:
        stmt = text("SELECT id FROM commits WHERE repository_id = :r AND EXISTS "
                    "(SELECT 1 FROM json_each(commits.parents) WHERE value IN :shas)"
                    ).bindparams(bindparam("shas", expanding=True))
        ids = [i for piece in chunked(shas)
               for i in session.scalars(stmt, {"r": repository_id, "shas": list(piece)})]
    return [c for piece in chunked(ids)
            for c in session.scalars(select(Commit).where(Commit.id.in_(piece)))]


def _push_children_after(session: Session, repository_id: int, moved: list[Commit]) -> None:
    """Every known descendant of the moved commits gets an order above its parents'."""
    frontier = {c.sha: c.order for c in moved}
    rounds = 0
    while frontier and rounds < MAX_PROPAGATION_ROUNDS:
        rounds += 1
        following: dict[str, int] = {}
        for child in _children(session, repository_id, list(frontier)):
            floor = max(frontier[p] for p in child.parents if p in frontier)
            if child.order <= floor:
                child.order = floor + 1
                following[child.sha] = child.order
        session.flush()
        frontier = following


def release_info(info: CommitInfo, sha: str) -> CommitInfo:
    """A ROOT release measured without ROOT's repository (its stable id, see
    harness.root_release.release_commit_sha) is named like ROOT's own release notes:
    "ROOT 6.40.00 (release)", with the release's date, wherever the commit is shown."""
    release = release_for_sha(sha)
    if release is None:
        return info
    year, month, *day = (int(x) for x in release.date.split("-"))
    kind = "development build" if release.development else "release"
    # The id names the release whatever a push said about it: the message is its name.
    return replace(
        info, message=f"ROOT {release.version} ({kind})",
        author=info.author or "ROOT team",
        date=info.date or datetime(year, month, day[0] if day else 1, tzinfo=UTC))


def _cut(value: str | None, width: int = 200) -> str | None:
    """Names from outside (webhooks) are display text: cut to the column, never fail."""
    return value[:width] if isinstance(value, str) else None


def ensure_commit(session: Session, repo: Repository, sha: str) -> Commit:
    """The commit with this full sha or unique prefix; created (appended) if unknown."""
    from basketbench.catalog.lookup import find_commit

    found = find_commit(session, sha, repo.id)
    if found is not None:
        if found.message is None and release_for_sha(found.sha) is not None:
            # stored before releases were named: name it now
            named = release_info(CommitInfo(sha=found.sha), found.sha)
            found.message, found.author, found.date = named.message, named.author, named.date
        return found
    if len(sha.strip()) < 40:
        # A prefix cannot be stored: the full sha would later become a second commit.
        raise Invalid(f"unknown commit {sha!r}: give the full 40-character sha",
                      [f"commit: {sha!r} matches no stored commit"])
    if _store_aside(session, repo, sha):
        found = find_commit(session, sha, repo.id)
        if found is not None:
            return found
    commits, _ = store_commits(session, repo, [CommitInfo(sha=sha)])
    return commits[0]


def _store_aside(session: Session, repo: Repository, sha: str) -> bool:
    """Store the commit in a short transaction of its own, so a long ingest does not hold
    the repository's order lock to its end. Only on PostgreSQL, and only when the
    repository is already committed (else its row is invisible there)."""
    from basketbench.core.db import aside_engine

    bind = session.get_bind()
    engine = aside_engine(bind) if isinstance(bind, Engine) else None
    if engine is None:
        return False
    with Session(bind=engine) as aside:
        aside_repo = aside.get(Repository, repo.id)
        if aside_repo is None:
            return False
        store_commits(aside, aside_repo, [CommitInfo(sha=sha)])
        aside.commit()
    return True
