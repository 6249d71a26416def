"""The operations of the bundled OpenAPI document: method, path, parameters, body, by snake_case name."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources


@dataclass(frozen=True)
class Operation:
    operation_id: str
    method: str
    path: str
    outside_api_prefix: bool
    path_params: tuple[str, ...]
    query_params: tuple[str, ...]
    idempotency_key: bool
    body: str  # "required", "optional" or "none"
    summary: str


def snake_case(operation_id: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", operation_id).lower()


def _load() -> dict[str, Operation]:
    document = json.loads(resources.files(__package__).joinpath("openapi.json").read_text("utf-8"))
    found: dict[str, Operation] = {}
    for template, item in document["paths"].items():
        for method, op in item.items():
            if not isinstance(op, dict) or "operationId" not in op:
                continue
            parameters = [*item.get("parameters", []), *op.get("parameters", [])]
            names = lambda where: tuple(p["name"] for p in parameters if p.get("in") == where)  # noqa: E731
            body = op.get("requestBody")
            found[snake_case(op["operationId"])] = Operation(
                operation_id=op["operationId"],
                method=method.upper(),
                path=template,
                # Paths outside /api/v1 (pages, health, metrics) name their own server: the origin.
                outside_api_prefix=any(s.get("url") == "/" for s in op.get("servers", [])),
                path_params=names("path"),
                query_params=names("query"),
                idempotency_key="Idempotency-Key" in names("header"),
                body=("required" if body.get("required") else "optional") if body else "none",
                summary=op.get("summary", ""),
            )
    return found


OPERATIONS: dict[str, Operation] = _load()
