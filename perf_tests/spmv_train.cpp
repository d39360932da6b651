// spmv-train: trains the adaptive SpMV decision model offline and writes it as C++ source
// (impl/spmv/spmv_model_{cpu,gpu}_generated.cpp). Paper: autotuned-spmv, Section III-C, which
// trains C5.0 rule sets in two stages (binning scheme, then kernel per bin); we do the same two
// stages with our own small regression tree that minimises measured time (regret) instead of
// classification error:
//
//  stage 1 (kernel per bin class): for every corpus matrix, the rows of each length class
//    (virtual rows of U0 = 64 rows, classes by average row length) are extracted into their own
//    matrix and every candidate kernel is timed on it. A record is (matrix features, class) ->
//    time of each kernel relative to the best, weighted by the class's share of the matrix's
//    nonzeros. The tree's leaves pick the kernel with the least summed relative time.
//  stage 2 (binning): with the stage-1 tree in place, every matrix is timed with each U in
//    {4, 16, 64, 256, 1024} and with a single bin per candidate kernel; a second tree over the
//    matrix features picks the configuration.
//
//   spmv-train [--target cpu|gpu] [--quick] [--repeat N] [--output FILE] [--matrices DIR]
//
// The corpus: generators over a spread of shapes (Poisson 2-D/3-D, elasticity blocks, banded,
// uniform random, R-MAT power law) plus every matrix in ../shared/matrices. --quick uses a
// handful of small matrices (a smoke test for CI, not a model worth checking in).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "Sprocket_Generators.hpp"
#include "Sprocket_Spmv.hpp"
#include "impl/spmv/spmv_model.hpp"

