#include "yaml_documents.h"

#include <yaml-cpp/eventhandler.h>

#include <sstream>

namespace offlab {

namespace {

// Notes where documents start and ignores the rest.
class DocumentStarts : public YAML::EventHandler {
 public:
  size_t count = 0;
  YAML::Mark second = YAML::Mark::null_mark();

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++count == 2) second = mark;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

}  // namespace

YamlDocuments LoadDocuments(const std::string& text, size_t max) {
  // YAML::LoadAll loops for ever, allocating an empty document each time, on
  // a stray ',' outside a flow collection: HandleNextDocument keeps returning
  // true without consuming it (jbeder/yaml-cpp#1040, fixed by PR #1319 after
  // 0.8.0; Debian 12 has 0.7.0). Found by nic_profile_fuzz. So the documents
  // are counted in a loop that stops at `max`, and only the first is built.
  YamlDocuments out;
  out.first = YAML::Load(text);
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts starts;
  while (starts.count < max && parser.HandleNextDocument(starts)) {
  }
  out.count = starts.count;
  out.second = starts.second;
  return out;
}

}  // namespace offlab
