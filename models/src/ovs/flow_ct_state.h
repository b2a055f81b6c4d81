// ct_state match values as ovs-ofctl reads them (flow_ct_state.cc); internal
// to the flow syntax (flow.cc).
#pragma once

#include <string>

#include "offlab/ovs/flow.h"

namespace offlab::flow_syntax {

// Sets m.ct_state_value and m.ct_state_mask from the text after "ct_state=";
// throws offlab::Error naming the field for text ovs-ofctl refuses.
void ParseCtState(const std::string& v, Match& m);

}  // namespace offlab::flow_syntax
