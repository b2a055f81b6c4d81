"""offlab's verifier: proves checksum-offload invariants about the compiled core.

The transition relation of every datapath operation is extracted by running the
C++ core (through ``offlab``) on concrete packets that realise each abstract
state; Z3 then proves the properties for unbounded operation sequences.
"""

from __future__ import annotations

from .abstraction import FIELDS, State
from .cli import Report, verify
from .extract import Config, Extraction, TooCoarse, extract
from .properties import PROPERTIES, Property
from .prove import Result, prove_all

__all__ = [
    "FIELDS",
    "PROPERTIES",
    "Config",
    "Extraction",
    "Property",
    "Report",
    "Result",
    "State",
    "TooCoarse",
    "extract",
    "prove_all",
    "verify",
]
