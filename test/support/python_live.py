"""The Python client's live scenario, run by test/integration/clients-python.test.ts with the
client installed by pip (infra/local/clients.mjs). Prints one JSON object of what it saw; the
vitest test asserts on it. Environment: RLS_PROXY_URL (the lossy proxy's /api/v1), RLS_API_KEY,
RLS_SPOT_LAT, RLS_SPOT_LNG (an empty spot for the estimate)."""

import http.server
import json
import os
import threading
import time

import standardwebhooks

import rls_client
from rls_client import Client, RlsApiError, WebhookVerificationError, verify_webhook

base_url = os.environ["RLS_PROXY_URL"]
key = os.environ["RLS_API_KEY"]
lat = float(os.environ["RLS_SPOT_LAT"])
lng = float(os.environ["RLS_SPOT_LNG"])
out: dict = {"module": rls_client.__file__}


def eventually(check, seconds=30.0):
    deadline = time.time() + seconds
    while True:
        value = check()
        if value is not None or time.time() > deadline:
            return value
        time.sleep(0.3)


def flats():
    return [
        {
            "title": f"Python client flat {i} {time.time_ns()}",
            "description": "Two-bedroom flat with parking, for the client libraries' live test.",
            "property_type": "apartment",
            "price": 700_000 + 25_000 * i,
            "currency": "TZS",
            "bedrooms": 2,
            "bathrooms": 1,
            "latitude": lat + (i - 3) * 0.0008,
            "longitude": lng + (i % 2) * 0.0008,
        }
        for i in range(6)
    ]


received: list = []


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 (the stdlib's name)
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        received.append({"headers": {k.lower(): v for k, v in self.headers.items()}, "body": body.decode()})
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *_):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Receiver)
threading.Thread(target=server.serve_forever, daemon=True).start()

with Client(base_url=base_url, api_key=key, base_delay=0.1) as client:
    created = client.bulk_create_listings(body={"listings": flats()})
    out["batch_id"] = created["batch_id"]
    out["listing_ids"] = [r.get("listing_id") for r in created["results"]]
    batch = eventually(
        lambda: (b if (b := client.get_batch(batch_id=created["batch_id"]))["status"] == "completed" else None)
    )
    out["batch_status"] = batch and batch["status"]

    city = {"city": "dar_es_salaam", "type": "apartment"}
    out["pricing"] = "summary" in client.get_pricing(**city)
    out["heatmap"] = "cells" in client.get_heatmap(bounds="39.2,-6.9,39.35,-6.7", type="apartment")
    out["velocity"] = client.get_velocity(**city)["definition"]
    out["seasonality"] = client.get_seasonality(**city, months=12)["status"]
    out["market_share"] = client.get_market_share(**city)["summary"]["own_listings"]

    def estimate():
        try:
            return client.get_rent_estimate(lat=lat, lng=lng, type="apartment", bedrooms=2)
        except RlsApiError as error:
            if error.code == "insufficient_comparables":
                return None
            raise

    answer = eventually(estimate)
    out["estimate_comparables"] = answer and len(answer["comparables"])
    own = client.get_listing_rent_estimate(listing_id=out["listing_ids"][0])
    out["listing_estimate_id"] = own["listing"]["listing_id"]

    try:
        client.get_velocity(city="atlantis", type="apartment")
    except RlsApiError as error:
        out["error"] = {
            "status": error.status,
            "code": error.code,
            "message": error.message,
            "request_id": error.request_id,
        }

    hook = client.register_webhook(body={"url": f"http://127.0.0.1:{server.server_port}/hook"})
    client.send_webhook_test(id=hook["id"], body={})
    delivery = eventually(lambda: received[0] if received else None)
    secret = hook["secret"]
    event = verify_webhook(delivery["body"], delivery["headers"], secret)
    out["webhook_event"] = event["type"]
    out["standardwebhooks_agrees"] = standardwebhooks.Webhook(secret).verify(delivery["body"], delivery["headers"]) == event
    tampered = delivery["body"].replace("webhook.test", "webhook.tost")
    refusals = []
    for verify in (
        lambda: verify_webhook(tampered, delivery["headers"], secret),
        lambda: standardwebhooks.Webhook(secret).verify(tampered, delivery["headers"]),
    ):
        try:
            verify()
            refusals.append(False)
        except (WebhookVerificationError, standardwebhooks.webhooks.WebhookVerificationError):
            refusals.append(True)
    out["tampered_refused"] = refusals

    # Signatures made by the standardwebhooks package verify here, and a wrong one never does.
    signer = standardwebhooks.Webhook(secret)
    agreements = []
    for i in range(20):
        payload = json.dumps({"type": "sample", "n": i, "text": "ñ€" * i})
        now = int(time.time())
        signature = signer.sign(f"msg_{i}", __import__("datetime").datetime.fromtimestamp(now), payload)
        headers = {"webhook-id": f"msg_{i}", "webhook-timestamp": str(now), "webhook-signature": signature}
        agreements.append(verify_webhook(payload, headers, secret) == json.loads(payload))
    out["signed_by_package_verified"] = all(agreements)

server.shutdown()
print(json.dumps(out))
