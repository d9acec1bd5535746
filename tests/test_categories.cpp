// The category table (models/categories.hpp): the orders derived from it are the published
// ones, and registering it gives every category its own id in table order.
#include <doctest/doctest.h>

#include <string_view>
#include <vector>

#include "models/categories.hpp"

using namespace dlrmsim;
using namespace dlrmsim::models;

TEST_CASE("the report and sweep orders derived from the table are the published ones") {
  // The breakdown of `dlrmsim run` lists dense compute first (exposed time is charged in this
  // order, so overlapped lookups count against the dense part first) and host work last; the
  // sweep CSV's columns put all_to_all before embedding_lookup and have no host_work column.
  // Both orders are in README outputs and users' CSV files, so they must not move.
  const std::vector<std::string_view> report(kReportedCategories.begin(), kReportedCategories.end());
  CHECK(report == std::vector<std::string_view>{"dense_compute", "embedding_lookup", "all_to_all",
                                                "parameter_server_traffic", "all_reduce", "host_device_copy",
                                                "host_work"});
  const std::vector<std::string_view> sweep(kSweepColumnCategories.begin(), kSweepColumnCategories.end());
  CHECK(sweep == std::vector<std::string_view>{"dense_compute", "all_to_all", "embedding_lookup",
                                               "parameter_server_traffic", "all_reduce", "host_device_copy"});
}

TEST_CASE("registering the table names every category once, in table order") {
  // A new graph has only "uncategorised" (id 0); the table's 8 categories get ids 1..8 in
  // table order, so host_device_copy (first row) is 1 and sync (last row) is 8.
  sim::ActivityGraph g;
  const Categories ids = Categories::add_to(g);
  REQUIRE(g.categories().size() == kCategoryTable.size() + 1);
  for (std::size_t i = 0; i < kCategoryTable.size(); ++i) {
    CHECK(ids.*(kCategoryTable[i].id) == i + 1);
    CHECK(g.categories()[i + 1] == kCategoryTable[i].name);
  }
  CHECK(ids.host_device_copy == 1);
  CHECK(ids.sync == 8);
}
