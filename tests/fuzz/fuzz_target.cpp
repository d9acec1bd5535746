// A libFuzzer target for one loader, chosen at build time by DLRMSIM_FUZZ_LOADER.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "tests/fuzz/loaders.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  for (const auto& loader : dlrmsim::fuzz::loaders()) {
    if (loader.name != DLRMSIM_FUZZ_LOADER) continue;
    const std::string defect =
        dlrmsim::fuzz::check_loader(loader, std::string(reinterpret_cast<const char*>(data), size));
    if (!defect.empty()) {
      std::fprintf(stderr, "%s\n", defect.c_str());
      std::abort();
    }
    return 0;
  }
  std::fprintf(stderr, "no loader named %s\n", DLRMSIM_FUZZ_LOADER);
  std::abort();
}
