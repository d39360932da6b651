#pragma once
// SpgemmPlan (declared in Sprocket_Spgemm.hpp): at construction the backend resolution and
// option checks (impl/spgemm/spgemm_dispatch.hpp), the memory limit, the row analysis and the
// symbolic pass (the dispatch routes them), kept in one Impl::SpgemmAnalysis; numeric() checks
// the operands and hands everything to the dispatch. Those members are defined after the class
// and compiled once by the library for the combinations of impl/common/eti.hpp
// (impl/spgemm/eti/), declared extern here.
#include <Kokkos_Core.hpp>
#include <iomanip>
#include <sstream>
#include <string>
#include <type_traits>

#include "impl/common/eti.hpp"
#include "impl/common/same_pattern.hpp"
#include "impl/spgemm/spgemm_analysis.hpp"
#include "impl/spgemm/spgemm_dispatch.hpp"

namespace Sprocket {

template <class CrsType>
class SpgemmPlan {
  static_assert(is_crs_matrix_v<CrsType>, "SpgemmPlan: the matrix type must be a KokkosSparse::CrsMatrix");

 public:
  using matrix_type = CrsType;
  using scalar_type = typename CrsType::non_const_value_type;
  using ordinal_type = typename CrsType::non_const_ordinal_type;
  using offset_type = typename CrsType::non_const_size_type;
  using execution_space = typename CrsType::execution_space;
  using memory_space = typename CrsType::memory_space;
  using device_type = typename CrsType::device_type;
  using analysis_type = Impl::SpgemmAnalysis<scalar_type, ordinal_type, offset_type, device_type>;
  using row_map_type = Kokkos::View<const offset_type*, device_type>;

  /// Analysis and symbolic pass for C = A * B: afterwards C's row map and nnz are known and
  /// every later phase has been checked against the memory limit (ResourceError otherwise).
  SpgemmPlan(const CrsType& A, const CrsType& B, const SpgemmOptions& options = {});

  /// C's shape: A's rows, B's columns.
  int64_t num_rows() const { return an_.num_rows; }
  int64_t num_cols() const { return an_.num_cols; }
  /// A's columns = B's rows.
  int64_t inner_dimension() const { return an_.inner; }
  /// nnz(C), exact (the symbolic pass counted it).
  int64_t nnz() const { return an_.nnz_c; }
  /// Multiplications (and additions) of the product: 2 * products() flops.
  int64_t products() const { return an_.stats.products; }
  /// C's row map (shared with every C the plan makes).
  row_map_type row_map() const { return an_.row_map_c; }
  /// Backend::native or Backend::portable (never automatic).
  Backend backend() const { return an_.backend; }
  /// Whether each pass bins its rows (global load balancing) and why.
  SpgemmBalance symbolic_balance(std::string* why = nullptr) const {
    if (why) *why = an_.symbolic_balance_reason;
    return an_.symbolic_balance;
  }
  SpgemmBalance numeric_balance(std::string* why = nullptr) const {
    if (why) *why = an_.numeric_balance_reason;
    return an_.numeric_balance;
  }
  /// Rows of C per accumulator in each pass.
  const SpgemmRowCounts& symbolic_rows() const { return an_.symbolic_rows; }
  const SpgemmRowCounts& numeric_rows() const { return an_.numeric_rows; }
  /// Bytes by phase and the peak (see SpgemmMemory).
  const SpgemmMemory& memory() const { return an_.memory; }
  /// The options as requested (what was chosen: backend(), resolved_options(), the balances).
  const SpgemmOptions& options() const { return options_; }
  /// The options the passes run with: the requested ones, automatic thresholds resolved for the
  /// backend.
  const SpgemmOptions& resolved_options() const { return an_.options; }
  /// Why backend(): the requested one and what the execution space and scalar have.
  const std::string& backend_reason() const { return backend_reason_; }
  const analysis_type& analysis() const { return an_; }

  /// The numeric pass into a new C (its columns and values): A and B must have the patterns the
  /// plan analysed (their values may be new).
  CrsType numeric(const CrsType& A, const CrsType& B) { return numeric(execution_space(), A, B); }
  CrsType numeric(const execution_space& space, const CrsType& A, const CrsType& B);

  /// The numeric pass again with A's and B's new values (same patterns) into C, a matrix this
  /// plan's numeric(A, B) returned: only C's values are written, no analysis or symbolic work.
  void numeric(const CrsType& A, const CrsType& B, const CrsType& C) { numeric(execution_space(), A, B, C); }
  void numeric(const execution_space& space, const CrsType& A, const CrsType& B, const CrsType& C);

  /// What the plan found and chose: backend, shape, products and compaction, each pass's load
  /// balancing (forced, or the automatic rule with its numbers) and rows per accumulator, memory.
  std::string describe() const;

