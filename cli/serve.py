"""`meteors-judge serve`: the table dashboard (live judging, the game, replays, overrides) in a browser."""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

from cli.errors import UserError
from cli.options import port


def add_arguments(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--camera", metavar="INDEX|URL", help="a webcam index (0, 1...) or a stream URL")
    source.add_argument("--video", metavar="FILE", type=Path, help="judge a recorded clip as if live (looped)")
    add_common_arguments(parser, default_data="data")
    parser.add_argument("--no-loop", action="store_true", help="with --video: stop at the end instead of looping")


def add_common_arguments(parser: argparse.ArgumentParser, default_data: str | None,
                         default_rig: str = "calibration/rigs/standard.json") -> None:
    parser.add_argument("--rig", type=Path, help=f"rig file (JSON or TOML; default {default_rig}), "
                                                 "or a labelled clip's JSON (its scene is the rig)")
    parser.add_argument("--cal", type=Path, help="a saved calibration to start from (else the judge calibrates)")
    parser.add_argument("--port", type=port, default=8000, help="port (default 8000; 0 picks a free one)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to serve on (default 127.0.0.1; any other address, an empty one or 0.0.0.0 "
                             "too, requires the referee token printed at start for every change)")
    parser.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                        help="a host name the browsers use for this server (besides its IP addresses and the "
                             "--host name): changes naming any other Host are refused; repeat for several")
    parser.add_argument("--tls-cert", type=Path, metavar="CERT.pem", help="serve HTTPS with this certificate")
    parser.add_argument("--tls-key", type=Path, metavar="KEY.pem", help="the certificate's private key")
    where = default_data or "a new temporary folder, printed at start"
    parser.add_argument("--data", type=Path, default=None if default_data is None else Path(default_data),
                        help=f"folder for the database, snapshots and clips (default {where})")


def load_inputs(args: argparse.Namespace) -> tuple[object, object]:
    from calibration.rig import RigError, load_rig
    from web import DEFAULT_RIG

    try:
        rig = load_rig(args.rig or DEFAULT_RIG)
    except RigError as error:
        raise UserError(str(error)) from None
    calibration = None
    if args.cal:
        from calibration.solve import Calibration, CalibrationError

        try:
            calibration = Calibration.load(args.cal)
        except CalibrationError as error:
            raise UserError(str(error)) from None
    return rig, calibration


def check_video(path: Path) -> None:
    from vision.video import VideoError, probe

    try:
        info = probe(path)
    except VideoError as error:
        raise UserError(str(error)) from None
    if not info.frame_count:
        raise UserError(f"video {path} has no frames OpenCV can read")


def _check_port(host: str, port: int) -> None:
    """Raise OSError (e.g. 'Address already in use') before werkzeug would print its own advice and exit."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe_socket:
        probe_socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe_socket.bind((host, port))


def tls_context(args: argparse.Namespace) -> object | None:
    """An SSL context from --tls-cert and --tls-key (both or neither); a bad file is a UserError."""
    if args.tls_cert is None and args.tls_key is None:
        return None
    if args.tls_cert is None or args.tls_key is None:
        raise UserError("give both --tls-cert and --tls-key to serve HTTPS")
    import ssl

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(args.tls_cert, args.tls_key)
    except (OSError, ssl.SSLError) as error:
        raise UserError(f"cannot use the TLS certificate {args.tls_cert} and key {args.tls_key}: "
                        f"{getattr(error, 'strerror', None) or error}") from None
    return context


def serve_app(config: dict, args: argparse.Namespace, banner: str = "") -> int:
    """Build the app, print the address (and the referee token off loopback), serve until Ctrl-C."""
    from werkzeug.serving import make_server

    from web import context, create_app
    from web.headers import quiet_request_handler
    from web.security import WILDCARD_HOSTS
    from web.store import StoreError

    host, port = args.host, args.port
    tls = tls_context(args)
    try:
        app = create_app({**config, "HOST": host, "ALLOWED_HOSTS": list(args.allowed_host)})
    except StoreError as error:
        raise UserError(str(error)) from None
    except OSError as error:
        raise UserError(f"cannot use the data folder {config.get('DATA_DIR')}: {error.strerror or error}") from None
    try:
        _check_port(host, port)
        server = make_server(host, port, app, threaded=True, request_handler=quiet_request_handler(),
                             ssl_context=tls)
    except (OSError, SystemExit) as error:
        live = context(app).live
        if live:
            live.stop()
        raise UserError(f"cannot serve on {host}:{port}: {getattr(error, 'strerror', None) or error}") from None
    shown_host = (host or "0.0.0.0") if ":" not in host else f"[{host}]"
    scheme = "https" if tls else "http"
    url = f"{scheme}://{shown_host}:{server.server_port}/"
    if banner:
        print(banner)
    print(f"Meteors Judge dashboard: {url}", flush=True)
    if host in WILDCARD_HOSTS:
        print(f"listening on every interface: phones open {scheme}://<this computer's address>:{server.server_port}/",
              flush=True)
    print(f"data folder: {context(app).data_dir}", flush=True)
    if app.config["REQUIRE_TOKEN"]:
        print(f"referee token: {app.config['REFEREE_TOKEN']}  (needed for every change; players can watch without it)",
              flush=True)
    print("Ctrl-C to stop.", flush=True)

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)  # also when started in the background, where SIGINT was ignored
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        live = context(app).live
        if live:
            live.stop()
        context(app).store.close()
        print("stopped.", file=sys.stderr)
    return 0


def run(args: argparse.Namespace) -> int:
    rig, calibration = load_inputs(args)
    source = None
    if args.video is not None:
        check_video(args.video)
        source = str(args.video)
    elif args.camera is not None:
        source = args.camera
    config = {"DATA_DIR": args.data, "RIG": rig, "CALIBRATION": args.cal, "SOURCE": source,
              "LOOP": not args.no_loop}
    if calibration is not None:
        config["CALIBRATION"] = args.cal
    banner = "camera off: enter launch outcomes on the Game page" if source is None else f"judging {source}"
    return serve_app(config, args, banner)
