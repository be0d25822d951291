"""`kimina-api` (and `uv run apps/api`): serve the API with uvicorn; flags override `KIMINA_API_*` variables."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from kimina_format.exit_codes import ExitCode
from pydantic import ValidationError
from rich.console import Console

from kimina_api import __version__
from kimina_api.logs import configure_logging
from kimina_api.settings import Settings

__all__ = ["main", "parse_args", "settings_from", "uvicorn_config"]

if TYPE_CHECKING:
    import uvicorn
    from fastapi import FastAPI

_EPILOG = """examples:
  CPU, a local model, the stand-in verifier:
    kimina-api --model ./models/kimina-prover-0.6b --verifier-url http://localhost:8000
  GPU, vLLM in process:
    kimina-api --engine vllm --model AI-MO/Kimina-Prover-RL-1.7B --verifier-url http://localhost:8000
  a running `vllm serve`:
    kimina-api --engine openai --engine-url http://localhost:8001 --verifier-url http://localhost:8000

Every setting can also come from the environment: KIMINA_API_MODEL, KIMINA_API_API_KEY, KIMINA_API_MAX_QUEUE, ...
"""

# flag -> Settings field, for the flags that are settings.
_SETTING_FLAGS = {
    "host": "host",
    "port": "port",
    "engine": "engine",
    "model": "model",
    "engine_url": "engine_url",
    "max_concurrency": "max_concurrency",
    "max_queue": "max_queue",
    "request_timeout": "request_timeout_s",
    "template": "prompt_template",
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line; unset flags are None so the environment (or the default) decides."""
    parser = argparse.ArgumentParser(
        prog="kimina-api",
        description="Serve the kimina prover API: POST /v1/prove, GET /health, GET /metrics, the playground at /.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = parser.add_argument
    add("--host", help="address to bind (default 127.0.0.1; 0.0.0.0 in the container)")
    add("--port", type=int, help="port to bind (default 8080)")
    add(
        "--engine",
        choices=["transformers", "openai", "vllm"],
        help="where completions come from (default transformers)",
    )
    add("--model", help="model path or name; for --engine openai, the served model name (default: the server's first)")
    add("--engine-url", help="base URL of an OpenAI-compatible server, for --engine openai")
    add("--verifier-url", help="kimina-verify (or kimina-lean-server) URL; without it only verify=false is served")
    add("--template", choices=["rl", "distill"], help="prompt template (default rl: the RL training prompt)")
    add("--max-concurrency", type=int, help="requests worked on at once (default 4)")
    add("--max-queue", type=int, help="requests allowed to wait; beyond that 429 (default 32)")
    add("--request-timeout", type=float, help="seconds per request, queue included (default 600)")
    add("--no-playground", action="store_true", help="do not serve the playground page at /")
    add("--log-level", default="info", choices=["debug", "info", "warning", "error"], help="default info")
    add("--log-format", choices=["json", "text"], help="json lines, or text (default: text on a terminal, else json)")
    add("--version", action="version", version=f"kimina-api {__version__}")
    return parser.parse_args(argv)


def settings_from(args: argparse.Namespace) -> Settings:
    """Settings from the environment, with the flags that were given on top."""
    overrides: dict[str, Any] = {
        field: getattr(args, flag) for flag, field in _SETTING_FLAGS.items() if getattr(args, flag) is not None
    }
    if args.verifier_url is not None:  # merged into the environment's `verifier` settings, not replacing them
        overrides["verifier"] = {"endpoint": {"url": args.verifier_url}}
    if args.no_playground:
        overrides["playground"] = False
    return Settings(**overrides)


def uvicorn_config(app: FastAPI, settings: Settings) -> uvicorn.Config:
    """How `kimina-api` serves `app`: on the settings' address, closing connections too slow to send a request."""
    import uvicorn
    from kimina_verify.server.connections import http_protocol

    return uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_config=None,  # configure_logging already set up every logger
        timeout_graceful_shutdown=30,
        http=http_protocol(settings.read_timeout_s),
    )


def main(argv: list[str] | None = None) -> int:
    """Parse flags, build the settings and the app, and serve until interrupted."""
    args = parse_args(argv)
    # Imported after parsing, so `--help` answers at once.
    import uvicorn

    from kimina_api.app import create_app

    try:
        settings = settings_from(args)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        Console(stderr=True).print(f"[red]error:[/] invalid settings: {problems}", highlight=False)
        return ExitCode.USAGE
    configure_logging(args.log_level, args.log_format or ("text" if sys.stderr.isatty() else "json"))
    server = uvicorn.Server(uvicorn_config(create_app(settings), settings))
    try:
        server.run()
    except KeyboardInterrupt:  # uvicorn re-raises the SIGINT it shut down on, as `uvicorn.run` expects
        pass
    return ExitCode.OK if server.started else ExitCode.UNAVAILABLE  # as `uvicorn.run` when start-up fails


if __name__ == "__main__":
    sys.exit(main())
