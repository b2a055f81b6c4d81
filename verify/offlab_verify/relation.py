"""The extracted relation as a file (`offlab verify --export-relation FILE`),
for tools that check the core against it, such as the conformance fuzzer
(offlab_verify.conformance). Format (JSON, docs/verification.md):

    {"format": "offlab-relation", "version": 1, "faults": [...],
     "fields": [State field names], "operations": [...],
     "settings": [{"config": "csum=off", "csum": false,
                   "states": [[field values], ...],
                   "initial": [ids], "arriving": [ids],
                   "transitions": [[from, op, to], ...],
                   "profiles": {name: [[from, op, to], ...]}}]}

`transitions` are the datapath operations (the same for every NIC profile);
a profile's list holds its `rx`, `gro` and `send` transitions. States are
indices into `states`. A transition's operation may carry a directed
witness's corner, ``op@corner`` (extract.py): a successor some concrete
packets of the state take besides the plain ``op`` one; `operations` lists
the plain operations."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from typing import Any

import offlab

from .abstraction import FIELDS, State
from .extract import DATAPATH_OPS, Extraction, base_op
from .receive import RX_OPS

FORMAT, VERSION = "offlab-relation", 2
OPERATIONS = (*DATAPATH_OPS, *RX_OPS, "send")

Edges = dict[tuple[State, str], State]


def setting_dict(
    ex: Extraction, arriving: set[State], profiles: dict[str, Edges]
) -> dict[str, Any]:
    """One checksum setting's relation: the datapath transitions of `ex` and,
    per profile name, its receive and send transitions."""
    ids: dict[State, int] = {}

    def sid(s: State) -> int:
        if s not in ids:
            ids[s] = len(ids)
        return ids[s]

    def triples(edges: Edges) -> list[list[Any]]:
        return [[sid(s), op, sid(t)] for (s, op), t in sorted(edges.items())]

    initial = [sid(s) for s in sorted(ex.init)]
    arrive = [sid(s) for s in sorted(arriving)]
    trans = triples(ex.trans)
    per_profile = {name: triples(edges) for name, edges in profiles.items()}
    states = sorted(ids, key=ids.__getitem__)
    return {
        "config": ex.config.name,
        "csum": ex.config.csum,
        "states": [[getattr(s, f) for f in FIELDS] for s in states],
        "initial": initial,
        "arriving": arrive,
        "transitions": trans,
        "profiles": per_profile,
    }


def write_relation(path: str, faults: list[str], settings: list[dict[str, Any]]) -> None:
    """Writes atomically: a half-written file never appears under `path`."""
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "faults": list(faults),
        "fields": list(FIELDS),
        "operations": list(OPERATIONS),
        "settings": settings,
    }
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".relation-", dir=folder)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(doc, f, separators=(",", ":"))
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


@dataclass
class Setting:
    """One checksum setting of a loaded relation."""

    config: str
    csum: bool
    initial: set[State] = field(default_factory=set)
    arriving: set[State] = field(default_factory=set)
    trans: Edges = field(default_factory=dict)
    profiles: dict[str, Edges] = field(default_factory=dict)
    # (profile, state, plain operation) -> its op@corner successors; profile
    # "" for the datapath operations.
    corners: dict[tuple[str, State, str], set[State]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for profile, edges in [("", self.trans), *self.profiles.items()]:
            for (a, label), b in edges.items():
                if "@" in label:
                    self.corners.setdefault((profile, a, base_op(label)), set()).add(b)

    def successors(self, profile: str, s: State, op: str) -> tuple[State | None, set[State]]:
        """The relation's successor of `s` under plain `op` (None: no such
        transition), and every successor it allows: that one and those of
        its ``op@corner`` transitions."""
        datapath = op in DATAPATH_OPS
        edges = self.trans if datapath else self.profiles.get(profile, {})
        usual = edges.get((s, op))
        allowed = set(self.corners.get(("" if datapath else profile, s, op), ()))
        if usual is not None:
            allowed.add(usual)
        return usual, allowed


@dataclass
class Relation:
    faults: list[str]
    settings: list[Setting]


def load_relation(path: str) -> Relation:
    """Reads a file `offlab verify --export-relation` wrote; raises
    OfflabError naming what is wrong with it."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        raise offlab.OfflabError(f"relation {path}: {e.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise offlab.OfflabError(f"relation {path}: not JSON ({e})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise offlab.OfflabError(f"relation {path}: not an {FORMAT} file")
    if doc.get("version") != VERSION or doc.get("fields") != list(FIELDS):
        raise offlab.OfflabError(
            f"relation {path}: written by another version of offlab verify (export it again)"
        )
    try:
        settings = [_setting(d) for d in doc["settings"]]
    except (KeyError, IndexError, TypeError, ValueError) as e:
        raise offlab.OfflabError(f"relation {path}: malformed ({e!r})") from None
    return Relation([str(x) for x in doc["faults"]], settings)


def _setting(d: dict[str, Any]) -> Setting:
    states = [State(*map(int, values)) for values in d["states"]]
    for values in d["states"]:
        if len(values) != len(FIELDS):
            raise ValueError("a state with the wrong number of fields")

    def edges(rows: list[list[Any]]) -> Edges:
        return {(states[a], str(op)): states[b] for a, op, b in rows}

    return Setting(
        str(d["config"]),
        bool(d["csum"]),
        {states[i] for i in d["initial"]},
        {states[i] for i in d["arriving"]},
        edges(d["transitions"]),
        {str(n): edges(rows) for n, rows in d["profiles"].items()},
    )
