// SPDX-License-Identifier: Apache-2.0
/**
 * @file
 * @ingroup offload
 * A full-duplex cable between two OffloadNetDevices that carries frame
 * trains; serialization is the sender's job, propagation the channel's.
 */
#pragma once

#include "frame-train.h"
#include "ns3/channel.h"
#include "ns3/nstime.h"

namespace ns3 {

class OffloadNetDevice;

class OffloadChannel : public Channel {
 public:
  static TypeId GetTypeId();

  /** Attaches one end; a third end is an error. */
  void Attach(Ptr<OffloadNetDevice> device);
  std::size_t GetNDevices() const override;
  Ptr<NetDevice> GetDevice(std::size_t i) const override;
  Time GetDelay() const;
  /**
   * Delivers `train` to the other end: in one event at the last arrival,
   * or one event per frame when `perFrame`.
   */
  void Transmit(Ptr<OffloadNetDevice> from, Ptr<FrameTrain> train, bool perFrame);

 protected:
  void DoDispose() override;

 private:
  Time m_delay;
  Ptr<OffloadNetDevice> m_ends[2];
};

}  // namespace ns3
