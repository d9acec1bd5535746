// The framework work of a CPU trainer (models/cpu_framework.hpp): PyTorch eager's operator
// counts per layer, table and optimiser, and the step they add.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "approx.hpp"
#include "models/cpu_framework.hpp"
#include "models/dense_operator.hpp"
#include "models/simulation.hpp"
#include "scenario_fixtures.hpp"

using namespace dlrmsim;
using namespace dlrmsim::models;
using namespace dlrmsim::models::testing;

TEST_CASE("every dense operator has eager operator counts") {
  // A registry check: an operator added without counts would throw in a CPU trainer's step.
  const Scenario s = shipped("pytorch_cpu_step_tiny");
  for (const DenseOperator& op : dense_operators()) {
    DenseLayer l;
    l.op = &op;
    l.name = std::string(op.name);
    CHECK_NOTHROW(eager_layer_operators(l, s.model));
  }
}

TEST_CASE("operator counts follow torch 1.13's modules and single-tensor optimisers") {
  const Scenario s = shipped("pytorch_cpu_step_tiny");
  DenseLayer linear;
  linear.op = &dense_operator("linear");
  // F.linear + activation; AddmmBackward0, TBackward0, activation backward, 2 x AccumulateGrad.
  const EagerOperators l = eager_layer_operators(linear, s.model);
  CHECK(l.forward == 2);
  CHECK(l.backward == 5);
  CHECK(l.parameter_tensors == 2);
  // torch/optim/sgd.py: param.add_; adagrad.py: 6 dense, 15 sparse (see the header's lists).
  CHECK(eager_optimizer_operators(OptimizerKind::sgd, true) == 1);
  CHECK(eager_optimizer_operators(OptimizerKind::adagrad, false) == 6);
  CHECK(eager_optimizer_operators(OptimizerKind::adagrad, true) == 15);
  CHECK(eager_optimizer_operators(OptimizerKind::adam, true) == 24);
  CHECK_FALSE(optimizer_coalesces(OptimizerKind::sgd));
  CHECK(optimizer_coalesces(OptimizerKind::adagrad));
}

TEST_CASE("a CPU trainer's step grows by exactly its operator count x dispatch") {
  // System: one 2-core socket (the Zen 5 guest) training the tiny DLRM alone, SGD, PyTorch
  // eager (configs/scenarios/pytorch_cpu_step_tiny.yaml): 8 tables, bottom MLP 13-64-16, dot
  // interaction, top MLP 64-1 (2 linear layers each). Every framework activity runs on the
  // socket's stream, in program order with the compute, so the step is their sum plus the
  // rest and raising software.host.dispatch by 10 us adds exactly count x 10 us. The count:
  //   forward   4 linear x 2 + dot 7 + 8 tables x 1                         = 23
  //   loss      BCELoss forward 1 + backward 2                               =  3
  //   backward  4 linear x 5 + dot 7 + 8 tables x 2 (EmbeddingBagBackward0, AccumulateGrad) = 43
  //   tables    8 x (zero_ + SGD's add_)                                     = 16
  //   dense     8 tensors x (zero_ + add_)                                   = 16
  // = 101 operators (torch.profiler counts 26 + 44 + 53 for the same step, its extra forward
  // and optimiser operators being views and allocations below a Python call).
  const int operators = 23 + 3 + 43 + 16 + 16;
  const RunReport base = run_scenario(shipped("pytorch_cpu_step_tiny", {"software.host.dispatch=0 us"}));
  const RunReport slow = run_scenario(shipped("pytorch_cpu_step_tiny", {"software.host.dispatch=10 us"}));
  CHECK(slow.step_time.value() - base.step_time.value() == rel(operators * 10e-6).epsilon(1e-6));
  // Without the framework (a compiled step) the dispatch setting has no effect on a CPU trainer.
  const RunReport none = run_scenario(
      shipped("pytorch_cpu_step_tiny", {"software.host.dispatch=10 us", "software.cpu_trainer.framework=none"}));
  const RunReport none0 = run_scenario(
      shipped("pytorch_cpu_step_tiny", {"software.host.dispatch=0 us", "software.cpu_trainer.framework=none"}));
  CHECK(none.step_time.value() == rel(none0.step_time.value()).epsilon(1e-6));
  CHECK(base.step_time.value() > none0.step_time.value());  // elementwise work and the loss remain
}

TEST_CASE("Adagrad adds its per-tensor operators and the coalescing of each sparse gradient") {
  // Same system with Adagrad on tables and MLPs: the operator count changes by
  //   tables 8 x (15 - 1) + dense 8 x (6 - 1) = 152 operators,
  // and each table's gradient (32 lookups of 16 fp32) is coalesced: 256 lookups x
  // coalesce_per_lookup + 2 x their bytes at the socket's cached bandwidth.
  const std::vector<std::string> adagrad{"model.optimizer.embedding=adagrad", "model.optimizer.dense=adagrad"};
  auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.end(), adagrad.begin(), adagrad.end());
    return run_scenario(shipped("pytorch_cpu_step_tiny", extra)).step_time.value();
  };
  const double d0 = with({"software.host.dispatch=0 us", "software.cpu_trainer.coalesce_per_lookup=0 ns"});
  const double d10 = with({"software.host.dispatch=10 us", "software.cpu_trainer.coalesce_per_lookup=0 ns"});
  CHECK(d10 - d0 == rel((101 + 152) * 10e-6).epsilon(1e-6));
  const double c100 = with({"software.host.dispatch=0 us", "software.cpu_trainer.coalesce_per_lookup=100 ns"});
  CHECK(c100 - d0 == rel(8 * 32 * 100e-9).epsilon(1e-6));
}
