// SPDX-License-Identifier: Apache-2.0
#include "virtio-net-device.h"

#include <algorithm>
#include <memory>
#include <ostream>
#include <vector>

#include "ns3/boolean.h"
#include "ns3/buffer.h"
#include "ns3/channel.h"
#include "ns3/header.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"
#include "offlab/net/bytes.h"
#include "offlab/net/checksum.h"
#include "offlab/net/headers.h"
#include "offlab/net/payload.h"
#include "offlab/ovs/parse.h"

namespace ns3 {

NS_LOG_COMPONENT_DEFINE("VirtioNetDevice");
NS_OBJECT_ENSURE_REGISTERED(VirtioNetDevice);

namespace {
constexpr uint16_t kEthHdr = 14;

// Whether bytes [from, from + n) of `p` are zero, reading a shared tail's
// buffers only when they are not known to be all zero.
bool PayloadZero(const offlab::Packet& p, std::size_t from, std::size_t n) {
  const std::size_t head = p.head_size();
  const std::size_t inHead = from < head ? std::min(n, head - from) : 0;
  if (inHead && !offlab::AllZeroBytes(p.head() + from, inHead)) {
    return false;
  }
  return n == inHead || p.tail().AllZero(from + inHead - head, n - inHead);
}

// Header bytes already on the wire, put in front of an ns-3 packet as they
// are: the guest's stack parses them itself, so building ns-3 header objects
// here (which creates an object per TCP option) would parse them twice.
class WireHeaders : public Header {
 public:
  WireHeaders() = default;
  WireHeaders(const uint8_t* p, std::size_t n) : m_bytes(p, p + n) {}
  static TypeId GetTypeId() {
    static TypeId tid = TypeId("ns3::VirtioNetDevice::WireHeaders")
                            .SetParent<Header>()
                            .SetGroupName("Offload")
                            .AddConstructor<WireHeaders>();
    return tid;
  }
  TypeId GetInstanceTypeId() const override { return GetTypeId(); }
  uint32_t GetSerializedSize() const override { return static_cast<uint32_t>(m_bytes.size()); }
  void Serialize(Buffer::Iterator start) const override {
    start.Write(m_bytes.data(), static_cast<uint32_t>(m_bytes.size()));
  }
  uint32_t Deserialize(Buffer::Iterator start) override {
    start.Read(m_bytes.data(), static_cast<uint32_t>(m_bytes.size()));
    return static_cast<uint32_t>(m_bytes.size());
  }
  void Print(std::ostream& os) const override { os << m_bytes.size() << " header bytes"; }

