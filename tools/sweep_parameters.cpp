// The sweep-file keys (configs/sweeps/*.yaml), as load_sweep (app/sweep.cpp) reads them.
#include "tools/parameter_registry.hpp"

namespace dlrmsim::tools {
namespace {

constexpr Parameter kSweepParameters[] = {
    {"base", "", "required (without points)", "a scenario file path (next to the sweep, then the data search path) or a mapping",
     "The scenario every point starts from."},
    {"combine", "", "grid", "grid | zip", "grid: cartesian product of the axes (first axis slowest); zip: axes in step."},
    {"axes", "", "required (without points)", "a list of axes", "What varies from point to point."},
    {"axes.*.key", "", "required (or keys)", "a key path, as for --set", "The key one axis varies."},
    {"axes.*.keys", "", "none (use key)", "a non-empty list of key paths", "Linked keys that vary together."},
    {"axes.*.values", "", "required (or range)", "a non-empty list (of lists for keys; at most 10^6)",
     "The values the axis takes."},
    {"axes.*.range", "", "none (use values)", "{from, to, step, unit}", "Evenly spaced numbers."},
    {"axes.*.range.from", "", "required", "a number", "First value."},
    {"axes.*.range.to", "", "required", ">= from", "Last value (included when a step lands on it)."},
    {"axes.*.range.step", "", "required", "> 0", "Step between values."},
    {"axes.*.range.unit", "", "\"\"", "a unit (\"Gbit/s\")", "Unit appended to every value."},
    {"points", "", "none", "a list of scenario files, relative to the sweep", "Points given as scenario files (instead of base and axes)."},
    {"points_dir", "", "none", "a directory, relative to the sweep", "Every .yaml/.yml scenario file in it is a point."},
};

}  // namespace

std::span<const Parameter> sweep_parameters() { return kSweepParameters; }

}  // namespace dlrmsim::tools
