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
        Y_tpetra.putScalar(0.5);
        Y_ours.putScalar(0.5);
        const std::vector<Timing> t = time_interleaved(
            {[&] {
               M->apply(X, Y_tpetra, Teuchos::NO_TRANS, args.alpha, args.beta);
               group->barrier();
             },
             [&] {
               op.apply(X, Y_ours, Teuchos::NO_TRANS, args.alpha, args.beta);
               group->barrier();
             }},
            args.warmup, args.repeat);
        bool ok = true;
        double difference = 0;
        if (args.check) {
          // Same inputs, same number of applies: with beta != 0 both Ys saw the same sequence.
          mv_type D(Y_ours, Teuchos::Copy);
          D.update(-1.0, Y_tpetra, 1.0);
          std::vector<double> d(1), y(1);
          D.normInf(d);
          Y_tpetra.normInf(y);
          difference = d[0] / std::max(y[0], 1e-300);
          ok = difference <= 1e-12;
          if (!ok) status = 1;
        }
        if (group->getRank() == 0) {
          const double flops = 2.0 * static_cast<double>(A.nnz());
          const char* names[2] = {"tpetra", "sprocket"};
          for (int i = 0; i < 2; ++i) {
            Record rec;
            rec.set("kernel", "tpetra-spmv").set("matrix", spec).set("rows", A.num_rows).set("nnz", A.nnz());
            rec.set("ranks", r).set("impl", names[i]).set("seconds", t[i].median).set("min_seconds", t[i].min);
            rec.set("gflops", flops / t[i].median * 1e-9);
            if (i == 1)
              rec.set("host_isa", Sprocket::Impl::host_isa_name()).set("ratio_vs_tpetra", t[0].median / t[1].median);
            if (args.check) rec.set("check", ok).set("max_relative_difference", difference);
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
