// The parameter registry: every configuration key declared once, with its meaning, unit,
// default and valid range.
//
// Each configuration kind (scenario, platform, model, software, sweep) has one table of
// Parameter declarations in the layer that owns its reader; tools/parameter_registry.cpp
// gathers them for `dlrmsim list --keys` and docs/configuration.md. Where a reader declares
// its keys as typed parameters (common/param.hpp: models/software_stack.cpp,
// placement/placement.cpp, and the scenario's training, cost and run readers), the rows are
// written from those declarations, default and range from the typed values the reader uses;
// the other tables (topologies/platform_parameters.cpp, models/model_parameters.cpp, ...) are
// written by hand. tests/test_parameters.cpp keeps the tables true both ways: every key a
// reader asks for while loading the shipped files is declared, and every declared key is
// asked for while loading them (and a few rare settings the test adds). Hand-written tables'
// readers may take their key, choices and default from the declaration (`declared`,
// `parameter_key`, `parameter_choices`), so that they are written once:
// topologies/platform_loader.cpp does so for its choices.
//
// Key paths are written as `--set` names them, from the scenario's top level: a platform
// file's keys start with `platform.`, a model file's with `model.`, a software file's with
// `software.` (the same key in an inline section or a referenced file). `*` stands for a list
// element or a freely named mapping entry: `platform.node_templates.*.devices.*.count`.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace dlrmsim {

struct Parameter {
  std::string_view key_path;       // "run.steps", "platform.node_templates.*.links.*.count"
  std::string_view unit;           // "bytes/s (\"900 GB/s\")", "count", "" for text and choices
  std::string_view default_value;  // the value used when the key is absent; "required"; "none" (feature off)
  std::string_view range;          // valid values: "> 0", "native | simgrid", "a file path or a mapping"
  std::string_view meaning;        // one sentence
};

/// The declarations of one kind of configuration file.
struct ParameterKind {
  std::string_view name;         // "platform"
  std::string_view description;  // what the file describes and where such files live
  std::vector<Parameter> parameters;  // gathered from the tables of the layers that read them
};

/// Whether `path` ("platform.node_templates.dgx.devices.0.count") is an instance of the
/// declared `pattern` ("platform.node_templates.*.devices.*.count"): the same number of
/// dot-separated segments, each equal or matched by a `*` segment.
bool key_path_matches(std::string_view pattern, std::string_view path);

/// The declaration of `path` among `parameters`, or nullptr.
const Parameter* find_parameter(std::span<const Parameter> parameters, std::string_view path);

/// The declaration of `path` among `parameters`, for a reader that takes its key, choices and
/// default from it; std::logic_error when it is not declared (a defect the tests catch).
const Parameter& declared(std::span<const Parameter> parameters, std::string_view path);

/// The key a reader asks its mapping for: the last segment of the key path ("kernel").
std::string_view parameter_key(const Parameter& p);

/// The values of a range written as choices, "table_batched | per_table", in order.
std::vector<std::string> parameter_choices(const Parameter& p);

}  // namespace dlrmsim
