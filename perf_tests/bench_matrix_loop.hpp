#pragma once
// The driver loop shared by every matrix kernel of sprocket-bench:
//  - run_matrices: the optional stream lines first (so the roofline figure comes from the same
//    run), then every --matrix loaded (or its error reported) and run for the --scalar /
//    --offset types the user asked for;
//  - measure_section: what every kernel does with one matrix (one section of the output) once it
//    has built its candidates (ours per variant, then the peers) and counted its bytes and flops:
//    the optional --check, the interleaved timing, and one record per candidate with the median,
//    GB/s, GFLOP/s, ratio_vs_<peer>, the problem and the roof (stream_fraction);
//  - the pieces the SpMV-like kernels share: x / y / y0 (make_vector_inputs) and their --check
//    against reference::spmv (check_candidates).
// A kernel supplies only what differs: its candidates, their bytes, its check and its extra keys.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "Sprocket_Operator.hpp"
#include "Sprocket_Reference.hpp"
#include "impl/utils/host_isa.hpp"
#include "bench_common.hpp"
#include "bench_stream.hpp"

namespace sprocket_bench {

template <class T>
struct type_tag {
  using type = T;
};

template <class Scalar>
const char* scalar_name() {
  return std::is_same_v<Scalar, float> ? "float" : "double";
}
template <class Offset>
const char* offset_name() {
  return std::is_same_v<Offset, int> ? "int" : "size_t";
}

/// run_one(type_tag<Scalar>, type_tag<Offset>, args, name, host, stream_gbps) -> exit status of
/// that matrix (0 or 1): a kernel passes its run_matrix overload for the tags. Returns 1 if any
/// matrix failed to load, run or check.
template <class RunOne>
int run_matrices(const Args& args, RunOne&& run_one) {
  int status = 0;
  double stream_gbps = 0;
  if (args.stream) {
    bool failed = false;
    stream_gbps = stream::stream_lines(args, &failed);
    if (failed) status = 1;
  }
  for (const std::string& name : args.matrices) {
    Sprocket::HostCsr host;
    if (!load_matrix_or_report(name, host)) {
      status = 1;
      continue;
    }
    try {
      int s = 0;
#ifdef SPROCKET_BENCH_DOUBLE_INT_ONLY
      // Built for double / int alone (SPROCKET_BENCH_TYPES=double_int): parse_args refused the others.
      s = run_one(type_tag<double>{}, type_tag<int>{}, args, name, host, stream_gbps);
#else
      const bool dbl = args.scalar == "double", small = args.offset == "int";
      if (dbl && small) s = run_one(type_tag<double>{}, type_tag<int>{}, args, name, host, stream_gbps);
      else if (dbl) s = run_one(type_tag<double>{}, type_tag<size_t>{}, args, name, host, stream_gbps);
      else if (small) s = run_one(type_tag<float>{}, type_tag<int>{}, args, name, host, stream_gbps);
      else s = run_one(type_tag<float>{}, type_tag<size_t>{}, args, name, host, stream_gbps);
#endif
      status = std::max(status, s);
    } catch (const std::exception& e) {
      std::cerr << "sprocket-bench: " << name << ": " << e.what() << "\n";
      status = 1;
    }
  }
  return status;
}

/// One measured implementation of a section: ours (one per variant) or a peer.
struct Candidate {
  std::string impl;     ///< "sprocket" for ours, else the peer's name
  std::string variant;  ///< ours: the variant; peers: "default" (or what the peer's set-up chose)
  std::function<void()> apply;
  /// Peers that compute into storage of their own (graphblas): copies the last result into the
  /// section's output View. --check runs it after apply; it is never timed.
  std::function<void()> fetch_result;
  /// Runs untimed after every call of apply (warm-ups too): drops what apply produced (spgemm: the C
  /// each full product allocates), so the interleaved runs hold one result at a time and freeing
  /// it is outside everyone's time. Empty: nothing to drop.
  std::function<void()> release;
  /// Peers with several algorithms (cuSPARSE, GraphBLAS methods, Kokkos Kernels): the one this line
  /// ran (after a trial of all where the peer's experts would pick the fastest); "" for none.
  std::string peer_algorithm;
  Record plan_keys;  ///< ours: what the plan runs (chosen_kernel, ...), right after variant
  Record details;    ///< fields only this implementation has, after setup_seconds
  /// Fields measured while apply ran (the timed runs and warm-ups): read when the line is written,
  /// after details. Empty: none.
  std::function<Record()> measured_details;
  double bytes = -1;               ///< bytes per apply of this implementation; < 0: the section's
  double setup_seconds = -1;       ///< analysis / set-up (one measurement), < 0 when not measured
  double preprocess_seconds = -1;  ///< plan construction reported with preprocess_applies, < 0: none
  std::string note;
};

/// SPROCKET_BENCH_CORRUPT (corrupts): every candidate of the implementation it names runs
/// `corrupt` after each apply, or after fetch_result where it has one (that writes its result into
/// the section's output), so that each result it delivers, the checked one included, is wrong.
/// corrupt changes the section's output where the candidates write it (add_one_to_first_entry).
inline void corrupt_named_candidates(std::vector<Candidate>& candidates, const std::function<void()>& corrupt) {
  for (Candidate& c : candidates) {
    if (!corrupts(c.impl)) continue;
    std::function<void()>& last = c.fetch_result ? c.fetch_result : c.apply;
    last = [run = last, corrupt] {
      run();
      corrupt();
    };
  }
}

/// What a plan with one kernel per matrix (BsrSpmvPlan, SpmmPlan) runs, for the chosen_kernel
/// key: its kernel, or "portable" when it runs the portable backend (one kernel there).
template <class Plan>
std::string plan_kernel_name(const Plan& plan) {
  // Unqualified: found by argument-dependent lookup where the plan's kernel enum is declared.
  return plan.backend() == Sprocket::Backend::portable ? "portable" : to_string(plan.kernel());
}

/// A candidate's apply closure and set-up time, for peers and plans alike.
inline Candidate candidate(std::string impl, std::string variant, std::function<void()> apply,
                           double setup_seconds = -1, std::string note = "") {
  Candidate c;
  c.impl = std::move(impl);
  c.variant = std::move(variant);
  c.apply = std::move(apply);
  c.setup_seconds = setup_seconds;
  c.note = std::move(note);
  return c;
}

/// A peer's set-up as a user of it pays it, the trial of its ways included: an expert who picks
/// the fastest of a library's algorithms on a problem runs them on it first, as our analysis looks
/// at the matrix first, so the trial is set-up like our analysis (and enters
/// ratio_vs_<peer>_incl_setup_<n> alike). setup_seconds = prepare_seconds (the peer's own
/// preparation before the trial: handles, partitioning, optimisation; < 0: none) + trial_seconds;
/// the parts are on the line as peer_prepare_seconds and peer_trial_seconds.
inline void count_trial_as_setup(Candidate& c, double prepare_seconds, double trial_seconds) {
  c.setup_seconds = std::max(0.0, prepare_seconds) + trial_seconds;
  if (prepare_seconds >= 0) c.details.set("peer_prepare_seconds", prepare_seconds);
  c.details.set("peer_trial_seconds", trial_seconds);
}

/// A peer that offers several ways to run the operation (fastest_way): its candidate runs the
/// fastest, peer_algorithm names it and peer_trials gives each way's median from the trial.
/// setup_seconds is the peer's preparation before the trial (< 0: none measured); the trial's
/// seconds are added to it (count_trial_as_setup).
inline Candidate fastest_candidate(std::string impl, const std::vector<Way>& ways, double setup_seconds = -1,
                                   std::string note = "") {
  std::string trials;
  size_t best = 0;
  Kokkos::fence();
  const double trial_seconds = seconds_of([&] {
    best = fastest_way(ways, &trials);
    Kokkos::fence();
  });
  Candidate c = candidate(std::move(impl), "default", ways.at(best).run, -1, std::move(note));
  c.peer_algorithm = ways[best].name;
  if (ways.size() > 1) c.details.set("peer_trials", trials);
  count_trial_as_setup(c, setup_seconds, trial_seconds);
  return c;
}

/// fastest_candidate on the ways make_ways() returns: what building them takes (Kokkos Kernels'
/// row partitioning, a handle per way) is the peer's preparation, timed (fenced) and added to
/// setup_seconds before the trial.
template <class MakeWays, class = std::enable_if_t<std::is_invocable_r_v<std::vector<Way>, MakeWays&>>>
Candidate fastest_candidate(std::string impl, MakeWays&& make_ways, double setup_seconds = -1, std::string note = "") {
  std::vector<Way> ways;
  Kokkos::fence();
  const double prepare_seconds = seconds_of([&] {
    ways = make_ways();
    Kokkos::fence();
  });
  return fastest_candidate(std::move(impl), ways, std::max(0.0, setup_seconds) + prepare_seconds, std::move(note));
}

/// An object built by make_shared<T>(args...) and the seconds its construction took (fenced
/// before and after: analyses and set-ups may launch device work).
template <class T>
struct Timed {
  std::shared_ptr<T> object;
  double seconds = 0;
};

template <class T, class... CtorArgs>
Timed<T> construct_timed(CtorArgs&&... ctor_args) {
  Timed<T> t;
  Kokkos::fence();
  t.seconds = seconds_of([&] {
    t.object = std::make_shared<T>(std::forward<CtorArgs>(ctor_args)...);
    Kokkos::fence();
  });
  return t;
}

/// What one section (table, or block of JSON lines) is about, besides its candidates.
struct Section {
  Section(std::string kernel_name, std::string matrix_name, int64_t num_rows, int64_t num_cols, int64_t num_nnz)
      : kernel(std::move(kernel_name)), matrix(std::move(matrix_name)), rows(num_rows), cols(num_cols), nnz(num_nnz) {}

