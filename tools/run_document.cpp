#include "tools/run_document.hpp"

#include "common/config.hpp"

namespace dlrmsim::tools {

using nlohmann::json;

const json& need(const json& object, const std::string& key, const std::string& source) {
  if (!object.is_object() || !object.contains(key)) {
    throw ConfigError(source + ": not a run report of `dlrmsim run --json`: missing key '" + key + "'");
  }
  return object.at(key);
}

double number(const json& object, const std::string& key, const std::string& source) {
  const json& v = need(object, key, source);
  if (!v.is_number()) throw ConfigError(source + ": key '" + key + "': expected a number, found " + v.dump());
  return v.get<double>();
}

std::string text(const json& object, const std::string& key, const std::string& source) {
  const json& v = need(object, key, source);
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace dlrmsim::tools
