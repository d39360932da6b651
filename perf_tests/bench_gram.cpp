// sprocket-bench --kernel gram: the tall-skinny block products of the solvers (impl/blocks/
// block_ops.hpp) against one dgemm on the same shapes. For every n (--rows) and p = q (--cols),
// on blocks of random values in [-1, 1):
//   gram             G = X^T Y          X n x p, Y n x q   blocks::gram(ws, X, Y, false)
//   gram_sym         G = X^T X          (p = q)            blocks::gram(ws, X, X, true)
//   combine          Z = X C            C p x q            blocks::combine(ws, 1, X, C, 0, Z)
//   combine_inplace  X(:, 0:q) = X C    (p = q, in place)  blocks::combine(ws, 1, X, C, 0, X)
//   combine_gram     the same in place, then X^T X        blocks::combine_gram (one region on the host BLAS path)
// GFLOP/s count 2 n p q for every op (combine_gram: 2 n p q + n q (q + 1)), also where less
// arithmetic is done (gram_sym computes one triangle), so the numbers compare time on one shape.
// Variants (impl sprocket): auto (what the solvers run: the host BLAS path where it qualifies),
// kokkos (Workspace::use_blas = false: the own Kokkos kernels). Peer dgemm: one dgemm call from
// the calling thread on the whole block (dgemm 'T','N' for the Gram products, 'N','N' for the
// updates, into a separate block), with the BLAS library's own threading; host builds only.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "impl/utils/host_isa.hpp"
#include "bench_kernels.hpp"
#include "impl/blocks/block_ops.hpp"
#include "impl/blocks/host_blas.hpp"

namespace sprocket_bench {
namespace gram_bench {

using Space = Kokkos::DefaultExecutionSpace;
using Device = Space::device_type;
using Block = Kokkos::View<double**, Kokkos::LayoutLeft, Device>;
using Sprocket::Impl::blocks::DenseMatrix;
using Sprocket::Impl::blocks::Workspace;
constexpr bool kHost = Sprocket::Impl::blocks::runs_on_host_v<Space>;

const std::vector<std::string> kOps{"gram", "gram_sym", "combine", "combine_inplace", "combine_gram"};

/// Host copy of a block, column-major.
std::vector<double> to_host(const Block& V) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), V);
  std::vector<double> out(h.extent(0) * h.extent(1));
  for (size_t j = 0; j < h.extent(1); ++j)
    for (size_t i = 0; i < h.extent(0); ++i) out[i + j * h.extent(0)] = h(i, j);
  return out;
}

void fill(const Block& V, uint64_t seed) {
  auto h = Kokkos::create_mirror_view(V);
  for (size_t j = 0; j < h.extent(1); ++j)
    for (size_t i = 0; i < h.extent(0); ++i) h(i, j) = input_value(i + j * h.extent(0), seed);
  Kokkos::deep_copy(V, h);
}

/// Reference products in double (serial loops over the host copies).
std::vector<double> reference_gram(const std::vector<double>& x, const std::vector<double>& y, int64_t n, int p,
                                   int q) {
  std::vector<double> g(static_cast<size_t>(p) * q, 0.0);
  for (int j = 0; j < q; ++j)
    for (int i = 0; i < p; ++i) {
      double s = 0;
      for (int64_t r = 0; r < n; ++r) s += x[r + i * n] * y[r + j * n];
      g[i + j * p] = s;
    }
  return g;
}
std::vector<double> reference_combine(const std::vector<double>& x, const DenseMatrix& C, int64_t n) {
  std::vector<double> z(static_cast<size_t>(n) * C.cols, 0.0);
  for (int j = 0; j < C.cols; ++j)
    for (int l = 0; l < C.rows; ++l)
      for (int64_t r = 0; r < n; ++r) z[r + j * n] += x[r + l * n] * C(l, j);
  return z;
}

/// Entry-wise tolerance of inner products of length `inner` of values in [-1, 1) (sums up to
/// `inner` in size, summed in another order than the reference's): 1e-12 * inner.
std::vector<double> tolerance(size_t size, int64_t inner) {
  return std::vector<double>(size, 1e-12 * static_cast<double>(inner));
}

