#include "pipesim/hardware/collectives/collective_algorithm.hpp"

namespace pipesim::hardware {

CommTime operator+(CommTime a, const CommTime& b) {
  a.latency += b.latency;
  a.intra += b.intra;
  a.inter += b.inter;
  return a;
}

CommTime operator*(double k, CommTime t) {
  t.latency = t.latency * k;
  t.intra = t.intra * k;
  t.inter = t.inter * k;
  return t;
}

const char* collective_name(Collective c) {
  switch (c) {
    case Collective::AllReduce:
      return "all-reduce";
    case Collective::ReduceScatter:
      return "reduce-scatter";
    case Collective::AllGather:
      return "all-gather";
    case Collective::AllToAll:
      return "all-to-all";
  }
  return "?";
}

CommTime comm_time(double latency, double bandwidth, bool inter) {
  CommTime t;
  t.latency = core::Seconds(latency);
  (inter ? t.inter : t.intra) = core::Seconds(bandwidth);
  return t;
}

}  // namespace pipesim::hardware