 private:
  /// A and B must have the patterns the plan analysed: shapes and entry counts first (one message
  /// for both), then row maps and column indices, which cost nothing when they are the very
  /// Views the plan analysed (values changed in place) and one pass over them otherwise. Equal
  /// shapes and counts alone would let another pattern through: the passes would then index C's
  /// rows with columns the symbolic pass never saw.
  void check_operands(const execution_space& space, const char* who, const CrsType& A, const CrsType& B) const {
    SPROCKET_REQUIRE(A.numRows() == an_.num_rows && A.numCols() == an_.inner &&
                         static_cast<int64_t>(A.nnz()) == an_.nnz_a && B.numRows() == an_.inner &&
                         B.numCols() == an_.num_cols && static_cast<int64_t>(B.nnz()) == an_.nnz_b,
                     who, ": A is ", A.numRows(), " x ", A.numCols(), " with nnz ", A.nnz(), " and B ", B.numRows(),
                     " x ", B.numCols(), " with nnz ", B.nnz(), "; the plan analysed ", an_.num_rows, " x ",
                     an_.inner, " with nnz ", an_.nnz_a, " times ", an_.inner, " x ", an_.num_cols, " with nnz ",
                     an_.nnz_b, " (the patterns must be the analysed ones; their values may change)");
    Impl::require_same_pattern(space, who, A.numRows(), A.numCols(), A.graph.row_map, A.graph.entries, an_.num_rows,
                               an_.inner, pattern_a_.row_map, pattern_a_.entries, "entries", "A");
    Impl::require_same_pattern(space, who, B.numRows(), B.numCols(), B.graph.row_map, B.graph.entries, an_.inner,
                               an_.num_cols, pattern_b_.row_map, pattern_b_.entries, "entries", "B");
  }

