"""Repositories, commits, datasets, configurations (the experiment-configuration queries).

GET /configurations/latest lists results: results/routes/latest.py."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from sqlalchemy import func, select

from basketbench.catalog import lookup
from basketbench.catalog import service as catalog
from basketbench.catalog.schemas import (
    CommitOut,
    CommitPage,
    ConfigurationPage,
    DatasetOut,
    DatasetPage,
    Dimensions,
    RepositoryOut,
    RepositoryPage,
)
from basketbench.models import Commit, Dataset, Repository
from basketbench.web.deps import ReadAccess, SessionDep
from basketbench.web.listing import CSV_RESPONSES, PageParams, fetch_page, page_params, respond

Pages = Annotated[PageParams, Depends(page_params)]

repositories = APIRouter(prefix="/repositories", tags=["repositories"], dependencies=[ReadAccess])
commits = APIRouter(prefix="/commits", tags=["commits"], dependencies=[ReadAccess])
datasets = APIRouter(prefix="/datasets", tags=["datasets"], dependencies=[ReadAccess])
configurations = APIRouter(prefix="/configurations", tags=["configurations"],
                           dependencies=[ReadAccess])


@repositories.get("", response_model=RepositoryPage, responses=CSV_RESPONSES)
def list_repositories(session: SessionDep, page: Pages) -> Any:
    counts = (select(Commit.repository_id, func.count().label("n"))
              .group_by(Commit.repository_id).subquery())
    stmt = (select(Repository, func.coalesce(counts.c.n, 0))
            .outerjoin(counts, counts.c.repository_id == Repository.id).order_by(Repository.name))
    rows, total = fetch_page(session, stmt, page)
    items = [RepositoryOut(id=r.id, name=r.name, url=r.url, commit_count=n) for r, n in rows]
    return respond(items, total, page, "repositories", RepositoryPage)


@commits.get("", response_model=CommitPage, responses=CSV_RESPONSES)
def list_commits(
    session: SessionDep, page: Pages, repository: str | None = None, branch: str | None = None,
    commit_from: str | None = None, commit_to: str | None = None,
    q: Annotated[str | None, Query(description="substring of message or author")] = None,
) -> Any:
    stmt = catalog.commits_query(session, repository, branch, commit_from, commit_to, q)
    rows, total = fetch_page(session, stmt, page)
    items = [catalog.commit_out(c, repo) for c, repo in rows]
    return respond(items, total, page, "commits", CommitPage)


@commits.get("/{sha}", response_model=CommitOut)
def get_commit(session: SessionDep, sha: str) -> CommitOut:
    commit = lookup.get_commit(session, sha)
    repo = session.get(Repository, commit.repository_id)
    return catalog.commit_out(commit, repo.name if repo else "")


@datasets.get("", response_model=DatasetPage, responses=CSV_RESPONSES)
def list_datasets(session: SessionDep, page: Pages, name: str | None = None) -> Any:
    stmt = select(Dataset).order_by(Dataset.name)
    if name:
        stmt = stmt.where(Dataset.name.contains(name))
    rows, total = fetch_page(session, stmt, page)
    items = [DatasetOut.model_validate(r[0]) for r in rows]
    return respond(items, total, page, "datasets", DatasetPage)


def config_filter(
    setting: Annotated[list[int] | None, Query(description="one or more, e.g. 505")] = None,
    algorithm: int | None = None, level: int | None = None, codec: str | None = None,
    preconditioner: str | None = None, dictionary_size: int | None = None,
    basket_size: int | None = None, mode: str | None = None, threads: int | None = None,
) -> catalog.ConfigFilter:
    return catalog.ConfigFilter(
        setting=setting, algorithm=algorithm, level=level, codec=codec,
        preconditioner=preconditioner, dictionary_size=dictionary_size, basket_size=basket_size,
        mode=mode, threads=threads)


ConfigFilterDep = Annotated[catalog.ConfigFilter, Depends(config_filter)]


@configurations.get("", response_model=ConfigurationPage, responses=CSV_RESPONSES)
def list_configurations(
    session: SessionDep, page: Pages, f: ConfigFilterDep, dataset: str | None = None,
    machine: str | None = None, tag: str | None = None, commit_from: str | None = None,
    commit_to: str | None = None,
) -> Any:
    stmt = catalog.configurations_query(session, f, dataset, machine, tag, commit_from,
                                        commit_to)
    rows, total = fetch_page(session, stmt, page)
    items = [catalog.configuration_out(r[0]) for r in rows]
    return respond(items, total, page, "configurations", ConfigurationPage)


@configurations.get("/dimensions", response_model=Dimensions)
def configuration_dimensions(session: SessionDep) -> Dimensions:
    return catalog.dimensions(session)
