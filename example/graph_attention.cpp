// sprocket-graph-attention: one attention step of a graph attention network (one head, GAT-like)
// on a real graph, the SDDMM user story. For the adjacency S (N x N) of a graph and node features
// H (N x F):
//
//   Q = H Wq, Kf = H Wk, V = H Wv                 dense projections to the head dimension K
//   e = SDDMM(spy(S), Q, Kf) / sqrt(K)            a score per edge: e_ij = <Q(i,:), Kf(j,:)> / sqrt(K)
//   P = softmax of each row's stored scores       attention weights, P has S's pattern
//   out = P V                                     aggregation by SpMM
//
// SpMM and SDDMM share one ASpT analysis of S (an SddmmPlan built from the SpmmPlan). Every stage
// is timed (median of --repeat runs) and the result is checked against a serial double reference
// computed here from the same inputs; the exit status is 1 when the check fails.
//
//   sprocket-graph-attention [--matrix <file.mtx[.gz] | gen:...>] [--features F] [--heads-dim K]
//                            [--repeat R] [--seed S] [--json] [--help]
//
// The features are uniform in [-1, 1) and the weights uniform in +-3 / sqrt(F): Q, Kf and V then
// have entries of unit variance and so have the scaled scores, so the softmax is neither flat nor
// one-hot. Both come from a counter-based generator of the example's own: a seed gives the same
// numbers on every machine. With --json the last line printed is one JSON object.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "Sprocket_Crs.hpp"
#include "Sprocket_Error.hpp"
#include "Sprocket_Generators.hpp"
#include "Sprocket_Reference.hpp"
#include "Sprocket_Sddmm.hpp"
#include "Sprocket_Spmm.hpp"

// The example's device kernels: free functions in a named namespace (nvcc refuses extended
// lambdas in private member functions).
namespace graph_attention {

using ExecSpace = Kokkos::DefaultExecutionSpace;
using Device = ExecSpace::device_type;
using Crs = KokkosSparse::CrsMatrix<double, int, Device, void, int>;
using Dense = Kokkos::View<double**, Kokkos::LayoutRight, Device>;
using Scores = Kokkos::View<double*, Device>;

/// Y = X W for dense X (N x F) and W (F x K): rows of Y spread over threads, Y(i, :) accumulated
/// as sum_p X(i, p) W(p, :), so the loop along K is contiguous in W and Y (vector lanes on a GPU,
/// SIMD on a CPU) and W, read by every row, stays in cache.
void dense_product(const Dense& X, const Dense& W, const Dense& Y) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = Policy::member_type;
  const int64_t n = Y.extent(0), K = Y.extent(1), inner = X.extent(1);
  if (n == 0) return;
  constexpr bool gpu = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, ExecSpace::memory_space>::accessible;
  const int lanes = gpu ? 32 : 1, team_size = gpu ? 4 : 1;
  const int64_t rows_per_team = gpu ? team_size : 16;
  const int64_t league = (n + rows_per_team - 1) / rows_per_team;
  Kokkos::parallel_for(
      "graph_attention::dense_product", Policy(league, team_size, lanes), KOKKOS_LAMBDA(const Member& team) {
        const int64_t first = team.league_rank() * rows_per_team;
        const int64_t last = first + rows_per_team < n ? first + rows_per_team : n;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last), [&](const int64_t i) {
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, K), [&](const int64_t j) { Y(i, j) = 0; });
          for (int64_t p = 0; p < inner; ++p) {
            const double x = X(i, p);
            Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, K), [&](const int64_t j) { Y(i, j) += x * W(p, j); });
          }
        });
      });
}

