#include <doctest/doctest.h>
#include "common/units.hpp"
using namespace dlrmsim;
TEST_CASE("placeholder") { CHECK(parse<Bytes>("1 KiB").value() == 1024.0); }
