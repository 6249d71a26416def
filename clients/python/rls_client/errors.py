"""What the client raises: the API's own error, or a webhook that fails verification."""

from __future__ import annotations

from typing import Any, Mapping


class RlsApiError(Exception):
    """A refusal of the API, carrying its error ``code``, ``message`` and ``request_id``."""

    def __init__(self, status: int, body: Any, headers: Mapping[str, str] | None = None) -> None:
        error = body.get("error") if isinstance(body, dict) else None
        error = error if isinstance(error, dict) else {}
        self.status = status
        self.code: str = error.get("code") or f"http_{status}"
        self.message: str = error.get("message") or f"The API answered {status}"
        self.request_id: str | None = error.get("request_id") or (headers or {}).get("x-request-id")
        self.retriable: bool = bool(error.get("retriable", False))
        self.details: Any = error.get("details")
        self.body = body
        super().__init__(f"{self.message} ({status} {self.code})")


class WebhookVerificationError(Exception):
    """The webhook's signature, timestamp or headers do not hold."""
