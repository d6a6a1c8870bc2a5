"""The worker's only channel to the backend: the REST API of docs/API.md."""

from __future__ import annotations

from typing import Any

import httpx


class ApiError(Exception):
    """The API answered with a 4xx: our request is wrong; retrying does not help."""

    def __init__(self, status: int, body: str) -> None:
        super().__init__(f"API answered {status}: {body[:500]}")
        self.status = status


class TransientApiError(Exception):
    """Connection trouble or a 5xx: worth retrying later."""


class ApiClient:
    def __init__(self, base_url: str, token: str | None, timeout: float = 30.0) -> None:
        self.base_url = base_url
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._http = httpx.Client(
            base_url=base_url.rstrip("/") + "/api/v1", headers=headers, timeout=timeout
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> ApiClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _request(self, method: str, path: str, **kwargs: Any) -> Any:
        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:  # connect/read timeouts, refused connections
            raise TransientApiError(f"{method} {path}: {exc}") from exc
        if response.status_code >= 500:
            raise TransientApiError(
                f"{method} {path}: {response.status_code} {response.text[:300]}"
            )
        if response.status_code >= 400:
            raise ApiError(response.status_code, response.text)
        return response.json() if response.content else None

    # runs
    def get_run(self, run_id: int) -> dict[str, Any]:
        return dict(self._request("GET", f"/runs/{run_id}"))

    def patch_run(self, run_id: int, **fields: Any) -> dict[str, Any]:
        return dict(self._request("PATCH", f"/runs/{run_id}", json=fields) or {})

    def claim_run(self, run_id: int, generation: int, machine_id: int | None) -> dict[str, Any]:
        """Take the run for this generation; ApiError 409 = the message is stale."""
        body: dict[str, Any] = {"generation": generation}
        if machine_id is not None:
            body["machine_id"] = machine_id
        return dict(self._request("POST", f"/runs/{run_id}/claim", json=body))

    # machines
    def register_machine(self, name: str, tag: str, fingerprint: dict[str, Any]) -> dict[str, Any]:
        body = {"name": name, "tag": tag, "fingerprint": fingerprint}
        return dict(self._request("POST", "/machines", json=body))

    def heartbeat(self, machine_id: int) -> None:
        self._request("POST", f"/machines/{machine_id}/heartbeat")

    # results
    def post_results(self, run_id: int, document: bytes) -> dict[str, Any]:
        """Upload the document byte-for-byte: a re-upload is recognised as a duplicate."""
        return dict(
            self._request(
                "POST",
                "/results",
                params={"run_id": run_id},
                content=document,
                headers={"Content-Type": "application/json"},
            )
        )

    def post_ab_run(self, body: dict[str, Any]) -> dict[str, Any]:
        """An interleaved A/B comparison (POST /ab-runs): a re-upload answers duplicate."""
        return dict(self._request("POST", "/ab-runs", json=body))

    def post_arena_run(self, body: dict[str, Any]) -> dict[str, Any]:
        """A codec arena measurement (POST /arena-runs): a re-upload answers duplicate."""
        return dict(self._request("POST", "/arena-runs", json=body))

    def get_advice_path(self, run_id: int) -> str:
        return str(self._request("GET", f"/advise/{run_id}/path")["path"])

    def put_advice(self, run_id: int, document: dict[str, Any]) -> None:
        self._request("PUT", f"/advise/{run_id}", json=document)

    def post_branch_sizes(
        self, commit: str, dataset: str, codecs: str, branches: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """Exact per-branch sizes (`rzbench sizes`) of a dataset on a commit's codecs."""
        body = {"commit": commit, "dataset": dataset, "codecs": codecs, "branches": branches}
        return dict(self._request("POST", "/branch-sizes", json=body))

    # changes
    def post_bisection_range(self, change_id: int, commits: list[dict[str, Any]]) -> dict[str, Any]:
        body = {"commits": commits}
        return dict(self._request("POST", f"/changes/{change_id}/bisection/range", json=body))
