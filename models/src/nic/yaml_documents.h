// Reading a YAML text that should hold one document, without yaml-cpp's
// LoadAll (see yaml_documents.cc).
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <string>

namespace offlab {

struct YamlDocuments {
  YAML::Node first;   // Null when the text holds no document
  size_t count = 0;   // documents found, counting no further than `max`
  YAML::Mark second;  // where the second one starts, if any
};

// Throws YAML::Exception for malformed YAML in any of the documents it reads.
YamlDocuments LoadDocuments(const std::string& text, size_t max = 2);

}  // namespace offlab
