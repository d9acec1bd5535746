// The main of every test program: doctest's, with one check more. A run whose filters select
// no test case fails instead of passing with nothing run: ctest runs each test case by name
// (doctest_add_tests.cmake), and a name that no longer finds its test case would otherwise
// be a test that cannot fail.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

namespace {

bool g_run_ended = false;
unsigned g_selected = 0;

/// Records how many test cases the run's filters selected.
struct SelectedCount : doctest::IReporter {
  explicit SelectedCount(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats& stats) override {
    g_run_ended = true;
    g_selected = stats.numTestCasesPassingFilters;
  }
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

}  // namespace

DOCTEST_REGISTER_LISTENER("selected_count", 0, SelectedCount);

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int result = context.run();
  // Queries (--list-test-cases, --count, --help) run no test case by design.
  if (result != 0 || context.shouldExit() || !g_run_ended) return result;
  if (g_selected == 0) {
    std::fprintf(stderr, "%s: no test case matches the filters given, so nothing was tested\n", argv[0]);
    return 1;
  }
  return result;
}
