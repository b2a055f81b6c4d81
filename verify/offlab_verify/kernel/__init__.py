"""The verifier over the Linux kernel model: the same method as for the OVS
userspace datapath (extract the relation from the compiled core on concrete
witnesses, prove with Z3), with the skb's checksum state as the abstraction."""
