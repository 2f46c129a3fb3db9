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


def announcing_server(base: type) -> type:
    """``uvicorn.Server`` that prints the app's URL once it listens (with ``--port 0``, the
    port the system chose)."""

    class Server(base):
        async def startup(self, sockets: list | None = None) -> None:
            await super().startup(sockets)
            listening = [s for server in self.servers for s in server.sockets]
            if listening:
                host, port = listening[0].getsockname()[:2]
                shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
                shown = f"[{shown}]" if ":" in shown else shown
                print(f"Feral Envs web app: http://{shown}:{port}/  (Ctrl-C to stop)", flush=True)

    return Server


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        import uvicorn

        from play.web import create_app
    except ImportError:
        print(f"python -m play.web: error: {MISSING}", file=sys.stderr)
        return 2
    config = uvicorn.Config(create_app(), host=args.host, port=args.port, log_level="warning")
    announcing_server(uvicorn.Server)(config).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
