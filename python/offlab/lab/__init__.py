"""The kernel lab: real topologies in network namespaces on the running kernel,
exact frames in, captures and counters out, compared with the kernel model's
prediction for the same input (`offlab lab`, docs/kernel-lab.md)."""

from __future__ import annotations

from .case import REGISTRY, Case, ModelMissing
from .nsutil import Lab, LabError, capability_problem

__all__ = ["REGISTRY", "Case", "Lab", "LabError", "ModelMissing", "capability_problem", "load"]


def load() -> dict[str, Case]:
    """Imports every case module and returns the registry (name -> Case)."""
    from . import cases_gro, cases_misc, cases_tap, cases_veth, cases_vxlan  # noqa: F401
    from .predict import bind_all

    bind_all()
    return REGISTRY
