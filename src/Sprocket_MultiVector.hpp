#pragma once
/// \file Sprocket_MultiVector.hpp
/// A block of vectors for solver frameworks that address columns by number (Belos, Anasazi):
/// Sprocket::MultiVector wraps a LayoutLeft Kokkos View and a list of the columns it shows, so a
/// subset of columns is a view of the same memory, never a copy.
///
///   Sprocket::MultiVector<double> X(n, 4);                  // n x 4, zero
///   auto V = X.columns({0, 2});                             // columns 0 and 2 of X, no copy
///   auto W = X.columns(1, 2);                               // columns 1..2: a contiguous view
///   if (W.contiguous()) use(W.view());                      // the LayoutLeft View itself
///
/// The operations Belos and Anasazi need (block update, Gram products, norms, random fill) are
/// here, so their traits (Sprocket_Belos.hpp, Sprocket_Anasazi.hpp) only translate. They run on the
/// Device's execution space through the block kernels of the solvers (impl/blocks/block_ops.hpp)
/// and return when the result is complete. Columns that are not contiguous (a subset such as
/// {0, 2}) are gathered into a contiguous copy for reading and scattered back after writing;
/// contiguous ones are used in place.
///
/// Copies of a MultiVector share its memory (like Views). Not thread-safe for concurrent writes
/// to the same columns, like any View.
#include <Kokkos_Core.hpp>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "Sprocket_Error.hpp"
#include "impl/blocks/block_ops.hpp"

namespace Sprocket {
/// A block of vectors over a LayoutLeft View, addressed by column number; column subsets share its memory.
template <class Scalar, class Device = Kokkos::DefaultExecutionSpace::device_type>
class MultiVector {
 public:
  using scalar_type = Scalar;  ///< scalar type of the entries
  using device_type = Device;  ///< Kokkos device of the memory
  using execution_space = typename Device::execution_space;  ///< where the operations run
  using view_type = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Device>;  ///< LayoutLeft rank-2 View of several columns
  using column_type = Kokkos::View<Scalar*, Kokkos::LayoutLeft, Device>;  ///< View of one column

  MultiVector() = default;
  /// rows x cols, zero-initialized.
  MultiVector(int64_t rows, int cols, const std::string& label = "Sprocket::MultiVector")
      : MultiVector(view_type(label, check_rows(rows), check_cols(cols))) {}
  /// Wraps `view` (no copy): every column of it, in order.
  explicit MultiVector(view_type view) : base_(std::move(view)), columns_(base_.extent(1)) {
    for (size_t j = 0; j < columns_.size(); ++j) columns_[j] = static_cast<int>(j);
  }

