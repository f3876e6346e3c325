#pragma once
// The bytes of pipesim's MPI messages. Every rank runs the same pipesim binary, so numbers travel
// in its native representation (memcpy), and a double arrives bit for bit: the rows rank 0
// writes are the rows a single process computes, to the last digit.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "pipesim/scenario/row.hpp"

namespace pipesim::sweep::mpi {

//! Appends values to a message.
class WireWriter {
 public:
  void u64(std::uint64_t value) { raw(&value, sizeof value); }
  void i32(std::int32_t value) { raw(&value, sizeof value); }
  void f64(double value) { raw(&value, sizeof value); }
  void text(std::string_view value);
  void row(const scenario::SweepRow& row);

  const std::string& bytes() const { return bytes_; }

 private:
  void raw(const void* data, size_t size);

  std::string bytes_;
};

//! Reads a message in the order it was written. A message shorter than what is read is a
//! protocol bug: std::logic_error.
class WireReader {
 public:
  explicit WireReader(std::string_view bytes) : bytes_(bytes) {}

  std::uint64_t u64();
  std::int32_t i32();
  double f64();
  std::string text();
  scenario::SweepRow row();

  bool at_end() const { return bytes_.empty(); }

 private:
  void raw(void* data, size_t size);

  std::string_view bytes_;
};

}  // namespace pipesim::sweep::mpi
