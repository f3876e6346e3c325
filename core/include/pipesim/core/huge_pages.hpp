#pragma once
// The big arrays of a run (a task graph's tasks, a trace) are written start to end right after
// they are allocated, and a fresh page costs a fault on first touch: on the development VM about
// 3 µs per 4 KiB page, more than simulating a task. Advising transparent huge pages makes that
// one fault per 2 MiB. A hint only: where the kernel declines it, or off Linux, nothing changes,
// and no result depends on it.

#include <cstddef>
#include <vector>

namespace pipesim::core {

//! Advises huge pages for the 2 MiB-aligned part of [data, data + bytes), if there is one.
void prefer_huge_pages(const void* data, size_t bytes);

//! v.reserve(n), with v's storage advised as huge pages before anything writes to it.
template <class T>
void reserve_huge(std::vector<T>& v, size_t n) {
  v.reserve(n);
  prefer_huge_pages(v.data(), v.capacity() * sizeof(T));
}

}  // namespace pipesim::core
