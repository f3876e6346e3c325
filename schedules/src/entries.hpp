#pragma once
// The shipped schemes' registry entries, each defined beside its generator in
// schedules/src/<name>.cpp; registry.cpp lists them in catalogue order.

#include "pipesim/schedules/registry.hpp"

namespace pipesim::schedules {

const ScheduleEntry& gpipe_entry();
const ScheduleEntry& one_f_one_b_entry();
const ScheduleEntry& dapple_entry();
const ScheduleEntry& pipedream_entry();
const ScheduleEntry& pipedream_2bw_entry();
const ScheduleEntry& gems_entry();
const ScheduleEntry& chimera_entry();
const ScheduleEntry& interleaved_entry();
const ScheduleEntry& interleaved_zb_entry();
const ScheduleEntry& zb_h1_entry();
const ScheduleEntry& zb_h2_entry();
const ScheduleEntry& zb_v_entry();
const ScheduleEntry& dualpipe_entry();
const ScheduleEntry& dualpipev_entry();
const ScheduleEntry& v_half_entry();
const ScheduleEntry& v_min_entry();
const ScheduleEntry& hanayo_entry();
const ScheduleEntry& bitpipe_entry();
const ScheduleEntry& bfs_entry();

}  // namespace pipesim::schedules
