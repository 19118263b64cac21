#!/usr/bin/env python3
"""A pass-through proxy for the Docker engine API that answers "pull" for images already present locally.

Codabench's compute worker calls `docker.APIClient.pull(image)` before every run (compute_worker.py,
Run._get_container_image) and fails the submission when the pull fails. On a machine without registry
access, pulling fails even when the image is already there. The worker reads the engine's address from
CONTAINER_SOCKET, so it can be pointed at this proxy instead of the engine, with no change to its code:

    docker_pull_proxy.py --listen /tmp/codabench-local/run/docker.sock [--upstream /var/run/docker.sock]
    CONTAINER_SOCKET=unix:///tmp/codabench-local/run/docker.sock celery -A compute_worker worker ...

Every request is forwarded byte for byte to the engine (including hijacked attach streams), except
`POST /images/create?fromImage=NAME&tag=TAG` for an image the engine already has: that one gets the reply
the engine gives when a pull finds nothing new ("Status: Image is up to date for NAME:TAG"). A pull of an
image that is absent goes to the engine as usual (and fails offline, as it would).
Each forwarded request is sent with "Connection: close" (unless it is an Upgrade), so that every request
starts a new connection and only the first request line of a connection has to be read.
"""
import argparse
import asyncio
import json
import os
import re
import sys
import time
from urllib.parse import parse_qs, quote, urlsplit

PULL_RE = re.compile(r"^(/v[0-9.]+)?/images/create$")


def log(*parts):
    print(time.strftime("%Y-%m-%dT%H:%M:%S"), *parts, flush=True)


async def read_head(reader):
    try:
        return await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as e:
        return e.partial
    except asyncio.LimitOverrunError:
        return None


async def image_exists(upstream, name):
    r, w = await asyncio.open_unix_connection(upstream)
    try:
        w.write(f"GET /images/{quote(name, safe='/:@')}/json HTTP/1.1\r\nHost: docker\r\n"
                "Connection: close\r\n\r\n".encode())
        await w.drain()
        status = await r.readline()
        return b" 200 " in status
    finally:
        w.close()


async def pipe(src, dst):
    try:
        while True:
            data = await src.read(65536)
            if not data:
                break
            dst.write(data)
            await dst.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        try:
            if dst.can_write_eof():
                dst.write_eof()
        except (OSError, RuntimeError):
            pass


def up_to_date_reply(name):
    body = json.dumps({"status": f"Status: Image is up to date for {name}"}).encode() + b"\r\n"
    chunk = f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n"
    return (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
            b"Connection: close\r\n\r\n" + chunk)


def make_handler(upstream):
    async def handle(reader, writer):
        try:
            head = await read_head(reader)
            if not head:
                return
            lines = head.decode("latin-1").split("\r\n")
            method, target = lines[0].split(" ")[:2]
            parts = urlsplit(target)
            headers = [h for h in lines[1:] if h]
            if method == "POST" and PULL_RE.match(parts.path):
                q = parse_qs(parts.query)
                name = q.get("fromImage", [""])[0]
                tag = q.get("tag", [""])[0]
                full = name if (not tag or "@" in name) else f"{name}:{tag}"
                if full and await image_exists(upstream, full):
                    length = next((int(h.split(":", 1)[1]) for h in headers
                                   if h.lower().startswith("content-length:")), 0)
                    if length:
                        await reader.readexactly(length)
                    log("pull answered locally:", full)
                    writer.write(up_to_date_reply(full))
                    await writer.drain()
                    return
                log("pull forwarded to the engine:", full)
            upgrade = any(h.lower().startswith("upgrade:") for h in headers)
            if not upgrade:
                headers = [h for h in headers if not h.lower().startswith("connection:")] + ["Connection: close"]
            new_head = ("\r\n".join([lines[0]] + headers) + "\r\n\r\n").encode("latin-1")
            ur, uw = await asyncio.open_unix_connection(upstream)
            uw.write(new_head)
            await uw.drain()
            if upgrade:
                # Send the engine's "101 UPGRADED" head on its own and let the client read it before the
                # stream: docker-py reads the stream from the raw socket, past http.client's buffer, so
                # bytes that arrive together with the head would be lost (the engine sends them apart).
                resp_head = await read_head(ur)
                if resp_head:
                    writer.write(resp_head)
                    await writer.drain()
                    await asyncio.sleep(0.05)
            await asyncio.gather(pipe(reader, uw), pipe(ur, writer))
            uw.close()
        except Exception as e:  # keep serving other connections
            log("error:", type(e).__name__, e)
        finally:
            try:
                writer.close()
            except Exception:
                pass
    return handle


async def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--listen", required=True, help="path of the unix socket to create")
    ap.add_argument("--upstream", default="/var/run/docker.sock", help="the engine's unix socket")
    a = ap.parse_args()
    if os.path.exists(a.listen):
        os.unlink(a.listen)
    server = await asyncio.start_unix_server(make_handler(a.upstream), path=a.listen, limit=1 << 20)
    os.chmod(a.listen, 0o660)
    log(f"docker pull proxy on {a.listen} -> {a.upstream}")
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
