"""Prometheus metrics for one app instance (its own registry, so several apps can live in one process)."""

from __future__ import annotations

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest

__all__ = ["Metrics"]

# Seconds: generation of long proofs on a GPU takes minutes; a CPU toy model, milliseconds.
_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600)


class Metrics:
    """The counters, gauges and histograms the API exports at `/metrics`."""

    content_type = CONTENT_TYPE_LATEST

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "kimina_api_requests",
            "Prove requests that passed validation and auth, by outcome: ok, bad_request (over a limit), unavailable"
            " (no engine, or no verifier for verify=true), rejected (queue full), engine_error, timeout, cancelled.",
            ["outcome"],
            registry=self.registry,
        )
        self.request_seconds = Histogram(
            "kimina_api_request_seconds",
            "Prove request time, queue included.",
            buckets=_BUCKETS,
            registry=self.registry,
        )
        self.queue_seconds = Histogram(
            "kimina_api_queue_seconds", "Time waiting for a slot.", buckets=_BUCKETS, registry=self.registry
        )
        self.generate_seconds = Histogram(
            "kimina_api_generate_seconds", "Time of one engine call.", buckets=_BUCKETS, registry=self.registry
        )
        self.verify_seconds = Histogram(
            "kimina_api_verify_seconds", "Time of one verification.", buckets=_BUCKETS, registry=self.registry
        )
        self.attempts = Counter(
            "kimina_api_attempts",
            "Attempts by turn and Lean verdict (unverified when verify=false or no code).",
            ["turn", "verdict"],
            registry=self.registry,
        )
        self.responses = Counter(
            "kimina_api_http_responses",
            "HTTP responses of every endpoint, by status.",
            ["status"],
            registry=self.registry,
        )
        self.proved = Counter("kimina_api_proved", "Requests that found a valid proof.", registry=self.registry)
        self.in_flight = Gauge("kimina_api_in_flight", "Requests holding a slot.", registry=self.registry)
        self.queued = Gauge("kimina_api_queued", "Requests waiting for a slot.", registry=self.registry)

    def render(self) -> bytes:
        """The text exposition format."""
        return generate_latest(self.registry)
