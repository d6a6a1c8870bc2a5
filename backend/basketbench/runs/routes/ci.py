"""GitHub webhook and the token-protected trigger."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Header, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from basketbench.core.errors import BadRequest, Forbidden, Unauthorized
from basketbench.core.security import github_signature_ok
from basketbench.runs import ci
from basketbench.runs.ci_schemas import TriggerIn, TriggerOut, WebhookOut
from basketbench.web import guards
from basketbench.web.deps import SessionDep, SettingsDep, UserToken

router = APIRouter(tags=["ci"])


@router.post("/webhooks/github", response_model=WebhookOut, status_code=202,
             responses={200: {"model": WebhookOut, "description": "ping"}},
             openapi_extra={"requestBody": {"required": True, "content": {"application/json": {
                 "schema": {"type": "object", "additionalProperties": True}}}}})
async def github_webhook(
    request: Request, session: SessionDep, settings: SettingsDep,
    x_github_event: Annotated[str | None, Header()] = None,
    x_github_delivery: Annotated[str | None, Header()] = None,
    x_hub_signature_256: Annotated[str | None, Header()] = None,
) -> Any:
    if not settings.webhook_secret:
        raise Forbidden("webhook disabled: set BASKETBENCH_WEBHOOK_SECRET")
    # No signature, no reading: an unsigned body is refused before it costs anything.
    if not x_hub_signature_256 or not x_hub_signature_256.startswith("sha256="):
        raise Unauthorized("missing or wrong X-Hub-Signature-256")
    # Bounded while reading (25 MB, guards.GuardMiddleware); checked before any parsing.
    body = await request.body()
    if not github_signature_ok(settings.webhook_secret, body, x_hub_signature_256):
        raise Unauthorized("missing or wrong X-Hub-Signature-256")
    if not x_github_event or not x_github_delivery:
        raise BadRequest("X-GitHub-Event and X-GitHub-Delivery headers are required")
    if len(x_github_delivery) > 100 or len(x_github_event) > 50:
        raise BadRequest("X-GitHub-Delivery or X-GitHub-Event too long")
    payload = _payload(body, request.headers.get("content-type", ""))
    status, out = await run_in_threadpool(ci.handle_github, session, settings,
                                          x_github_event, x_github_delivery, payload)
    return JSONResponse(out.model_dump(mode="json"), status_code=status)


def _payload(body: bytes, content_type: str) -> Any:
    """GitHub sends JSON, or ``payload=<JSON>`` when the hook's content type is form."""
    if content_type.startswith("application/x-www-form-urlencoded"):
        fields = parse_qs(body.decode("utf-8", errors="replace"))
        if "payload" not in fields:
            raise BadRequest("form body without a payload field")
        body = fields["payload"][0].encode()
    return guards.loads(body)


@router.post("/trigger", response_model=TriggerOut, status_code=202)
def trigger_runs(session: SessionDep, settings: SettingsDep, token: UserToken,
                 body: TriggerIn) -> TriggerOut:
    return ci.trigger(session, settings, body, token.name)
