"""Differential testing against a real Open vSwitch: one description of a
bridge and frames runs through a private ovs-vswitchd (dummy datapath) and
through offlab's Pipeline, and the two are compared frame by frame."""

from __future__ import annotations

from .compare import Difference, Verdict, byte_diff, compare, table
from .result import COUNTERS, CaseResult, FrameResult
from .run import OvsDiffError, diff_cases, run_files
from .sandbox import OvsInstall, OvsSandbox, OvsSandboxError
from .spec import Case, ExpectedDifference, Frame, Port, SpecError, builtin_cases, load

__all__ = [
    "COUNTERS",
    "Case",
    "CaseResult",
    "Difference",
    "ExpectedDifference",
    "Frame",
    "FrameResult",
    "OvsDiffError",
    "OvsInstall",
    "OvsSandbox",
    "OvsSandboxError",
    "Port",
    "SpecError",
    "Verdict",
    "builtin_cases",
    "byte_diff",
    "compare",
    "diff_cases",
    "load",
    "run_files",
    "table",
]
