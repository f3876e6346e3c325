#pragma once
// The engine's pending events, earliest (time, sequence) first. Sequences are unique, so the
// order events come out in is fixed by their keys alone, not by how a queue stores them: the
// two queues here give the same order as any priority queue would.
//  - EventQueue: a binary heap.
//  - DelayQueues: most events are "now + a duration" with one of a few durations (t_F, t_B, a
//    transfer's latency); events pushed with one same increment arrive sorted, since now never
//    decreases, so each such increment gets a FIFO and the earliest FIFO head is the next
//    event. Other increments go to a heap. A push and a pop cost a few comparisons instead of
//    a heap's log(events).

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ring_queue.hpp"

namespace pipesim::sim::detail {

//! (time, sequence) order. Event times are never negative, -0 or NaN (durations and latencies
//! are checked to be >= 0 and start from +0), so their bit patterns order as the numbers do:
//! one branch-free integer comparison.
template <class E>
bool before(const E& a, const E& b) {
  const auto ta = std::bit_cast<std::uint64_t>(a.time);
  const auto tb = std::bit_cast<std::uint64_t>(b.time);
  return (ta < tb) | ((ta == tb) & (a.sequence < b.sequence));
}

template <class E>
class EventQueue {
 public:
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  const E& top() const { return heap_.front(); }
  void push(const E& e) {
    size_t i = heap_.size();
    heap_.push_back(e);
    while (i > 0) {
      const size_t parent = (i - 1) / 2;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  void pop() {
    const E last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(last);
  }

 private:
  void sift_down(const E& e) {
    const size_t n = heap_.size();
    size_t i = 0;
    for (;;) {
      size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;
      if (!before(heap_[child], e)) break;
      heap_[i] = heap_[child];
      i = child;
    }
    heap_[i] = e;
  }
  std::vector<E> heap_;
};

template <class E>
class DelayQueues {
 public:
  static constexpr size_t kFifos = 8;

  bool empty() const { return size_ == 0; }

  //! Adds e, whose time is the current time plus `increment`. A `recurring` increment (a
  //! duration many events share) gets a FIFO while there are FIFOs left; others use the heap.
  void push(const E& e, double increment, bool recurring = true) {
    ++size_;
    for (size_t f = 0; f < used_; ++f) {
      if (increments_[f] == increment) {
        fifos_[f].push(e);
        return;
      }
    }
    if (recurring && used_ < kFifos) {
      increments_[used_] = increment;
      fifos_[used_++].push(e);
      return;
    }
    heap_.push(e);
  }

  //! Adds e to the heap, whatever its increment (events recreated out of push order).
  void push_unordered(const E& e) {
    ++size_;
    heap_.push(e);
  }

  //! Removes and returns the earliest event; `fifo` is set to the FIFO it came from (kFifos:
  //! the heap). Requires !empty().
  E take(size_t& fifo) {
    const E* min = heap_.empty() ? nullptr : &heap_.top();
    fifo = kFifos;
    for (size_t f = 0; f < used_; ++f) {
      if (fifos_[f].empty()) continue;
      const E& head = fifos_[f].front();
      if (min == nullptr || before(head, *min)) {
        min = &head;
        fifo = f;
      }
    }
    const E e = *min;
    if (fifo == kFifos) {
      heap_.pop();
    } else {
      fifos_[fifo].pop();
    }
    --size_;
    return e;
  }

  //! The earliest event left in FIFO `fifo` (< kFifos), or nullptr: it is due soon.
  const E* front(size_t fifo) const {
    return fifos_[fifo].empty() ? nullptr : &fifos_[fifo].front();
  }

 private:
  std::array<double, kFifos> increments_{};
  std::array<RingQueue<E>, kFifos> fifos_;
  size_t used_ = 0;
  size_t size_ = 0;  // events in the FIFOs and the heap
  EventQueue<E> heap_;
};

}  // namespace pipesim::sim::detail
