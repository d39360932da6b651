#pragma once
// What the solver command-line programs share (sprocket-solve and its peer programs such as
// perf_tests/hypre_amg_peer.cpp, which must solve exactly the same problems): number parsing for
// flags, the known solution X* of --rhs ones, and the JSON writers of their last output line.
#include <cmath>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace Sprocket {
namespace tools {

/// The whole of v as an int / a double, or nothing (so each program words its own usage error).
inline std::optional<int> to_int(const std::string& v) {
  try {
    size_t used = 0;
    const int x = std::stoi(v, &used);
    if (used == v.size()) return x;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}
inline std::optional<double> to_double(const std::string& v) {
  try {
    size_t used = 0;
    const double x = std::stod(v, &used);
    if (used == v.size()) return x;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

/// X* of --rhs ones, by columns: column 0 all ones, column j > 0 is 1 + j (i mod 7) / 7 (distinct
/// columns, so a block solver cannot converge on one and copy it).
inline std::vector<std::vector<double>> known_solution(int64_t n, int s) {
  std::vector<std::vector<double>> x(s, std::vector<double>(n));
  for (int j = 0; j < s; ++j)
    for (int64_t i = 0; i < n; ++i) x[j][i] = 1.0 + j * double(i % 7) / 7.0;
  return x;
}

/// A JSON number with every digit of a double; null for inf and NaN (JSON has neither).
inline std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

template <class T>
std::string json_array(const std::vector<T>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ",";
    if constexpr (std::is_floating_point_v<T>) s += json_number(v[i]);
    else s += std::to_string(v[i]);
  }
  return s + "]";
}

/// A JSON string: quotes and backslashes escaped, control characters replaced by spaces.
inline std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
      continue;
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace tools
}  // namespace Sprocket
