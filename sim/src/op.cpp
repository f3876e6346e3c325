#include "pipesim/sim/op.hpp"

#include <fmt/format.h>

namespace pipesim::sim {

char op_letter(OpKind kind) {
  switch (kind) {
    case OpKind::Forward: return 'F';
    case OpKind::Backward: return 'B';
    case OpKind::BackwardInput: return 'I';
    case OpKind::BackwardWeight: return 'W';
    case OpKind::Recompute: return 'R';
    case OpKind::Transfer: return 'S';
    case OpKind::AllReduce: return 'A';
    case OpKind::Optimizer: return 'O';
    case OpKind::Collective: return 'C';
    case OpKind::Offload: return 'D';
    case OpKind::Reload: return 'H';
  }
  return '?';
}

bool parse_compute_letter(char c, OpKind& kind) {
  switch (c) {
    case 'F': kind = OpKind::Forward; return true;
    case 'B': kind = OpKind::Backward; return true;
    case 'I': kind = OpKind::BackwardInput; return true;
    case 'W': kind = OpKind::BackwardWeight; return true;
    case 'R': kind = OpKind::Recompute; return true;
    default: return false;
  }
}

std::string describe(const Op& op) {
  if (op.pipeline != 0) {
    return fmt::format("{}(pipeline {}, stage {}, micro-batch {})", op_letter(op.kind),
                       op.pipeline, op.stage, op.micro_batch);
  }
  return fmt::format("{}(stage {}, micro-batch {})", op_letter(op.kind), op.stage,
                     op.micro_batch);
}

}  // namespace pipesim::sim
