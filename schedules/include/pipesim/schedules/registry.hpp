#pragma once
// The catalogue of schedules. A scheme is one entry: its name, description and citation, its
// own options (typed: name, kind, default, range, help), the constraints its parameters must
// meet, its traits, the shape it runs at, the variants search explores, and its generator.
// make_schedule() is the one way to generate: it resolves the scheme's defaults, checks every
// rule, calls the generator and names the result, once. Everything else (the CLI's options and
// help, `pipesim list schedules`, sweeps, search, the task estimate, Python) reads the entry; no
// code outside schedules/ compares a schedule's name.
//
// A new scheme is one file (its generator and entry) plus one line in the catalogue
// (schedules/src/registry.cpp); a plug-in or test registers one with a static Registration.

#include <boost/iterator/indirect_iterator.hpp>
#include <boost/range/iterator_range.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipesim/core/check.hpp"
#include "pipesim/core/option_spec.hpp"
#include "pipesim/sim/schedule.hpp"

namespace pipesim::schedules {

//! What a run asks of a generator: D, N and the scheme's own options by name (absent = the
//! scheme's default). After resolve() every option the scheme declares is set.
struct ScheduleParams {
  int stages = 4;         //!< D: pipeline ranks (workers of one replica)
  int micro_batches = 8;  //!< N per iteration
  core::OptionValues options;
};

//! Upper bounds that keep a run's task count sane (and the integer ids in range).
inline constexpr int kMaxStages = 4096;
inline constexpr int kMaxMicroBatches = 1 << 20;

//! One rule on a scheme's resolved parameters.
struct Constraint {
  std::string_view option;                        //!< the option blamed when the rule fails
  bool (*holds)(const ScheduleParams&);           //!< on resolved params
  std::string (*problem)(const ScheduleParams&);  //!< what is wrong and what is allowed
};

//! What a scheme is, beyond its options.
struct SchemeTraits {
  bool split_backward = false;  //!< backward as I (input) + W (weights): zero-bubble family
  bool asynchronous = false;    //!< no flush between weight updates: steady-state metrics
};

//! A variant of a scheme's options that search explores for one (D, N).
struct SearchVariant {
  core::OptionValues options;
  std::string pruned;  //!< why this variant cannot run ("" = simulate it)
  //! Its ops run at micro-batch size B / micro_batch_divisor (sim::Schedule's), so search gives
  //! it B = b · divisor for ops of size b: every candidate trains the mini-batch asked for.
  int micro_batch_divisor = 1;
};

//! What search knows when it asks a scheme for its variants.
struct SearchContext {
  int stages = 0;
  int micro_batches = 0;
  int layers = 0;  //!< transformer layers of the model (0 = unknown)
};

struct ScheduleEntry {
  std::string name;         //!< the registry name a run asks for
  std::string description;  //!< one line
  std::string citation;     //!< the paper or code it follows
  //! Other names a run may ask for it by (PyTorch's schedule class names); like the name,
  //! matched case-insensitively.
  std::vector<std::string> aliases;
  SchemeTraits traits;
  //! The scheme's own options (beyond stages and micro_batches, which every scheme takes). An
  //! option name means one thing across schemes: schemes that share one declare the same kind.
  std::vector<core::OptionSpec> options;
  //! Checked in order on resolved params after stages and micro_batches are in range; the
  //! first failing one is reported.
  std::vector<Constraint> constraints;
  //! The generator, on resolved, checked params. make_schedule() names the result.
  sim::Schedule (*make)(const ScheduleParams& params) = nullptr;
  //! The shape the scheme runs at, as option values, for those that describe it whether or not
  //! the scheme lets a user set them: `chunks` (model chunks per worker), `pipelines` (model
  //! copies with their own stage map, each holding a copy of its stages' weights),
  //! `iterations` (iterations listed). nullptr, or a name left out: 1.
  core::OptionValues (*shape)(const ScheduleParams& params) = nullptr;
  //! The option variants search explores for one (D, N); nullptr: only the defaults.
  std::vector<SearchVariant> (*variants)(const SearchContext& context) = nullptr;
};

//! Every registered scheme: the shipped catalogue in order, then the registered ones in
//! registration order; a range of `const ScheduleEntry&`. (Boost's indirect iterator rather
//! than std::views::transform: clang 14, which builds the fuzzers, rejects libstdc++ 12's.)
using Catalogue = boost::iterator_range<boost::indirect_iterator<const ScheduleEntry* const*>>;
Catalogue all_schedules();

//! The scheme with that name or alias, ignoring case ("1F1B", "Schedule1F1B"); nullptr when
//! there is none.
const ScheduleEntry* find_schedule(std::string_view name);

//! Registers a scheme from outside the catalogue (a plug-in, a test): a static object in the
//! scheme's own file. Registrations happen before main(); the catalogue is read-only after.
class Registration {
 public:
  explicit Registration(const ScheduleEntry& (*entry)());
};

//! Whether schedule `name` takes option `option`: stages and micro_batches for every scheme,
//! the others only where declared. False for an unknown schedule or option.
bool accepts(std::string_view name, std::string_view option);

//! The declaration of option `option` by the first scheme that declares it, or nullptr.
const core::OptionSpec* scheme_option(std::string_view option);
//! Every scheme option, once, in catalogue order of first declaration.
std::vector<const core::OptionSpec*> scheme_options();

//! `params` with the scheme's defaults filled in for the options it declares and not given;
//! throws core::ConfigError for an unknown schedule, an option the scheme does not take, or a
//! value out of the option's range.
ScheduleParams resolve(std::string_view name, const ScheduleParams& params);

//! Whether make_schedule(name, params) would generate: the first rule `params` break (unknown
//! name, an option the scheme does not take, a range, a constraint), as the error make_schedule
//! would throw. Cheap: no schedule is built.
core::Check check_params(std::string_view name, const ScheduleParams& params);

//! The shape a run of `name` with `params` has (resolved): chunks, pipelines, iterations.
//! Requires check_params(name, params).ok().
struct Shape {
  int chunks = 1;
  int pipelines = 1;
  int iterations = 1;
};
Shape shape_of(std::string_view name, const ScheduleParams& params);

//! The shape of a generated schedule, as ScheduleEntry::shape gives it before generating:
//! `chunks` (virtual stages per worker), `pipelines`, `iterations`.
core::OptionValues shape_of(const sim::Schedule& schedule);

//! Tasks (compute ops and the transfers between workers) of one run, without generating it:
//! micro-batches × iterations × D × chunks × compute kinds (2, or 3 with a split backward) × 2
//! for transfers. An upper estimate, within a factor of 3 of the real count for every
//! registered scheme (tested). An unknown name or invalid params are estimated as 1F1B's;
//! never throws.
double estimate_tasks(std::string_view name, const ScheduleParams& params);

//! Generates `name`; throws core::ConfigError for an unknown name or parameters the scheme does
//! not accept (naming the option and the allowed values).
sim::Schedule make_schedule(std::string_view name, const ScheduleParams& params);

}  // namespace pipesim::schedules
