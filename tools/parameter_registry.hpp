// Every configuration key, gathered by kind from the tables of the layers that read them
// (common/parameters.hpp), and their formatted forms: `dlrmsim list --keys [KIND]` prints
// the text table, `dlrmsim list --keys --markdown` writes docs/configuration.md.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/parameters.hpp"

namespace dlrmsim::tools {

/// The sweep-file keys (tools/sweep_parameters.cpp).
std::span<const Parameter> sweep_parameters();

/// The kinds, in this order: scenario (its own keys and `placement`), platform, model,
/// software, sweep.
std::vector<ParameterKind> parameter_kinds();

/// The names of the kinds, "scenario | platform | model | software | sweep".
std::string parameter_kind_names();

/// Aligned text: one line per key (key, unit, default, range, meaning), with a heading per kind.
std::string format_parameters_text(const std::vector<ParameterKind>& kinds);

/// The Markdown page docs/configuration.md: a table per kind.
std::string format_parameters_markdown(const std::vector<ParameterKind>& kinds);

}  // namespace dlrmsim::tools