 private:
  std::vector<uint8_t> m_bytes;
};

// The IPv4 header of a parsed TCP/IPv4 packet, with the TCP header after it
// made contiguous (read in place: a shared payload is not copied); null for
// anything else.
const uint8_t* Tcp4Headers(const offlab::Packet& p) {
  if (p.l3_ofs == offlab::kNoOffset || p.l4_ofs == offlab::kNoOffset || p.l4_ofs < p.l3_ofs + 20u ||
      p.SizeFrom(p.l4_ofs) < offlab::hdr::kTcpMinLen) {
    return nullptr;
  }
  const uint8_t* ip = p.Linear(p.l4_ofs + offlab::hdr::kTcpMinLen) + p.l3_ofs;
  if ((ip[0] >> 4) != 4 || ip[9] != offlab::hdr::kProtoTcp) {
    return nullptr;
  }
  return ip;
}

// The ns-3 packet the guest stack receives. A TCP payload of zeros (what
// ns-3 applications send) becomes a zero-filled area rather than real bytes:
// the same data to the stack, but ns-3's receive buffer then concatenates
// segments without copying them, which is most of a run's time otherwise.
Ptr<Packet> ToGuestPacket(const offlab::Packet& p) {
  const uint8_t* ip = Tcp4Headers(p);
  if (ip) {
    const uint8_t* tcp = ip + (p.l4_ofs - p.l3_ofs);
    const std::size_t ihl = (ip[0] & 0x0f) * 4u;
    const std::size_t thl = (tcp[12] >> 4) * 4u;
    const std::size_t total = offlab::GetBe16(ip + 2);
    const std::size_t hdrs = ihl + thl;
    if (p.l3_ofs == kEthHdr && total >= hdrs && p.SizeFrom(p.l3_ofs) >= total &&
        PayloadZero(p, p.l4_ofs + thl, total - hdrs)) {
      Ptr<Packet> out = Create<Packet>(static_cast<uint32_t>(total - hdrs));
      out->AddHeader(WireHeaders(p.Linear(p.l4_ofs + thl) + p.l3_ofs, hdrs));
      return out;
    }
  }
  if (p.size() < kEthHdr) {
    return Create<Packet>();
  }
  return Create<Packet>(p.data() + kEthHdr, static_cast<uint32_t>(p.size() - kEthHdr));
}

// Where the payload of a TCP/IPv4 frame starts (after its TCP header), or 0.
std::size_t TcpPayloadOffset(const uint8_t* f, std::size_t size, uint16_t proto) {
  if (proto != 0x0800 || size < kEthHdr + 20u) {
    return 0;
  }
  const uint8_t* ip = f + kEthHdr;
  const std::size_t ihl = (ip[0] & 0x0f) * 4u;
  if ((ip[0] >> 4) != 4 || ihl < 20 || ip[9] != offlab::hdr::kProtoTcp ||
      size < kEthHdr + ihl + 20u) {
    return 0;
  }
  const std::size_t thl = (ip[ihl + 12] >> 4) * 4u;
  return thl >= 20 && size >= kEthHdr + ihl + thl ? kEthHdr + ihl + thl : 0;
}

// The largest frame a TSO-capable virtio-net guest hands over (GSO_MAX_SIZE).
constexpr uint16_t kTsoMtu = 65535 - kEthHdr;
}  // namespace

TypeId VirtioNetDevice::GetTypeId() {
  static TypeId tid =
      TypeId("ns3::VirtioNetDevice")
          .SetParent<OffloadDeviceBase>()
          .SetGroupName("Offload")
          .AddConstructor<VirtioNetDevice>()
          .AddAttribute("Tso", "VIRTIO_NET_F_HOST_TSO4/6 negotiated: the guest sends TSO frames.",
                        BooleanValue(true), MakeBooleanAccessor(&VirtioNetDevice::m_tso),
                        MakeBooleanChecker())
          .AddAttribute("CsumOffload",
                        "VIRTIO_NET_F_CSUM negotiated: TCP checksums are left partial.",
                        BooleanValue(true), MakeBooleanAccessor(&VirtioNetDevice::m_csumOffload),
                        MakeBooleanChecker())
          .AddAttribute("GuestMtu", "The guest interface MTU (the overlay MTU); sets the MSS.",
                        UintegerValue(1450), MakeUintegerAccessor(&VirtioNetDevice::m_guestMtu),
                        MakeUintegerChecker<uint16_t>(576, 9000));
  return tid;
}

VirtioNetDevice::VirtioNetDevice() { m_address = Mac48Address::Allocate(); }

void VirtioNetDevice::SetHostHandler(HostHandler handler) { m_host = std::move(handler); }

void VirtioNetDevice::SetCpu(Ptr<CpuModel> cpu) { m_cpu = cpu; }

Ptr<CpuModel> VirtioNetDevice::GetCpu() const { return m_cpu; }

void VirtioNetDevice::SetPeerAddress(Mac48Address peer) { m_peer = peer; }

uint16_t VirtioNetDevice::GetMss() const {
  // IPv4 (20) and TCP with the timestamp option ns-3 uses (32).
  return m_guestMtu - 20 - 32;
}

void VirtioNetDevice::SetSharedPayload(bool shared) { m_sharedPayload = shared; }

uint16_t VirtioNetDevice::GetMtu() const { return m_tso ? kTsoMtu : m_guestMtu; }

offlab::Packet VirtioNetDevice::Frame(Ptr<Packet> packet, uint16_t protocolNumber) {
  const uint32_t n = packet->GetSize();
  // The overlay joins each VM to its one peer; ns-3 hands a device without
  // ARP the broadcast address, so the peer's MAC is the destination.
  auto ethernet = [&](uint8_t* frame) {
    m_peer.CopyTo(frame);
    m_address.CopyTo(frame + 6);
    offlab::PutBe16(frame + 12, protocolNumber);
  };
  if (!m_sharedPayload) {
    offlab::Packet p(nullptr, kEthHdr + n);
    ethernet(p.data());
    packet->CopyData(p.data() + kEthHdr, n);
    return p;
  }
  m_scratch.resize(kEthHdr + n);
  uint8_t* frame = m_scratch.data();
  ethernet(frame);
  packet->CopyData(frame + kEthHdr, n);
  const std::size_t hdrs = TcpPayloadOffset(frame, kEthHdr + n, protocolNumber);
  if (hdrs == 0 || hdrs >= kEthHdr + n) {
    return offlab::Packet(frame, kEthHdr + n);
  }
  // The headers in the packet, the payload shared: the zeros ns-3
  // applications send refer to one zero buffer, anything else to a copy
  // that the frames cut from this packet will share.
  offlab::Packet p(frame, hdrs);
  const std::size_t len = kEthHdr + n - hdrs;
  offlab::Rope tail;
  tail.Append(offlab::Slice{offlab::AllZeroBytes(frame + hdrs, len)
                                ? offlab::PayloadBuf::Zeros(len)
                                : offlab::PayloadBuf::Copy(frame + hdrs, len),
                            0, len});
  p.AppendTail(tail);
  return p;
}

bool VirtioNetDevice::Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) {
  (void)dest;  // the peer's MAC (Frame)
  // Shared: the frame waits for the vCPU in an event, and events are copied.
  auto shared = std::make_shared<offlab::Packet>(Frame(packet, protocolNumber));
  offlab::Packet& p = *shared;

  offlab::RxMeta meta;
  CpuWork w;
  w.packets = 1;
  w.txFrames = 1;
  offlab::Parse(p);
  if (p.l3_ofs != offlab::kNoOffset && protocolNumber == 0x0800) {
    // Headers are written in place (a shared payload is not copied in): the
    // IPv4 header, and the TCP header when there is one.
    const std::size_t ihl = (p.Linear(p.l3_ofs + 1u)[p.l3_ofs] & 0x0f) * 4u;
    const bool l4 = p.l4_ofs != offlab::kNoOffset;
    uint8_t* d = p.Linear(
        std::max<std::size_t>(p.l3_ofs + ihl, l4 ? p.l4_ofs + offlab::hdr::kTcpMinLen : 0));
    uint8_t* ip = d + p.l3_ofs;
    // The guest always writes its IPv4 header checksum (ns-3 leaves 0).
    offlab::PutBe16(ip + offlab::hdr::kIpv4CsumOfs, 0);
    offlab::PutBe16(ip + offlab::hdr::kIpv4CsumOfs, offlab::csum::Compute(ip, ihl));
    w.csumBytes += ihl;
    uint8_t* tcp = l4 ? d + p.l4_ofs : nullptr;
    if (tcp && ip[9] == offlab::hdr::kProtoTcp) {
      const uint16_t l4len = offlab::GetBe16(ip + 2) - static_cast<uint16_t>(ihl);
      const uint16_t payload = l4len - static_cast<uint16_t>((tcp[12] >> 4) * 4u);
      w.copyBytes += payload;  // copy from the sending application
      const uint64_t pseudo = offlab::csum::PseudoIpv4(ip + 12, ip + 16, 6, l4len);
      offlab::PutBe16(tcp + offlab::hdr::kTcpCsumOfs, 0);
      if (m_csumOffload) {
        // CHECKSUM_PARTIAL: the field holds the folded pseudo-header sum.
        offlab::PutBe16(tcp + offlab::hdr::kTcpCsumOfs, offlab::csum::Fold(pseudo));
        meta.l4 = offlab::CsumStatus::kPartial;
      } else {
        offlab::PutBe16(tcp + offlab::hdr::kTcpCsumOfs,
                        offlab::csum::Finish(offlab::PartialSum(p, p.l4_ofs, l4len, pseudo)));
        w.csumBytes += l4len;
      }
      if (m_tso && payload > GetMss()) {
        meta.tso_segsz = GetMss();
        // The host re-writes lengths per segment: the IPv4 checksum is
        // one more thing to finish there.
        meta.ip = offlab::CsumStatus::kPartial;
      }
    }
  }
  Time done;
  if (m_cpu && !m_cpu->Submit(w, &done)) {
    m_cpuDrops++;
    return false;
  }
  m_txPackets++;
  if (!m_host) {
    return true;
  }
  const Time wait = m_cpu ? done - Simulator::Now() : Time(0);
  Simulator::Schedule(wait, [this, shared, meta]() { m_host(std::move(*shared), meta); });
  return true;
}

