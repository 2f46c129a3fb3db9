"""``python -m play.web [--host 127.0.0.1] [--port 8000]``: serve the web app (uvicorn)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

MISSING = (
    "the web app needs starlette and uvicorn, which are not installed: "
    "pip install 'feral-envs[web]'"
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m play.web",
        description="Play the games against bots and replay arena records in the browser "
        "(docs/play.md).",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to serve on (127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (8000; 0: any free one)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        import uvicorn

        from play.web import create_app
    except ImportError:
        print(f"python -m play.web: error: {MISSING}", file=sys.stderr)
        return 2
    config = uvicorn.Config(create_app(), host=args.host, port=args.port, log_level="warning")
    server = uvicorn.Server(config)

    original_startup = server.startup

    async def startup(sockets=None) -> None:
        await original_startup(sockets)
        for socket in server.servers[0].sockets if server.servers else ():
            host, port = socket.getsockname()[:2]
            shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
            print(f"Feral Envs web app: http://{shown}:{port}/  (Ctrl-C to stop)", flush=True)
            break

    server.startup = startup
    server.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
