// sprocket-bench --kernel tpetra-spmv: Tpetra's own CrsMatrix::apply against
// Sprocket::TpetraOperator (Tpetra's Import for the halo, a Sprocket plan for the local product)
// on the same distributed matrix, interleaved, on 1, 2, 4, ... ranks up to the size of the MPI
// run, all in one run:
//
//   mpirun -np 2 build/trilinos/bin/sprocket-bench --kernel tpetra-spmv --matrix gen:poisson3d:n=64 --check
//
// For a rank count r, ranks 0..r-1 hold the matrix (contiguous blocks of rows) and time; the
// others wait. A timed call is one apply on every rank of the group, ended by a barrier, timed on
// rank 0 of the group. Only the Trilinos configuration (make test-trilinos, build/trilinos/) has
// Tpetra; the host build's sprocket-bench says where to find this one.
#include <Kokkos_Core.hpp>

#include "bench_common.hpp"
#include "impl/utils/host_isa.hpp"
#include "bench_kernels.hpp"

#ifdef SPROCKET_BENCH_TRILINOS
#include <Tpetra_Core.hpp>
#include <Tpetra_CrsMatrix.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "Sprocket_Reference.hpp"
#include "Sprocket_TpetraOperator.hpp"
#endif

namespace sprocket_bench {
namespace tpetra_bench {

#ifdef SPROCKET_BENCH_TRILINOS
using Node = Tpetra::Map<>::node_type;
using mv_type = Tpetra::MultiVector<double, int, long long, Node>;
using Comm = Teuchos::RCP<const Teuchos::Comm<int>>;

int run(const Args& args) {
  const Comm world = Tpetra::getDefaultComm();
  const int size = world->getSize(), rank = world->getRank();
  std::vector<int> rank_counts;
  for (int r = 1; r <= size; r *= 2) rank_counts.push_back(r);
  if (rank_counts.back() != size) rank_counts.push_back(size);
  int status = 0;
  std::vector<Record> records;
  for (const std::string& spec : args.matrices) {
    Sprocket::HostCsr A;
    if (!load_matrix_or_report(spec, A)) {
      status = 1;
      continue;
    }
    if (A.num_rows != A.num_cols) {
      if (rank == 0) std::cerr << spec << ": tpetra-spmv needs a square matrix, skipped\n";
      status = 1;
      continue;
    }
    for (const int r : rank_counts) {
      const bool in_group = rank < r;
      const Comm group = world->split(in_group ? 0 : 1, rank);
      if (in_group) {
        const auto M = Sprocket::to_tpetra_crs<Node>(A, group);
        const Sprocket::TpetraOperator<Node> op(M);
        mv_type X(M->getDomainMap(), 1), Y_tpetra(M->getRangeMap(), 1), Y_ours(M->getRangeMap(), 1);
        {
          auto x = X.getLocalViewHost(Tpetra::Access::OverwriteAll);
          for (size_t l = 0; l < X.getLocalLength(); ++l)
            x(l, 0) = input_value(static_cast<uint64_t>(M->getRowMap()->getGlobalElement(static_cast<int>(l))), 7);
        }
        const char* names[2] = {"tpetra", "sprocket"};
        mv_type* const ys[2] = {&Y_tpetra, &Y_ours};
        // SPROCKET_BENCH_CORRUPT: the named implementation's Y made wrong after every apply (its
        // first entry on the group's rank 0).
        const auto corrupt_if_named = [&](int i) {
          if (!corrupts(names[i]) || group->getRank() != 0 || ys[i]->getLocalLength() == 0) return;
          auto y = ys[i]->getLocalViewHost(Tpetra::Access::ReadWrite);
          y(0, 0) += 1;
        };
        const std::function<void()> applies[2] = {[&] {
                                                     M->apply(X, Y_tpetra, Teuchos::NO_TRANS, args.alpha, args.beta);
                                                     corrupt_if_named(0);
                                                     group->barrier();
                                                   },
                                                   [&] {
                                                     op.apply(X, Y_ours, Teuchos::NO_TRANS, args.alpha, args.beta);
                                                     corrupt_if_named(1);
                                                     group->barrier();
                                                   }};
        // --check: each implementation once, on a poisoned Y (NaN; beta != 0: 0.5, the y0 of the
        // timed runs), against Sprocket::reference::spmv on A, row by row within
        // 64 eps max(1, row length) (|alpha| (|A||x|)_i + |beta y0_i|) (check_candidates'
        // tolerance); each rank checks its rows, the group sums the rows outside.
        bool ok[2] = {true, true};
        double max_err_over_tol[2] = {0, 0};
        if (args.check) {
          const double y0 = 0.5, eps = std::numeric_limits<double>::epsilon();
          std::vector<double> x_ref(static_cast<size_t>(A.num_cols)), ref(static_cast<size_t>(A.num_rows), y0),
              tol(static_cast<size_t>(A.num_rows));
          for (int64_t j = 0; j < A.num_cols; ++j) x_ref[j] = input_value(static_cast<uint64_t>(j), 7);
          Sprocket::reference::spmv("N", args.alpha, A, x_ref, args.beta, ref);
          for (int64_t i = 0; i < A.num_rows; ++i) {
            double abs_ax = 0;
            for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k)
              abs_ax += std::abs(A.values[k]) * std::abs(x_ref[A.entries[k]]);
            const double len = static_cast<double>(std::max<int64_t>(1, A.row_length(i)));
            tol[i] = 64.0 * eps * len * (std::abs(args.alpha) * abs_ax + std::abs(args.beta * y0));
          }
          for (int i = 0; i < 2; ++i) {
            ys[i]->putScalar(args.beta != 0 ? y0 : std::numeric_limits<double>::quiet_NaN());
            applies[i]();
            long long bad = 0;
            double worst = 0;
            {
              const auto y = ys[i]->getLocalViewHost(Tpetra::Access::ReadOnly);
              for (size_t l = 0; l < ys[i]->getLocalLength(); ++l) {
                const long long row = ys[i]->getMap()->getGlobalElement(static_cast<int>(l));
                const double d = std::abs(y(l, 0) - ref[row]);
                if (!(d <= tol[row])) ++bad;
                const double over = std::isnan(d) ? std::numeric_limits<double>::infinity()
                                    : d == 0      ? 0.0
                                    : tol[row] > 0 ? d / tol[row]
                                                   : std::numeric_limits<double>::infinity();
                worst = std::max(worst, over);
              }
            }
            long long group_bad = 0;
            Teuchos::reduceAll(*group, Teuchos::REDUCE_SUM, bad, Teuchos::outArg(group_bad));
            Teuchos::reduceAll(*group, Teuchos::REDUCE_MAX, worst, Teuchos::outArg(max_err_over_tol[i]));
            ok[i] = group_bad == 0;
            if (!ok[i]) {
              status = 1;
              if (group->getRank() == 0)
                std::cerr << "sprocket-bench: check FAILED for " << names[i] << " on " << spec << " (" << r
                          << " ranks): " << group_bad << " of " << A.num_rows
                          << " rows outside tolerance, max error / tolerance " << max_err_over_tol[i] << "\n";
            }
          }
        }
        Y_tpetra.putScalar(0.5);
        Y_ours.putScalar(0.5);
        const std::vector<Timing> t = time_interleaved({applies[0], applies[1]}, args.warmup, args.repeat);
        if (group->getRank() == 0) {
          const double flops = 2.0 * static_cast<double>(A.nnz());
          for (int i = 0; i < 2; ++i) {
            Record rec;
            rec.set("kernel", "tpetra-spmv").set("matrix", spec).set("rows", A.num_rows).set("nnz", A.nnz());
            rec.set("ranks", r).set("impl", names[i]).set("seconds", t[i].median).set("min_seconds", t[i].min);
            rec.set("gflops", flops / t[i].median * 1e-9);
            if (i == 1)
              rec.set("host_isa", Sprocket::Impl::host_isa_name()).set("ratio_vs_tpetra", t[0].median / t[1].median);
            if (args.check) rec.set("check", ok[i]).set("max_err_over_tol", max_err_over_tol[i]);
            records.push_back(rec);
          }
        }
      }
      world->barrier();
    }
  }
  if (rank == 0)
    emit_section(args, "tpetra-spmv: Tpetra::CrsMatrix::apply vs Sprocket::TpetraOperator (median seconds)", records,
                 {{"matrix", "matrix"},
                  {"ranks", "ranks"},
                  {"impl", "impl"},
                  {"seconds", "seconds", "%.3e"},
                  {"gflops", "GFLOP/s", "%.3g"},
                  {"ratio_vs_tpetra", "vs tpetra", "%.3f"},
                  {"check", "check"}});
  int worst = status;
  Teuchos::reduceAll(*world, Teuchos::REDUCE_MAX, status, Teuchos::outArg(worst));
  return worst;
}
#else
int run(const Args&) {
  std::cerr << "sprocket-bench: tpetra-spmv is built only in the Trilinos configuration: make test-trilinos "
               "builds build/trilinos/bin/sprocket-bench; run it as\n"
               "  mpirun -np 2 build/trilinos/bin/sprocket-bench --kernel tpetra-spmv --matrix gen:poisson3d:n=64\n";
  return 2;
}
#endif

}  // namespace tpetra_bench

KernelEntry tpetra_spmv_entry() {
  KernelEntry e;
  e.name = "tpetra-spmv";
  e.summary = "Tpetra's CrsMatrix::apply vs Sprocket::TpetraOperator over MPI, on 1, 2, 4, ... ranks of the run "
              "(Trilinos configuration only)";
  e.variants = {"auto"};
  e.all_variants = {"auto"};
  e.default_variant = "auto";
#ifdef SPROCKET_BENCH_TRILINOS
  e.peers = {Peer{"tpetra", true, ""}};
#else
  e.peers = {Peer{"tpetra", false, "tpetra-spmv is built only in the Trilinos configuration (make test-trilinos)"}};
#endif
  e.uses_matrices = true;
  e.example = "mpirun -np 2 build/trilinos/bin/sprocket-bench --kernel tpetra-spmv --matrix gen:poisson3d:n=64 --check";
  e.run = tpetra_bench::run;
  return e;
}

}  // namespace sprocket_bench