void VirtioNetDevice::DeliverFromHost(offlab::Sent&& packet) {
  offlab::Packet p = offlab::Packet::Adopt(std::move(packet.frame));
  p.AppendTail(packet.tail);
  offlab::Parse(p);
  p.offloads = packet.offloads;
  p.tso_segsz = packet.tso_segsz;
  // DATA_VALID (good) or NEEDS_CSUM (partial) vouches for the TCP checksum;
  // otherwise the guest's GRO verifies it in software first (Linux
  // skb_gro_checksum_validate), which the guest vCPU pays for.
  offlab::RxStatus st;
  const offlab::CsumStatus l4 = packet.offloads.l4();
  st.l4 = l4 == offlab::CsumStatus::kPartial ? offlab::CsumStatus::kGood : l4;
  st.ip = offlab::CsumStatus::kGood;
  const uint8_t* ip = st.l4 != offlab::CsumStatus::kGood ? Tcp4Headers(p) : nullptr;
  if (ip) {
    const std::size_t ihl = (ip[0] & 0x0f) * 4u;
    const std::size_t l4len = offlab::GetBe16(ip + 2) - ihl;
    if (l4len <= p.SizeFrom(p.l4_ofs)) {
      const uint64_t pseudo = offlab::csum::PseudoIpv4(ip + 12, ip + 16, offlab::hdr::kProtoTcp,
                                                       static_cast<uint16_t>(l4len));
      // Over a shared payload, its slices' sums (the sending NIC's) are reused.
      const bool ok = offlab::csum::Fold(offlab::PartialSum(p, p.l4_ofs, l4len, pseudo)) == 0xffff;
      st.l4 = ok ? offlab::CsumStatus::kGood : offlab::CsumStatus::kBad;
      p.offloads.set_l4(st.l4);
      m_groCsumBytes += static_cast<double>(l4len);
    }
  }
  m_gro.emplace_back(std::move(p), st);
  // NAPI: the guest polls when its vCPU is free, taking what arrived since
  // (at most 64 frames, the virtio-net weight), so batches grow with load.
  if (m_gro.size() >= 64) {
    m_groFlush.Cancel();
    FlushGro();
  } else if (!m_groFlush.IsRunning()) {
    Time at = MicroSeconds(3);
    if (m_cpu) at = std::max(at, m_cpu->GetBusyUntil() - Simulator::Now());
    m_groFlush = Simulator::Schedule(at, &VirtioNetDevice::FlushGro, this);
  }
}

