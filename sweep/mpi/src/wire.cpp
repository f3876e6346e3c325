#include "pipesim/sweep/mpi/wire.hpp"

#include <cstring>
#include <optional>
#include <stdexcept>
#include <type_traits>

namespace pipesim::sweep::mpi {
namespace {

// Every field of RowMetrics, in one list that writing and reading share, so the two cannot
// disagree. A field missing here arrives empty, and the MPI tests' byte comparison of real-cost
// rows (every metric present) fails.
template <class Metrics, class Visit>
void for_each_metric(Metrics& m, Visit&& visit) {
  visit(m.workers);
  visit(m.iteration_time);
  visit(m.time_unit);
  visit(m.throughput);
  visit(m.tokens_per_second);
  visit(m.mfu);
  visit(m.bubble_ratio);
  visit(m.exposed_comm_ratio);
  visit(m.peak_memory_max);
  visit(m.peak_memory_min);
  visit(m.memory_headroom);
  visit(m.peak_activations_max);
  visit(m.peak_activations_min);
  visit(m.fits_memory);
  visit(m.model_layers);
  visit(m.model_hidden);
  visit(m.model_heads);
  visit(m.model_kv_heads);
  visit(m.model_ffn_hidden);
  visit(m.model_vocabulary);
  visit(m.model_sequence);
  visit(m.model_experts);
  visit(m.model_params);
  visit(m.iteration_time_low);
  visit(m.iteration_time_high);
  visit(m.iteration_time_basis);
}

}  // namespace

void WireWriter::raw(const void* data, size_t size) {
  bytes_.append(static_cast<const char*>(data), size);
}

void WireWriter::text(std::string_view value) {
  u64(value.size());
  bytes_.append(value);
}

void WireWriter::row(const scenario::SweepRow& row) {
  u64(row.inputs.size());
  for (const std::string& input : row.inputs)
    text(input);
  i32(static_cast<std::int32_t>(row.status.kind));
  text(row.status.reason);
  for_each_metric(row.metrics, [&](const auto& field) {
    using T = typename std::decay_t<decltype(field)>::value_type;
    i32(field.has_value() ? 1 : 0);
    if (!field) return;
    if constexpr (std::is_same_v<T, std::string>) {
      text(*field);
    } else if constexpr (std::is_same_v<T, double>) {
      f64(*field);
    } else {  // int and bool
      i32(static_cast<std::int32_t>(*field));
    }
  });
}

void WireReader::raw(void* data, size_t size) {
  if (bytes_.size() < size) throw std::logic_error("pipesim MPI message: truncated");
  std::memcpy(data, bytes_.data(), size);
  bytes_.remove_prefix(size);
}

std::uint64_t WireReader::u64() {
  std::uint64_t value = 0;
  raw(&value, sizeof value);
  return value;
}

std::int32_t WireReader::i32() {
  std::int32_t value = 0;
  raw(&value, sizeof value);
  return value;
}

double WireReader::f64() {
  double value = 0;
  raw(&value, sizeof value);
  return value;
}

std::string WireReader::text() {
  const std::uint64_t size = u64();
  if (bytes_.size() < size) throw std::logic_error("pipesim MPI message: truncated text");
  std::string value(bytes_.substr(0, size));
  bytes_.remove_prefix(size);
  return value;
}

scenario::SweepRow WireReader::row() {
  scenario::SweepRow row;
  row.inputs.resize(u64());
  for (std::string& input : row.inputs)
    input = text();
  row.status.kind = static_cast<scenario::Status::Kind>(i32());
  row.status.reason = text();
  for_each_metric(row.metrics, [&](auto& field) {
    using T = typename std::decay_t<decltype(field)>::value_type;
    if (i32() == 0) return;
    if constexpr (std::is_same_v<T, std::string>) {
      field = text();
    } else if constexpr (std::is_same_v<T, double>) {
      field = f64();
    } else if constexpr (std::is_same_v<T, bool>) {
      field = i32() != 0;
    } else {
      field = static_cast<T>(i32());
    }
  });
  return row;
}

}  // namespace pipesim::sweep::mpi