namespace {

using namespace Sprocket;
using Device = Kokkos::DefaultExecutionSpace::device_type;
using Matrix = KokkosSparse::CrsMatrix<double, int, Device, void, int>;
using Vector = Kokkos::View<double*, Device>;

constexpr int base_virtual_row_size = 64;
const std::vector<int> virtual_row_candidates = {4, 16, 64, 256, 1024};

struct Settings {
  std::string target = "cpu";
  bool quick = false;
  int repeat = 15;
  std::string output;
  std::string matrices_dir;
};

std::vector<SpmvKernel> candidate_kernels(const std::string& target) {
  std::vector<SpmvKernel> k = {SpmvKernel::thread_per_row, SpmvKernel::subvector2, SpmvKernel::subvector4,
                               SpmvKernel::subvector8, SpmvKernel::subvector16, SpmvKernel::subvector32};
  if (target == "gpu") k.push_back(SpmvKernel::team_per_row);
  return k;
}

/// Median seconds of one apply.
double time_plan(const SpmvPlan<Matrix>& plan, const Vector& x, const Vector& y, int repeat) {
  plan.apply("N", 1.0, x, 0.0, y);
  Kokkos::fence();
  std::vector<double> t;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    plan.apply("N", 1.0, x, 0.0, y);
    Kokkos::fence();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
  return t[t.size() / 2];
}

HostCsr extract_rows(const HostCsr& A, const std::vector<int64_t>& rows) {
  HostCsr sub;
  sub.num_rows = static_cast<int64_t>(rows.size());
  sub.num_cols = A.num_cols;
  sub.row_map.assign(sub.num_rows + 1, 0);
  for (size_t i = 0; i < rows.size(); ++i) {
    for (int64_t k = A.row_map[rows[i]]; k < A.row_map[rows[i] + 1]; ++k) {
      sub.entries.push_back(A.entries[k]);
      sub.values.push_back(A.values[k]);
    }
    sub.row_map[i + 1] = sub.nnz();
  }
  return sub;
}

// ---- the regret tree -------------------------------------------------------------------------

const std::vector<std::string> input_names = {"length_class", "avg_row", "cv_row", "max_over_avg",
                                              "log2_nnz", "log2_rows"};

std::vector<double> inputs_vector(const Impl::SpmvModelInputs& in) {
  return {in.length_class, in.avg_row, in.cv_row, in.max_over_avg, in.log2_nnz, in.log2_rows};
}

struct Record {
  std::vector<double> x;     // inputs
  std::vector<double> cost;  // relative time of each label (1 = best)
  double weight = 1;
  std::string name;
};

struct TreeNode {
  int feature = -1;  // -1: leaf
  double threshold = 0;
  int label = 0;
  std::unique_ptr<TreeNode> left, right;  // x[feature] <= threshold -> left
};

std::pair<int, double> best_label(const std::vector<const Record*>& rs, size_t labels) {
  std::vector<double> sum(labels, 0.0);
  for (const Record* r : rs)
    for (size_t j = 0; j < labels; ++j) sum[j] += r->weight * r->cost[j];
  const int j = static_cast<int>(std::min_element(sum.begin(), sum.end()) - sum.begin());
  return {j, sum[j]};
}

std::unique_ptr<TreeNode> fit(std::vector<const Record*> rs, size_t labels, int depth, double min_weight) {
  auto node = std::make_unique<TreeNode>();
  auto [label, cost] = best_label(rs, labels);
  node->label = label;
  double total_weight = 0;
  for (const Record* r : rs) total_weight += r->weight;
  if (depth == 0 || total_weight < 2 * min_weight) return node;
  double best_cost = cost * (1 - 1e-3);  // a split must gain at least 0.1%
  int best_feature = -1;
  double best_threshold = 0;
  for (size_t f = 0; f < input_names.size(); ++f) {
    std::vector<const Record*> sorted = rs;
    std::sort(sorted.begin(), sorted.end(), [f](const Record* a, const Record* b) { return a->x[f] < b->x[f]; });
    std::vector<double> left(labels, 0.0), right(labels, 0.0);
    for (const Record* r : sorted)
      for (size_t j = 0; j < labels; ++j) right[j] += r->weight * r->cost[j];
    double left_weight = 0;
    for (size_t i = 0; i + 1 < sorted.size(); ++i) {
      for (size_t j = 0; j < labels; ++j) {
        left[j] += sorted[i]->weight * sorted[i]->cost[j];
        right[j] -= sorted[i]->weight * sorted[i]->cost[j];
      }
      left_weight += sorted[i]->weight;
      if (sorted[i]->x[f] == sorted[i + 1]->x[f]) continue;
      if (left_weight < min_weight || total_weight - left_weight < min_weight) continue;
      const double c = *std::min_element(left.begin(), left.end()) + *std::min_element(right.begin(), right.end());
      if (c < best_cost) {
        best_cost = c;
        best_feature = static_cast<int>(f);
        best_threshold = 0.5 * (sorted[i]->x[f] + sorted[i + 1]->x[f]);
      }
    }
  }
  if (best_feature < 0) return node;
  std::vector<const Record*> l, r;
  for (const Record* rec : rs) (rec->x[best_feature] <= best_threshold ? l : r).push_back(rec);
  node->feature = best_feature;
  node->threshold = best_threshold;
  node->left = fit(l, labels, depth - 1, min_weight);
  node->right = fit(r, labels, depth - 1, min_weight);
  return node;
}

int predict(const TreeNode& n, const std::vector<double>& x) {
  if (n.feature < 0) return n.label;
  return predict(x[n.feature] <= n.threshold ? *n.left : *n.right, x);
}

void emit(std::ostream& os, const TreeNode& n, const std::function<std::string(int)>& leaf, int indent) {
  const std::string pad(indent, ' ');
  if (n.feature < 0) {
    os << pad << leaf(n.label) << "\n";
    return;
  }
  char threshold[64];
  std::snprintf(threshold, sizeof threshold, "%.6g", n.threshold);
  os << pad << "if (in." << input_names[n.feature] << " <= " << threshold << ") {\n";
  emit(os, *n.left, leaf, indent + 2);
  os << pad << "} else {\n";
  emit(os, *n.right, leaf, indent + 2);
  os << pad << "}\n";
}

double regret(const std::vector<Record>& rs, const std::function<int(const Record&)>& choose) {
  double num = 0, den = 0;
  for (const Record& r : rs) {
    num += r.weight * r.cost[choose(r)];
    den += r.weight;
  }
  return den > 0 ? num / den : 1.0;
}

// ---- corpus ------------------------------------------------------------------------------------

std::vector<std::string> corpus(const Settings& s) {
  if (s.quick)
    return {"gen:poisson2d:n=60", "gen:rmat:scale=11,ef=8,seed=3", "gen:banded:n=3000,bw=40,fill=0.5",
            "gen:elasticity:n=6,dof=3"};
  std::vector<std::string> c = {
      "gen:poisson2d:n=700",          "gen:poisson3d:n=40",           "gen:poisson3d:n=70",
      "gen:poisson3d:n=30,points=27", "gen:elasticity:n=20,dof=2",    "gen:elasticity:n=20,dof=3",
      "gen:elasticity:n=14,dof=6",    "gen:banded:n=300000,bw=4,fill=0.5",
      "gen:banded:n=200000,bw=16,fill=0.5", "gen:banded:n=100000,bw=64,fill=0.4",
      "gen:banded:n=40000,bw=256,fill=0.3", "gen:banded:n=20000,bw=1024,fill=0.2",
      "gen:uniform:n=400000,avg=3,seed=2",  "gen:uniform:n=200000,avg=12,seed=2",
      "gen:uniform:n=100000,avg=40,seed=2", "gen:uniform:n=30000,avg=150,seed=2",
      "gen:rmat:scale=15,ef=8,seed=5",      "gen:rmat:scale=16,ef=16,seed=5",
      "gen:rmat:scale=17,ef=16,seed=6",     "gen:rmat:scale=18,ef=8,seed=7",
      "gen:rmat:scale=16,ef=32,seed=8"};
  if (!s.matrices_dir.empty() && std::filesystem::is_directory(s.matrices_dir)) {
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(s.matrices_dir))
      if (e.path().string().size() > 7 && e.path().string().substr(e.path().string().size() - 7) == ".mtx.gz")
        files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    c.insert(c.end(), files.begin(), files.end());
  }
  return c;
}