void VirtioNetDevice::FlushGro() {
  std::vector<std::pair<offlab::Packet, offlab::RxStatus>> pending;
  pending.swap(m_gro);
  if (pending.empty()) {
    return;
  }
  const uint32_t frames = static_cast<uint32_t>(pending.size());
  offlab::PacketBatch merged = offlab::Coalesce(std::move(pending), 65535);
  for (std::size_t i = 0; i < merged.size(); i++) {
    Receive(std::move(merged[i]), i == 0 ? frames : 0, i == 0 ? m_groCsumBytes : 0);
  }
  m_groCsumBytes = 0;
}

void VirtioNetDevice::Receive(offlab::Packet p, uint32_t frames, double verifiedBytes) {
  offlab::Parse(p);
  CpuWork w;
  w.packets = 1;
  w.rxFrames = frames;
  const bool l3l4 = p.l3_ofs != offlab::kNoOffset && p.l4_ofs != offlab::kNoOffset &&
                    p.l3_ofs <= p.size() && p.l4_ofs <= p.size();
  // Headers only: the TCP header ends within 20 bytes of l4 when it is one.
  const uint8_t* d =
      l3l4 ? p.Linear(std::max<std::size_t>(p.l3_ofs + 20u, p.l4_ofs + 20u)) : nullptr;
  const uint8_t* ip = d ? d + p.l3_ofs : nullptr;
  const uint8_t* tcp = d ? d + p.l4_ofs : nullptr;
  if (ip && tcp && ip[9] == offlab::hdr::kProtoTcp) {
    const std::size_t ihl = (ip[0] & 0x0f) * 4u;
    const std::size_t l4len = offlab::GetBe16(ip + 2) - ihl;
    w.copyBytes += l4len - (tcp[12] >> 4) * 4u;  // copy to the receiving application
  }
  w.csumBytes += verifiedBytes;
  Time done;
  if (m_cpu && !m_cpu->Submit(w, &done)) {
    m_cpuDrops++;
    return;
  }
  m_rxPackets++;
  const uint16_t proto = offlab::GetBe16(p.Linear(kEthHdr) + 12);
  Simulator::Schedule(m_cpu ? done - Simulator::Now() : Time(0), &VirtioNetDevice::HandUp, this,
                      ToGuestPacket(p), proto);
}

void VirtioNetDevice::HandUp(Ptr<Packet> packet, uint16_t proto) {
  if (!m_rxCallback.IsNull()) {
    m_rxCallback(this, packet, proto, m_peer);
  }
}

uint64_t VirtioNetDevice::GetTxPackets() const { return m_txPackets; }

uint64_t VirtioNetDevice::GetRxPackets() const { return m_rxPackets; }

uint64_t VirtioNetDevice::GetCpuDrops() const { return m_cpuDrops; }

Ptr<Channel> VirtioNetDevice::GetChannel() const { return nullptr; }

void VirtioNetDevice::DoDispose() {
  m_host = nullptr;
  m_cpu = nullptr;
  m_groFlush.Cancel();
  OffloadDeviceBase::DoDispose();
}

}  // namespace ns3
