// SPDX-License-Identifier: Apache-2.0
/**
 * @file
 * @ingroup offload
 * The NetDevice plumbing the offload module's devices share (addresses,
 * MTU, link state, callbacks), so each device file holds only its behaviour.
 */
#pragma once

#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/node.h"

namespace ns3 {

/**
 * @ingroup offload
 * An Ethernet-like device that is always up and needs no ARP (the offload
 * scenarios install static neighbours).
 */
class OffloadDeviceBase : public NetDevice {
 public:
  static TypeId GetTypeId();

  void SetIfIndex(const uint32_t index) override;
  uint32_t GetIfIndex() const override;
  void SetAddress(Address address) override;
  Address GetAddress() const override;
  bool SetMtu(const uint16_t mtu) override;
  uint16_t GetMtu() const override;
  bool IsLinkUp() const override;
  void AddLinkChangeCallback(Callback<void> callback) override;
  bool IsBroadcast() const override;
  Address GetBroadcast() const override;
  bool IsMulticast() const override;
  Address GetMulticast(Ipv4Address multicastGroup) const override;
  Address GetMulticast(Ipv6Address addr) const override;
  bool IsBridge() const override;
  bool IsPointToPoint() const override;
  bool SendFrom(Ptr<Packet> packet, const Address& source, const Address& dest,
                uint16_t protocolNumber) override;
  Ptr<Node> GetNode() const override;
  void SetNode(Ptr<Node> node) override;
  bool NeedsArp() const override;
  void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
  void SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb) override;
  bool SupportsSendFrom() const override;

 protected:
  void DoDispose() override;

  Ptr<Node> m_node;
  Mac48Address m_address;
  uint32_t m_ifIndex = 0;
  uint16_t m_mtu = 1500;
  NetDevice::ReceiveCallback m_rxCallback;
  NetDevice::PromiscReceiveCallback m_promiscCallback;
};

}  // namespace ns3
