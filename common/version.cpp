#include "common/version.hpp"

namespace dlrmsim {

std::string_view version() { return DLRMSIM_VERSION; }

}  // namespace dlrmsim
