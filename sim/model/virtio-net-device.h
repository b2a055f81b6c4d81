// SPDX-License-Identifier: Apache-2.0
/**
 * @file
 * @ingroup offload
 * A VM's virtio-net interface, seen from inside the guest: the guest stack
 * (ns-3 TCP/IP) sends through it and, with TSO and checksum offload
 * negotiated, hands the host 64 KB TSO frames whose TCP checksum is partial
 * (the field holds the pseudo-header sum, as Linux leaves it); received
 * packets may be GRO'd and are handed up whole. A guest vCPU (CpuModel)
 * pays for every packet and byte on both paths.
 */
#pragma once

#include <functional>

#include "cpu-model.h"
#include "ns3/event-id.h"
#include "offlab/net/packet.h"
#include "offlab/nic/nic.h"
#include "offlab/ovs/pipeline.h"
#include "offload-device-base.h"

namespace ns3 {

class VirtioNetDevice : public OffloadDeviceBase {
 public:
  static TypeId GetTypeId();
  VirtioNetDevice();

  /** A frame the guest sends, with the metadata of its virtio-net header. */
  using HostHandler = std::function<void(offlab::Packet frame, offlab::RxMeta meta)>;
  void SetHostHandler(HostHandler handler);
  void SetCpu(Ptr<CpuModel> cpu);
  Ptr<CpuModel> GetCpu() const;
  /** The MAC the guest sends to (the peer VM: the overlay is one L2 segment). */
  void SetPeerAddress(Mac48Address peer);
  /** TCP payload bytes per segment the guest's TSO asks for. */
  uint16_t GetMss() const;
  /**
   * Whether the frames handed to the host carry their TCP payload as a shared
   * tail (offlab/net/payload.h) rather than a copy; for hosts that keep it
   * shared (OvsSwitch), off otherwise.
   */
  void SetSharedPayload(bool shared);

  /**
   * The host delivers one packet (a GRO'd one, a TSO packet whole, or a
   * segment). The guest coalesces back-to-back validated segments (virtio
   * GRO in the guest kernel) before its stack sees them.
   */
  void DeliverFromHost(offlab::Sent&& packet);

  uint64_t GetTxPackets() const;
  uint64_t GetRxPackets() const;
  uint64_t GetCpuDrops() const;

  // NetDevice
  Ptr<Channel> GetChannel() const override;
  bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
  uint16_t GetMtu() const override;

 protected:
  void DoDispose() override;

 private:
  offlab::Packet Frame(Ptr<Packet> packet, uint16_t protocolNumber);
  void HandUp(Ptr<Packet> packet, uint16_t proto);
  void FlushGro();
  void Receive(offlab::Packet p, uint32_t frames, double verifiedBytes);

  HostHandler m_host;
  Ptr<CpuModel> m_cpu;
  Mac48Address m_peer;
  bool m_tso;
  bool m_csumOffload;
  uint16_t m_guestMtu;
  uint64_t m_txPackets = 0, m_rxPackets = 0, m_cpuDrops = 0;
  std::vector<std::pair<offlab::Packet, offlab::RxStatus>> m_gro;
  EventId m_groFlush;
  double m_groCsumBytes = 0;
  bool m_sharedPayload = false;
  offlab::Bytes m_scratch;  // a sent packet's bytes, before its payload is shared
};

}  // namespace ns3
