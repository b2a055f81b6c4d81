"""Conformance fuzzing of the verifier's abstraction: random concrete packets,
NIC profiles and operation sequences run through the core, each abstract
transition checked against the relation `offlab verify --export-relation`
wrote (docs/verification.md, "Conformance fuzzing")."""

from __future__ import annotations

from .cases import Case, decode
from .check import Checker, Finding, write_witness

__all__ = ["Case", "Checker", "Finding", "decode", "write_witness"]
