"""The client: a snake_case method per operation of the bundled OpenAPI document (methods.py,
generated; operations.py reads method, path and parameters from the document at run time), taking
path and query parameters as keyword arguments and ``body=`` for a request body, returning the
parsed JSON answer (text for HTML/plain answers). A refusal raises RlsApiError. 429 and
retriable 5xx are tried again after Retry-After; a request whose operation takes an
Idempotency-Key gets one, the same on every retry. Redirects are never followed (they would carry
X-API-Key to another address): a 3xx raises RlsApiError with code redirect_not_followed."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any, Callable
from urllib.parse import quote, urlsplit

import httpx

from .errors import RlsApiError
from .methods import Methods
from .operations import OPERATIONS, Operation
from .retry import is_retriable, retry_delay
from .webhooks import verify_webhook

_UNSET: Any = object()


class Client(Methods):
    """``Client(base_url="http://127.0.0.1:8080/api/v1", api_key="svc_live_…")``; its methods
    (methods.py, generated) are typed with the TypedDicts of models.py."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        max_retries: int = 5,
        base_delay: float = 0.5,
        max_delay: float = 60.0,
        timeout: float = 30.0,
        http_client: httpx.Client | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.max_retries = max_retries
        self.base_delay = base_delay
        self.max_delay = max_delay
        self._sleep = sleep
        self._http = http_client or httpx.Client(timeout=timeout)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    verify_webhook = staticmethod(verify_webhook)

    def _url(self, op: Operation, params: dict[str, Any]) -> str:
        path = op.path
        for name in op.path_params:
            value = params.get(name)
            if value is None:
                raise TypeError(f"{name} is required")
            path = path.replace("{" + name + "}", quote(str(value), safe=""))
        if op.outside_api_prefix:
            parts = urlsplit(self.base_url)
            return f"{parts.scheme}://{parts.netloc}{path}"
        return self.base_url + path

    def _call(self, name: str, params: dict[str, Any]) -> Any:
        op = OPERATIONS[name]
        # None is "not given": optional parameters default to it.
        params = {key: value for key, value in params.items() if value is not None}
        body = params.pop("body", _UNSET)
        idempotency_key = params.pop("idempotency_key", None)
        unknown = set(params) - set(op.path_params) - set(op.query_params)
        if unknown:
            raise TypeError(f"{name}() got unexpected arguments: {', '.join(sorted(unknown))}")
        if body is _UNSET and op.body == "required":
            raise TypeError(f"{name}() needs body=")
        url = self._url(op, params)
        query = [
            (key, str(item))
            for key in op.query_params
            if params.get(key) is not None
            for item in (params[key] if isinstance(params[key], (list, tuple)) else [params[key]])
        ]
        headers = {"Accept": "application/json"}
        if self.api_key:
            headers["X-API-Key"] = self.api_key
        if op.idempotency_key:
            headers["Idempotency-Key"] = idempotency_key or str(uuid.uuid4())
        content = None
        if body is not _UNSET:
            headers["Content-Type"] = "application/json"
            content = json.dumps(body)
        attempt = 0
        while True:
            # Never follow a redirect, even with a caller's http_client set to: it would carry
            # X-API-Key to wherever Location points.
            response = self._http.request(
                op.method, url, params=query, headers=headers, content=content, follow_redirects=False
            )
            if response.is_redirect:
                raise _redirect_refused(op.method, response)
            parsed = _parse(response)
            if response.is_success:
                return parsed
            if attempt >= self.max_retries or not is_retriable(response.status_code, parsed):
                raise RlsApiError(response.status_code, parsed, response.headers)
            attempt += 1
            self._sleep(retry_delay(response.headers, attempt, self.base_delay, self.max_delay))


def _parse(response: httpx.Response) -> Any:
    if not response.content:
        return None
    if "json" in response.headers.get("content-type", ""):
        try:
            return response.json()
        except ValueError:
            return response.text
    return response.text


def _redirect_refused(method: str, response: httpx.Response) -> RlsApiError:
    location = response.headers.get("location")
    message = (
        f"{method} {response.request.url} answered {response.status_code} redirecting to "
        f"{location or '(unknown)'}; the client does not follow redirects (it would send the API "
        "key to another address): use the address the API really answers on as base_url"
    )
    body = {
        "error": {
            "code": "redirect_not_followed",
            "message": message,
            "retriable": False,
            "details": {"location": location},
        }
    }
    return RlsApiError(response.status_code, body, response.headers)