/// weights(k) = exp(scores(k) - m) / sum over the row of exp(scores - m), m the row's largest score,
/// for every stored entry k of every row: the softmax over each node's neighbours. Subtracting m
/// keeps exp from overflowing whatever the scores; an empty row writes nothing.
void row_softmax(const Crs::row_map_type& row_map, const Scores& scores, const Crs::values_type& weights) {
  // Dynamic schedule: rows of a power-law graph differ in length by orders of magnitude.
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  using Member = Policy::member_type;
  const int64_t n = row_map.extent(0) > 0 ? int64_t(row_map.extent(0)) - 1 : 0;
  if (n == 0) return;
  // GPU: a warp's lanes share a row (reductions by shuffles), a few rows per team. CPU: one lane,
  // 64 rows per team so that scheduling a team costs little next to its work.
  constexpr bool gpu = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, ExecSpace::memory_space>::accessible;
  const int lanes = gpu ? 32 : 1, team_size = gpu ? 4 : 1;
  const int64_t rows_per_team = gpu ? team_size : 64;
  const int64_t league = (n + rows_per_team - 1) / rows_per_team;
  Kokkos::parallel_for(
      "graph_attention::row_softmax", Policy(league, team_size, lanes), KOKKOS_LAMBDA(const Member& team) {
        const int64_t first = team.league_rank() * rows_per_team;
        const int64_t last = first + rows_per_team < n ? first + rows_per_team : n;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last), [&](const int64_t i) {
          const int64_t begin = row_map(i), end = row_map(i + 1);
          double row_max = 0;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, begin, end),
              [&](const int64_t k, double& m) { m = scores(k) > m ? scores(k) : m; }, Kokkos::Max<double>(row_max));
          // One exp per entry: the unnormalized weights go to `weights`, then get scaled.
          double sum = 0;
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, begin, end),
              [&](const int64_t k, double& s) {
#if KOKKOS_VERSION >= 40000
                const double w = Kokkos::exp(scores(k) - row_max);
#else
                const double w = Kokkos::Experimental::exp(scores(k) - row_max);  // Kokkos::exp from 3.6 on
#endif
                weights(k) = w;
                s += w;
              },
              sum);
          // sum >= 1: the largest score contributes exp(0).
          const double inverse = 1.0 / sum;
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, begin, end),
                               [&](const int64_t k) { weights(k) *= inverse; });
        });
      });
}

}  // namespace graph_attention

namespace {

using graph_attention::Crs;
using graph_attention::Dense;
using graph_attention::Scores;
using Clock = std::chrono::steady_clock;

#ifdef SPROCKET_DEFAULT_GRAPH
constexpr const char* default_matrix = SPROCKET_DEFAULT_GRAPH;
#else
constexpr const char* default_matrix = "../shared/matrices/rajat01.mtx.gz";
#endif

struct Args {
  std::string matrix = default_matrix;
  int features = 128;
  int heads_dim = 64;
  int repeat = 10;
  uint64_t seed = 1;
  bool json = false;
  bool help = false;
};

const char* usage_text =
    "usage: sprocket-graph-attention [--matrix <file.mtx[.gz] | gen:...>] [--features F] [--heads-dim K]\n"
    "                                [--repeat R] [--seed S] [--json] [--help]\n"
    "  --matrix      the graph's adjacency, square (default: %s)\n"
    "  --features    F, node features per node (default 128)\n"
    "  --heads-dim   K, the head dimension of Q, Kf and V (default 64)\n"
    "  --repeat      timed runs of every stage; the median is printed (default 10)\n"
    "  --seed        seed of the random features and weights (default 1)\n"
    "  --json        print one JSON object instead of the report\n";

[[noreturn]] void usage_error(const std::string& message) {
  char usage[1024];
  std::snprintf(usage, sizeof usage, usage_text, default_matrix);
  throw Sprocket::InvalidArgument("sprocket-graph-attention: " + message + "\n" + usage);
}

int64_t parse_integer(const std::string& flag, const std::string& v) {
  try {
    size_t used = 0;
    const long long x = std::stoll(v, &used);
    if (used == v.size()) return x;
  } catch (const std::exception&) {
  }
  usage_error(flag + " needs an integer, got \"" + v + "\"");
}

Args parse_args(int argc, char** argv) {
  Args a;
  int64_t features = a.features, heads_dim = a.heads_dim, repeat = a.repeat;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(flag + " needs a value");
      return argv[++i];
    };
    if (flag == "--matrix") a.matrix = value();
    else if (flag == "--features") features = parse_integer(flag, value());
    else if (flag == "--heads-dim") heads_dim = parse_integer(flag, value());
    else if (flag == "--repeat") repeat = parse_integer(flag, value());
    else if (flag == "--seed") a.seed = static_cast<uint64_t>(parse_integer(flag, value()));
    else if (flag == "--json") a.json = true;
    else if (flag == "--help" || flag == "-h") a.help = true;
    else usage_error("unknown argument \"" + flag + "\"");
  }
  // Beyond these bounds the dense arrays would not fit in memory anyway; they keep the size
  // arithmetic far from overflow.
  if (features < 1 || features > 65536) usage_error("--features must be in [1, 65536], got " + std::to_string(features));
  if (heads_dim < 1 || heads_dim > 65536)
    usage_error("--heads-dim must be in [1, 65536], got " + std::to_string(heads_dim));
  if (repeat < 1 || repeat > 100000) usage_error("--repeat must be in [1, 100000], got " + std::to_string(repeat));
  a.features = static_cast<int>(features);
  a.heads_dim = static_cast<int>(heads_dim);
  a.repeat = static_cast<int>(repeat);
  return a;
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0.0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string json_number(double v, int digits = 6) {
  if (!std::isfinite(v)) return "null";
  std::ostringstream os;
  os.precision(digits);
  os << v;
  return os.str();
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
  }
  return out + "\"";
}

