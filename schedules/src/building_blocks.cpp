// The building-block construction (Qi et al., arXiv 2405.15362, §3: building block, repeating,
// squeezing, reordering), following the authors' scheduler for V-Half and V-Min in
// github.com/sail-sg/zero-bubble-pipeline-parallelism (zerobubble/scheduler): passes sit on
// integer slots, every pass takes one slot, and memory is counted in chunk activations (+1 at
// a forward, −1 at its W).

#include "building_blocks.hpp"

#include <algorithm>
#include <tuple>

#include "builders.hpp"
#include "pipesim/core/assert.hpp"

namespace pipesim::schedules::detail {
namespace {

// Pass types on a worker, in the block's order; W passes follow once placed.
enum Type : int { kF0 = 0, kF1 = 1, kI1 = 2, kI0 = 3, kW = 4 };
constexpr int kPeriod = 6;  // F, F, I, I, W, W of one micro-batch on one worker

// One worker's passes: lists[type][micro-batch] = slot (increasing along each list). Four
// lists (W not placed yet), five (one W list: the k-th W follows the k-th backward) or six
// (W of chunk 1, then W of chunk 0).
using Lists = std::vector<std::vector<long>>;

long last_slot(const Lists& lists) {
  long last = -1;
  for (const auto& l : lists)
    if (!l.empty()) last = std::max(last, l.back());
  return last;
}

// Fills the free slots with W passes, in slot order: each free slot takes the oldest pending
// W (split: chunk 1's before chunk 0's); the ones left over follow the last pass.
Lists place_w(Lists lists, bool split) {
  const long last = last_slot(lists);
  std::vector<int> at(static_cast<size_t>(last + 1), -1);
  for (int t = kF0; t <= kI0; ++t)
    for (long s : lists[static_cast<size_t>(t)])
      at[static_cast<size_t>(s)] = t;
  const size_t first_w = lists.size();
  lists.resize(first_w + (split ? 2 : 1));
  int pending[2] = {0, 0};
  long s = 0;
  for (; s <= last; ++s) {
    const int t = at[static_cast<size_t>(s)];
    if (t == kI1 || t == kI0) {
      ++pending[split ? t - kI1 : 0];
    } else if (t < 0) {
      for (int w = 0; w < 2; ++w) {
        if (pending[w] == 0) continue;
        lists[first_w + static_cast<size_t>(w)].push_back(s);
        --pending[w];
        break;
      }
    }
  }
  for (int w = 0; w < 2; ++w)
    for (; pending[w] > 0; --pending[w])
      lists[first_w + static_cast<size_t>(w)].push_back(s++);
  return lists;
}

// Peak chunk activations of one worker. Without W lists, each free slot releases the oldest
// finished backward's activations (where place_w would put its W).
int peak_activations(const Lists& lists) {
  const long last = last_slot(lists);
  std::vector<int> at(static_cast<size_t>(last + 1), -1);
  for (size_t t = 0; t < lists.size(); ++t)
    for (long s : lists[t])
      at[static_cast<size_t>(s)] = static_cast<int>(t);
  const bool w_listed = lists.size() > 4;
  int held = 0, peak = 0, pending = 0;
  for (int t : at) {
    if (t == kF0 || t == kF1) {
      ++held;
    } else if (t >= kW) {
      --held;
    } else if (t >= 0) {
      pending += w_listed ? 0 : 1;
    } else if (pending > 0) {
      --held;
      --pending;
    }
    peak = std::max(peak, held);
  }
  return peak;
}

// The reordering pass: visits every pass in slot order; those of the warm-up (before worker
// 0's first chunk-0 backward; only when W is placed) and of the cool-down (after the last
// micro-batch's first forward) move to the earliest free slot after their dependencies that
// keeps the worker's peak at or under the schedule's peak. The steady phase stays.
void reorder(std::vector<Lists>& workers, bool with_w, int micro_batches) {
  if (with_w)
    for (auto& w : workers)
      w = place_w(std::move(w), false);
  const int d = static_cast<int>(workers.size());
  int limit = 0;
  for (const auto& w : workers)
    limit = std::max(limit, peak_activations(w));

  std::vector<std::tuple<long, int, int, int>> passes;  // slot, worker, type, micro-batch
  for (int r = 0; r < d; ++r) {
    const auto& lists = workers[static_cast<size_t>(r)];
    for (size_t t = 0; t < lists.size(); ++t)
      for (size_t m = 0; m < lists[t].size(); ++m)
        passes.emplace_back(lists[t][m], r, static_cast<int>(t), static_cast<int>(m));
  }
  std::sort(passes.begin(), passes.end());
  std::vector<std::vector<bool>> taken(static_cast<size_t>(d));
  for (int r = 0; r < d; ++r)
    taken[static_cast<size_t>(r)].assign(
        static_cast<size_t>(last_slot(workers[static_cast<size_t>(r)]) + 1), false);

  enum class Phase { WarmUp, Steady, CoolDown } phase = Phase::WarmUp;
  for (const auto& [slot, r, t, m] : passes) {
    Lists& lists = workers[static_cast<size_t>(r)];
    auto& busy = taken[static_cast<size_t>(r)];
    auto at = [&](int worker, int type, int mb) {
      return workers[static_cast<size_t>(worker)][static_cast<size_t>(type)]
                    [static_cast<size_t>(mb)];
    };
    if (t == kI0 && r == 0 && phase == Phase::WarmUp) phase = Phase::Steady;
    const bool stays = phase == Phase::Steady || (phase == Phase::WarmUp && !with_w);
    if (phase == Phase::Steady && t == kF0 && m == micro_batches - 1) phase = Phase::CoolDown;
    if (stays) {
      busy[static_cast<size_t>(slot)] = true;
      continue;
    }
    // Earliest slot: after the pass it depends on (the previous worker down the V for F0 and
    // I1, the next one for F1 and I0; the earlier pass of the block on this worker; for W its
    // backward) and after the same pass of the previous micro-batch.
    long ready = -1;
    if ((t == kF0 || t == kI1) && r > 0) ready = std::max(ready, at(r - 1, t, m));
    if ((t == kF1 || t == kI0) && r + 1 < d) ready = std::max(ready, at(r + 1, t, m));
    if (t > kF0 && t < kW) ready = std::max(ready, at(r, t - 1, m));
    if (t == kW) {
      std::vector<long> backwards = lists[kI1];
      backwards.insert(backwards.end(), lists[kI0].begin(), lists[kI0].end());
      std::nth_element(backwards.begin(), backwards.begin() + m, backwards.end());
      ready = std::max(ready, backwards[static_cast<size_t>(m)]);
    }
    if (m > 0) ready = std::max(ready, at(r, t, m - 1));
    PIPESIM_ASSERT(ready < slot, "a pass of the building block precedes its dependency");
    long& place = lists[static_cast<size_t>(t)][static_cast<size_t>(m)];
    bool moved = false;
    for (long s = ready + 1; s < slot && !moved; ++s) {
      if (busy[static_cast<size_t>(s)]) continue;
      place = s;
      moved = peak_activations(lists) <= limit;
    }
    if (!moved) place = slot;
    busy[static_cast<size_t>(place)] = true;
  }
  if (with_w)
    for (auto& w : workers)
      w.resize(4);
}

}  // namespace

sim::Schedule v_block_schedule(std::string name, int stages, int micro_batches,
                               VBlockSlots (*block)(int stages, int worker)) {
  const int d = stages, n = micro_batches;
  sim::Schedule s = sim::make_linear_schedule(std::move(name), d, n);
  s.virtual_stages = 2 * d;
  s.stage_worker[0] = v_shape_map(d);
  s.split_backward = true;

  std::vector<Lists> workers(static_cast<size_t>(d), Lists(4));
  for (int r = 0; r < d; ++r) {
    const VBlockSlots b = block(d, r);
    for (size_t t = 0; t < 4; ++t)
      for (int m = 0; m < n; ++m)
        workers[static_cast<size_t>(r)][t].push_back(b[t] + long{kPeriod} * m);
  }
  // The authors' order: reorder with W placed (warm-up and cool-down), then again without W
  // (cool-down only), then place W split by chunk.
  reorder(workers, true, n);
  reorder(workers, false, n);

  for (int r = 0; r < d; ++r) {
    const Lists lists = place_w(std::move(workers[static_cast<size_t>(r)]), true);
    const int s0 = r, s1 = 2 * d - 1 - r;
    std::vector<std::pair<long, sim::Op>> ops;
    for (int m = 0; m < n; ++m) {
      const auto mb = static_cast<size_t>(m);
      ops.emplace_back(lists[kF0][mb], fwd(0, s0, m, 0));
      ops.emplace_back(lists[kF1][mb], fwd(0, s1, m, 1));
      ops.emplace_back(lists[kI1][mb], bwd_input(0, s1, m, 1));
      ops.emplace_back(lists[kI0][mb], bwd_input(0, s0, m, 0));
      ops.emplace_back(lists[4][mb], bwd_weight(0, s1, m, 1));
      ops.emplace_back(lists[5][mb], bwd_weight(0, s0, m, 0));
    }
    std::sort(ops.begin(), ops.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    auto& program = s.program[static_cast<size_t>(r)];
    for (size_t i = 0; i < ops.size(); ++i) {
      PIPESIM_ASSERT(i == 0 || ops[i - 1].first < ops[i].first, "two passes share a slot");
      program.push_back(ops[i].second);
    }
  }
  return s;
}

}  // namespace pipesim::schedules::detail
