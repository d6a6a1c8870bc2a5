"""API tokens: create (returns the only plaintext copy), list, revoke, authenticate, and
what a token's scope allows (``allows``)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from basketbench.core.errors import Invalid, NotFound
from basketbench.core.security import hash_token, new_token
from basketbench.models import ApiToken
from basketbench.models.base import utcnow
from basketbench.models.ops import TOKEN_SCOPES

# What each scope may do besides its own: admin does everything.
IMPLIED = {"admin": frozenset(TOKEN_SCOPES), "user": frozenset({"user"}),
           "machine": frozenset({"machine"})}


def allows(token: ApiToken, scope: str) -> bool:
    """Whether ``token`` may call an endpoint that needs ``scope``."""
    return scope in IMPLIED.get(token.scope, frozenset())


def create_token(session: Session, name: str, scope: str = "admin",
                 tags: list[str] | None = None) -> tuple[ApiToken, str]:
    """A new token. ``scope`` defaults to admin (what every token was before scopes) for
    programmatic callers; the CLI makes people choose. ``tags`` limit a machine token to
    the runs of those hardware tags."""
    if scope not in TOKEN_SCOPES:
        raise Invalid(f"unknown scope {scope!r}: one of {', '.join(TOKEN_SCOPES)}")
    if tags and scope != "machine":
        raise Invalid("tags limit machine tokens only")
    plain = new_token()
    token = ApiToken(name=name, token_hash=hash_token(plain), scope=scope,
                     tags=sorted(set(tags)) if tags else None)
    session.add(token)
    session.commit()
    return token, plain


def list_tokens(session: Session) -> list[ApiToken]:
    return list(session.scalars(select(ApiToken).order_by(ApiToken.id)))


def revoke_token(session: Session, ident: str) -> ApiToken:
    stmt = select(ApiToken).where(ApiToken.revoked_at.is_(None))
    stmt = stmt.where(ApiToken.id == int(ident)) if ident.isdigit() else stmt.where(
        ApiToken.name == ident)
    tokens = list(session.scalars(stmt))
    if not tokens:
        raise NotFound(f"no active token {ident!r}")
    for token in tokens:
        token.revoked_at = utcnow()
    session.commit()
    return tokens[0]


def authenticate(session: Session, plain: str) -> ApiToken | None:
    token = session.scalar(select(ApiToken).where(ApiToken.token_hash == hash_token(plain)))
    if token is None or token.revoked_at is not None:
        return None
    now = utcnow()
    last = token.last_used_at
    if last is not None and last.tzinfo is None:  # SQLite returns naive datetimes
        last = last.replace(tzinfo=now.tzinfo)
    # Write at most once a minute so authenticated reads stay read-only.
    if last is None or now - last > timedelta(minutes=1):
        token.last_used_at = now
        session.commit()
    return token
