#pragma once
// The driver loop shared by every matrix kernel of sprocket-bench: the optional stream lines
// first (so the roofline figure comes from the same run), then every --matrix loaded (or its
// error reported) and run for the --scalar / --offset types the user asked for.
#include <algorithm>
#include <iostream>
#include <string>

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

}  // namespace sprocket_bench
