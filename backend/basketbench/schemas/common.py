"""Shapes shared by every endpoint: the page envelope and the error body."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict

T = TypeVar("T")


class Page(BaseModel, Generic[T]):
    items: list[T]
    total: int
    limit: int
    offset: int


class ErrorDetail(BaseModel):
    code: str
    message: str
    details: list[Any] = []


class ErrorBody(BaseModel):
    error: ErrorDetail


class OrmModel(BaseModel):
    model_config = ConfigDict(from_attributes=True)
