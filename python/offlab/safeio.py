"""Reading files other people wrote, and writing beneath an output folder, within bounds.

offlab's inputs travel (scenario and sweep files, traces, pcaps, NIC profiles are attached to
bug reports and CI artifacts), so every file a command reads goes through here first:

- it must be a regular file: a FIFO, device or directory is refused *before* anything blocks on
  it (opened with O_NONBLOCK, then checked with fstat on the same descriptor);
- its size is checked against a documented limit before it is read, and the read itself never
  asks for more than that limit;
- YAML is parsed with anchors and aliases refused (no offlab format uses them, and they are what a
  "billion laughs" file is made of) and with a bounded nesting depth;
- names that come from a file's content and become parts of output paths must be plain names.

The limits (docs/security.md) can be raised through environment variables, e.g.
``OFFLAB_MAX_INPUT_BYTES=2G offlab dissect --pcap big.pcapng``.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any

import yaml

from ._core import OfflabError

# name: (environment variable, default, what it bounds)
LIMITS: dict[str, tuple[str, int, str]] = {
    "input_bytes": (
        "OFFLAB_MAX_INPUT_BYTES",
        512 << 20,
        "size of a capture or trace file read by any command",
    ),
    "yaml_bytes": ("OFFLAB_MAX_YAML_BYTES", 4 << 20, "size of a scenario, sweep or profile file"),
    "yaml_depth": ("OFFLAB_MAX_YAML_DEPTH", 32, "nesting depth of a YAML document"),
    "yaml_nodes": ("OFFLAB_MAX_YAML_NODES", 200_000, "scalars, lists and maps in a YAML document"),
    "sweep_points": ("OFFLAB_MAX_SWEEP_POINTS", 4096, "points of one sweep"),
    "sim_wire_frames": (
        "OFFLAB_MAX_SIM_FRAMES",
        1_000_000_000,
        "wire frames a scenario may ask for: simulated seconds x line rate / minimum frame",
    ),
    "frames": ("OFFLAB_MAX_FRAMES", 10_000_000, "frames or records in one capture or trace"),
}

_SUFFIX = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def limit(name: str) -> int:
    """The limit `name`, from its environment variable when set (accepts k/M/G suffixes)."""
    env, default, _ = LIMITS[name]
    raw = os.environ.get(env)
    if raw is None or raw.strip() == "":
        return default
    text = raw.strip().lower()
    scale = _SUFFIX.get(text[-1], 1)
    digits = text[:-1] if text[-1] in _SUFFIX else text
    if not digits.isdigit() or int(digits) <= 0:
        raise OfflabError(f"{env}={raw!r}: not a positive whole number (k, M, G allowed)")
    return int(digits) * scale


def _kind(mode: int) -> str:
    for test, kind in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return kind
    return "not a regular file"


def _open_regular(path: str | os.PathLike[str], what: str) -> tuple[int, int]:
    """Opens `path` for reading without blocking on FIFOs or devices; returns (fd, size)
    after checking it is a regular file. The caller closes fd."""
    name = os.fspath(path)
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except IsADirectoryError:
        raise OfflabError(f"{what} {name}: is a directory, not a file") from None
    except FileNotFoundError:
        raise OfflabError(f"{what} {name}: no such file") from None
    except PermissionError:
        raise OfflabError(f"{what} {name}: permission denied") from None
    except (OSError, ValueError) as e:
        raise OfflabError(f"{what} {name}: cannot open ({_reason(e)})") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise OfflabError(f"{what} {name}: is {_kind(st.st_mode)}, not a regular file")
    return fd, st.st_size


def _reason(e: BaseException) -> str:
    return e.strerror if isinstance(e, OSError) and e.strerror else str(e)


def _too_big(what: str, name: str, size: int, limit_name: str) -> OfflabError:
    env, _, _ = LIMITS[limit_name]
    return OfflabError(
        f"{what} {name}: {size} bytes is over the limit of {limit(limit_name)} "
        f"(raise it with {env})"
    )


def check_regular(path: str | os.PathLike[str], what: str, limit_name: str) -> None:
    """Checks, without reading it, that `path` is a regular file within the size limit
    (for files handed to a compiled tool that reads them itself)."""
    fd, size = _open_regular(path, what)
    os.close(fd)
    if size > limit(limit_name):
        raise _too_big(what, os.fspath(path), size, limit_name)


def read_bytes(path: str | os.PathLike[str], what: str, limit_name: str = "input_bytes") -> bytes:
    """The whole of a regular file, refusing anything larger than the limit."""
    name = os.fspath(path)
    fd, size = _open_regular(path, what)
    cap = limit(limit_name)
    try:
        if size > cap:
            raise _too_big(what, name, size, limit_name)
        chunks: list[bytes] = []
        total = 0
        while True:
            try:
                chunk = os.read(fd, min(1 << 20, cap + 1 - total))
            except OSError as e:
                raise OfflabError(f"{what} {name}: read failed ({_reason(e)})") from None
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > cap:  # the file grew while we read it
                raise _too_big(what, name, total, limit_name)
        return b"".join(chunks)
    finally:
        os.close(fd)


class _GuardedLoader(yaml.SafeLoader):
    """PyYAML's safe loader with anchors/aliases refused and depth and size bounded."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._nodes = 0
        self._max_depth = limit("yaml_depth")
        self._max_nodes = limit("yaml_nodes")

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise yaml.YAMLError(
                f"line {event.start_mark.line + 1}: YAML anchors and aliases are not accepted"
            )
        self._nodes += 1
        if self._nodes > self._max_nodes:
            raise yaml.YAMLError(
                f"more than {self._max_nodes} YAML nodes (raise with {LIMITS['yaml_nodes'][0]})"
            )
        self._depth += 1
        try:
            if self._depth > self._max_depth:
                raise yaml.YAMLError(
                    f"line {event.start_mark.line + 1}: nested deeper than {self._max_depth} "
                    f"levels (raise with {LIMITS['yaml_depth'][0]})"
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def parse_yaml(text: str, where: str) -> Any:
    """A YAML document parsed with the guarded loader; errors name `where`."""
    try:
        loader = _GuardedLoader(text)  # the reader refuses control characters here
    except yaml.YAMLError as e:
        raise OfflabError(f"{where}: not valid YAML ({_one_line(str(e))})") from None
    try:
        return loader.get_single_data()
    except yaml.YAMLError as e:
        raise OfflabError(f"{where}: not valid YAML ({_one_line(str(e))})") from None
    except RecursionError:
        raise OfflabError(f"{where}: YAML nested too deeply") from None
    finally:
        loader.dispose()


def load_yaml(path: str | os.PathLike[str], what: str) -> Any:
    """A YAML file (a regular file within the YAML size limit), parsed with the guarded loader."""
    name = os.fspath(path)
    data = read_bytes(path, what, "yaml_bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise OfflabError(f"{what} {name}: not UTF-8 text (byte {e.start})") from None
    return parse_yaml(text, f"{what} {name}")


def load_profile_file(path: str | os.PathLike[str]) -> Any:
    """A NIC profile from a YAML file, checked here (regular file, size, no aliases, depth)
    before the core's loader reads it."""
    from . import _core

    load_yaml(path, "profile")
    return _core.load_profile_file(os.fspath(path))


def _one_line(text: str) -> str:
    return " ".join(text.split())


_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+=-]{0,99}")


def safe_name(value: object, field: str) -> str:
    """A name from a file's content that becomes part of an output path: letters, digits and
    . _ + = - only, not starting with a dot, at most 100 characters. Anything else is refused
    with an error naming the field (rewriting it silently could overwrite another run's files)."""
    if not isinstance(value, str) or not _SAFE_NAME.fullmatch(value):
        shown = value if isinstance(value, str) else type(value).__name__
        raise OfflabError(
            f"{field}: {shown!r} is not a safe file name (letters, digits, '.', '_', '+', '=', "
            "'-'; not starting with '.'; at most 100 characters)"
        )
    return value


def confined(base: str | os.PathLike[str], *parts: str) -> Path:
    """base/parts..., refused if it would resolve (following symlinks already there) outside
    base: output files are written only beneath the folder the user chose or defaulted to."""
    root = Path(base).resolve()
    target = Path(base, *parts)
    resolved = target.resolve()
    if resolved != root and root not in resolved.parents:
        raise OfflabError(
            f"{target}: resolves to {resolved}, outside the output folder {root} "
            "(a symlink or '..' in the way)"
        )
    return target


def output_file(folder: str | os.PathLike[str], name: str) -> Path:
    """folder/name for writing: within folder, and not an existing symlink or non-regular
    file (writing would follow a link planted in a shared or resumed output folder)."""
    path = confined(folder, name)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return path
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISREG(st.st_mode):
        raise OfflabError(f"{path}: exists and is not a regular file; refusing to write through it")
    return path


__all__ = [
    "LIMITS",
    "check_regular",
    "confined",
    "limit",
    "load_profile_file",
    "load_yaml",
    "output_file",
    "parse_yaml",
    "read_bytes",
    "safe_name",
]