  SpgemmOptions options_;
  std::string backend_reason_;
  analysis_type an_;
  /// The graphs of the A and B the plan analysed (shared with the caller's matrices, not copied),
  /// for check_operands.
  typename CrsType::staticcrsgraph_type pattern_a_, pattern_b_;
};

// The members that analyse and run kernels, out of the class: non-inline, so that the extern
// declarations below hold back their instantiation (the library compiles them, impl/spgemm/eti/).

template <class CrsType>
SpgemmPlan<CrsType>::SpgemmPlan(const CrsType& A, const CrsType& B, const SpgemmOptions& options)
    : options_(options), pattern_a_(A.graph), pattern_b_(B.graph) {
  Impl::spgemm_check_options(options);
  an_.backend = Impl::spgemm_resolve_backend<execution_space, scalar_type>(options.backend, &backend_reason_);
  an_.options = Impl::spgemm_resolve_options<execution_space>(options, an_.backend);
  an_.memory.limit_bytes =
      Impl::spgemm_memory_limit(options.memory_limit_bytes, Impl::spgemm_device_available_bytes<execution_space>());
  const execution_space space;
  const int64_t M = A.numRows();
  Impl::spgemm_analyse(space, A, B, an_);
  Impl::spgemm_symbolic(space, A, B, an_);
  an_.symbolic_done = true;
  an_.memory.output_bytes = Impl::spgemm_bytes<offset_type>(M + 1) + Impl::spgemm_bytes<ordinal_type>(an_.nnz_c) +
                            Impl::spgemm_bytes<scalar_type>(an_.nnz_c);
  // The numeric pass must fit too: say so now rather than after the caller's next step.
  Impl::spgemm_require_memory(an_.memory, an_.memory.analysis_bytes + an_.memory.workspace_bytes,
                              an_.memory.output_bytes - Impl::spgemm_bytes<offset_type>(M + 1) +
                                  an_.memory.numeric_bytes,
                              "C's " + std::to_string(an_.nnz_c) + " columns and values and the numeric pass");
  Impl::spgemm_update_peak(an_.memory);
  space.fence();
}

template <class CrsType>
CrsType SpgemmPlan<CrsType>::numeric(const execution_space& space, const CrsType& A, const CrsType& B) {
  check_operands(space, "SpgemmPlan::numeric", A, B);
  Impl::spgemm_require_memory(an_.memory, an_.memory.analysis_bytes + an_.memory.workspace_bytes,
                              an_.memory.output_bytes - Impl::spgemm_bytes<offset_type>(num_rows() + 1),
                              "C's columns and values");
  using Entries = typename CrsType::staticcrsgraph_type::entries_type::non_const_type;
  using Values = typename CrsType::values_type::non_const_type;
  Entries entries(Kokkos::ViewAllocateWithoutInitializing("Sprocket::spgemm::C::entries"), an_.nnz_c);
  Values values(Kokkos::ViewAllocateWithoutInitializing("Sprocket::spgemm::C::values"), an_.nnz_c);
  CrsType C("Sprocket::spgemm::C", static_cast<ordinal_type>(num_rows()), static_cast<ordinal_type>(num_cols()),
            static_cast<offset_type>(an_.nnz_c), values, an_.row_map_c, entries);
  Impl::spgemm_numeric<true>(space, A, B, an_, C);
  space.fence();
  return C;
}

template <class CrsType>
void SpgemmPlan<CrsType>::numeric(const execution_space& space, const CrsType& A, const CrsType& B, const CrsType& C) {
  check_operands(space, "SpgemmPlan::numeric", A, B);
  SPROCKET_REQUIRE(C.graph.row_map.data() == an_.row_map_c.data() && static_cast<int64_t>(C.nnz()) == an_.nnz_c &&
                       static_cast<int64_t>(C.graph.entries.extent(0)) >= an_.nnz_c &&
                       static_cast<int64_t>(C.values.extent(0)) >= an_.nnz_c,
                   "SpgemmPlan::numeric: C (", C.numRows(), " x ", C.numCols(), ", nnz ", C.nnz(),
                   ") is not a product of this plan (nnz ", an_.nnz_c,
                   "): pass a matrix its numeric(A, B) returned, which shares the plan's row map");
  Impl::spgemm_numeric<false>(space, A, B, an_, C);
  space.fence();
}

template <class CrsType>
std::string SpgemmPlan<CrsType>::describe() const {
  std::ostringstream os;
  const auto& st = an_.stats;
  os << "SpgemmPlan<" << (std::is_same_v<scalar_type, float> ? "float" : "double") << "> on "
     << execution_space::name() << "\n  C = A * B: " << num_rows() << " x " << inner_dimension() << " times "
     << inner_dimension() << " x " << num_cols() << ", nnz(A) " << an_.nnz_a << ", nnz(B) " << an_.nnz_b
     << "\n  backend " << to_string(backend()) << " (" << backend_reason_ << ")\n  products " << st.products
     << ", nnz(C) " << nnz() << std::fixed << std::setprecision(2) << " (compaction "
     << (nnz() > 0 ? static_cast<double>(st.products) / static_cast<double>(nnz()) : 0.0)
     << "), longest row: " << st.max_row_products << " products, " << an_.max_row_nnz << " entries, range "
     << st.max_row_range << "; referenced rows of B " << st.average_b_row() << " long on average, longest "
     << st.max_longest_b << (st.b_rows_sorted ? "; B's rows sorted" : "; B's rows not all sorted (no direct rows)")
     << "\n  output " << (an_.options.sorted ? "sorted" : "unsorted") << ", accumulator "
     << to_string(an_.options.accumulator) << (an_.options.direct_rows ? ", direct rows allowed" : ", no direct rows");
  const auto rows = [&](const SpgemmRowCounts& r) {
    os << r.empty << " empty, " << r.direct << " direct, " << r.hash << " hash, " << r.dense << " dense, "
       << r.global_hash << " global hash";
  };
  os << "\n  symbolic: " << to_string(an_.symbolic_balance) << " (" << an_.symbolic_balance_reason << "); rows: ";
  rows(an_.symbolic_rows);
  os << "\n  numeric: " << to_string(an_.numeric_balance) << " (" << an_.numeric_balance_reason << "); rows: ";
  rows(an_.numeric_rows);
  if (!an_.schedule_summary.empty()) os << "\n  " << an_.schedule_summary;
  if (an_.backend == Backend::native && Impl::is_host_space_v<execution_space>) {
    const auto& h = an_.host;
    os << "\n  host: " << (h.serial ? "the calling thread alone" : std::to_string(h.workers) + " workers") << ", "
       << h.symbolic_chunks.size() - 1 << " symbolic / " << h.numeric_chunks.size() - 1
       << " numeric chunks; per worker: hash " << h.hash_slots << " slots, dense " << h.dense_columns
       << " columns, global hash " << h.global_slots << " slots";
  }
  if (an_.backend == Backend::native && Impl::is_cuda_space_v<execution_space> && an_.cuda.ready)
    os << "\n  " << Impl::spgemm_cuda_describe(an_.cuda);
  const SpgemmMemory& m = an_.memory;
  os << "\n  memory: analysis " << Impl::spgemm_human_bytes(m.analysis_bytes) << ", symbolic temporaries "
     << Impl::spgemm_human_bytes(m.symbolic_bytes) << ", workspace " << Impl::spgemm_human_bytes(m.workspace_bytes)
     << ", numeric temporaries " << Impl::spgemm_human_bytes(m.numeric_bytes) << ", C "
     << Impl::spgemm_human_bytes(m.output_bytes) << "; peak " << Impl::spgemm_human_bytes(m.peak_bytes)
     << " (limit " << Impl::spgemm_human_bytes(m.limit_bytes) << ")\n";
  return os.str();
}

#ifdef SPROCKET_ETI
#define SPROCKET_SPGEMM_PLAN_EXTERN(Scalar, Offset, ExecSpace) \
  extern template class SpgemmPlan<Impl::EtiCrs<Scalar, Offset, ExecSpace>>;
SPROCKET_ETI_FOR_EACH(SPROCKET_SPGEMM_PLAN_EXTERN)
#undef SPROCKET_SPGEMM_PLAN_EXTERN
#endif

/// C = A * B in one call (analysis, symbolic and numeric pass).
template <class CrsType>
CrsType spgemm(const CrsType& A, const CrsType& B, const SpgemmOptions& options = {}) {
  SpgemmPlan<CrsType> plan(A, B, options);
  return plan.numeric(A, B);
}

}  // namespace Sprocket
