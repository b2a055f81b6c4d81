#include "offlab/boundary/netdev_linux.h"

#include <optional>
#include <utility>

#include "offlab/linux/virtio_net.h"
#include "offlab/ovs/parse.h"
#include "offlab/ovs/vnet.h"

namespace offlab::boundary {

NetdevLinuxSent NetdevLinuxSend(Packet p, NetdevLinuxPort port, Counters* counters) {
  NetdevLinuxSent out;
  out.hdr = VnetTransmit(p);
  const Bytes frame = p.bytes();
  if (port == NetdevLinuxPort::kTap) {
    kernel::VnetHdrTunnel th;
    th.hdr = out.hdr;
    out.error = kernel::TapWrite(frame, th, kernel::TapConfig{}, &out.skb, counters);
  } else {
    out.error = kernel::PacketSnd(frame, std::optional<VnetHdr>(out.hdr),
                                  kernel::PacketSocketConfig{}, &out.skb);
  }
  return out;
}

NetdevLinuxReceived NetdevLinuxReceive(const kernel::SkBuff& skb, NetdevLinuxPort port,
                                       const kernel::DeviceFeatures& tap, Counters* counters) {
  NetdevLinuxReceived out;
  if (port == NetdevLinuxPort::kTap) {
    kernel::VnetHdrTunnel th;
    out.error = kernel::TapRead(skb, tap, kernel::TapConfig{}, &th);
    out.hdr = th.hdr;
  } else {
    out.error = kernel::PacketRcvVnet(skb, false, &out.hdr);
  }
  if (!out.error.empty()) return out;
  out.packet = Packet(skb.pkt.data(), skb.pkt.size());
  Parse(out.packet);
  out.dropped = !VnetReceive(out.packet, out.hdr, counters);
  return out;
}

}  // namespace offlab::boundary