std::string short_name(const std::string& m) {
  const auto slash = m.find_last_of('/');
  return slash == std::string::npos ? m : m.substr(slash + 1);
}

int run(const Settings& s) {
  const SpmvTarget target = s.target == "gpu" ? SpmvTarget::portable_gpu : SpmvTarget::host;
  const auto kernels = candidate_kernels(s.target);
  std::vector<Record> class_records;
  std::vector<std::pair<std::string, HostCsr>> matrices;
  for (const std::string& spec : corpus(s)) matrices.emplace_back(spec, load_matrix(spec));

  // Stage 1.
  for (auto& [name, host] : matrices) {
    const SpmvFeatures features = spmv_features(host.row_map, host.num_cols);
    SpmvDecision probe;
    probe.virtual_row_size = base_virtual_row_size;
    probe.kernel_for_class.fill(SpmvKernel::thread_per_row);
    SpmvOptions no_split;
    no_split.split_row_threshold = int64_t{1} << 60;  // classes only; split rows are not modelled
    const SpmvSchedule sched = build_spmv_schedule(host.row_map, host.num_cols, no_split, target, probe, "train");
    std::map<int, std::vector<int64_t>> rows_of_class;
    for (int64_t v = 0; v < sched.num_vrows(); ++v) {
      const int64_t r0 = sched.vrow_bounds[v], r1 = sched.vrow_bounds[v + 1];
      const double avg = double(host.row_map[r1] - host.row_map[r0]) / double(r1 - r0);
      int c = 0;
      while (c < num_spmv_classes - 1 && avg >= std::ldexp(1.0, c)) ++c;
      for (int64_t r = r0; r < r1; ++r) rows_of_class[c].push_back(r);
    }
    for (auto& [cls, rows] : rows_of_class) {
      HostCsr sub = extract_rows(host, rows);
      const double share = host.nnz() > 0 ? double(sub.nnz()) / double(host.nnz()) : 0;
      if (share < 0.02 || sub.nnz() < 2000) continue;
      Matrix A = to_crs<Matrix>(sub);
      Vector x("x", sub.num_cols), y("y", sub.num_rows);
      Kokkos::deep_copy(x, 1.0);
      Record rec;
      rec.name = short_name(name) + " class " + std::to_string(cls);
      rec.x = inputs_vector(Impl::spmv_model_inputs(features, cls));
      rec.weight = share;
      for (SpmvKernel k : kernels) {
        SpmvOptions o;
        o.kernel = k;
        if (target == SpmvTarget::portable_gpu) o.backend = Backend::automatic;
        rec.cost.push_back(time_plan(SpmvPlan<Matrix>(A, o), x, y, s.repeat));
      }
      const double best = *std::min_element(rec.cost.begin(), rec.cost.end());
      std::cerr << "stage 1  " << rec.name << " (" << int(100 * share) << "% of nnz):";
      for (size_t j = 0; j < kernels.size(); ++j) {
        rec.cost[j] /= best;
        std::cerr << " " << to_string(kernels[j]) << "=" << std::setprecision(3) << rec.cost[j];
      }
      std::cerr << "\n";
      class_records.push_back(rec);
    }
  }
  std::vector<const Record*> class_ptrs;
  for (const Record& r : class_records) class_ptrs.push_back(&r);
  const auto class_tree = fit(class_ptrs, kernels.size(), 4, 0.5);
  const double class_regret = regret(class_records, [&](const Record& r) { return predict(*class_tree, r.x); });
  std::cerr << "stage 1: " << class_records.size() << " records, mean relative time of the tree's choice "
            << class_regret << "\n";

  auto class_kernel = [&](const SpmvFeatures& f, int c) {
    return kernels[predict(*class_tree, inputs_vector(Impl::spmv_model_inputs(f, c)))];
  };

  // Stage 2.
  struct Config {
    bool single;
    int u;
    SpmvKernel kernel;
    std::string name;
  };
  std::vector<Config> configs;
  for (int u : virtual_row_candidates) configs.push_back({false, u, SpmvKernel::thread_per_row, "binned U=" + std::to_string(u)});
  for (SpmvKernel k : kernels) configs.push_back({true, base_virtual_row_size, k, std::string("single ") + to_string(k)});
  std::vector<Record> bin_records;
  for (auto& [name, host] : matrices) {
    const SpmvFeatures features = spmv_features(host.row_map, host.num_cols);
    Matrix A = to_crs<Matrix>(host);
    Vector x("x", host.num_cols), y("y", host.num_rows);
    Kokkos::deep_copy(x, 1.0);
    Record rec;
    rec.name = short_name(name);
    rec.x = inputs_vector(Impl::spmv_model_inputs(features));
    rec.weight = 1;
    for (const Config& c : configs) {
      SpmvTuningOptions o;
      SpmvDecision d;
      d.virtual_row_size = c.u;
      d.single_bin = c.single;
      d.single_bin_kernel = c.kernel;
      for (int cls = 0; cls < num_spmv_classes; ++cls) d.kernel_for_class[cls] = class_kernel(features, cls);
      o.decision = d;
      rec.cost.push_back(time_plan(SpmvPlan<Matrix>(A, o), x, y, s.repeat));
    }
    const double best = *std::min_element(rec.cost.begin(), rec.cost.end());
    std::cerr << "stage 2  " << rec.name << ":";
    for (size_t j = 0; j < configs.size(); ++j) {
      rec.cost[j] /= best;
      std::cerr << " [" << configs[j].name << "]=" << std::setprecision(3) << rec.cost[j];
    }
    std::cerr << "\n";
    bin_records.push_back(rec);
  }
  std::vector<const Record*> bin_ptrs;
  for (const Record& r : bin_records) bin_ptrs.push_back(&r);
  const auto bin_tree = fit(bin_ptrs, configs.size(), 2, 3.0);
  const double bin_regret = regret(bin_records, [&](const Record& r) { return predict(*bin_tree, r.x); });
  std::cerr << "stage 2: " << bin_records.size() << " matrices, mean relative time of the tree's choice "
            << bin_regret << "\n";

  // Emit.
  std::ostringstream code;
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  const std::string family = s.target;
  code << "// GENERATED by perf_tests/spmv_train.cpp -- do not edit by hand.\n"
       << "// Target family: " << family << ". Trained " << date << " on " << Kokkos::DefaultExecutionSpace::name()
       << " with " << Kokkos::DefaultExecutionSpace().concurrency() << " threads, " << matrices.size()
       << " corpus matrices" << (s.quick ? " (QUICK smoke corpus: not a real model)" : "") << ".\n"
       << "// Regenerate: build/" << (family == "gpu" ? "cuda" : "host") << "/bin/spmv-train --target " << family
       << " --matrices ../shared/matrices --output impl/spmv/spmv_model_" << family << "_generated.cpp\n"
       << "// Stage 1 (kernel per class): " << class_records.size() << " records, mean time of the chosen kernel "
       << std::setprecision(4) << class_regret << " x the best.\n"
       << "// Stage 2 (binning): " << bin_records.size() << " matrices, mean time of the chosen configuration "
       << bin_regret << " x the best.\n"
       << "#include \"impl/spmv/spmv_model.hpp\"\n\n"
       << "namespace Sprocket {\nnamespace Impl {\n\nnamespace {\n\n"
       << "SpmvKernel " << family << "_kernel_for_class(const SpmvModelInputs& in) {\n"
       << "  (void)in;  // unused when the tree is a single leaf\n";
  emit(code, *class_tree, [&](int j) { return std::string("return SpmvKernel::") + to_string(kernels[j]) + ";"; }, 2);
  code << "}\n\n}  // namespace\n\n"
       << "SpmvDecision spmv_model_" << family << "(const SpmvFeatures& f) {\n"
       << "  SpmvDecision d;\n"
       << "  for (int c = 0; c < num_spmv_classes; ++c)\n"
       << "    d.kernel_for_class[c] = " << family << "_kernel_for_class(spmv_model_inputs(f, c));\n"
       << "  const SpmvModelInputs in = spmv_model_inputs(f);\n"
       << "  (void)in;\n";
  emit(code, *bin_tree,
       [&](int j) {
         const Config& c = configs[j];
         std::ostringstream os;
         os << "d.virtual_row_size = " << c.u << "; d.single_bin = " << (c.single ? "true" : "false")
            << "; d.single_bin_kernel = SpmvKernel::" << to_string(c.kernel) << ";";
         return os.str();
       },
       2);
  code << "  return d;\n}\n\n}  // namespace Impl\n}  // namespace Sprocket\n";
  if (s.output.empty()) {
    std::cout << code.str();
  } else {
    std::ofstream out(s.output);
    if (!out) {
      std::cerr << "spmv-train: cannot write " << s.output << "\n";
      return 1;
    }
    out << code.str();
    std::cerr << "spmv-train: wrote " << s.output << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  int status = 0;
  try {
    Settings s;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw InvalidArgument("spmv-train: " + a + " needs a value");
        return argv[++i];
      };
      if (a == "--target") s.target = value();
      else if (a == "--quick") s.quick = true;
      else if (a == "--repeat") s.repeat = std::stoi(value());
      else if (a == "--output") s.output = value();
      else if (a == "--matrices") s.matrices_dir = value();
      else throw InvalidArgument("spmv-train: unknown argument " + a +
                                 " (usage: spmv-train [--target cpu|gpu] [--quick] [--repeat N] "
                                 "[--output FILE] [--matrices DIR])");
    }
    if (s.target != "cpu" && s.target != "gpu") throw InvalidArgument("spmv-train: --target must be cpu or gpu");
    status = run(s);
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    status = 2;
  }
  Kokkos::finalize();
  return status;
}