// A uniform number in [-1, 1) from (seed, stream, index) alone (splitmix64's finalizer over the
// three mixed together), so every array is reproducible on any machine and independent of the
// order in which it is filled.
double uniform_pm1(uint64_t seed, uint64_t stream, uint64_t index) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + stream * 0xD1B54A32D192ED03ull + index + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0;
}

Sprocket::HostDense random_dense(int64_t rows, int64_t cols, double scale, uint64_t seed, uint64_t stream) {
  Sprocket::HostDense M(rows, cols);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) M(i, j) = scale * uniform_pm1(seed, stream, uint64_t(i * cols + j));
  return M;
}

Dense to_device(const Sprocket::HostDense& M, const char* label) {
  Dense D(std::string(label), M.num_rows, M.num_cols);
  auto h = Kokkos::create_mirror_view(D);
  for (int64_t i = 0; i < M.num_rows; ++i)
    for (int64_t j = 0; j < M.num_cols; ++j) h(i, j) = M(i, j);
  Kokkos::deep_copy(D, h);
  return D;
}

Sprocket::HostDense host_product(const Sprocket::HostDense& X, const Sprocket::HostDense& W) {
  Sprocket::HostDense Y(X.num_rows, W.num_cols);
  for (int64_t j = 0; j < W.num_cols; ++j)
    for (int64_t p = 0; p < X.num_cols; ++p) {
      const double w = W(p, j);
      for (int64_t i = 0; i < X.num_rows; ++i) Y(i, j) += X(i, p) * w;
    }
  return Y;
}

/// The serial double reference of the whole step, from the same host inputs as the device run.
struct Reference {
  std::vector<double> scores, weights;
  Sprocket::HostDense out;
};

Reference reference_step(const Sprocket::HostCsr& graph, const Sprocket::HostDense& H, const Sprocket::HostDense& Wq,
                         const Sprocket::HostDense& Wk, const Sprocket::HostDense& Wv, double scale) {
  const Sprocket::HostDense Q = host_product(H, Wq), Kf = host_product(H, Wk), V = host_product(H, Wv);
  Sprocket::HostCsr pattern = graph;
  std::fill(pattern.values.begin(), pattern.values.end(), 1.0);
  Reference r;
  r.scores = Sprocket::reference::sddmm(pattern, Q, Kf).values;
  for (double& e : r.scores) e *= scale;
  r.weights.resize(r.scores.size());
  r.out = Sprocket::HostDense(graph.num_rows, V.num_cols);
  for (int64_t i = 0; i < graph.num_rows; ++i) {
    const int64_t begin = graph.row_map[i], end = graph.row_map[i + 1];
    if (begin == end) continue;
    double m = r.scores[begin];
    for (int64_t k = begin; k < end; ++k) m = std::max(m, r.scores[k]);
    double sum = 0;
    for (int64_t k = begin; k < end; ++k) sum += std::exp(r.scores[k] - m);
    for (int64_t k = begin; k < end; ++k) r.weights[k] = std::exp(r.scores[k] - m) / sum;
    for (int64_t k = begin; k < end; ++k)
      for (int64_t j = 0; j < V.num_cols; ++j) r.out(i, j) += r.weights[k] * V(graph.entries[k], j);
  }
  return r;
}

