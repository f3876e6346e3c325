#pragma once
// One generator per scheme, each in its own file (schedules/src/<name>.cpp).

#include "pipesim/schedules/registry.hpp"

namespace pipesim::schedules {

sim::Schedule make_gpipe(const ScheduleParams& params);
sim::Schedule make_1f1b(const ScheduleParams& params);
sim::Schedule make_dapple(const ScheduleParams& params);
sim::Schedule make_pipedream(const ScheduleParams& params);
sim::Schedule make_pipedream_2bw(const ScheduleParams& params);
sim::Schedule make_gems(const ScheduleParams& params);
sim::Schedule make_chimera(const ScheduleParams& params);
sim::Schedule make_interleaved(const ScheduleParams& params);
sim::Schedule make_zb_h1(const ScheduleParams& params);
sim::Schedule make_zb_h2(const ScheduleParams& params);
sim::Schedule make_zb_v(const ScheduleParams& params);
sim::Schedule make_dualpipe(const ScheduleParams& params);
sim::Schedule make_dualpipev(const ScheduleParams& params);

//! Asynchronous 1F1B over `iterations` × `micro_batches` micro-batches, no flush (PipeDream and
//! PipeDream-2BW share this order; they differ in weight versions).
sim::Schedule make_async_1f1b(std::string name, int stages, int micro_batches, int iterations);

}  // namespace pipesim::schedules
