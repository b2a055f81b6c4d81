// The IBM Power virtual Ethernet driver (drivers/net/ethernet/ibm/ibmveth.c)
// as a transmit device: the features it registers and what
// ibmveth_start_xmit hands the hypervisor. This decided the seed setup of an
// ibmveth trunk bridged by OVS: with no NETIF_F_FRAGLIST (v4.11) a GRO'd
// frag_list skb is segmented at MSS in software before the driver; an active
// trunk gets FRAGLIST (by v4.19) and the driver linearizes the skb and sends
// it as one largesend; since the long-term-buffer copy (by v6.1) the driver
// copies only the linear part and page frags, so such an skb is dropped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "offlab/linux/features.h"
#include "offlab/linux/skb.h"
#include "offlab/linux/version.h"
#include "offlab/net/counters.h"

namespace offlab::kernel {

struct IbmvethConfig {
  bool illan_options = true;    // "ibm,illan-options": checksum offload
  bool large_send = true;       // firmware reports IBMVETH_ILLAN_LRG_SND_SUPPORT
  bool old_large_send = false;  // the old_large_send module parameter
  bool fw_large_send = true;    // adapter->fw_large_send_support (PLSO)
  bool active_trunk = true;     // IBMVETH_ILLAN_ACTIVE_TRUNK
};

// dev->features after ibmveth_probe (hw_enc_features none).
DeviceFeatures IbmvethFeatures(const IbmvethConfig& cfg, KernelVersion kv);

struct IbmvethTx {
  bool sent = false;
  std::string drop;  // why not sent ("" when sent)
  SkBuff skb;        // the bytes and state handed to h_send_logical_lan
  bool largesend = false;
  uint16_t mss = 0;             // the mss argument (0 = none)
  size_t linearized_bytes = 0;  // copied by __skb_linearize in the driver
};

// ibmveth_start_xmit for an skb validate_xmit_skb let through. Counters:
// "ibmveth_tx_linearize" (+ "_bytes"), "ibmveth_tx_large_packets", "ibmveth_tx_dropped".
IbmvethTx IbmvethStartXmit(SkBuff skb, const IbmvethConfig& cfg, KernelVersion kv,
                           Counters* counters = nullptr);

}  // namespace offlab::kernel
