#pragma once
// sprocket-bench: what every benchmark kernel shares. The command line (Args), the kernel registry
// entry (KernelEntry), output (Record: one JSON line or one table row), timing (median of
// interleaved repeats, device-synchronised with Kokkos::fence()), matrix loading and the
// tolerance check against the reference kernels. Kernels live in bench_<kernel>.cpp (declared in
// bench_kernels.hpp); each one provides a function returning its KernelEntry and is listed once
// in sprocket_bench.cpp.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "Sprocket_Error.hpp"
#include "bench_args.hpp"
#include "Sprocket_Generators.hpp"
#include "Sprocket_HostMatrix.hpp"

namespace sprocket_bench {

// ------------------------------------------------------------------------------------------
// Output: a Record is an ordered list of fields; --json prints it as one object per line,
// otherwise records are gathered into a table per section (one section per matrix).

inline std::string json_escape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

inline std::string format_number(double v, const char* fmt = "%.7g") {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

class Record {
 public:
  enum class Kind { string, number, integer, boolean };
  struct Field {
    std::string key;
    Kind kind;
    std::string text;  ///< strings: the value; others: the JSON token
    double number = 0;
  };

  Record& set(const std::string& key, const std::string& value) {
    return put({key, Kind::string, value, 0});
  }
  Record& set(const std::string& key, const char* value) { return set(key, std::string(value)); }
  Record& set(const std::string& key, double value) {
    return put({key, Kind::number, format_number(value), value});
  }
  Record& set(const std::string& key, int64_t value) {
    return put({key, Kind::integer, std::to_string(value), static_cast<double>(value)});
  }
  Record& set(const std::string& key, int value) { return set(key, static_cast<int64_t>(value)); }
  Record& set(const std::string& key, bool value) {
    return put({key, Kind::boolean, value ? "true" : "false", value ? 1.0 : 0.0});
  }

  const Field* find(const std::string& key) const {
    for (const auto& f : fields_)
      if (f.key == key) return &f;
    return nullptr;
  }
  double number(const std::string& key, double fallback = std::nan("")) const {
    const Field* f = find(key);
    return f && f->kind != Kind::string ? f->number : fallback;
  }
  std::string text(const std::string& key) const {
    const Field* f = find(key);
    return f ? f->text : std::string();
  }
  const std::vector<Field>& fields() const { return fields_; }

  /// Removes every field whose key satisfies drop(key).
  template <class Predicate>
  Record& erase_if(Predicate drop) {
    std::vector<Field> kept;
    for (Field& f : fields_)
      if (!drop(f.key)) kept.push_back(std::move(f));
    fields_ = std::move(kept);
    return *this;
  }

  /// Sets every field of other (same key, kind and text), in its order.
  Record& merge(const Record& other) {
    for (const Field& f : other.fields_) put(f);
    return *this;
  }

  std::string to_json() const {
    std::string s = "{";
    for (size_t i = 0; i < fields_.size(); ++i) {
      const Field& f = fields_[i];
      if (i) s += ",";
      s += "\"" + json_escape(f.key) + "\":";
      s += f.kind == Kind::string ? "\"" + json_escape(f.text) + "\"" : f.text;
    }
    return s + "}";
  }

 private:
  Record& put(Field f) {
    for (auto& g : fields_)
      if (g.key == f.key) {
        g = std::move(f);
        return *this;
      }
    fields_.push_back(std::move(f));
    return *this;
  }
  std::vector<Field> fields_;
};

/// A table column: which record key, its heading and how to print numbers.
struct Column {
  std::string key;
  std::string title;
  const char* format = "%.4g";  ///< printf format for numbers
};

/// Where informational text goes: stdout for humans, stderr in --json mode (stdout stays pure
/// JSON lines).
inline std::ostream& info_stream(const Args& args) { return args.json ? std::cerr : std::cout; }

/// The peer a ratio key compares with: "kk" for ratio_vs_kk, numeric_ratio_vs_kk and
/// ratio_vs_kk_incl_setup_<n>; "" for a key that is no ratio.
inline std::string ratio_key_peer(const std::string& key) {
  const std::string mark = "ratio_vs_";
  const size_t at = key.find(mark);
  if (at == std::string::npos) return "";
  std::string peer = key.substr(at + mark.size());
  const size_t setup = peer.find("_incl_setup_");
  if (setup != std::string::npos) peer = peer.substr(0, setup);
  return peer;
}

/// The rule every published figure follows: no ratio against a result that failed --check. In
/// the records of one section (each with "impl" and, after --check, "check"), a record whose own
/// check failed loses every ratio key; the others lose their ratios against an implementation
/// whose check failed, and say so in "ratios_withheld". Peers are matched by "impl"
/// (ratio_vs_kk_unsorted compares with impl kk_unsorted).
inline void withhold_failed_ratios(std::vector<Record>& records) {
  std::vector<std::string> failed;
  for (const Record& r : records) {
    const Record::Field* check = r.find("check");
    if (check && check->kind == Record::Kind::boolean && check->number == 0) add_unique(failed, r.text("impl"));
  }
  if (failed.empty()) return;
  for (Record& r : records) {
    const Record::Field* check = r.find("check");
    const bool own_failed = check && check->kind == Record::Kind::boolean && check->number == 0;
    std::vector<std::string> withheld;
    r.erase_if([&](const std::string& key) {
      const std::string peer = ratio_key_peer(key);
      if (peer.empty()) return false;
      const bool drop = own_failed || std::find(failed.begin(), failed.end(), peer) != failed.end();
      if (drop) add_unique(withheld, own_failed ? std::string("all: this result failed --check") : peer + " failed --check");
      return drop;
    });
    if (!withheld.empty()) r.set("ratios_withheld", join(withheld, "; "));
  }
}

/// Prints one section: in --json mode one line per record; otherwise the title and a table of
/// the given columns (columns that no record has are left out; a missing cell prints "-").
/// Ratios against failed checks are withheld first (withhold_failed_ratios).
inline void emit_section(const Args& args, const std::string& title, std::vector<Record> records,
                         const std::vector<Column>& columns) {
  withhold_failed_ratios(records);
  if (args.json) {
    for (const Record& r : records) std::cout << r.to_json() << "\n";
    std::cout.flush();
    return;
  }
  std::vector<Column> used;
  for (const Column& c : columns)
    for (const Record& r : records)
      if (r.find(c.key)) {
        used.push_back(c);
        break;
      }
  std::vector<std::vector<std::string>> cells(records.size());
  std::vector<size_t> width(used.size());
  std::vector<bool> numeric(used.size(), true);
  for (size_t j = 0; j < used.size(); ++j) {
    width[j] = used[j].title.size();
    for (size_t i = 0; i < records.size(); ++i) {
      const Record::Field* f = records[i].find(used[j].key);
      std::string cell = "-";
      if (f) {
        if (f->kind == Record::Kind::number)
          cell = std::isfinite(f->number) ? format_number(f->number, used[j].format)
                                          : (std::isnan(f->number) ? "nan" : "inf");
        else if (f->kind == Record::Kind::boolean) cell = f->number != 0 ? "ok" : "FAIL";
        else cell = f->text;
        if (f->kind == Record::Kind::string) numeric[j] = false;
      }
      width[j] = std::max(width[j], cell.size());
      cells[i].push_back(cell);
    }
  }
  auto pad = [](const std::string& s, size_t w, bool right) {
    const std::string fill(w > s.size() ? w - s.size() : 0, ' ');
    return right ? fill + s : s + fill;
  };
  std::ostringstream os;
  os << title << "\n";
  for (size_t j = 0; j < used.size(); ++j) os << "  " << pad(used[j].title, width[j], numeric[j]);
  os << "\n";
  for (size_t i = 0; i < records.size(); ++i) {
    for (size_t j = 0; j < used.size(); ++j) os << "  " << pad(cells[i][j], width[j], numeric[j]);
    os << "\n";
  }
  std::cout << os.str() << "\n";
  std::cout.flush();
}

inline std::string human_bytes(double bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  int u = 0;
  while (bytes >= 1000 && u < 4) {
    bytes /= 1000;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u ? "%.1f %s" : "%.0f %s", bytes, units[u]);
  return buf;
}

// ------------------------------------------------------------------------------------------
// Timing

struct Timing {
  double median = 0, min = 0, max = 0;
};

inline Timing summarize(std::vector<double> t) {
  Timing s;
  if (t.empty()) return s;
  std::sort(t.begin(), t.end());
  const size_t n = t.size();
  s.median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
  s.min = t.front();
  s.max = t.back();
  return s;
}

/// Times every function `repeat` times after `warmup` untimed calls each, interleaved and rotated:
/// repeat r runs fns[r mod n], fns[r mod n + 1], ... fns[r mod n - 1] in turn (n functions), and
/// warm-up round w likewise starts at fns[w mod n]. Interleaving makes drift (clocks, temperature,
/// other load) hit every implementation alike; rotating makes the warmth of the caches do so too:
/// the function that runs right after another finds the matrix and vectors they share in the
/// caches, and with a fixed order that was always the same peer, after ours (sprocket-bench's
/// "order": "rotated"). Each call is timed alone between two Kokkos::fence() calls. after[i],
/// where given (and not empty), runs untimed after every call of fns[i], warm-ups included: it
/// drops what the call produced (spgemm: the C each product allocates), so the runs hold one
/// result at a time.
///
/// consecutive (sprocket-bench --order consecutive): each function instead runs its warm-up and
/// then its `repeat` timed calls back to back before the next one starts, in the order given
/// (nothing to rotate: each finds its own operands in the caches after its warm-up, as in a loop
/// that calls it alone). The default (rotated) is what every published table uses; the other
/// order shows how much a peer or we owe to that warmth.
inline std::vector<Timing> time_interleaved(const std::vector<std::function<void()>>& fns, int warmup,
                                            int repeat, const std::vector<std::function<void()>>& after = {},
                                            bool consecutive = false) {
  using clock = std::chrono::steady_clock;
  const auto tidy = [&](size_t i) {
    if (i < after.size() && after[i]) {
      after[i]();
      Kokkos::fence();
    }
  };
  std::vector<std::vector<double>> samples(fns.size());
  const auto timed_call = [&](size_t i) {
    Kokkos::fence();
    const auto t0 = clock::now();
    fns[i]();
    Kokkos::fence();
    samples[i].push_back(std::chrono::duration<double>(clock::now() - t0).count());
    tidy(i);
  };
  if (consecutive) {
    for (size_t i = 0; i < fns.size(); ++i) {
      for (int w = 0; w < warmup; ++w) {
        fns[i]();
        tidy(i);
      }
      for (int r = 0; r < repeat; ++r) timed_call(i);
    }
  } else {
    const size_t n = fns.size();
    for (int w = 0; w < warmup; ++w)
      for (size_t k = 0; k < n; ++k) {
        const size_t i = (static_cast<size_t>(w) + k) % n;
        fns[i]();
        tidy(i);
      }
    Kokkos::fence();
    for (int r = 0; r < repeat; ++r)
      for (size_t k = 0; k < n; ++k) timed_call((static_cast<size_t>(r) + k) % n);
  }
  std::vector<Timing> out;
  for (auto& s : samples) out.push_back(summarize(std::move(s)));
  return out;
}

/// One way a peer can run an operation (an algorithm, a schedule), for peers that offer several.
struct Way {
  std::string name;
  std::function<void()> run;
};

/// What an expert does with a library that offers several algorithms: try each on the problem and
/// keep the fastest. Each way runs once untimed (first use: JIT compiles, lazy set-ups), then 5
/// times interleaved with the others (fenced); the smallest median wins. `trials` gets
/// "name median_s, ..." for the record. Returns the winner's index (0 for a single way, untried).
inline size_t fastest_way(const std::vector<Way>& ways, std::string* trials = nullptr) {
  if (ways.size() <= 1) {
    if (trials) *trials = ways.empty() ? "" : ways[0].name + " (only way)";
    return 0;
  }
  std::vector<std::function<void()>> fns;
  for (const Way& w : ways) fns.push_back(w.run);
  const std::vector<Timing> t = time_interleaved(fns, 1, 5);
  size_t best = 0;
  std::ostringstream os;
  os.precision(3);
  for (size_t i = 0; i < ways.size(); ++i) {
    os << (i ? ", " : "") << ways[i].name << " " << t[i].median;
    if (t[i].median < t[best].median) best = i;
  }
  if (trials) *trials = os.str();
  return best;
}

/// Seconds of one call of f (host clock; f is expected to synchronise what it must).
template <class F>
double seconds_of(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// ------------------------------------------------------------------------------------------
// Inputs

/// Deterministic values in [-1, 1), never exactly zero (splitmix64 of the index and a seed):
/// inputs that are not zeros or constants, so wrong indexing shows up in --check.
inline double input_value(uint64_t i, uint64_t seed) {
  uint64_t z = i + seed * 0x9e3779b97f4a7c15ULL + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  const double u = static_cast<double>(z >> 11) * 0x1.0p-53;  // [0, 1)
  const double v = 2.0 * u - 1.0;
  return v == 0.0 ? 0.5 : v;
}

// ------------------------------------------------------------------------------------------
// Checking against a reference

struct CheckResult {
  bool ok = true;
  int64_t bad = 0;              ///< entries outside tolerance (NaN counts)
  double rel_err_norm = 0;      ///< ||y - ref||_2 / ||ref||_2 (absolute when ref is 0)
  double max_err_over_tol = 0;  ///< max_i |y_i - ref_i| / tol_i (inf when tol_i = 0 and y_i != ref_i)
  int64_t worst = -1;           ///< index of the worst entry
};

/// Entry-wise check |y_i - ref_i| <= tol_i; NaN in y fails.
inline CheckResult check_against(const std::vector<double>& y, const std::vector<double>& ref,
                                 const std::vector<double>& tol) {
  CheckResult c;
  double diff2 = 0, ref2 = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double d = std::abs(y[i] - ref[i]);
    ref2 += ref[i] * ref[i];
    double ratio;
    if (std::isnan(d)) {
      ratio = std::numeric_limits<double>::infinity();
      diff2 = std::numeric_limits<double>::quiet_NaN();
    } else {
      diff2 += d * d;
      ratio = d == 0 ? 0.0 : (tol[i] > 0 ? d / tol[i] : std::numeric_limits<double>::infinity());
    }
    if (!(d <= tol[i])) ++c.bad;
    if (ratio > c.max_err_over_tol || (c.worst < 0 && ratio > 0)) {
      c.max_err_over_tol = ratio;
      c.worst = static_cast<int64_t>(i);
    }
  }
  c.ok = c.bad == 0;
  c.rel_err_norm = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  return c;
}

/// Adds the check fields to a record; returns false on a mismatch (after printing the details).
inline bool report_check(Record& rec, const CheckResult& c, const std::vector<double>& y,
                         const std::vector<double>& ref, const std::vector<double>& tol,
                         const std::string& what) {
  rec.set("check", c.ok).set("err_norm", c.rel_err_norm).set("max_err_over_tol", c.max_err_over_tol);
  if (!c.ok) {
    std::ostringstream os;
    os.precision(17);
    os << "sprocket-bench: check FAILED for " << what << ": " << c.bad << " of " << ref.size()
       << " entries outside tolerance, relative error norm ||y - ref|| / ||ref|| = " << c.rel_err_norm;
    if (c.worst >= 0)
      os << "; worst entry " << c.worst << ": got " << y[c.worst] << ", reference " << ref[c.worst]
         << ", tolerance " << tol[c.worst];
    std::cerr << os.str() << "\n";
  }
  return c.ok;
}

// ------------------------------------------------------------------------------------------
// Fault injection: how the tests see --check fail (perf_tests/README.md, "Testing --check")

/// The implementation whose results are made wrong on purpose ("sprocket", "kk", "graphblas",
/// "dgemm", ...): the environment variable SPROCKET_BENCH_CORRUPT, read once; "" when unset. It is
/// for the tests of --check alone, so it is no option of --help, and a run that has it says so on
/// stderr: nothing that run measures is to be published.
inline const std::string& corrupted_impl() {
  static const std::string impl = [] {
    const char* value = std::getenv("SPROCKET_BENCH_CORRUPT");
    const std::string name = value ? value : "";
    if (!name.empty())
      std::cerr << "sprocket-bench: SPROCKET_BENCH_CORRUPT=" << name << ": the results of " << name
                << " are made wrong on purpose (a test of --check)\n";
    return name;
  }();
  return impl;
}

/// Whether SPROCKET_BENCH_CORRUPT names impl.
inline bool corrupts(const std::string& impl) { return !corrupted_impl().empty() && impl == corrupted_impl(); }

/// Adds 1 to the first entry (v(0), or v(0, 0) for a rank-2 View) of a result, where it is (any
/// memory space): one entry off by far more than any tolerance, the others right.
template <class View>
void add_one_to_first_entry(const View& v) {
  static_assert(View::rank == 1 || View::rank == 2, "a vector or a matrix");
  if (v.size() == 0) return;
  const auto first = [&] {
    if constexpr (View::rank == 1) return Kokkos::subview(v, 0);
    else return Kokkos::subview(v, 0, 0);
  }();
  typename View::non_const_value_type value;
  Kokkos::fence();
  Kokkos::deep_copy(value, first);
  Kokkos::deep_copy(first, value + 1);
}

// ------------------------------------------------------------------------------------------
// Matrices

/// Loads a matrix file or gen: spec. On failure prints the reader's message and returns false.
inline bool load_matrix_or_report(const std::string& spec, Sprocket::HostCsr& out) {
  try {
    out = Sprocket::load_matrix(spec);
    return true;
  } catch (const std::exception& e) {
    std::cerr << "sprocket-bench: " << e.what() << "\n";
    return false;
  }
}

}  // namespace sprocket_bench
