// SPDX-License-Identifier: Apache-2.0
#include "offload-device-base.h"

#include "ns3/channel.h"
#include "ns3/log.h"

namespace ns3 {

NS_LOG_COMPONENT_DEFINE("OffloadDeviceBase");
NS_OBJECT_ENSURE_REGISTERED(OffloadDeviceBase);

TypeId OffloadDeviceBase::GetTypeId() {
  static TypeId tid =
      TypeId("ns3::OffloadDeviceBase").SetParent<NetDevice>().SetGroupName("Offload");
  return tid;
}

void OffloadDeviceBase::SetIfIndex(const uint32_t index) { m_ifIndex = index; }

uint32_t OffloadDeviceBase::GetIfIndex() const { return m_ifIndex; }

void OffloadDeviceBase::SetAddress(Address address) {
  m_address = Mac48Address::ConvertFrom(address);
}

Address OffloadDeviceBase::GetAddress() const { return m_address; }

bool OffloadDeviceBase::SetMtu(const uint16_t mtu) {
  m_mtu = mtu;
  return true;
}

uint16_t OffloadDeviceBase::GetMtu() const { return m_mtu; }

bool OffloadDeviceBase::IsLinkUp() const { return true; }

void OffloadDeviceBase::AddLinkChangeCallback(Callback<void>) {}

bool OffloadDeviceBase::IsBroadcast() const { return true; }

Address OffloadDeviceBase::GetBroadcast() const { return Mac48Address::GetBroadcast(); }

bool OffloadDeviceBase::IsMulticast() const { return false; }

Address OffloadDeviceBase::GetMulticast(Ipv4Address) const { return Mac48Address::GetBroadcast(); }

Address OffloadDeviceBase::GetMulticast(Ipv6Address) const { return Mac48Address::GetBroadcast(); }

bool OffloadDeviceBase::IsBridge() const { return false; }

bool OffloadDeviceBase::IsPointToPoint() const { return false; }

bool OffloadDeviceBase::SendFrom(Ptr<Packet> packet, const Address&, const Address& dest,
                                 uint16_t proto) {
  return Send(packet, dest, proto);
}

Ptr<Node> OffloadDeviceBase::GetNode() const { return m_node; }

void OffloadDeviceBase::SetNode(Ptr<Node> node) { m_node = node; }

bool OffloadDeviceBase::NeedsArp() const { return false; }

void OffloadDeviceBase::SetReceiveCallback(NetDevice::ReceiveCallback cb) { m_rxCallback = cb; }

void OffloadDeviceBase::SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb) {
  m_promiscCallback = cb;
}

bool OffloadDeviceBase::SupportsSendFrom() const { return false; }

void OffloadDeviceBase::DoDispose() {
  m_node = nullptr;
  m_rxCallback.Nullify();
  m_promiscCallback.Nullify();
  NetDevice::DoDispose();
}

}  // namespace ns3
