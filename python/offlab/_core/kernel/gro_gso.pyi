"""
SKB_GSO bits of newer kernels.
"""
from __future__ import annotations
__all__: list[str] = ['TCP_ACCECN', 'TCP_FIXEDID_618', 'TCP_FIXEDID_INNER_618']
TCP_ACCECN: int = 524288
TCP_FIXEDID_618: int = 1073741824
TCP_FIXEDID_INNER_618: int = 2147483648
