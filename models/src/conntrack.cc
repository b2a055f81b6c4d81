#include "offlab/conntrack.h"

#include "offlab/error.h"

namespace offlab {

struct Conntrack::Impl {};

Conntrack::Conntrack() : impl_(std::make_unique<Impl>()) {}
Conntrack::~Conntrack() = default;

bool Conntrack::Execute(Packet&, const CtSpec&, Counters*) {
  throw Error("ct: connection tracking is not implemented yet");
}
size_t Conntrack::connections() const { return 0; }
void Conntrack::Clear() {}

}  // namespace offlab
