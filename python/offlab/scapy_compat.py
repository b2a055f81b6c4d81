"""Conversion between offlab packets and scapy packets (when scapy is installed)."""

from __future__ import annotations

from typing import Any

from ._core import Packet


def _scapy_ether() -> Any:
    try:
        from scapy.layers.l2 import Ether
    except ImportError as e:
        raise ImportError("scapy is not installed: pip install scapy") from e
    return Ether


def to_scapy(packet: Packet) -> Any:
    """The packet's bytes decoded by scapy as an Ethernet frame."""
    return _scapy_ether()(packet.bytes())


def from_scapy(pkt: Any) -> Packet:
    """An offlab Packet holding the bytes scapy builds for ``pkt``."""
    _scapy_ether()
    return Packet(bytes(pkt))