/// max |x - ref| / max |ref| (the absolute difference when ref is all zeros); NaN anywhere gives
/// infinity, so it fails any tolerance.
template <class Get>
double max_relative_error(int64_t n, const Get& get) {
  double diff = 0, size = 0;
  for (int64_t k = 0; k < n; ++k) {
    const auto [x, ref] = get(k);
    if (!std::isfinite(x) || !std::isfinite(ref)) return INFINITY;
    diff = std::max(diff, std::fabs(x - ref));
    size = std::max(size, std::fabs(ref));
  }
  return size > 0 ? diff / size : diff;
}

bool file_exists(const std::string& path) { return std::ifstream(path).good(); }

std::string indent(const std::string& text, const std::string& prefix) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    const size_t nl = text.find('\n', start);
    const size_t end = nl == std::string::npos ? text.size() : nl;
    out += prefix + text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

struct StageTimes {
  std::vector<double> spmm_plan, sddmm_plan, projections, sddmm, softmax, update_values, spmm;
};

int run(const Args& args) {
  if (args.matrix == default_matrix && !file_exists(args.matrix))
    throw Sprocket::InvalidArgument(
        std::string("sprocket-graph-attention: the default graph ") + default_matrix +
        " is missing (it lives in the shared matrices beside the source checkout); pass a graph with "
        "--matrix <file.mtx[.gz] | gen:...>, e.g. --matrix gen:rmat:scale=14,ef=8");

  const auto t_load = Clock::now();
  const Sprocket::HostCsr graph = Sprocket::load_matrix(args.matrix);
  const double load_seconds = seconds_since(t_load);
  const int64_t n = graph.num_rows, nnz = graph.nnz(), F = args.features, K = args.heads_dim;
  SPROCKET_REQUIRE(graph.num_rows == graph.num_cols, "sprocket-graph-attention: ", args.matrix, " is ",
                   graph.num_rows, " x ", graph.num_cols,
                   "; graph attention needs a square adjacency matrix: its rows and its columns both index the "
                   "graph's N nodes, whose features H give the queries (node i, a row) and the keys and values "
                   "(neighbour j, a column)");
  SPROCKET_REQUIRE(n > 0, "sprocket-graph-attention: ", args.matrix, " has no nodes");

  int64_t min_row = nnz, max_row = 0, empty_rows = 0;
  for (int64_t i = 0; i < n; ++i) {
    min_row = std::min(min_row, graph.row_length(i));
    max_row = std::max(max_row, graph.row_length(i));
    empty_rows += graph.row_length(i) == 0;
  }

  // Inputs, drawn on the host (the reference reads the same numbers) and copied to the device.
  const double weight_scale = 3.0 / std::sqrt(double(F));
  const Sprocket::HostDense H = random_dense(n, F, 1.0, args.seed, 0);
  const Sprocket::HostDense Wq = random_dense(F, K, weight_scale, args.seed, 1);
  const Sprocket::HostDense Wk = random_dense(F, K, weight_scale, args.seed, 2);
  const Sprocket::HostDense Wv = random_dense(F, K, weight_scale, args.seed, 3);
  const Dense H_d = to_device(H, "H"), Wq_d = to_device(Wq, "Wq"), Wk_d = to_device(Wk, "Wk"),
              Wv_d = to_device(Wv, "Wv");
  const Dense Q("Q", n, K), Kf("Kf", n, K), V("V", n, K), out("out", n, K);
  const double scale = 1.0 / std::sqrt(double(K));

  // P: S's pattern, values overwritten by the attention weights; the scores get a View of their
  // own so that they can be checked after the softmax.
  const Crs P = Sprocket::to_crs<Crs>(graph, "P");
  const Scores scores("scores", nnz);

  StageTimes t;
  std::optional<Sprocket::SpmmPlan<Crs>> spmm;
  std::optional<Sprocket::SddmmPlan<Crs>> sddmm;
  auto timed = [](std::vector<double>& into, auto&& stage) {
    const auto t0 = Clock::now();
    stage();
    Kokkos::fence();
    into.push_back(seconds_since(t0));
  };
  // Each stage runs once untimed (first touch of every array, the plans' workspaces), then
  // `repeat` times timed. The plans are built while P still holds the graph's own values, so the
  // check below fails if the SpMM ran on a stale copy of them.
  for (int r = 0; r <= args.repeat; ++r) {
    StageTimes scratch;
    StageTimes& into = r == 0 ? scratch : t;
    timed(into.spmm_plan, [&] { spmm.emplace(P); });
    timed(into.sddmm_plan, [&] { sddmm.emplace(*spmm); });  // shares the SpmmPlan's ASpT analysis
  }
  for (int r = 0; r <= args.repeat; ++r) {
    StageTimes scratch;
    StageTimes& into = r == 0 ? scratch : t;
    timed(into.projections, [&] {
      graph_attention::dense_product(H_d, Wq_d, Q);
      graph_attention::dense_product(H_d, Wk_d, Kf);
      graph_attention::dense_product(H_d, Wv_d, V);
    });
    timed(into.sddmm, [&] { sddmm->apply(Sprocket::SddmmForm::pattern, scale, Q, Kf, 0.0, scores); });
    timed(into.softmax, [&] { graph_attention::row_softmax(P.graph.row_map, scores, P.values); });
    // The SpMM plan reads its own reordered copy of P's values: refresh it from the new weights.
    timed(into.update_values, [&] { spmm->update_values(P); });
    timed(into.spmm, [&] { spmm->apply("N", 1.0, V, 0.0, out); });
  }

  // The check, on host copies of the last run's results.
  const Reference ref = reference_step(graph, H, Wq, Wk, Wv, scale);
  const auto scores_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), scores);
  const auto weights_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), P.values);
  const auto out_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  const double err_scores =
      max_relative_error(nnz, [&](int64_t k) { return std::pair<double, double>(scores_h(k), ref.scores[k]); });
  const double err_weights =
      max_relative_error(nnz, [&](int64_t k) { return std::pair<double, double>(weights_h(k), ref.weights[k]); });
  const double err_out = max_relative_error(n * K, [&](int64_t k) {
    return std::pair<double, double>(out_h(k / K, k % K), ref.out(k / K, k % K));
  });
  double checksum = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < K; ++j) checksum += out_h(i, j);
  // Both sides compute in double; they differ by rounding (summation order, fused multiply-adds),
  // a few 1e-16 relative. An indexing or ordering mistake shows as O(1).
  const double tolerance = 1e-12;
  const bool pass = err_scores <= tolerance && err_weights <= tolerance && err_out <= tolerance;

  const double m_spmm_plan = median(t.spmm_plan), m_sddmm_plan = median(t.sddmm_plan);
  const double m_analysis = m_spmm_plan + m_sddmm_plan, m_projections = median(t.projections);
  const double m_sddmm = median(t.sddmm), m_softmax = median(t.softmax), m_update = median(t.update_values),
               m_spmm = median(t.spmm);
  std::string sddmm_why;
  const Sprocket::SddmmKernel sddmm_kernel = sddmm->kernel_for(K, &sddmm_why);
  const double gflop = 2.0 * double(nnz) * double(K) * 1e-9;  // SDDMM and SpMM alike

  if (args.json) {
    std::ostringstream js;
    js << "{\"example\":\"graph_attention\",\"matrix\":" << json_string(args.matrix) << ",\"rows\":" << n
       << ",\"nnz\":" << nnz << ",\"features\":" << F << ",\"heads_dim\":" << K << ",\"repeat\":" << args.repeat
       << ",\"seed\":" << args.seed << ",\"space\":" << json_string(graph_attention::ExecSpace::name())
       << ",\"sddmm_kernel\":\"" << Sprocket::to_string(sddmm_kernel) << "\",\"spmm_kernel\":\""
       << Sprocket::to_string(spmm->kernel()) << "\",\"analysis_seconds\":" << json_number(m_analysis)
       << ",\"projection_seconds\":" << json_number(m_projections) << ",\"sddmm_seconds\":" << json_number(m_sddmm)
       << ",\"softmax_seconds\":" << json_number(m_softmax) << ",\"update_values_seconds\":" << json_number(m_update)
       << ",\"spmm_seconds\":" << json_number(m_spmm) << ",\"error_scores\":" << json_number(err_scores)
       << ",\"error_weights\":" << json_number(err_weights) << ",\"error_output\":" << json_number(err_out)
       << ",\"tolerance\":" << json_number(tolerance) << ",\"checksum\":" << json_number(checksum, 17)
       << ",\"pass\":" << (pass ? "true" : "false") << "}";
    std::printf("%s\n", js.str().c_str());
    return pass ? 0 : 1;
  }

  std::printf("sprocket-graph-attention on %s (%d threads)\n", graph_attention::ExecSpace::name(),
              graph_attention::ExecSpace().concurrency());
  std::printf("graph %s: %lld nodes, %lld edges (loaded in %.2f s)\n", args.matrix.c_str(),
              static_cast<long long>(n), static_cast<long long>(nnz), load_seconds);
  std::printf("  edges per node: min %lld, avg %.2f, max %lld", static_cast<long long>(min_row), double(nnz) / double(n),
              static_cast<long long>(max_row));
  if (empty_rows > 0)
    std::printf("; %lld nodes without edges attend to nothing (their output rows are 0)",
                static_cast<long long>(empty_rows));
  std::printf("\n");
  std::printf("features F = %lld (seed %llu), head dim K = %lld, scores scaled by 1/sqrt(K) = %.4g\n",
              static_cast<long long>(F), static_cast<unsigned long long>(args.seed), static_cast<long long>(K), scale);
  std::printf("\none ASpT analysis for both products:\n%s%s", indent(spmm->describe(), "  ").c_str(),
              indent(sddmm->describe(), "  ").c_str());
  std::printf("  SDDMM at K = %lld runs %s (%s)\n", static_cast<long long>(K), Sprocket::to_string(sddmm_kernel),
              sddmm_why.c_str());

  std::printf("\ntimes, median of %d run%s:\n", args.repeat, args.repeat == 1 ? "" : "s");
  std::printf("  analysis        %9.3f ms   (SpmmPlan %.3f + SddmmPlan from it %.3f)\n", 1e3 * m_analysis,
              1e3 * m_spmm_plan, 1e3 * m_sddmm_plan);
  std::printf("  projections     %9.3f ms   (Q, Kf, V = H W: three dense %lld x %lld x %lld products)\n",
              1e3 * m_projections, static_cast<long long>(n), static_cast<long long>(F), static_cast<long long>(K));
  std::printf("  SDDMM           %9.3f ms   %6.2f GFLOP/s  (scores = (Q Kf^T) o spy(S) / sqrt(K), %s)\n",
              1e3 * m_sddmm, m_sddmm > 0 ? gflop / m_sddmm : 0.0, Sprocket::to_string(sddmm_kernel));
  std::printf("  softmax         %9.3f ms              (per row, minus the row's max)\n", 1e3 * m_softmax);
  std::printf("  update_values   %9.3f ms              (the SpMM plan's reordered copy of P's values)\n",
              1e3 * m_update);
  std::printf("  SpMM            %9.3f ms   %6.2f GFLOP/s  (out = P V, %s)\n", 1e3 * m_spmm,
              m_spmm > 0 ? gflop / m_spmm : 0.0, Sprocket::to_string(spmm->kernel()));
  std::printf("  attention step  %9.3f ms              (SDDMM + softmax + update_values + SpMM)\n",
              1e3 * (m_sddmm + m_softmax + m_update + m_spmm));

  std::printf("\ncheck against the serial double reference (max |x - ref| / max |ref|):\n");
  std::printf("  scores %.2e, attention weights %.2e, output %.2e (tolerance %.0e); output checksum %.17g\n",
              err_scores, err_weights, err_out, tolerance, checksum);
  std::printf("%s\n", pass ? "PASS" : "FAIL: the step differs from the reference beyond the tolerance");
  return pass ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  int rc = 0;
  try {
    const Args args = parse_args(argc, argv);
    if (args.help) {
      std::printf(usage_text, default_matrix);
    } else {
      rc = run(args);
    }
  } catch (const Sprocket::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    rc = 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sprocket-graph-attention: %s\n", e.what());
    rc = 1;
  }
  Kokkos::finalize();
  return rc;
}
