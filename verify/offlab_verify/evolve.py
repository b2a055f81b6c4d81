"""dataclasses.replace for the verifier's frozen state classes, without the
per-field __init__: an extraction builds hundreds of thousands of states, and
replace() was a quarter of its time."""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from dataclasses import fields
from typing import Any, TypeVar

T = TypeVar("T")
_new = object.__new__
_set = object.__setattr__


@functools.cache
def _getter(cls: type) -> Callable[[dict], tuple]:
    """The field values of a state's __dict__, in field order, in C."""
    return operator.itemgetter(*(f.name for f in fields(cls)))


def _key(s: Any) -> tuple:
    d = s.__dict__
    k = d.get("_key")
    if k is None:
        k = _getter(type(s))(d)
        _set(s, "_key", k)
    return k


def cached_hash(s: Any) -> int:
    """A state's hash, computed once: the proofs and the extraction hash each
    state many times (dict keys, visited sets), and the generated __hash__
    builds the field tuple every time. Assign as __hash__ in the class body
    (dataclass keeps an explicit one)."""
    h = s.__dict__.get("_hash")
    if h is None:
        h = hash(_key(s))
        _set(s, "_hash", h)
    return h


def cached_eq(s: Any, other: object) -> bool:
    """Field-wise equality over the cached field tuple (as __eq__)."""
    if other.__class__ is not s.__class__:
        return NotImplemented  # type: ignore[return-value]
    return s is other or _key(s) == _key(other)


# One object per distinct state value made by evolve(): a dict lookup of a
# state equal to a key then finds the same object, which the dict's own
# identity test accepts without calling __eq__ (the extraction looks up a
# freshly abstracted state, equal to a known one, tens of thousands of
# times). Equality stays by value: a state made another way compares equal
# as before, it is only slower to find.
_interned: dict[tuple, Any] = {}


@functools.cache
def _index(cls: type) -> dict[str, int]:
    """Field name -> position in the field tuple, in field order."""
    return {f.name: i for i, f in enumerate(fields(cls))}


def evolve(s: T, **changes: Any) -> T:
    """A copy of the frozen dataclass `s` with `changes`; unknown field names
    are refused as replace() refuses them. Equal results are one object.

    The new field tuple is built from the old one; only a value not seen
    before gets an object (most results are states already made, so the
    per-field dict is built once per distinct state)."""
    cls = type(s)
    index = _index(cls)
    values = list(_key(s))
    try:
        for name, value in changes.items():
            values[index[name]] = value
    except KeyError:
        unknown = sorted(set(changes) - set(index))
        raise TypeError(f"{cls.__name__} has no field {unknown}") from None
    key = tuple(values)
    # The class is part of the key: two state classes' equal tuples are not
    # equal states.
    found = _interned.get((cls, key))
    if found is not None:
        return found
    d = dict(zip(index, key, strict=True))
    d["_key"] = key
    out = _new(cls)
    _set(out, "__dict__", d)
    _interned[(cls, key)] = out
    return out
