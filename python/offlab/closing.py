"""A with-block that ends in close(): for the objects that own kernel state or processes
(namespaces, links, TAP devices, DPDK runs), so leaving the block by any path cleans up."""

from __future__ import annotations

from types import TracebackType
from typing import Self


class Closing:
    """Mixin: `with obj:` returns obj and calls obj.close() on the way out, also on an
    exception (which then propagates)."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        et: type[BaseException] | None,
        ev: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
