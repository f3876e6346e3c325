#pragma once
// A first-in first-out queue in a ring buffer whose capacity doubles when full: no allocation
// per element, and none at all once it has grown to the largest size it holds.

#include <cstddef>
#include <vector>

namespace pipesim::sim::detail {

template <class T>
class RingQueue {
 public:
  bool empty() const { return size_ == 0; }
  const T& front() const { return buffer_[head_]; }
  void push(const T& e) {
    if (size_ == buffer_.size()) grow();
    buffer_[(head_ + size_++) & (buffer_.size() - 1)] = e;
  }
  T pop() {
    const T e = buffer_[head_];
    head_ = (head_ + 1) & (buffer_.size() - 1);
    --size_;
    return e;
  }

 private:
  void grow() {
    std::vector<T> bigger(buffer_.empty() ? 64 : 2 * buffer_.size());
    for (size_t i = 0; i < size_; ++i)
      bigger[i] = buffer_[(head_ + i) & (buffer_.size() - 1)];
    buffer_ = std::move(bigger);
    head_ = 0;
  }
  std::vector<T> buffer_;  // size a power of two, or empty
  size_t head_ = 0, size_ = 0;
};

}  // namespace pipesim::sim::detail
