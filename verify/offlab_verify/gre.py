"""The GRE checksum in tunnel-TSO fallback (reference §6, last bullet).

OVS computes the GRE checksum when it pushes the header, and again per
software segment, over inner bytes whose partial checksums are finished only
afterwards. The GRE checksum's correctness then depends on the byte values of
those fields, which the abstraction does not track, so it is checked here
concretely: a counterexample is a packet whose GRE checksum is wrong on the
wire although nothing about it was bad on ingress."""

from __future__ import annotations

import offlab
from offlab import trace

from .abstraction import verdicts
from .counterexample import Step


def gre_counterexample(tso: bool) -> list[Step] | None:
    """Steps of a packet that leaves with a wrong GRE checksum, or None."""
    payload = bytes(range(256)) * (8 if tso else 1)
    tcp = bytes.fromhex("d478145100000001000000005010020000000000") + payload
    ip = bytearray.fromhex("4500000000000000400600000a0000010a000002")
    ip[2:4] = (20 + len(tcp)).to_bytes(2, "big")
    frame = bytes.fromhex("0a8f394fe0738abf7e2f05840800") + bytes(ip) + tcp
    p = offlab.Packet(frame)
    offlab.parse(p)
    # A guest's packet: IP and TCP checksums left partial (fields not final).
    p.offloads.set_status(offlab.Level.OUTER, offlab.Csum.IP, offlab.CsumStatus.PARTIAL)
    p.offloads.set_status(offlab.Level.OUTER, offlab.Csum.L4, offlab.CsumStatus.PARTIAL)
    if tso:
        p.tso_segsz = 500
    steps = [Step("receive", frame, p.offloads.word, p.tso_segsz, "guest packet, ip+l4 partial")]
    tnl = offlab.TunnelConfig("gre", remote_ip="1.1.2.92", local_ip="1.1.2.88", key=7, csum=True)
    (p,), _ = offlab.push_header([p], tnl)
    steps.append(
        Step("push_gre(csum)", p.bytes(), p.offloads.word, p.tso_segsz, "GRE checksum computed")
    )
    steps.append(
        Step(
            "send",
            p.bytes(),
            p.offloads.word,
            p.tso_segsz,
            "handed to the egress",
            role="tx",
            ofs=trace.offsets(p),
        )
    )
    pcap = offlab.NicTx.from_profile(offlab.builtin_profile("pcap"))
    ready, _ = offlab.netdev_send([p], pcap.caps)
    wrong = False
    for q in ready:
        for w in offlab.nic_transmit(q, pcap)[0]:
            ok = verdicts(w.bytes()).get(("gre", 0), True)
            wrong |= not ok
            steps.append(
                Step(
                    "wire",
                    w.bytes(),
                    q.offloads.word,
                    q.tso_segsz,
                    "GRE checksum " + ("ok" if ok else "WRONG"),
                    role="wire",
                )
            )
    return steps if wrong else None
