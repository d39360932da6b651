#pragma once
// The driver loop shared by every matrix kernel of sprocket-bench: the optional stream lines
// first (so the roofline figure comes from the same run), then every --matrix loaded (or its
// error reported) and run for the --scalar / --offset types the user asked for.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "Sprocket_Reference.hpp"
#include "bench_common.hpp"
#include "bench_stream.hpp"

namespace sprocket_bench {

template <class T>
struct type_tag {
  using type = T;
};

/// run_one(type_tag<Scalar>, type_tag<Offset>, name, host, stream_gbps) -> exit status of that
/// matrix (0 or 1). Returns 1 if any matrix failed to load, run or check.
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
      const bool dbl = args.scalar == "double", small = args.offset == "int";
      if (dbl && small) s = run_one(type_tag<double>{}, type_tag<int>{}, name, host, stream_gbps);
      else if (dbl) s = run_one(type_tag<double>{}, type_tag<size_t>{}, name, host, stream_gbps);
      else if (small) s = run_one(type_tag<float>{}, type_tag<int>{}, name, host, stream_gbps);
      else s = run_one(type_tag<float>{}, type_tag<size_t>{}, name, host, stream_gbps);
      status = std::max(status, s);
    } catch (const std::exception& e) {
      std::cerr << "sprocket-bench: " << name << ": " << e.what() << "\n";
      status = 1;
    }
  }
  return status;
}

/// --check for y = alpha A x + beta y0, shared by the SpMV-like kernels: runs every candidate
/// once on a poisoned y (NaN; y0 when beta != 0) and compares with reference::spmv on the CSR
/// `host` with the values the matrices really hold (rounded to Scalar), within
/// 64 eps(Scalar) max(1, CSR row length) (|alpha| (|A||x|)_i + |beta y0_i|). Fills checks[c] for
/// candidate c; returns false on any mismatch. y is restored to y0 afterwards.
template <class Scalar, class Candidates, class YView>
bool check_candidates(const std::string& name, const Sprocket::HostCsr& host, const std::vector<double>& x_ref,
                      const std::vector<double>& y0_ref, Scalar alpha, Scalar beta, const YView& y,
                      const YView& y0, const Candidates& candidates, std::vector<Record>& checks) {
  const int64_t rows = host.num_rows;
  Sprocket::HostCsr rounded;
  const Sprocket::HostCsr* oracle = &host;
  if (!std::is_same_v<Scalar, double>) {
    rounded = host;
    for (double& v : rounded.values) v = static_cast<double>(static_cast<Scalar>(v));
    oracle = &rounded;
  }
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

}  // namespace sprocket_bench
