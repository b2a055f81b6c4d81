"""The Linux kernel path model: the sk_buff's checksum state and the kernel
operations that change it (driver receive, GRO, VXLAN, the local stack,
validate_xmit_skb and GSO, virtio-net headers, the OVS kernel datapath,
nf_conntrack), on real bytes, per kernel version.

A re-export of the compiled core's `kernel` part; see docs/kernel-model.md
for what each function models and the kernel source it cites.
"""

from __future__ import annotations

from ._core import kernel as _kernel
from ._core.kernel import *  # noqa: F403

__all__ = [name for name in dir(_kernel) if not name.startswith("_")]
