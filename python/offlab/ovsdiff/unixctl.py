"""A minimal client for Open vSwitch's unixctl control socket (what ovs-appctl
speaks): one JSON-RPC request per connection.

A fresh connection per request is what makes injected frames observable at the
next call: ovs-vswitchd accepts new control connections at the start of
unixctl_server_run(), which its main loop runs after bridge_run() (openvswitch/ovs
v3.1.0 vswitchd/ovs-vswitchd.c:129-130, lib/unixctl.c:369-395), and bridge_run()
polls the dummy ports' receive queues and runs their packets through the
datapath to the end (dpif-netdev's non-PMD ports run in the main thread).
"""

from __future__ import annotations

import json
import socket


class UnixctlError(RuntimeError):
    """The daemon answered a command with an error."""


def call(path: str, method: str, *params: str, timeout: float = 10.0) -> str:
    """Runs one unixctl command on the daemon listening at `path`; returns its
    output text, raises UnixctlError with the daemon's message on an error reply
    and OSError if the daemon cannot be reached."""
    request = json.dumps({"method": method, "params": list(params), "id": 0})
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(path)
        s.sendall(request.encode())
        buf = b""
        decoder = json.JSONDecoder()
        while True:
            chunk = s.recv(65536)
            if not chunk:
                raise OSError(f"{path}: connection closed before a reply to {method}")
            buf += chunk
            try:
                reply, _ = decoder.raw_decode(buf.decode())
                break
            except ValueError:
                continue
    if reply.get("error") is not None:
        raise UnixctlError(str(reply["error"]).strip())
    return str(reply.get("result") or "")