  std::string kernel;  ///< the "kernel" key: spmv, bsr, spmm, sddmm, spgemm
  std::string matrix;
  int64_t rows = 0, cols = 0, nnz = 0;
  double bytes = 0;  ///< per apply, for the candidates that do not count their own
  double flops = 0;  ///< per apply
  std::vector<std::string> peers;  ///< ratio_vs_<peer> on our lines (a peer that did not run: none)
  Record keys;          ///< after variant, on every line (spmm: k, layout)
  Record problem_keys;  ///< after repeat, on every line (bsr: block size, fill)
  std::string title_middle;  ///< the title between "nnz N, " and the types ("... per apply, ")
  std::vector<Column> extra_columns;  ///< table columns after of_triad
};

/// "double/int on OpenMP, beta 0, median of 20 (warm-up 3)": the end of every section title.
template <class Scalar, class Offset, class Space>
std::string title_types_and_timing(const Args& args) {
  std::ostringstream os;
  os << scalar_name<Scalar>() << "/" << offset_name<Offset>() << " on " << Space::name() << ", beta "
     << static_cast<double>(static_cast<Scalar>(args.beta)) << ", median of " << args.repeat << " (warm-up "
     << args.warmup << ")";
  return os.str();
}

/// Checks (when check is set: it fills checks[c] for candidate c and returns false on a
/// mismatch), times every candidate interleaved (time_interleaved) and prints one record per
/// candidate. Returns 0, or 1 after a failed check.
template <class Scalar, class Offset, class Space>
int measure_section(const Args& args, const Section& section, const std::vector<Candidate>& candidates,
                    const std::function<bool(std::vector<Record>&)>& check, double stream_gbps) {
  std::vector<Record> checks(candidates.size());
  bool all_ok = true;
  if (check) all_ok = check(checks);

  std::vector<std::function<void()>> fns, release;
  for (const Candidate& c : candidates) {
    fns.push_back(c.apply);
    release.push_back(c.release);
  }
  const std::vector<Timing> t = time_interleaved(fns, args.warmup, args.repeat, release, args.consecutive);

  auto peer_seconds = [&](const std::string& peer) {
    for (size_t c = 0; c < candidates.size(); ++c)
      if (candidates[c].impl == peer) return t[c].median;
    return std::nan("");
  };
  auto peer_setup_seconds = [&](const std::string& peer) {
    for (const Candidate& c : candidates)
      if (c.impl == peer) return c.setup_seconds;
    return -1.0;
  };
  const Scalar alpha = static_cast<Scalar>(args.alpha), beta = static_cast<Scalar>(args.beta);
  std::vector<Record> records;
  for (size_t c = 0; c < candidates.size(); ++c) {
    const Candidate& cand = candidates[c];
    const double s = t[c].median, bytes = cand.bytes >= 0 ? cand.bytes : section.bytes;
    Record r;
    r.set("kernel", section.kernel).set("matrix", section.matrix).set("impl", cand.impl).set("variant", cand.variant);
    r.merge(section.keys).merge(cand.plan_keys);
    if (cand.impl == "sprocket") r.set("host_isa", Sprocket::Impl::host_isa_name());
    if (!cand.peer_algorithm.empty()) r.set("peer_algorithm", cand.peer_algorithm);
    r.set("seconds", s).set("gbps", bytes / s * 1e-9).set("gflops", section.flops / s * 1e-9);
    if (cand.impl == "sprocket")
      for (const std::string& peer : section.peers)
        if (!std::isnan(peer_seconds(peer))) r.set("ratio_vs_" + peer, peer_seconds(peer) / s);
    // What a user pays for n applies, set-up (our analysis or plan construction, the peer's own
    // preparation) included.
    const double our_setup = cand.setup_seconds >= 0 ? cand.setup_seconds : cand.preprocess_seconds;
    if (cand.impl == "sprocket" && our_setup >= 0)
      for (const std::string& peer : section.peers) {
        const double peer_s = peer_seconds(peer), peer_setup = std::max(0.0, peer_setup_seconds(peer));
        if (std::isnan(peer_s)) continue;
        for (const int n : {1, 10, 100})
          r.set("ratio_vs_" + peer + "_incl_setup_" + std::to_string(n),
                (peer_setup + n * peer_s) / (our_setup + n * s));
      }
    if (cand.preprocess_seconds >= 0)
      r.set("preprocess_seconds", cand.preprocess_seconds).set("preprocess_applies", cand.preprocess_seconds / s);
    // Set-up in applies of the same candidate (the analysis budget is counted in these).
    if (cand.setup_seconds >= 0) r.set("setup_applies", cand.setup_seconds / s);
    r.set("rows", section.rows)
        .set("cols", section.cols)
        .set("nnz", section.nnz)
        .set("bytes", static_cast<int64_t>(bytes))
        .set("repeat", args.repeat);
    r.merge(section.problem_keys);
    r.set("order", args.consecutive ? "consecutive" : "rotated");
    r.set("warmup", args.warmup)
        .set("seconds_min", t[c].min)
        .set("seconds_max", t[c].max)
        .set("scalar", scalar_name<Scalar>())
        .set("offset", offset_name<Offset>())
        .set("space", Space::name())
        .set("alpha", static_cast<double>(alpha))
        .set("beta", static_cast<double>(beta));
    if (cand.setup_seconds >= 0) r.set("setup_seconds", cand.setup_seconds);
    r.merge(cand.details);
    if (cand.measured_details) r.merge(cand.measured_details());
    if (stream_gbps > 0) r.set("stream_fraction", bytes / s * 1e-9 / stream_gbps);
    r.merge(checks[c]);
    if (!cand.note.empty()) r.set("note", cand.note);
    records.push_back(r);
  }

  std::ostringstream title;
  title << section.kernel << "  " << section.matrix << "  " << section.rows << " x " << section.cols << ", nnz "
        << section.nnz << ", " << section.title_middle << title_types_and_timing<Scalar, Offset, Space>(args);
  std::vector<Column> columns{{"impl", "impl"},
                              {"variant", "variant"},
                              {"chosen_kernel", "kernel"},
                              {"seconds", "seconds", "%.4e"},
                              {"gbps", "GB/s", "%.2f"},
                              {"gflops", "GFLOP/s", "%.2f"}};
  for (const std::string& peer : section.peers) columns.push_back({"ratio_vs_" + peer, "ratio_vs_" + peer, "%.3f"});
  columns.push_back({"stream_fraction", "of_triad", "%.2f"});
  columns.insert(columns.end(), section.extra_columns.begin(), section.extra_columns.end());
  columns.push_back({"setup_seconds", "setup_s", "%.3g"});
  columns.push_back({"check", "check"});
  columns.push_back({"err_norm", "err_norm", "%.1e"});
  emit_section(args, title.str(), records, columns);
  return all_ok ? 0 : 1;
}

/// x (cols) and y0 (rows) of y = alpha A x + beta y0: deterministic values in [-1, 1) (not
/// zeros, not constant), on the device and as doubles for the reference; y starts as y0.
template <class Vec>
struct VectorInputs {
  Vec x, y, y0;
  std::vector<double> x_ref, y0_ref;
};

template <class Vec>
VectorInputs<Vec> make_vector_inputs(int64_t rows, int64_t cols) {
  using Scalar = typename Vec::non_const_value_type;
  VectorInputs<Vec> in;
  in.x = Vec(Kokkos::ViewAllocateWithoutInitializing("sprocket-bench::x"), cols);
  in.y = Vec(Kokkos::ViewAllocateWithoutInitializing("sprocket-bench::y"), rows);
  in.y0 = Vec(Kokkos::ViewAllocateWithoutInitializing("sprocket-bench::y0"), rows);
  in.x_ref.resize(cols);
  in.y0_ref.resize(rows);
  auto xh = Kokkos::create_mirror_view(in.x);
  for (int64_t j = 0; j < cols; ++j) {
    xh(j) = static_cast<Scalar>(input_value(j, 1));
    in.x_ref[j] = static_cast<double>(xh(j));
  }
  Kokkos::deep_copy(in.x, xh);
  auto yh = Kokkos::create_mirror_view(in.y0);
  for (int64_t i = 0; i < rows; ++i) {
    yh(i) = static_cast<Scalar>(input_value(i, 2));
    in.y0_ref[i] = static_cast<double>(yh(i));
  }
  Kokkos::deep_copy(in.y0, yh);
  Kokkos::deep_copy(in.y, in.y0);
  return in;
}

/// Bytes of x read and y written (twice when beta != 0: y read too) per SpMV apply.
template <class Scalar>
double vector_bytes(int64_t rows, int64_t cols, Scalar beta) {
  return static_cast<double>(cols) * sizeof(Scalar) +
         static_cast<double>(rows) * sizeof(Scalar) * (beta != Scalar(0) ? 2.0 : 1.0);
}

/// host itself for double, else a copy in storage with the values rounded to Scalar (what the
/// benchmarked matrices really hold): the input of the reference kernels.
template <class Scalar>
const Sprocket::HostCsr& rounded_to(const Sprocket::HostCsr& host, Sprocket::HostCsr& storage) {
  if (std::is_same_v<Scalar, double>) return host;
  storage = host;
  for (double& v : storage.values) v = static_cast<double>(static_cast<Scalar>(v));
  return storage;
}

/// --check for y = alpha A x + beta y0, shared by the SpMV-like kernels: runs every candidate
/// once on a poisoned in.y (NaN; in.y0 when beta != 0) and compares with reference::spmv on the CSR
/// `host` with the values the matrices really hold (rounded to Scalar), within
/// 64 eps(Scalar) max(1, CSR row length) (|alpha| (|A||x|)_i + |beta y0_i|). Fills checks[c] for
/// candidate c; returns false on any mismatch. in.y is restored to in.y0 afterwards.
template <class Vec>
bool check_candidates(const Args& args, const std::string& name, const Sprocket::HostCsr& host,
                      const VectorInputs<Vec>& in, const std::vector<Candidate>& candidates,
                      std::vector<Record>& checks) {
  using Scalar = typename Vec::non_const_value_type;
  const Scalar alpha = static_cast<Scalar>(args.alpha), beta = static_cast<Scalar>(args.beta);
  const std::vector<double>&x_ref = in.x_ref, &y0_ref = in.y0_ref;
  const Vec &y = in.y, &y0 = in.y0;
  const int64_t rows = host.num_rows;
  Sprocket::HostCsr rounded;
  const Sprocket::HostCsr* oracle = &rounded_to<Scalar>(host, rounded);
  const double alpha_d = static_cast<double>(alpha), beta_d = static_cast<double>(beta);
  std::vector<double> ref = y0_ref;
  Sprocket::reference::spmv("N", alpha_d, *oracle, x_ref, beta_d, ref);
  const double eps = std::numeric_limits<Scalar>::epsilon();
  std::vector<double> tol(rows);
  for (int64_t i = 0; i < rows; ++i) {
    double abs_ax = 0;
    for (int64_t k = oracle->row_map[i]; k < oracle->row_map[i + 1]; ++k)
      abs_ax += std::abs(oracle->values[k]) * std::abs(x_ref[oracle->entries[k]]);
    const double len = static_cast<double>(std::max<int64_t>(1, oracle->row_length(i)));
    tol[i] = 64.0 * eps * len * (std::abs(alpha_d) * abs_ax + std::abs(beta_d * y0_ref[i]));
  }
  bool all_ok = true;
  auto yh = Kokkos::create_mirror_view(y);
  std::vector<double> got(rows);
  for (size_t c = 0; c < candidates.size(); ++c) {
    if (beta != Scalar(0)) Kokkos::deep_copy(y, y0);
    else Kokkos::deep_copy(y, std::numeric_limits<Scalar>::quiet_NaN());
    candidates[c].apply();
    if (candidates[c].fetch_result) candidates[c].fetch_result();
    Kokkos::fence();
    Kokkos::deep_copy(yh, y);
    for (int64_t i = 0; i < rows; ++i) got[i] = static_cast<double>(yh(i));
    const CheckResult result = check_against(got, ref, tol);
    all_ok &= report_check(checks[c], result, got, ref, tol,
                           candidates[c].impl + " " + candidates[c].variant + " on " + name);
  }
  Kokkos::deep_copy(y, y0);
  return all_ok;
}

/// measure_section for the SpMV-like kernels (all candidates apply to in.x and in.y): --check
/// compares every candidate with reference::spmv on host (check_candidates).
template <class Scalar, class Offset, class Space, class Vec>
int measure_spmv_section(const Args& args, const Section& section, const std::vector<Candidate>& candidates,
                         const Sprocket::HostCsr& host, const VectorInputs<Vec>& in, double stream_gbps) {
  std::function<bool(std::vector<Record>&)> check;
  if (args.check)
    check = [&](std::vector<Record>& checks) {
      return check_candidates(args, section.matrix, host, in, candidates, checks);
    };
  return measure_section<Scalar, Offset, Space>(args, section, candidates, check, stream_gbps);
}

/// The registry entry of a matrix kernel: --matrix required, default variant auto; runs
/// run_matrices with run_one (see there), e.g. [](auto... a) { return spmv::run_matrix(a...); }.
template <class RunOne>
KernelEntry matrix_kernel_entry(std::string name, std::string summary, std::vector<std::string> variants,
                                std::vector<std::string> all_variants, std::vector<Peer> peers, std::string example,
                                RunOne run_one) {
  KernelEntry e;
  e.name = std::move(name);
  e.summary = std::move(summary);
  e.variants = std::move(variants);
  e.all_variants = std::move(all_variants);
  e.default_variant = "auto";
  e.peers = std::move(peers);
  e.uses_matrices = true;
  e.example = std::move(example);
  e.run = [run_one](const Args& args) { return run_matrices(args, run_one); };
  return e;
}

}  // namespace sprocket_bench