  int64_t num_rows() const { return static_cast<int64_t>(base_.extent(0)); }  ///< rows, the length of every column
  int num_vectors() const { return static_cast<int>(columns_.size()); }  ///< columns shown
  /// The columns shown are adjacent in memory, in order (a plain LayoutLeft View can show them).
  bool contiguous() const {
    for (size_t j = 1; j < columns_.size(); ++j)
      if (columns_[j] != columns_[0] + static_cast<int>(j)) return false;
    return true;
  }
  /// The columns as one LayoutLeft View of the same memory. Throws InvalidArgument when they are
  /// not contiguous (read_view / write_view handle that case).
  view_type view() const {
    SPROCKET_REQUIRE(contiguous(), "MultiVector::view: the ", columns_.size(),
                     " columns are not contiguous (first ", columns_.empty() ? -1 : columns_[0],
                     "); use read_view() for a contiguous copy");
    if (columns_.empty()) return Kokkos::subview(base_, Kokkos::ALL(), std::pair<int, int>(0, 0));
    return Kokkos::subview(base_, Kokkos::ALL(), std::pair<int, int>(columns_[0], columns_[0] + num_vectors()));
  }
  /// Column j (a View of the same memory).
  column_type column(int j) const {
    SPROCKET_REQUIRE(j >= 0 && j < num_vectors(), "MultiVector::column: column ", j, " of a multivector with ",
                     num_vectors(), " columns");
    return Kokkos::subview(base_, Kokkos::ALL(), columns_[j]);
  }
  /// The columns `index` (positions in this multivector, any order, no repeats needed) as a
  /// multivector sharing this one's memory. Throws InvalidArgument for a position out of range.
  MultiVector columns(const std::vector<int>& index) const {
    MultiVector sub;
    sub.base_ = base_;
    sub.columns_.reserve(index.size());
    for (int j : index) {
      SPROCKET_REQUIRE(j >= 0 && j < num_vectors(), "MultiVector::columns: column ", j, " of a multivector with ",
                       num_vectors(), " columns");
      sub.columns_.push_back(columns_[j]);
    }
    return sub;
  }
  /// Columns first .. first + count - 1.
  MultiVector columns(int first, int count) const {
    SPROCKET_REQUIRE(first >= 0 && count >= 0 && int64_t{first} + count <= num_vectors(), "MultiVector::columns: ",
                     count, " columns from ", first, " of a multivector with ", num_vectors(), " columns");
    std::vector<int> index(count);
    for (int j = 0; j < count; ++j) index[j] = first + j;
    return columns(index);
  }
  /// The columns as a contiguous View: this memory when contiguous, else a gathered copy.
  view_type read_view() const {
    if (contiguous()) return view();
    view_type copy(Kokkos::view_alloc(Kokkos::WithoutInitializing, "Sprocket::MultiVector::gathered"), num_rows(),
                   num_vectors());
    Kokkos::View<int*, Device> index(Kokkos::view_alloc(Kokkos::WithoutInitializing, "Sprocket::MultiVector::index"),
                                     columns_.size());
    Kokkos::deep_copy(index, Kokkos::View<const int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(columns_.data(),
                                                                                                columns_.size()));
    Impl::blocks::gather_columns(execution_space(), base_, index, copy);
    execution_space().fence();
    return copy;
  }
  /// Where to write all columns: this memory when contiguous, else a scratch View whose columns
  /// commit() then scatters back. `keep_values`: the scratch starts with the current values.
  view_type write_view(bool keep_values) const {
    if (contiguous()) return view();
    return keep_values ? read_view()
                       : view_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, "Sprocket::MultiVector::scratch"),
                                   num_rows(), num_vectors());
  }
  /// Stores a write_view's contents (a no-op when it is this memory).
  void commit(const view_type& written) const {
    if (contiguous()) return;
    for (int j = 0; j < num_vectors(); ++j)
      Kokkos::deep_copy(Kokkos::subview(base_, Kokkos::ALL(), columns_[j]), Kokkos::subview(written, Kokkos::ALL(), j));
  }

 private:
  static int64_t check_rows(int64_t rows) {
    SPROCKET_REQUIRE(rows >= 0, "MultiVector: ", rows, " rows");
    return rows;
  }
  static int check_cols(int cols) {
    SPROCKET_REQUIRE(cols >= 0, "MultiVector: ", cols, " columns");
    return cols;
  }

  view_type base_;
  std::vector<int> columns_;  // columns of base_ shown, in order
};

