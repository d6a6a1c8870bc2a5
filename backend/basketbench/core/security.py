"""API tokens: random 32-byte secrets, stored only as their sha256."""

from __future__ import annotations

import hashlib
import hmac
import secrets

TOKEN_PREFIX = "bb_"


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def github_signature_ok(secret: str, body: bytes, header: str | None) -> bool:
    """X-Hub-Signature-256 = "sha256=" + hex HMAC-SHA256(secret, raw body)."""
    if not header or not header.startswith("sha256="):
        return False
    expected = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected.encode(), header.strip().encode())
