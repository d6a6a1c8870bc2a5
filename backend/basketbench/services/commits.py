"""Storing commits with an order that follows the git graph.

order = 1 + max(order of known parents); a root commit gets 0; a commit whose
parents are all unknown is appended after the newest known commit. Ties (siblings
on different branches) are broken by commit date when listing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from basketbench.models import Commit, Repository
from basketbench.services.errors import Invalid
from basketbench.services.lookup import max_order, normalise_sha


@dataclass
class CommitInfo:
    sha: str
    parents: list[str] = field(default_factory=list)
    author: str | None = None
    author_email: str | None = None
    date: datetime | None = None
    message: str | None = None
    branch: str | None = None


def store_commits(session: Session, repo: Repository,
                  infos: list[CommitInfo]) -> tuple[list[Commit], list[Commit]]:
    """Insert unknown commits (given parents first). Returns (all, newly created)."""
    shas = [normalise_sha(i.sha) for i in infos]
    parent_shas = {normalise_sha(p) for i in infos for p in i.parents}
    known = {
        c.sha: c for c in session.scalars(
            select(Commit).where(Commit.repository_id == repo.id,
                                 Commit.sha.in_(set(shas) | parent_shas)))
    }
    newest = max_order(session, repo.id)
    result: list[Commit] = []
    created: list[Commit] = []
    for info, sha in zip(infos, shas, strict=True):
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
        else:
            # Fill what an earlier, thinner source (e.g. ingest ?commit=) did not know.
            commit.author = commit.author or _cut(info.author)
            commit.date = commit.date or info.date
            commit.message = commit.message or info.message
            commit.branch = commit.branch or _cut(info.branch)
            if not commit.parents and info.parents:
                commit.parents = [normalise_sha(p) for p in info.parents]
        result.append(commit)
    return result, created


def _cut(value: str | None, width: int = 200) -> str | None:
    """Names from outside (webhooks) are display text: cut to the column, never fail."""
    return value[:width] if isinstance(value, str) else None


def ensure_commit(session: Session, repo: Repository, sha: str) -> Commit:
    """The commit with this full sha or unique prefix; created (appended) if unknown."""
    from basketbench.services.lookup import find_commit

    found = find_commit(session, sha, repo.id)
    if found is not None:
        return found
    if len(sha.strip()) < 40:
        # A prefix cannot be stored: the full sha would later become a second commit.
        raise Invalid(f"unknown commit {sha!r}: give the full 40-character sha",
                      [f"commit: {sha!r} matches no stored commit"])
    commits, _ = store_commits(session, repo, [CommitInfo(sha=sha)])
    return commits[0]