int run(const Args& args) {
  bool failed = false;
  const bool peer = std::find(args.peers.begin(), args.peers.end(), "dgemm") != args.peers.end();
  const std::string blas = Sprocket::Impl::blocks::host_blas_description();
  info_stream(args) << "gram: host BLAS " << blas << "\n";
  for (const int64_t n : args.rows)
    for (const int64_t cols : args.cols) {
      const int p = static_cast<int>(cols), q = p;
      Space space;
      Block X("gram::X", n, p), Y("gram::Y", n, q), Z("gram::Z", n, q), W("gram::W", n, p);
      fill(X, 1);
      fill(Y, 2);
      DenseMatrix C(p, q);
      for (int j = 0; j < q; ++j)
        for (int i = 0; i < p; ++i) C(i, j) = input_value(i + j * p, 3) / std::sqrt(static_cast<double>(p));
      Workspace<Device> ws(space, n, std::max(p, q), int64_t{p} * q);
      Workspace<Device> ws_own(space, n, std::max(p, q), int64_t{p} * q);
      ws_own.use_blas = false;
      std::vector<double> Gout;
      const std::vector<double> xh = to_host(X), yh = to_host(Y);
      for (const std::string& op : kOps) {
        // On a device blocks::combine writes a separate block (the solvers' device path); in
        // place it would race between the threads of one row, and it refuses.
        if (!kHost && (op == "combine_inplace" || op == "combine_gram")) {
          if (n == args.rows.front() && p == args.cols.front())
            std::cerr << "sprocket-bench: gram " << op << ": host only (on a device the update goes to a separate block)\n";
          continue;
        }
        // Ours, per variant; in-place ops start from a fresh copy of X (W) so repeats stay bounded.
        std::vector<std::function<void()>> fns;
        std::vector<std::string> names;
        auto ours = [&](Workspace<Device>& w) -> std::function<void()> {
          if (op == "gram") return [&, &w = w] { Gout = Sprocket::Impl::blocks::gram(w, X, Y, false).data; };
          if (op == "gram_sym") return [&, &w = w] { Gout = Sprocket::Impl::blocks::gram(w, X, X, true).data; };
          if (op == "combine") return [&, &w = w] { Sprocket::Impl::blocks::combine(w, 1.0, X, C, 0.0, Z); };
          if (op == "combine_inplace")
            return [&, &w = w] { Sprocket::Impl::blocks::combine(w, 1.0, W, C, 0.0, W); };
          return [&, &w = w] { Gout = Sprocket::Impl::blocks::combine_gram(w, 1.0, W, C, 0.0, W).data; };
        };
        for (const std::string& v : args.variants) {
          fns.push_back(ours(v == "kokkos" ? ws_own : ws));
          names.push_back(v);
        }
        // The in-place ops read W: restore it after every call (untimed).
        std::vector<std::function<void()>> after;
        const bool in_place = op == "combine_inplace" || op == "combine_gram";
        if (in_place) after.assign(fns.size() + 1, [&] { Kokkos::deep_copy(W, X); });
        Kokkos::deep_copy(W, X);
        bool with_peer = peer && kHost && op != "combine_gram";
        if (with_peer) {
          if constexpr (kHost) {
            if (op == "gram" || op == "gram_sym") {
              fns.push_back([&] {
                Gout.assign(static_cast<size_t>(p) * q, 0.0);
                Sprocket::Impl::blocks::host_dgemm(true, false, p, q, static_cast<int>(n), 1.0, X.data(),
                                                   static_cast<int>(n), op == "gram" ? Y.data() : X.data(),
                                                   static_cast<int>(n), 0.0, Gout.data(), p);
              });
            } else {  // the update into a separate block, in place or not
              fns.push_back([&] {
                Sprocket::Impl::blocks::host_dgemm(false, false, static_cast<int>(n), q, p, 1.0,
                                                   (op == "combine" ? X : W).data(), static_cast<int>(n),
                                                   C.data.data(), p, 0.0, Z.data(), static_cast<int>(n));
              });
            }
            names.push_back("dgemm");
          }
        }
        // SPROCKET_BENCH_CORRUPT: the named implementation's result made wrong after every call (the
        // Gram matrix, a host matrix, or the block the update writes).
        for (size_t i = 0; i < fns.size(); ++i) {
          const bool is_peer = names[i] == "dgemm";
          if (!corrupts(is_peer ? "dgemm" : "sprocket")) continue;
          const bool gram_result = op == "gram" || op == "gram_sym" || op == "combine_gram";
          const Block written = op == "combine" || is_peer ? Z : W;
          fns[i] = [run = fns[i], gram_result, written, &Gout] {
            run();
            if (gram_result) Gout.at(0) += 1;
            else add_one_to_first_entry(written);
          };
        }
        // Check every implementation once against the serial reference, its outputs poisoned first
        // (NaN) so that a call that writes nothing fails.
        std::vector<bool> ok(fns.size(), true);
        std::vector<double> err(fns.size(), 0.0);
        if (args.check) {
          const bool product = op == "gram" || op == "gram_sym" || op == "combine_gram";
          std::vector<double> ref;
          if (op == "gram") ref = reference_gram(xh, yh, n, p, q);
          else if (op == "gram_sym") ref = reference_gram(xh, xh, n, p, p);
          else ref = reference_combine(xh, C, n);
          std::vector<double> ref_gram;
          if (op == "combine_gram") ref_gram = reference_gram(ref, ref, n, q, q);
          for (size_t i = 0; i < fns.size(); ++i) {
            Kokkos::deep_copy(W, X);
            Kokkos::deep_copy(Z, std::nan(""));
            Gout.assign(static_cast<size_t>(p) * q, std::nan(""));
            fns[i]();
            Kokkos::fence();
            std::vector<double> got;
            if (op == "gram" || op == "gram_sym") got = Gout;
            else if (op == "combine" || names[i] == "dgemm") got = to_host(Z);
            else got = to_host(W);
            const std::vector<double>& r = op == "combine_gram" ? ref_gram : ref;
            if (op == "combine_gram") got = Gout;
            const CheckResult c = check_against(got, r, tolerance(r.size(), product ? n : p));
            ok[i] = c.ok;
            err[i] = c.rel_err_norm;
            if (!c.ok) {
              std::cerr << "sprocket-bench: check FAILED for gram " << op << " " << names[i] << " n=" << n
                        << " p=q=" << p << ": relative error " << c.rel_err_norm << "\n";
              failed = true;
            }
            if (op == "combine_gram" && ok[i]) {  // and the block itself
              const CheckResult b = check_against(to_host(W), ref, tolerance(ref.size(), p));
              ok[i] = b.ok;
              if (!b.ok) failed = true;
            }
          }
          Kokkos::deep_copy(W, X);
        }
        const std::vector<Timing> t = time_interleaved(fns, args.warmup, args.repeat, after);
        double flops = 2.0 * static_cast<double>(n) * p * q;
        if (op == "combine_gram") flops += static_cast<double>(n) * q * (q + 1);
        // Bytes: blocks read and written once (C and G are small).
        double bytes = 8.0 * static_cast<double>(n) * (op == "gram_sym" ? p : p + q);
        if (op == "combine_gram") bytes = 8.0 * static_cast<double>(n) * (p + q);
        const double peer_seconds = with_peer ? t.back().median : 0.0;
        std::vector<Record> records;
        for (size_t i = 0; i < fns.size(); ++i) {
          Record r;
          const bool is_peer = names[i] == "dgemm";
          r.set("kernel", "gram")
              .set("impl", is_peer ? "dgemm" : "sprocket")
              .set("variant", is_peer ? "default" : names[i])
              .set("op", op)
              .set("n", n)
              .set("p", p)
              .set("q", q)
              .set("seconds", t[i].median)
              .set("gflops", flops / t[i].median * 1e-9)
              .set("gbps", bytes / t[i].median * 1e-9)
              .set("repeat", args.repeat)
              .set("warmup", args.warmup)
              .set("seconds_min", t[i].min)
              .set("seconds_max", t[i].max)
              .set("space", Space::name())
              .set("concurrency", static_cast<int64_t>(space.concurrency()))
              .set("blas", blas);
          if (!is_peer) {
            const bool blas_path = names[i] != "kokkos" && Sprocket::Impl::blocks::take_blas_path(ws, X, Y);
            r.set("path", blas_path ? "blas" : "kokkos");
            r.set("host_isa", Sprocket::Impl::host_isa_name());
            if (with_peer) r.set("ratio_vs_dgemm", peer_seconds / t[i].median);
          }
          if (args.check) r.set("check", static_cast<bool>(ok[i])).set("err_norm", err[i]);
          records.push_back(r);
        }
        std::ostringstream title;
        title << "gram " << op << "  n = " << n << ", p = q = " << p << ", " << Space::name() << " ("
              << space.concurrency() << " threads), median of " << args.repeat << " (warm-up " << args.warmup << ")";
        emit_section(args, title.str(), records,
                     {{"impl", "impl"},
                      {"variant", "variant"},
                      {"path", "path"},
                      {"seconds", "seconds", "%.4e"},
                      {"gflops", "GFLOP/s", "%.2f"},
                      {"gbps", "GB/s", "%.2f"},
                      {"ratio_vs_dgemm", "vs dgemm", "%.2f"},
                      {"check", "check"}});
      }
    }
  return failed ? 1 : 0;
}

}  // namespace gram_bench

KernelEntry gram_entry() {
  KernelEntry e;
  e.name = "gram";
  e.summary = "tall-skinny block products of the solvers (X^T Y, X^T X, X C, in place, fused) on n x p blocks";
  e.variants = {"auto", "kokkos"};
  e.all_variants = {"auto", "kokkos"};
  e.default_variant = "all";
  Peer dgemm{"dgemm", gram_bench::kHost, "the dgemm peer needs a host execution space (this build's default is "
                                          "not one)"};
  e.peers = {dgemm};
  e.uses_matrices = false;
  e.example = "sprocket-bench --kernel gram --rows 32768,262144 --cols 4,8,16,24 --compare dgemm --check";
  e.run = gram_bench::run;
  return e;
}

}  // namespace sprocket_bench
