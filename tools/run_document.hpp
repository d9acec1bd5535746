// Reading a run's JSON document (`dlrmsim run --json`, app/run_report.hpp) for the report
// page: each value is looked up by key, and a missing key or a value of the wrong type is a
// ConfigError that names the document and the key.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace dlrmsim::tools {

/// The value at `key` of `object`; a ConfigError naming `source` and the key when absent.
const nlohmann::json& need(const nlohmann::json& object, const std::string& key, const std::string& source);

/// The number at `key`; a ConfigError naming the key and what was found when not a number.
double number(const nlohmann::json& object, const std::string& key, const std::string& source);

/// The value at `key` as text: a string as it is, anything else as its JSON text.
std::string text(const nlohmann::json& object, const std::string& key, const std::string& source);

}  // namespace dlrmsim::tools
