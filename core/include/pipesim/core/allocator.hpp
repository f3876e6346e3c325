#pragma once
// A sweep or search builds and drops the same large arrays (task graph, trace) once per
// configuration. glibc gives freed blocks of that size back to the kernel (munmap, or trimming
// the heap's top), so the next configuration faults every page in again, zeroed: a third of a
// 260k-task replay's time on the development VM (bench/engine_bench.cpp). Keeping freed memory
// in the heap for reuse removes that, and raises no peak: the next run takes the same blocks.

namespace pipesim::core {

//! Call once, first thing in main(): freed blocks up to 32 MiB stay in the heap for reuse
//! instead of going back to the kernel. A tuning only: off glibc it does nothing, and no
//! result depends on it.
void keep_freed_memory_for_reuse();

}  // namespace pipesim::core
