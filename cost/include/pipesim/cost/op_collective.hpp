#pragma once
// The collectives inside a compute op's layers: tensor parallelism's all-reduces (or
// all-gather/reduce-scatter pairs with sequence parallelism, tensor_parallel.hpp), and the
// same way later expert parallelism's all-to-alls or context parallelism's ring steps. An op
// holds a list of them, each priced by the profile's algorithm (hardware/collectives.hpp); the
// simulator runs all of an op's collectives as one Collective task (sim/lowering.hpp,
// OpCollectives), one flow whose latency is the sum of their α terms and whose work is the sum
// of their bandwidth terms, sharing each resource in proportion to the tier it loads
// (topology.hpp).

#include <optional>
#include <vector>

#include "pipesim/core/units.hpp"
#include "pipesim/hardware/collectives.hpp"

namespace pipesim::cost {

struct OpCollective {
  hardware::Collective kind = hardware::Collective::AllReduce;
  int ranks = 1;           //!< GPUs of the group
  int nodes = 1;           //!< nodes they span
  core::Bytes bytes{0.0};  //!< each call's buffer (hardware/collectives.hpp's n)
  double calls = 0.0;      //!< how many times the op runs it
  //! A ring exchange instead of `kind` (context parallelism's, context_parallel.hpp): each call
  //! is ranks − 1 steps in which every rank sends `bytes` to the next, at the inter-node tier
  //! when the group spans nodes (nodes > 1); each step runs beside `hidden` seconds of compute,
  //! and only what does not hide, max(0, step − hidden), is charged (its latency and bandwidth
  //! parts scaled alike, so what is charged loads the links in the same proportion).
  bool ring_exchange = false;
  double hidden = 0.0;
  //! The time of one call as its caller priced it (a dispatcher whose traffic no collective
  //! algorithm describes, expert_parallel.hpp's TokenExchange; sharded data parallelism's
  //! per-unit gathers and reduce-scatters, sharded_data_parallel.hpp), instead of `kind`'s;
  //! `bytes` then says what one rank sends. With `hidden` > 0 only max(0, call − hidden) of
  //! each call is charged (exposed_beyond).
  std::optional<hardware::CommTime> priced = std::nullopt;
};

//! What of `time` shows beyond `hidden` seconds of compute beside it, max(0, time − hidden),
//! its latency and bandwidth parts scaled alike (what is charged loads the links in the same
//! proportion).
hardware::CommTime exposed_beyond(const hardware::CommTime& time, double hidden);

//! One call of a ring exchange: (ranks − 1) · max(0, step − hidden), step = α + n/β on its tier
//! ([H94], hardware/collectives.hpp's p2p_time).
hardware::CommTime ring_exposed_time(const hardware::HardwareProfile& hw, const OpCollective& c);

//! The time of all of them, one after the other.
hardware::CommTime collectives_time(const hardware::HardwareProfile& hw,
                                    const std::vector<OpCollective>& collectives);

}  // namespace pipesim::cost
