#include "sim/native_engine.hpp"
namespace dlrmsim::sim {
SimResult simulate_native(const ActivityGraph&) { throw GraphError("native engine: being written"); }
}
