#pragma once
// Portable Kokkos SpGEMM (Backend::portable, on any execution space): one thread per row of C,
// each with its own linear-probing hash table in a global-memory workspace (a power of two >= 2
// keys slots: keys = min(products, column range) in the symbolic pass, nnz of C's row in the
// numeric pass); direct referencing of single-entry rows as the native backends. The rows run in
// batches whose tables fit the workspace (spgemm_portable_workspace_slots, or the largest table
// when that is larger), so temporary memory stays bounded whatever the product. The numeric pass
// extracts the keys and values into C's row and sorts them there (insertion sort for short rows,
// heap sort otherwise: in place, no extra memory). Numeric re-runs recompute the row the same way
// (the same columns in the same order come out). Simple on purpose: the native backends are the
// fast ones.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <vector>

#include "impl/spgemm/spgemm_analysis.hpp"

namespace Sprocket {
namespace Impl {

/// Slots of the portable workspace: 2^21 keys (8 MiB of int keys, plus values in the numeric pass).
inline constexpr int64_t spgemm_portable_workspace_slots = int64_t(1) << 21;

namespace kokkos {

/// Slots of a row's table for `keys` keys (0 for none): a power of two >= 2 keys, at least 8.
KOKKOS_INLINE_FUNCTION int64_t portable_slots(int64_t keys) {
  if (keys <= 0) return 0;
  int64_t s = 8;
  while (s < 2 * keys) s *= 2;
  return s;
}

KOKKOS_INLINE_FUNCTION uint32_t portable_hash(int64_t column, int64_t slots) {
  return static_cast<uint32_t>((static_cast<uint64_t>(column) * 0x9E3779B97F4A7C15ull) >> 32) &
         static_cast<uint32_t>(slots - 1);
}

/// Sorts n (column, value) pairs in place by column.
template <class Ordinal, class Scalar>
KOKKOS_INLINE_FUNCTION void portable_sort_pairs(Ordinal* c, Scalar* v, int64_t n) {
  if (n <= 32) {
    for (int64_t i = 1; i < n; ++i) {
      const Ordinal x = c[i];
      const Scalar y = v[i];
      int64_t j = i;
      for (; j > 0 && c[j - 1] > x; --j) {
        c[j] = c[j - 1];
        v[j] = v[j - 1];
      }
      c[j] = x;
      v[j] = y;
    }
    return;
  }
  // Heap sort: build a max-heap, then move the largest to the end repeatedly.
  auto sift = [&](int64_t root, int64_t end) {
    while (true) {
      int64_t child = 2 * root + 1;
      if (child >= end) return;
      if (child + 1 < end && c[child + 1] > c[child]) ++child;
      if (!(c[child] > c[root])) return;
      const Ordinal tc = c[root];
      c[root] = c[child];
      c[child] = tc;
      const Scalar tv = v[root];
      v[root] = v[child];
      v[child] = tv;
      root = child;
    }
  };
  for (int64_t r = n / 2 - 1; r >= 0; --r) sift(r, n);
  for (int64_t end = n - 1; end > 0; --end) {
    const Ordinal tc = c[0];
    c[0] = c[end];
    c[end] = tc;
    const Scalar tv = v[0];
    v[0] = v[end];
    v[end] = tv;
    sift(0, end);
  }
}

/// Row batches whose tables (slots(i) each, a prefix sum given on the host) fit `budget` slots.
inline std::vector<int64_t> portable_batches(const std::vector<int64_t>& prefix, int64_t budget) {
  std::vector<int64_t> b{0};
  const int64_t rows = static_cast<int64_t>(prefix.size()) - 1;
  int64_t start = 0;
  for (int64_t i = 0; i < rows; ++i)
    if (prefix[i + 1] - prefix[start] > budget && i > start) {
      b.push_back(i);
      start = i;
    }
  if (rows > 0) b.push_back(rows);
  return b;
}

/// Per row table slots (keys_of(i) keys, 0 for rows without a table) and their prefix on the
/// host; returns the largest table.
template <class ExecSpace, class Device, class KeysOf>
int64_t portable_table_prefix(const ExecSpace& space, int64_t rows, KeysOf keys_of, std::vector<int64_t>& prefix) {
  Kokkos::View<int64_t*, Device> scan(Kokkos::ViewAllocateWithoutInitializing("Sprocket::spgemm::portable_slots"),
                                      rows + 1);
  int64_t largest = 0;
  Kokkos::parallel_reduce(
      "Sprocket::spgemm::portable_slots", Kokkos::RangePolicy<ExecSpace>(space, 0, rows),
      KOKKOS_LAMBDA(const int64_t i, int64_t& m) {
        const int64_t s = portable_slots(keys_of(i));
        scan(i) = s;
        m = s > m ? s : m;
      },
      Kokkos::Max<int64_t>(largest));
  Kokkos::parallel_scan(
      "Sprocket::spgemm::portable_prefix", Kokkos::RangePolicy<ExecSpace>(space, 0, rows + 1),
      KOKKOS_LAMBDA(const int64_t i, int64_t& partial, const bool final) {
        const int64_t s = i < rows ? scan(i) : 0;
        if (final) scan(i) = partial;
        partial += s;
      });
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), scan);
  prefix.assign(h.data(), h.data() + rows + 1);
  return std::max<int64_t>(largest, 0);  // (the Max reduction of no rows is the lowest int64)
}

/// Keys of row i's symbolic table: min(products, range), 0 for empty and direct rows.
template <class RowMapA, class Products, class Columns>
struct PortableSymbolicKeys {
  RowMapA a_row_map;
  Products products;
  Columns lo, hi;
  bool direct;
  KOKKOS_INLINE_FUNCTION int64_t operator()(const int64_t i) const {
    const int64_t p = products(i);
    if (p == 0) return 0;
    if (direct && static_cast<int64_t>(a_row_map(i + 1)) - static_cast<int64_t>(a_row_map(i)) == 1) return 0;
    const int64_t range = static_cast<int64_t>(hi(i)) - static_cast<int64_t>(lo(i)) + 1;
    return p < range ? p : range;
  }
};

/// Keys of row i's numeric table: nnz of C's row, 0 for direct rows.
template <class RowMapA, class RowMapC>
struct PortableNumericKeys {
  RowMapA a_row_map;
  RowMapC c_row_map;
  bool direct;
  KOKKOS_INLINE_FUNCTION int64_t operator()(const int64_t i) const {
    if (direct && static_cast<int64_t>(a_row_map(i + 1)) - static_cast<int64_t>(a_row_map(i)) == 1) return 0;
    return static_cast<int64_t>(c_row_map(i + 1)) - static_cast<int64_t>(c_row_map(i));
  }
};

/// The symbolic pass: C's row map and nnz (row_map_c allocated here).
template <class ExecSpace, class CrsType, class Analysis>
void spgemm_symbolic(const ExecSpace& space, const CrsType& A, const CrsType& B, Analysis& an) {
  using Ordinal = typename CrsType::non_const_ordinal_type;
  using Offset = typename CrsType::non_const_size_type;
  using Device = typename CrsType::device_type;
  const int64_t M = an.num_rows;
  const bool direct = an.options.direct_rows && an.stats.b_rows_sorted;
  an.symbolic_balance = SpgemmBalance::uniform;
  an.symbolic_balance_reason = "portable backend: one thread per row, rows in batches of bounded workspace";
  const auto a_row_map = A.graph.row_map;
  const auto a_entries = A.graph.entries;
  const auto b_row_map = B.graph.row_map;
  const auto b_entries = B.graph.entries;
  const auto products = an.row_products;
  PortableSymbolicKeys<decltype(a_row_map), decltype(products), decltype(an.row_col_min)> keys_of{
      a_row_map, products, an.row_col_min, an.row_col_max, direct};
  std::vector<int64_t> prefix;
  spgemm_require_memory(an.memory, an.memory.analysis_bytes, spgemm_bytes<int64_t>(M + 1), "the portable symbolic pass's table sizes");
  const int64_t largest = portable_table_prefix<ExecSpace, Device>(space, M, keys_of, prefix);
  const int64_t budget = std::max(largest, std::min(prefix[M], spgemm_portable_workspace_slots));
  const int64_t temporaries = spgemm_bytes<int64_t>(M + 1) + spgemm_bytes<Ordinal>(budget);
  spgemm_require_memory(an.memory, an.memory.analysis_bytes, temporaries, "the portable symbolic pass's hash tables");
  an.memory.symbolic_bytes = std::max(an.memory.symbolic_bytes, temporaries);
  Kokkos::View<Ordinal*, Device> table(Kokkos::ViewAllocateWithoutInitializing("Sprocket::spgemm::portable_keys"),
                                       budget);
  Kokkos::View<int64_t*, Device> slots_at(Kokkos::ViewAllocateWithoutInitializing("Sprocket::spgemm::portable_at"),
                                          M + 1);
  Kokkos::deep_copy(slots_at, Kokkos::View<const int64_t*, Kokkos::HostSpace>(prefix.data(), M + 1));
  an.row_map_c = Kokkos::View<Offset*, Device>("Sprocket::spgemm::row_map_c", M + 1);
  const auto row_map_c = an.row_map_c;
  const std::vector<int64_t> batches = portable_batches(prefix, budget);
  for (size_t b = 0; b + 1 < batches.size(); ++b) {
    const int64_t first_row = batches[b];
    Kokkos::parallel_for(
        "Sprocket::spgemm::portable_symbolic", Kokkos::RangePolicy<ExecSpace>(space, batches[b], batches[b + 1]),
        KOKKOS_LAMBDA(const int64_t i) {
          const int64_t p = products(i);
          const int64_t a0 = a_row_map(i), a1 = a_row_map(i + 1);
          int64_t count = 0;
          if (p > 0 && direct && a1 - a0 == 1) {
            count = p;
          } else if (p > 0) {
            const int64_t base = slots_at(i) - slots_at(first_row);
            const int64_t slots = slots_at(i + 1) - slots_at(i);
            for (int64_t s = 0; s < slots; ++s) table(base + s) = -1;
            for (int64_t k = a0; k < a1; ++k) {
              const int64_t j = a_entries(k);
              for (int64_t q = b_row_map(j), e = b_row_map(j + 1); q < e; ++q) {
                const Ordinal c = b_entries(q);
                for (uint32_t h = portable_hash(c, slots);; h = (h + 1) & static_cast<uint32_t>(slots - 1)) {
                  const Ordinal key = table(base + h);
                  if (key == c) break;
                  if (key < 0) {
                    table(base + h) = c;
                    ++count;
                    break;
                  }
                }
              }
            }
          }
          row_map_c(i + 1) = static_cast<Offset>(count);
        });
  }
  // Overflow of Offset: the longest row and the sum, in 64 bits, before the scan.
  int64_t longest = 0, nnz = 0;
  Kokkos::parallel_reduce(
      "Sprocket::spgemm::portable_longest", Kokkos::RangePolicy<ExecSpace>(space, 0, M),
      KOKKOS_LAMBDA(const int64_t i, int64_t& m, int64_t& sum) {
        const int64_t n = static_cast<int64_t>(row_map_c(i + 1));
        m = n > m ? n : m;
        sum += n;
      },
      Kokkos::Max<int64_t>(longest), nnz);
  longest = std::max<int64_t>(longest, 0);  // (the Max reduction of no rows is the lowest int64)
  spgemm_check_offset<Offset>(longest, "the longest row of C");
  spgemm_check_offset<Offset>(nnz, "nnz(C)");
  Kokkos::parallel_scan(
      "Sprocket::spgemm::portable_row_map", Kokkos::RangePolicy<ExecSpace>(space, 0, M + 1),
      KOKKOS_LAMBDA(const int64_t i, int64_t& partial, const bool final) {
        partial += static_cast<int64_t>(row_map_c(i));
        if (final) row_map_c(i) = static_cast<Offset>(partial);
      });
  an.nnz_c = nnz;
  an.max_row_nnz = longest;
  // The numeric pass's temporaries, bounded from above now (its tables hold 2 * nnz of a row
  // rounded up to a power of two, at least 8 slots) so the plan can check them before any numeric
  // pass: the slot prefix and a workspace of keys and values.
  {
    using Scalar = typename CrsType::non_const_value_type;
    const int64_t all_tables = 4 * nnz + 8 * M;
    const int64_t numeric_budget = std::max(portable_slots(longest), std::min(all_tables, spgemm_portable_workspace_slots));
    an.memory.numeric_bytes = std::max(an.memory.numeric_bytes, spgemm_bytes<int64_t>(M + 1) +
                                                                    spgemm_bytes<Ordinal>(numeric_budget) +
                                                                    spgemm_bytes<Scalar>(numeric_budget));
  }
  an.symbolic_rows = SpgemmRowCounts{};
  an.symbolic_rows.empty = M - an.stats.rows_with_products;
  an.symbolic_rows.direct = direct ? an.stats.single_entry_rows : 0;
  an.symbolic_rows.global_hash = an.stats.rows_with_products - an.symbolic_rows.direct;
  an.schedule_summary = "portable: " + std::to_string(batches.size() - 1) + " symbolic batch(es) of at most " +
                        std::to_string(budget) + " table slots";
}

/// The numeric pass into C (columns and values; a re-run writes the same columns again).
template <class ExecSpace, class CrsType, class Analysis>
void spgemm_numeric(const ExecSpace& space, const CrsType& A, const CrsType& B, Analysis& an, const CrsType& C) {
  using Scalar = typename CrsType::non_const_value_type;
  using Ordinal = typename CrsType::non_const_ordinal_type;
  using Device = typename CrsType::device_type;
  const int64_t M = an.num_rows;
  if (an.nnz_c == 0) return;
  const bool direct = an.options.direct_rows && an.stats.b_rows_sorted;
  const bool sorted = an.options.sorted;
  an.numeric_balance = SpgemmBalance::uniform;
  an.numeric_balance_reason = an.symbolic_balance_reason;
  const auto a_row_map = A.graph.row_map;
  const auto a_entries = A.graph.entries;
  const auto a_values = A.values;
  const auto b_row_map = B.graph.row_map;
  const auto b_entries = B.graph.entries;
  const auto b_values = B.values;
  const auto c_row_map = an.row_map_c;
  const auto c_entries = C.graph.entries;
  const auto c_values = C.values;
  using CEntries = Kokkos::View<Ordinal*, Device>;
  const CEntries entries(const_cast<Ordinal*>(c_entries.data()), c_entries.extent(0));
  PortableNumericKeys<decltype(a_row_map), decltype(c_row_map)> keys_of{a_row_map, c_row_map, direct};
  std::vector<int64_t> prefix;
  const int64_t held = an.memory.analysis_bytes + an.memory.output_bytes;
  spgemm_require_memory(an.memory, held, spgemm_bytes<int64_t>(M + 1), "the portable numeric pass's table sizes");
  const int64_t largest = portable_table_prefix<ExecSpace, Device>(space, M, keys_of, prefix);
  const int64_t budget = std::max(largest, std::min(prefix[M], spgemm_portable_workspace_slots));
  const int64_t temporaries = spgemm_bytes<int64_t>(M + 1) + spgemm_bytes<Ordinal>(budget) + spgemm_bytes<Scalar>(budget);
  spgemm_require_memory(an.memory, held, temporaries, "the portable numeric pass's hash tables");
  an.memory.numeric_bytes = std::max(an.memory.numeric_bytes, temporaries);
  Kokkos::View<Ordinal*, Device> keys(Kokkos::ViewAllocateWithoutInitializing("Sprocket::spgemm::portable_keys"), budget);
  Kokkos::View<Scalar*, Device> vals(Kokkos::ViewAllocateWithoutInitializing("Sprocket::spgemm::portable_values"), budget);
  Kokkos::View<int64_t*, Device> slots_at(Kokkos::ViewAllocateWithoutInitializing("Sprocket::spgemm::portable_at"),
                                          M + 1);
  Kokkos::deep_copy(slots_at, Kokkos::View<const int64_t*, Kokkos::HostSpace>(prefix.data(), M + 1));
  const std::vector<int64_t> batches = portable_batches(prefix, budget);
  for (size_t b = 0; b + 1 < batches.size(); ++b) {
    const int64_t first_row = batches[b];
    Kokkos::parallel_for(
        "Sprocket::spgemm::portable_numeric", Kokkos::RangePolicy<ExecSpace>(space, batches[b], batches[b + 1]),
        KOKKOS_LAMBDA(const int64_t i) {
          const int64_t c0 = c_row_map(i), n = static_cast<int64_t>(c_row_map(i + 1)) - c0;
          if (n == 0) return;
          const int64_t a0 = a_row_map(i), a1 = a_row_map(i + 1);
          Ordinal* cols = &entries(c0);
          Scalar* out = &c_values(c0);
          if (direct && a1 - a0 == 1) {
            const Scalar a = a_values(a0);
            const int64_t q0 = b_row_map(a_entries(a0));
            for (int64_t q = 0; q < n; ++q) {
              cols[q] = b_entries(q0 + q);
              out[q] = a * b_values(q0 + q);
            }
            return;
          }
          const int64_t base = slots_at(i) - slots_at(first_row);
          const int64_t slots = slots_at(i + 1) - slots_at(i);
          for (int64_t s = 0; s < slots; ++s) keys(base + s) = -1;
          for (int64_t k = a0; k < a1; ++k) {
            const Scalar a = a_values(k);
            const int64_t j = a_entries(k);
            for (int64_t q = b_row_map(j), e = b_row_map(j + 1); q < e; ++q) {
              const Ordinal c = b_entries(q);
              const Scalar v = a * b_values(q);
              for (uint32_t h = portable_hash(c, slots);; h = (h + 1) & static_cast<uint32_t>(slots - 1)) {
                const Ordinal key = keys(base + h);
                if (key == c) {
                  vals(base + h) += v;
                  break;
                }
                if (key < 0) {
                  keys(base + h) = c;
                  vals(base + h) = v;
                  break;
                }
              }
            }
          }
          int64_t q = 0;
          for (int64_t s = 0; s < slots; ++s)
            if (keys(base + s) >= 0) {
              cols[q] = keys(base + s);
              out[q] = vals(base + s);
              ++q;
            }
          if (sorted) portable_sort_pairs(cols, out, n);
        });
  }
  an.numeric_rows = an.symbolic_rows;
}

}  // namespace kokkos
}  // namespace Impl
}  // namespace Sprocket
