// SPDX-License-Identifier: Apache-2.0
/**
 * @file
 * @ingroup offload
 * A physical NIC built from an offlab NIC profile: what it does in hardware
 * on transmit (checksums, TSO, tunnel TSO, as the offlab core computes) has
 * already happened to the frames it is given; it serializes them onto an
 * OffloadChannel, and on receive validates checksums per the profile and,
 * when enabled, coalesces (GRO/LRO) before handing packets to its switch.
 */
#pragma once

#include <deque>
#include <functional>
#include <memory>

#include "frame-train.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/traced-callback.h"
#include "offlab/nic/nic.h"
#include "offlab/nic/nic_profile.h"
#include "offlab/ovs/pipeline.h"
#include "offload-device-base.h"
#include "pcapng-writer.h"
#include "trace-comment.h"

namespace ns3 {

class OffloadChannel;

class OffloadNetDevice : public OffloadDeviceBase {
 public:
  static TypeId GetTypeId();
  OffloadNetDevice();

  /** Packets received (after validation and coalescing) and the frames they came from. */
  using PacketHandler = std::function<void(offlab::PacketBatch, uint32_t frames)>;

  /** Throws offlab::Error for an unknown profile. */
  void SetProfile(const std::string& name);
  const offlab::NicProfile& GetProfile() const;
  void Attach(Ptr<OffloadChannel> channel);
  void SetPacketHandler(PacketHandler handler);
  /**
   * Frames as they came off the wire, untouched, for a host that runs its
   * own driver receive (a kernel host: the kernel model's driver, NAPI and
   * GRO). The channel then hands over each train whole when its first frame
   * arrives; the host must not look at a frame before its arrival time.
   */
  using TrainHandler = std::function<void(Ptr<FrameTrain>)>;
  void SetTrainHandler(TrainHandler handler);
  bool TakesWholeTrains() const;
  /** Writes every transmitted frame with its metadata to `path` (pcapng). */
  void EnablePcap(const std::string& path);
  void ClosePcap();

  /**
   * Frames one packet became, in wire order, as the switch handed them over,
   * and the packet as handed to netdev_send (for the trace; may be null).
   */
  bool SendFrames(std::vector<offlab::Sent> frames, std::shared_ptr<TxRecord> tx = nullptr);
  /** Whether a pcap is being written (the switch then keeps tx records). */
  bool IsRecording() const;

  /** Called by the channel. */
  void ReceiveTrain(Ptr<FrameTrain> train);
  /** Most frames one poll of the receive ring takes. */
  uint32_t GetRxBurst() const;

  uint64_t GetTxFrames() const;
  uint64_t GetRxFrames() const;
  uint64_t GetTrains() const;
  uint64_t GetTxDrops() const;
  offlab::CoalesceStats GetGroStats() const;
  DataRate GetDataRate() const;

  // NetDevice
  Ptr<Channel> GetChannel() const override;
  bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;

 protected:
  void DoDispose() override;

 private:
  void StartTransmit();
  void TransmitComplete();
  void Deliver(std::vector<std::pair<offlab::Packet, offlab::RxStatus>> frames);
  void FlushGro();
  Time FrameTime(std::size_t bytes) const;
  mutable std::size_t m_frameTimeBytes = 0;
  mutable DataRate m_frameTimeRate;
  mutable Time m_frameTime;

  offlab::NicProfile m_profile;
  std::string m_profileName;
  Ptr<OffloadChannel> m_channel;
  DataRate m_rate;
  bool m_trainMode;
  bool m_gro;
  uint32_t m_groMaxBytes;
  uint32_t m_txQueueLimit;
  uint32_t m_rxBurst;
  uint64_t m_pcapMaxRecords;
  PacketHandler m_handler;
  TrainHandler m_trainHandler;

  struct Queued {
    std::vector<offlab::Sent> frames;
    std::shared_ptr<TxRecord> tx;
  };
  std::deque<Queued> m_txQueue;
  std::size_t m_txQueuedFrames = 0;
  bool m_busy = false;

  // Per-frame mode: frames arriving back to back are coalesced together,
  // as one NAPI poll would, and flushed when the line goes quiet.
  std::vector<std::pair<offlab::Packet, offlab::RxStatus>> m_groPending;
  EventId m_groFlush;

  std::unique_ptr<PcapNgWriter> m_pcap;
  uint64_t m_txFrames = 0, m_rxFrames = 0, m_trains = 0, m_txDrops = 0;
  offlab::CoalesceStats m_groStats;
  TracedCallback<uint32_t> m_trainTrace;
};

}  // namespace ns3
