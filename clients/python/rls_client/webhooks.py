"""Standard Webhooks verification (https://www.standardwebhooks.com), as the service signs:
HMAC-SHA256 over "<webhook-id>.<webhook-timestamp>.<raw body>" keyed with the base64 part of the
whsec_ secret; any "v1,<base64>" of webhook-signature may match; the timestamp within 5 minutes."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from typing import Any, Mapping

from .errors import WebhookVerificationError

TOLERANCE_SECONDS = 5 * 60


def _header(headers: Mapping[str, Any], name: str) -> str | None:
    for key, value in headers.items():
        if key.lower() == name:
            return value[0] if isinstance(value, (list, tuple)) else value
    return None


def verify_webhook(
    payload: str | bytes, headers: Mapping[str, Any], secret: str, *, now: float | None = None
) -> Any:
    """The parsed event when ``payload`` (the raw body) carries a valid signature of ``secret``;
    raises WebhookVerificationError otherwise."""
    msg_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if not msg_id or not timestamp or not signatures:
        raise WebhookVerificationError("Missing required headers")
    if not timestamp.isdigit():
        raise WebhookVerificationError("Invalid webhook-timestamp")
    current = time.time() if now is None else now
    if abs(current - int(timestamp)) > TOLERANCE_SECONDS:
        raise WebhookVerificationError("Message timestamp too old or too new")
    body = payload.decode("utf-8") if isinstance(payload, (bytes, bytearray)) else payload
    key = base64.b64decode(secret.removeprefix("whsec_"))
    expected = hmac.new(key, f"{msg_id}.{timestamp}.{body}".encode(), hashlib.sha256).digest()
    for entry in signatures.split(" "):
        version, _, signature = entry.partition(",")
        if version != "v1" or not signature:
            continue
        try:
            given = base64.b64decode(signature)
        except ValueError:
            continue
        if hmac.compare_digest(given, expected):
            return json.loads(body)
    raise WebhookVerificationError("No matching signature found")
