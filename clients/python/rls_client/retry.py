"""When to try a request again and how long to wait: 429 and the 5xx answers the API marks
retriable (without a JSON body: 502/503/504), after Retry-After (seconds or an HTTP date), else an
exponential backoff, capped."""

from __future__ import annotations

import time
from email.utils import parsedate_to_datetime
from typing import Any, Mapping

GATEWAY_STATUSES = {502, 503, 504}


def is_retriable(status: int, body: Any) -> bool:
    if status == 429:
        return True
    if status < 500:
        return False
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and "retriable" in error:
        return error["retriable"] is True
    return status in GATEWAY_STATUSES


def retry_delay(headers: Mapping[str, str], attempt: int, base_delay: float, max_delay: float) -> float:
    """Seconds to wait before retry number ``attempt`` (1 = the first)."""
    header = headers.get("retry-after")
    delay: float | None = None
    if header:
        try:
            delay = float(header)
        except ValueError:
            try:
                delay = parsedate_to_datetime(header).timestamp() - time.time()
            except (TypeError, ValueError):
                delay = None
    if delay is None or delay < 0:
        delay = base_delay * 2 ** (attempt - 1)
    return min(delay, max_delay)