namespace Impl {
namespace multivector {

template <class Device>
blocks::Workspace<Device> workspace(int64_t rows, int cols, int64_t entries) {
  return blocks::Workspace<Device>(typename Device::execution_space(), rows, cols, entries);
}

/// Column j of X times factors[j].
template <class Scalar, class Device>
void scale_columns(const MultiVector<Scalar, Device>& X, const std::vector<Scalar>& factors) {
  SPROCKET_REQUIRE(static_cast<int>(factors.size()) == X.num_vectors(), "MultiVector: ", factors.size(),
                   " scale factors for ", X.num_vectors(), " columns");
  using ExecSpace = typename Device::execution_space;
  Kokkos::View<Scalar*, Device> f("Sprocket::MultiVector::factors", factors.size());
  Kokkos::deep_copy(f, Kokkos::View<const Scalar*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(factors.data(),
                                                                                              factors.size()));
  const auto x = X.write_view(true);
  const int q = X.num_vectors();
  Kokkos::parallel_for(
      "Sprocket::MultiVector::scale", Kokkos::RangePolicy<ExecSpace>(0, X.num_rows()), KOKKOS_LAMBDA(const int64_t i) {
        for (int j = 0; j < q; ++j) x(i, j) = f(j) == Scalar(0) ? Scalar(0) : x(i, j) * f(j);
      });
  ExecSpace().fence();
  X.commit(x);
}

/// C = alpha A B + beta C (B k x q, column-major on the host, leading dimension ldb).
template <class Scalar, class Device>
void times_dense_add(Scalar alpha, const MultiVector<Scalar, Device>& A, const Scalar* B, int ldb, int k, int q,
                     Scalar beta, const MultiVector<Scalar, Device>& C) {
  SPROCKET_REQUIRE(A.num_vectors() == k && C.num_vectors() == q && A.num_rows() == C.num_rows(),
                   "MultiVector: alpha A B + beta C with A ", A.num_rows(), " x ", A.num_vectors(), ", B ", k, " x ", q,
                   " and C ", C.num_rows(), " x ", C.num_vectors());
  if (q == 0) return;
  blocks::DenseMatrix dense(k, q);
  for (int j = 0; j < q; ++j)
    for (int i = 0; i < k; ++i) dense(i, j) = static_cast<double>(B[i + static_cast<int64_t>(j) * ldb]);
  if (k == 0) {  // alpha A B is an empty sum
    scale_columns(C, std::vector<Scalar>(q, beta));
    return;
  }
  const auto a = A.read_view();
  const auto c = C.write_view(beta != Scalar(0));
  blocks::combine(workspace<Device>(C.num_rows(), q, int64_t{k} * q), double(alpha), a, dense, double(beta), c);
  typename Device::execution_space().fence();
  C.commit(c);
}

/// C = alpha A + beta B (element-wise; C may be A or B).
template <class Scalar, class Device>
void add(Scalar alpha, const MultiVector<Scalar, Device>& A, Scalar beta, const MultiVector<Scalar, Device>& B,
         const MultiVector<Scalar, Device>& C) {
  SPROCKET_REQUIRE(A.num_vectors() == C.num_vectors() && B.num_vectors() == C.num_vectors() &&
                       A.num_rows() == C.num_rows() && B.num_rows() == C.num_rows(),
                   "MultiVector: alpha A + beta B into C with A ", A.num_rows(), " x ", A.num_vectors(), ", B ",
                   B.num_rows(), " x ", B.num_vectors(), ", C ", C.num_rows(), " x ", C.num_vectors());
  using ExecSpace = typename Device::execution_space;
  const auto a = A.read_view(), b = B.read_view();
  const auto c = C.write_view(false);
  const int q = C.num_vectors();
  Kokkos::parallel_for(
      "Sprocket::MultiVector::add", Kokkos::RangePolicy<ExecSpace>(0, C.num_rows()), KOKKOS_LAMBDA(const int64_t i) {
        for (int j = 0; j < q; ++j) c(i, j) = alpha * a(i, j) + beta * b(i, j);
      });
  ExecSpace().fence();
  C.commit(c);
}

/// G(i, j) = alpha A_i^T B_j into a host column-major array with leading dimension ldg.
template <class Scalar, class Device>
void gram(Scalar alpha, const MultiVector<Scalar, Device>& A, const MultiVector<Scalar, Device>& B, Scalar* G,
          int ldg) {
  SPROCKET_REQUIRE(A.num_rows() == B.num_rows(), "MultiVector: A^T B with A ", A.num_rows(), " x ", A.num_vectors(),
                   " and B ", B.num_rows(), " x ", B.num_vectors());
  const int p = A.num_vectors(), q = B.num_vectors();
  if (p == 0 || q == 0) return;
  const auto g = blocks::gram(workspace<Device>(A.num_rows(), std::max(p, q), int64_t{p} * q), A.read_view(),
                              B.read_view(), false);
  for (int j = 0; j < q; ++j)
    for (int i = 0; i < p; ++i) G[i + static_cast<int64_t>(j) * ldg] = alpha * static_cast<Scalar>(g(i, j));
}

/// d_j = A_j^T B_j.
template <class Scalar, class Device>
std::vector<double> column_dots(const MultiVector<Scalar, Device>& A, const MultiVector<Scalar, Device>& B) {
  SPROCKET_REQUIRE(A.num_rows() == B.num_rows() && A.num_vectors() == B.num_vectors(),
                   "MultiVector: column dots of A ", A.num_rows(), " x ", A.num_vectors(), " and B ", B.num_rows(),
                   " x ", B.num_vectors());
  const int q = A.num_vectors();
  if (q == 0) return {};
  return blocks::column_dots(workspace<Device>(A.num_rows(), q, q), A.read_view(), B.read_view());
}

enum class Norm { one, two, infinity };

template <class Scalar, class Device>
std::vector<double> column_norms(const MultiVector<Scalar, Device>& X, Norm norm) {
  if (norm == Norm::two) {
    std::vector<double> d = column_dots(X, X);
    for (double& v : d) v = std::sqrt(v);
    return d;
  }
  using ExecSpace = typename Device::execution_space;
  std::vector<double> result(X.num_vectors(), 0.0);
  for (int j = 0; j < X.num_vectors(); ++j) {
    const auto x = X.column(j);
    double r = 0;
    if (norm == Norm::one)
      Kokkos::parallel_reduce(
          "Sprocket::MultiVector::norm1", Kokkos::RangePolicy<ExecSpace>(0, X.num_rows()),
          KOKKOS_LAMBDA(const int64_t i, double& s) {
            const double v = static_cast<double>(x(i));
            s += v < 0 ? -v : v;
          },
          r);
    else
      Kokkos::parallel_reduce(
          "Sprocket::MultiVector::norm_inf", Kokkos::RangePolicy<ExecSpace>(0, X.num_rows()),
          KOKKOS_LAMBDA(const int64_t i, double& m) {
            const double v = static_cast<double>(x(i));
            if ((v < 0 ? -v : v) > m) m = v < 0 ? -v : v;
          },
          Kokkos::Max<double>(r));
    result[j] = r;
  }
  return result;
}

/// Columns of Y = columns of X, in order (equal shapes).
template <class Scalar, class Device>
void assign(const MultiVector<Scalar, Device>& X, const MultiVector<Scalar, Device>& Y) {
  SPROCKET_REQUIRE(X.num_rows() == Y.num_rows() && X.num_vectors() == Y.num_vectors(), "MultiVector: assigning ",
                   X.num_rows(), " x ", X.num_vectors(), " to ", Y.num_rows(), " x ", Y.num_vectors());
  for (int j = 0; j < X.num_vectors(); ++j) Kokkos::deep_copy(Y.column(j), X.column(j));
}

/// A new multivector with X's shape and values.
template <class Scalar, class Device>
MultiVector<Scalar, Device> copy(const MultiVector<Scalar, Device>& X) {
  MultiVector<Scalar, Device> Y(X.num_rows(), X.num_vectors());
  assign(X, Y);
  return Y;
}

/// Uniform values in [-1, 1), a new stream on every call.
template <class Scalar, class Device>
void randomize(const MultiVector<Scalar, Device>& X) {
  static std::atomic<uint64_t> calls{0};  // a reproducible sequence per process
  const auto x = X.write_view(false);
  blocks::fill_random(typename Device::execution_space(), x, 0x5EED5EEDull + 0x9E3779B97F4A7C15ull * ++calls);
  typename Device::execution_space().fence();
  X.commit(x);
}

template <class Scalar, class Device>
void print(const MultiVector<Scalar, Device>& X, std::ostream& os) {
  const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), X.read_view());
  os << "Sprocket::MultiVector " << X.num_rows() << " x " << X.num_vectors() << "\n";
  for (int64_t i = 0; i < X.num_rows(); ++i) {
    for (int j = 0; j < X.num_vectors(); ++j) os << (j ? " " : "") << x(i, j);
    os << "\n";
  }
}

}  // namespace multivector
}  // namespace Impl
}  // namespace Sprocket
