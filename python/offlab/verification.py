"""The verifier's public entry points (the ``offlab_verify`` package):
``verify()`` proves every property for every NIC profile and returns a
``Report``; ``PROPERTIES`` lists what is proved."""

from __future__ import annotations

from offlab_verify import PROPERTIES, Property, Report, Result, verify

__all__ = ["PROPERTIES", "Property", "Report", "Result", "verify"]
