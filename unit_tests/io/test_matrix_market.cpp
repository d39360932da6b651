// Tests of the Matrix Market reader and writer: every shared real-world matrix against its
// MANIFEST.tsv row, small inputs compared entry by entry, bit-exact write/read round trips
// (plain and gzip), and broken inputs that must each raise a ParseError naming the right line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "Sprocket_Error.hpp"
#include "Sprocket_HostMatrix.hpp"
#include "Sprocket_MatrixMarket.hpp"
#include "Sprocket_Memory.hpp"

namespace fs = std::filesystem;
using Sprocket::HostCsr;
using Sprocket::MatrixMarketSymmetry;
using Sprocket::ParseError;
using Sprocket::read_matrix_market;
using Sprocket::read_matrix_market_string;
using Sprocket::write_matrix_market;

namespace {

// ---------------------------------------------------------------------------------------------
// Helpers

/// A fresh directory under the system temp folder, removed with everything in it at scope end.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "sprocket_mm_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

uint64_t bits_of(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

/// Exact comparison of structure and of every value's bit pattern (so -0.0, NaN payloads and
/// the last ulp all count).
::testing::AssertionResult bitwise_equal(const HostCsr& actual, const HostCsr& expected) {
  if (actual.num_rows != expected.num_rows || actual.num_cols != expected.num_cols)
    return ::testing::AssertionFailure() << "size " << actual.num_rows << " x " << actual.num_cols
                                         << ", expected " << expected.num_rows << " x "
                                         << expected.num_cols;
  if (actual.row_map != expected.row_map)
    return ::testing::AssertionFailure() << "row_map differs";
  if (actual.entries != expected.entries)
    return ::testing::AssertionFailure() << "column indices differ";
  if (actual.values.size() != expected.values.size())
    return ::testing::AssertionFailure() << "value counts differ";
  for (std::size_t k = 0; k < actual.values.size(); ++k)
    if (bits_of(actual.values[k]) != bits_of(expected.values[k]))
      return ::testing::AssertionFailure()
             << "value " << k << " is " << actual.values[k] << ", expected "
             << expected.values[k];
  return ::testing::AssertionSuccess();
}

/// Expected CSR written out by hand (values compared bit for bit).
void expect_csr(const HostCsr& A, int64_t rows, int64_t cols, std::vector<int64_t> row_map,
                std::vector<int> entries, std::vector<double> values) {
  HostCsr expected;
  expected.num_rows = rows;
  expected.num_cols = cols;
  expected.row_map = std::move(row_map);
  expected.entries = std::move(entries);
  expected.values = std::move(values);
  EXPECT_TRUE(bitwise_equal(A, expected));
}

/// A^T with sorted columns, built independently of the reader.
HostCsr transpose(const HostCsr& A) {
  std::vector<Sprocket::Triplet> triplets;
  for (int64_t i = 0; i < A.num_rows; ++i)
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k)
      triplets.push_back({A.entries[k], i, A.values[k]});
  return HostCsr::from_triplets(A.num_cols, A.num_rows, std::move(triplets));
}

int64_t count_diagonal(const HostCsr& A, bool positive_only = false) {
  int64_t count = 0;
  for (int64_t i = 0; i < A.num_rows; ++i)
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k)
      if (A.entries[k] == i && (!positive_only || A.values[k] > 0)) ++count;
  return count;
}

/// Deterministic pseudo-random numbers (no <random> distributions: they differ by library).
struct Lcg {
  uint64_t state;
  uint64_t next() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  }
  double uniform() { return static_cast<double>(next()) / static_cast<double>(1ULL << 31); }
};

/// Values chosen to break a writer that rounds: thirds, tiny and huge magnitudes, subnormals,
/// negative zero, integers beyond 2^32.
double awkward_value(Lcg& random) {
  static const double specials[] = {1.0 / 3.0,
                                    -2.0 / 3.0,
                                    0.1,
                                    -0.0,
                                    0.0,
                                    1e-300,
                                    -1.7976931348623157e308,
                                    4.9406564584124654e-324,
                                    123456789012345.0,
                                    std::nextafter(1.0, 2.0)};
  const uint64_t pick = random.next() % 14;
  if (pick < 10) return specials[pick];
  return (random.uniform() - 0.5) * std::pow(10.0, static_cast<double>(random.next() % 40) - 20);
}

HostCsr random_general(int64_t rows, int64_t cols, int64_t per_row, uint64_t seed) {
  Lcg random{seed};
  std::vector<Sprocket::Triplet> triplets;
  for (int64_t i = 0; i < rows; ++i) {
    if (i % 7 == 3) continue;  // some empty rows
    for (int64_t k = 0; k < per_row; ++k)
      triplets.push_back({i, static_cast<int64_t>(random.next() % cols), awkward_value(random)});
  }
  return HostCsr::from_triplets(rows, cols, std::move(triplets));
}

HostCsr random_symmetric(int64_t n, int64_t per_row, uint64_t seed) {
  Lcg random{seed};
  std::vector<Sprocket::Triplet> triplets;
  for (int64_t i = 0; i < n; ++i) {
    triplets.push_back({i, i, awkward_value(random)});
    for (int64_t k = 0; k < per_row; ++k) {
      const int64_t j = static_cast<int64_t>(random.next() % n);
      if (j == i) continue;
      const double value = awkward_value(random);
      triplets.push_back({i, j, value});
      triplets.push_back({j, i, value});
    }
  }
  HostCsr A = HostCsr::from_triplets(n, n, std::move(triplets));
  // Summing duplicate pairs in different orders could break exact symmetry: rebuild from the
  // lower triangle so that both halves hold the same bits.
  std::vector<Sprocket::Triplet> mirrored;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k)
      if (A.entries[k] <= i) {
        mirrored.push_back({i, A.entries[k], A.values[k]});
        if (A.entries[k] != i) mirrored.push_back({A.entries[k], i, A.values[k]});
      }
  return HostCsr::from_triplets(n, n, std::move(mirrored));
}

/// Success when `read` throws a ParseError for `file` at `line` whose message contains `phrase`.
::testing::AssertionResult parse_error_at(const std::function<void()>& read,
                                          const std::string& file, long line,
                                          const std::string& phrase) {
  try {
    read();
  } catch (const ParseError& error) {
    const std::string what = error.what();
    const std::string prefix = file + ":" + std::to_string(line) + ": ";
    if (error.line() != line)
      return ::testing::AssertionFailure()
             << "reported line " << error.line() << ", expected " << line << ": " << what;
    if (error.file() != file || what.rfind(prefix, 0) != 0)
      return ::testing::AssertionFailure() << "message does not start with '" << prefix
                                           << "': " << what;
    if (what.find(phrase) == std::string::npos)
      return ::testing::AssertionFailure() << "message lacks '" << phrase << "': " << what;
    return ::testing::AssertionSuccess();
  } catch (const std::exception& error) {
    return ::testing::AssertionFailure() << "threw something else than ParseError: "
                                         << error.what();
  }
  return ::testing::AssertionFailure() << "nothing was thrown";
}

::testing::AssertionResult string_fails_at(const std::string& text, long line,
                                           const std::string& phrase) {
  return parse_error_at([&] { read_matrix_market_string(text, "broken.mtx"); }, "broken.mtx",
                        line, phrase);
}

std::vector<std::string> split(const std::string& line, char separator) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, separator)) fields.push_back(field);
  if (!line.empty() && line.back() == separator) fields.push_back("");
  return fields;
}

// ---------------------------------------------------------------------------------------------
// The shared real-world matrices

TEST(MatrixMarketShared, EveryMatrixMatchesTheManifest) {
  const fs::path folder = SPROCKET_SHARED_MATRICES;
  if (!fs::is_directory(folder)) {
    if (std::getenv("SPROCKET_ALLOW_MISSING_SHARED") != nullptr)
      GTEST_SKIP() << folder << " is missing (allowed by SPROCKET_ALLOW_MISSING_SHARED)";
    FAIL() << "shared matrix folder " << folder << " is missing";
  }
  const fs::path manifest_path = folder / "MANIFEST.tsv";
  std::ifstream manifest(manifest_path);
  ASSERT_TRUE(manifest.good()) << "cannot read " << manifest_path;

  std::string line;
  ASSERT_TRUE(static_cast<bool>(std::getline(manifest, line))) << "empty MANIFEST.tsv";
  const std::vector<std::string> header = split(line, '\t');
  std::map<std::string, std::size_t> column;
  for (std::size_t c = 0; c < header.size(); ++c) column[header[c]] = c;
  for (const char* needed :
       {"name", "rows", "cols", "nnz_stored", "symmetry", "field", "diag_entries",
        "positive_diag"})
    ASSERT_EQ(column.count(needed), 1u) << "MANIFEST.tsv has no column '" << needed << "'";

  std::set<std::string> listed;
  int line_number = 1;
  while (std::getline(manifest, line)) {
    ++line_number;
    if (line.empty()) continue;
    const std::vector<std::string> fields = split(line, '\t');
    ASSERT_EQ(fields.size(), header.size()) << "MANIFEST.tsv line " << line_number;
    auto number = [&](const char* name) { return std::stoll(fields[column[name]]); };
    const std::string name = fields[column["name"]];
    const std::string symmetry = fields[column["symmetry"]];
    const std::string field = fields[column["field"]];
    const int64_t rows = number("rows"), cols = number("cols");
    const int64_t stored = number("nnz_stored"), diagonal = number("diag_entries");
    SCOPED_TRACE(name);
    listed.insert(name + ".mtx.gz");

    const fs::path file = folder / (name + ".mtx.gz");
    if (!fs::is_regular_file(file)) {
      ADD_FAILURE() << "listed matrix " << file << " is missing";
      continue;
    }
    HostCsr A;
    try {
      A = read_matrix_market(file.string());
    } catch (const std::exception& error) {
      ADD_FAILURE() << "reading failed: " << error.what();
      continue;
    }
    EXPECT_NO_THROW(A.validate());
    EXPECT_TRUE(A.is_sorted_and_unique());
    EXPECT_EQ(A.num_rows, rows);
    EXPECT_EQ(A.num_cols, cols);
    EXPECT_EQ(count_diagonal(A), diagonal);
    if (symmetry == "symmetric") {
      EXPECT_EQ(A.nnz(), 2 * stored - diagonal);
      EXPECT_TRUE(bitwise_equal(A, transpose(A))) << "not symmetric in pattern and value";
    } else {
      ASSERT_EQ(symmetry, "general") << "unexpected symmetry in the manifest";
      EXPECT_EQ(A.nnz(), stored);
    }
    if (field == "pattern") {
      EXPECT_EQ(std::count(A.values.begin(), A.values.end(), 1.0), A.nnz())
          << "pattern entries must all be 1";
    } else {
      // positive_diag counts the file's values, which a pattern file does not have.
      EXPECT_EQ(count_diagonal(A, true), number("positive_diag"));
      if (field == "integer") {
        EXPECT_TRUE(std::all_of(A.values.begin(), A.values.end(),
                                [](double value) { return value == std::trunc(value); }))
            << "an integer matrix has a fractional value";
      }
    }
  }
  EXPECT_FALSE(listed.empty()) << "MANIFEST.tsv lists no matrices";

  // Every matrix in the folder is read, so a file missing from the manifest is a failure too.
  for (const auto& entry : fs::directory_iterator(folder)) {
    const std::string file_name = entry.path().filename().string();
    const std::string suffix = ".mtx.gz";
    if (file_name.size() <= suffix.size() ||
        file_name.compare(file_name.size() - suffix.size(), suffix.size(), suffix) != 0 ||
        listed.count(file_name) == 1)
      continue;
    ADD_FAILURE() << file_name << " is not in MANIFEST.tsv";
    EXPECT_NO_THROW(read_matrix_market(entry.path().string())) << file_name;
  }
}

// ---------------------------------------------------------------------------------------------
// Small inputs with exactly known results

TEST(MatrixMarketRead, General) {
  const HostCsr A = read_matrix_market_string(
      "%%MatrixMarket matrix coordinate real general\n"
      "3 4 5\n"
      "1 1 1.5\n"
      "3 4 -2.25\n"
      "2 2 1e-3\n"
      "1 3 7\n"
      "3 1 0.1\n");
  expect_csr(A, 3, 4, {0, 2, 3, 5}, {0, 2, 1, 0, 3}, {1.5, 7.0, 1e-3, 0.1, -2.25});
}

TEST(MatrixMarketRead, SymmetricExpandsWithoutDuplicatingTheDiagonal) {
  const HostCsr A = read_matrix_market_string(
      "%%MatrixMarket matrix coordinate real symmetric\n"
      "3 3 4\n"
      "1 1 2\n"
      "2 1 -1\n"
      "3 2 -0.5\n"
      "3 3 4\n");
  expect_csr(A, 3, 3, {0, 2, 4, 6}, {0, 1, 0, 2, 1, 2}, {2.0, -1.0, -1.0, -0.5, -0.5, 4.0});
}

TEST(MatrixMarketRead, SymmetricUpperTriangleIsMirroredToo) {
  const HostCsr A = read_matrix_market_string(
      "%%MatrixMarket matrix coordinate real symmetric\n"
      "2 2 2\n"
      "1 2 5\n"
      "2 2 1\n");
  expect_csr(A, 2, 2, {0, 1, 3}, {1, 0, 1}, {5.0, 5.0, 1.0});
}

TEST(MatrixMarketRead, SkewSymmetricNegatesTheMirror) {
  const HostCsr A = read_matrix_market_string(
      "%%MatrixMarket matrix coordinate real skew-symmetric\n"
      "3 3 3\n"
      "2 1 3\n"
      "3 1 -4\n"
      "2 2 0\n");  // an explicit zero on the diagonal is allowed and kept once
  expect_csr(A, 3, 3, {0, 2, 4, 5}, {1, 2, 0, 1, 0}, {-3.0, 4.0, 3.0, 0.0, -4.0});
}

TEST(MatrixMarketRead, PatternGeneralAndSymmetricGetValueOne) {
  const HostCsr general = read_matrix_market_string(
      "%%MatrixMarket matrix coordinate pattern general\n"
      "2 3 3\n"
      "1 3\n"
      "2 1\n"
      "1 1\n");
  expect_csr(general, 2, 3, {0, 2, 3}, {0, 2, 0}, {1.0, 1.0, 1.0});

  const HostCsr symmetric = read_matrix_market_string(
      "%%MatrixMarket matrix coordinate pattern symmetric\n"
      "2 2 2\n"
      "1 1\n"
      "2 1\n");
  expect_csr(symmetric, 2, 2, {0, 2, 3}, {0, 1, 0}, {1.0, 1.0, 1.0});
}

TEST(MatrixMarketRead, IntegerField) {
  const HostCsr A = read_matrix_market_string(
      "%%MatrixMarket matrix coordinate integer general\n"
      "2 2 3\n"
      "1 1 -7\n"
      "2 1 +3\n"
      "2 2 9007199254740992\n");  // 2^53, the largest magnitude a double holds exactly
  expect_csr(A, 2, 2, {0, 1, 3}, {0, 0, 1}, {-7.0, 3.0, 9007199254740992.0});
}

TEST(MatrixMarketRead, DuplicatesAreSummed) {
  const HostCsr A = read_matrix_market_string(
      "%%MatrixMarket matrix coordinate real general\n"
      "2 2 4\n"
      "1 1 1\n"
      "2 2 5\n"
      "1 1 2.5\n"
      "1 1 -0.25\n");
  expect_csr(A, 2, 2, {0, 1, 2}, {0, 1}, {3.25, 5.0});

  const HostCsr symmetric = read_matrix_market_string(
      "%%MatrixMarket matrix coordinate real symmetric\n"
      "2 2 2\n"
      "2 1 1\n"
      "2 1 2\n");
  expect_csr(symmetric, 2, 2, {0, 1, 2}, {1, 0}, {3.0, 3.0});
}

TEST(MatrixMarketRead, ExplicitZerosAreKept) {
  const HostCsr A = read_matrix_market_string(
      "%%MatrixMarket matrix coordinate real general\n"
      "2 2 3\n"
      "1 2 0\n"
      "2 1 -0.0\n"
      "2 2 0e0\n");
  expect_csr(A, 2, 2, {0, 1, 3}, {1, 0, 1}, {0.0, -0.0, 0.0});
}

TEST(MatrixMarketRead, CommentsBlankLinesAndTabsAnywhereAfterTheBanner) {
  const HostCsr A = read_matrix_market_string(
      "%%MatrixMarket matrix coordinate real general\n"
      "% a comment\n"
      "\n"
      "   % an indented comment\n"
      " \t \n"
      "  2\t2   2  \n"
      "%between entries\n"
      "\n"
      "\t1 2\t3.5\n"
      "   \n"
      "2 1 -1   \n"
      "% trailing comment\n"
      "\n");
  expect_csr(A, 2, 2, {0, 1, 2}, {1, 0}, {3.5, -1.0});
}

TEST(MatrixMarketRead, EmptyMatrices) {
  expect_csr(read_matrix_market_string("%%MatrixMarket matrix coordinate real general\n3 2 0\n"),
             3, 2, {0, 0, 0, 0}, {}, {});
  expect_csr(read_matrix_market_string("%%MatrixMarket matrix coordinate real symmetric\n0 0 0"),
             0, 0, {0}, {}, {});
}

TEST(MatrixMarketRead, NonSquare) {
  const HostCsr A = read_matrix_market_string(
      "%%MatrixMarket matrix coordinate real general\n"
      "2 5 2\n"
      "2 5 1\n"
      "1 4 2\n");
  expect_csr(A, 2, 5, {0, 1, 2}, {3, 4}, {2.0, 1.0});
}

TEST(MatrixMarketRead, CrlfLineEndingsAndNoFinalNewline) {
  const HostCsr A = read_matrix_market_string(
      "%%MatrixMarket matrix coordinate real symmetric\r\n"
      "% comment\r\n"
      "\r\n"
      "2 2 2\r\n"
      "1 1 1.25\r\n"
      "2 1 -3");
  expect_csr(A, 2, 2, {0, 2, 3}, {0, 1, 0}, {1.25, -3.0, -3.0});
}

TEST(MatrixMarketRead, HeaderKeywordsAreCaseInsensitive) {
  const HostCsr A = read_matrix_market_string(
      "%%matrixmarket MATRIX Coordinate REAL Skew-Symmetric\n"
      "2 2 1\n"
      "2 1 1");  // no newline after the last entry
  expect_csr(A, 2, 2, {0, 1, 2}, {1, 0}, {-1.0, 1.0});
}

// Documented choice: any value text that strtod parses completely is accepted, which includes
// nan, inf and hexadecimal floats; only overflow beyond the double range is refused.
TEST(MatrixMarketRead, ValuesAcceptedByStrtod) {
  const HostCsr A = read_matrix_market_string(
      "%%MatrixMarket matrix coordinate real general\n"
      "1 4 4\n"
      "1 1 inf\n"
      "1 2 -Infinity\n"
      "1 3 NaN\n"
      "1 4 0x1p-2\n");
  ASSERT_EQ(A.nnz(), 4);
  EXPECT_TRUE(std::isinf(A.values[0]) && A.values[0] > 0);
  EXPECT_TRUE(std::isinf(A.values[1]) && A.values[1] < 0);
  EXPECT_TRUE(std::isnan(A.values[2]));
  EXPECT_EQ(A.values[3], 0.25);
}

TEST(MatrixMarketRead, LinesLongerThanTheReadBufferAndManyChunks) {
  // A 9 MB comment line forces the line buffer to grow; 300k entries span several chunks.
  std::string text = "%%MatrixMarket matrix coordinate integer general\n%";
  text.append(9u << 20, 'c');
  text += "\n1000 1000 300000\n";
  for (int k = 0; k < 300000; ++k)
    text += std::to_string(k % 1000 + 1) + " " + std::to_string(k / 1000 + 1) + " " +
            std::to_string(k) + "\n";
  const HostCsr A = read_matrix_market_string(text);
  ASSERT_EQ(A.nnz(), 300000);
  // Entry k sits at row k % 1000, column k / 1000; rows are sorted by column.
  for (int64_t i = 0; i < 1000; i += 97)
    for (int64_t c = 0; c < 300; c += 31) {
      const int64_t position = A.row_map[i] + c;
      ASSERT_EQ(A.entries[position], c);
      ASSERT_EQ(A.values[position], static_cast<double>(c * 1000 + i));
    }
}

TEST(MatrixMarketRead, PlainFileFromTheDataFolder) {
  const std::string path = std::string(SPROCKET_TEST_DATA) + "/io/data/small_general.mtx";
  const HostCsr A = read_matrix_market(path);
  expect_csr(A, 3, 3, {0, 2, 3, 4}, {0, 2, 1, 0}, {10.0, -0.5, 3.0, 1e-8});
}

// ---------------------------------------------------------------------------------------------
// Write and read back

TEST(MatrixMarketRoundTrip, GeneralPlainAndGzipAreBitExact) {
  TempDir dir;
  const HostCsr A = random_general(250, 173, 9, 42);
  ASSERT_GT(A.nnz(), 1500);
  for (const char* name : {"general.mtx", "general.mtx.gz"}) {
    SCOPED_TRACE(name);
    write_matrix_market(dir.file(name), A);
    EXPECT_TRUE(bitwise_equal(read_matrix_market(dir.file(name)), A));
  }
  // The name decides the compression: gzip magic for .gz, plain text otherwise.
  EXPECT_EQ(read_bytes(dir.file("general.mtx")).rfind(
                "%%MatrixMarket matrix coordinate real general\n", 0),
            0u);
  const std::string gz = read_bytes(dir.file("general.mtx.gz"));
  ASSERT_GE(gz.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(gz[0]), 0x1fu);
  EXPECT_EQ(static_cast<unsigned char>(gz[1]), 0x8bu);
}

TEST(MatrixMarketRoundTrip, SymmetricPlainAndGzipAreBitExact) {
  TempDir dir;
  const HostCsr A = random_symmetric(300, 6, 7);
  int64_t lower = 0;
  for (int64_t i = 0; i < A.num_rows; ++i)
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) lower += A.entries[k] <= i;
  for (const char* name : {"symmetric.mtx", "symmetric.mtx.gz"}) {
    SCOPED_TRACE(name);
    write_matrix_market(dir.file(name), A, MatrixMarketSymmetry::symmetric);
    EXPECT_TRUE(bitwise_equal(read_matrix_market(dir.file(name)), A));
  }
  // Only the lower triangle is stored.
  std::istringstream text(read_bytes(dir.file("symmetric.mtx")));
  std::string line;
  std::getline(text, line);
  EXPECT_EQ(line, "%%MatrixMarket matrix coordinate real symmetric");
  while (std::getline(text, line) && line[0] == '%') {
  }
  EXPECT_EQ(line, "300 300 " + std::to_string(lower));
}

TEST(MatrixMarketRoundTrip, EmptyAndSpecialValues) {
  TempDir dir;
  HostCsr empty;
  empty.num_rows = 4;
  empty.num_cols = 2;
  empty.row_map.assign(5, 0);
  write_matrix_market(dir.file("empty.mtx"), empty);
  EXPECT_TRUE(bitwise_equal(read_matrix_market(dir.file("empty.mtx")), empty));

  const HostCsr special = HostCsr::from_triplets(
      1, 3,
      {{0, 0, std::numeric_limits<double>::infinity()},
       {0, 1, -std::numeric_limits<double>::infinity()},
       {0, 2, std::numeric_limits<double>::denorm_min()}});
  write_matrix_market(dir.file("special.mtx.gz"), special);
  EXPECT_TRUE(bitwise_equal(read_matrix_market(dir.file("special.mtx.gz")), special));
}

TEST(MatrixMarketWrite, SymmetricRequiresASymmetricSquareMatrix) {
  TempDir dir;
  const HostCsr rectangular = HostCsr::from_triplets(2, 3, {{0, 0, 1.0}});
  EXPECT_THROW(write_matrix_market(dir.file("a.mtx"), rectangular,
                                   MatrixMarketSymmetry::symmetric),
               Sprocket::InvalidArgument);

  // (2,1) differs from (1,2); (0,2) is stored with no mirror, which counts as a zero.
  const HostCsr unsymmetric = HostCsr::from_triplets(
      3, 3, {{0, 0, 1.0}, {1, 2, 2.0}, {2, 1, 2.5}, {0, 2, 0.0}});
  try {
    write_matrix_market(dir.file("b.mtx"), unsymmetric, MatrixMarketSymmetry::symmetric);
    FAIL() << "an unsymmetric matrix was written as symmetric";
  } catch (const Sprocket::InvalidArgument& error) {
    EXPECT_NE(std::string(error.what()).find("A(1, 2) = 2 but A(2, 1) = 2.5"), std::string::npos)
        << error.what();
  }

  const HostCsr missing_mirror = HostCsr::from_triplets(2, 2, {{1, 0, 4.0}});
  try {
    write_matrix_market(dir.file("c.mtx"), missing_mirror, MatrixMarketSymmetry::symmetric);
    FAIL() << "an unsymmetric matrix was written as symmetric";
  } catch (const Sprocket::InvalidArgument& error) {
    EXPECT_NE(std::string(error.what()).find("A(0, 1) = 0 but A(1, 0) = 4"), std::string::npos)
        << error.what();
  }
}

TEST(MatrixMarketWrite, IoFailureNamesThePath) {
  const HostCsr A = HostCsr::from_triplets(1, 1, {{0, 0, 1.0}});
  std::vector<std::string> paths = {"/nonexistent-sprocket-dir/out.mtx",
                                    "/nonexistent-sprocket-dir/out.mtx.gz"};
  // Linux's /dev/full accepts the open and fails the (buffered) write with ENOSPC, so the
  // failure only surfaces when the file is flushed and closed.
  if (fs::exists("/dev/full")) paths.push_back("/dev/full");
  for (const std::string& path : paths) {
    try {
      write_matrix_market(path, A);
      ADD_FAILURE() << "writing to " << path << " did not throw";
    } catch (const Sprocket::Error& error) {
      EXPECT_NE(std::string(error.what()).find(path), std::string::npos) << error.what();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Broken inputs

struct BrokenCase {
  const char* what;
  std::string text;
  long line;
  const char* phrase;
};

TEST(MatrixMarketBroken, TextInputs) {
  const std::string general = "%%MatrixMarket matrix coordinate real general\n";
  const std::string integer = "%%MatrixMarket matrix coordinate integer general\n";
  const std::string symmetric = "%%MatrixMarket matrix coordinate real symmetric\n";
  const std::string skew = "%%MatrixMarket matrix coordinate real skew-symmetric\n";
  const std::string pattern = "%%MatrixMarket matrix coordinate pattern general\n";
  const std::vector<BrokenCase> cases = {
      {"empty input", "", 1, "missing %%MatrixMarket banner"},
      {"no banner", "3 3 1\n1 1 1\n", 1, "missing %%MatrixMarket banner"},
      {"misspelt banner", "%%MatrixMarkt matrix coordinate real general\n1 1 0\n", 1,
       "missing %%MatrixMarket banner"},
      {"banner not first", "% comment\n" + general + "1 1 0\n", 1,
       "missing %%MatrixMarket banner"},
      {"incomplete banner", "%%MatrixMarket matrix coordinate real\n1 1 0\n", 1,
       "the symmetry is missing"},
      {"extra banner word", "%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", 1,
       "unexpected 'extra'"},
      {"vector object", "%%MatrixMarket vector coordinate real general\n1 1 0\n", 1,
       "unsupported object 'vector'"},
      {"array format", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1,
       "unsupported format 'array'"},
      {"complex field", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 1,
       "unsupported field 'complex'"},
      {"hermitian", "%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", 1,
       "unsupported symmetry 'hermitian'"},
      {"unknown field", "%%MatrixMarket matrix coordinate double general\n1 1 0\n", 1,
       "unknown field 'double'"},
      {"pattern skew", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n1 1 0\n", 1,
       "pattern skew-symmetric"},
      {"no size line", general + "% only\n% comments\n", 3, "missing the size line"},
      {"non-numeric size", general + "% c\n3 x 2\n", 3, "column count 'x' is not"},
      {"fractional size", general + "3.0 3 1\n1 1 1\n", 2, "row count '3.0' is not"},
      {"negative size", general + "-3 3 1\n", 2, "row count -3 is negative"},
      {"size field missing", general + "3 3\n", 2, "the entry count is missing"},
      {"size trailing garbage", general + "3 3 1 7\n1 1 1\n", 2, "unexpected '7'"},
      {"size overflows int64", general + "3 3 99999999999999999999\n", 2,
       "entry count '99999999999999999999' is too large"},
      {"rows beyond int", general + "3000000000 3 0\n", 2, "does not fit the 32-bit int"},
      {"symmetric not square", symmetric + "3 4 0\n", 2, "must be square"},
      {"row index zero", general + "3 4 1\n0 1 1\n", 3, "row index 0 out of range [1, 3]"},
      {"column index too large", general + "3 4 1\n1 5 1\n", 3,
       "column index 5 out of range [1, 4]"},
      {"negative row index", general + "3 4 1\n-1 1 1\n", 3, "row index -1 out of range"},
      {"index overflows", general + "3 4 1\n1 99999999999999999999 1\n", 3,
       "column index 99999999999999999999 out of range"},
      {"too few entries", general + "3 3 3\n1 1 1\n2 2 2\n% end\n", 5,
       "expected 3 entries (declared on line 2) but found 2"},
      {"too many entries", general + "3 3 2\n1 1 1\n\n2 2 2\n3 3 3\n", 6,
       "more entries than the 2 declared on line 2"},
      {"entries when zero declared", general + "3 3 0\n1 1 1\n", 3, "more entries than the 0"},
      {"non-numeric value", general + "2 2 1\n1 1 abc\n", 3, "non-numeric value 'abc'"},
      {"value with glued garbage", general + "2 2 1\n1 1 1.0x\n", 3,
       "non-numeric value '1.0x'"},
      {"non-numeric row", general + "2 2 1\nx 1 1\n", 3, "non-numeric row index 'x'"},
      {"fractional index", general + "2 2 1\n1 1.5 1\n", 3, "non-numeric column index '1.5'"},
      {"trailing garbage", general + "2 2 2\n1 1 1\n2 2 1.0 junk\n", 4,
       "unexpected 'junk' after the value"},
      {"missing value real", general + "2 2 1\n1 1\n", 3, "missing value"},
      {"missing value integer", integer + "2 2 2\n1 1 4\n2 2\n", 4, "missing value"},
      {"missing column", general + "2 2 1\n1\n", 3, "missing column index"},
      {"non-integer in integer file", integer + "2 2 1\n1 1 1.5\n", 3,
       "non-integer value '1.5'"},
      {"integer beyond 2^53", integer + "2 2 1\n1 1 9007199254740993\n", 3,
       "too large to be stored exactly"},
      {"pattern with a value", pattern + "2 2 1\n1 1 1\n", 3, "pattern entries have no value"},
      {"skew nonzero diagonal", skew + "3 3 2\n2 1 1\n2 2 1\n", 4,
       "nonzero diagonal entry (2, 2)"},
      {"symmetric both triangles", symmetric + "3 3 3\n2 1 1\n3 3 1\n1 2 1\n", 5,
       "entries in both triangles"},
      {"value overflow", general + "1 1 1\n1 1 1e400\n", 3, "overflows a double"},
      {"NUL byte", general + "1 1 1\n1 1 1" + std::string(1, '\0') + "5\n", 3, "NUL byte"},
      {"NUL byte at line start", general + "1 1 1\n" + std::string(1, '\0') + "1 1 1\n", 3,
       "NUL byte"},
      {"CRLF too few", "%%MatrixMarket matrix coordinate real general\r\n2 2 2\r\n1 1 1\r\n", 3,
       "but found 1"},
  };
  ASSERT_GE(cases.size(), 15u);
  for (const BrokenCase& broken : cases) {
    SCOPED_TRACE(broken.what);
    EXPECT_TRUE(string_fails_at(broken.text, broken.line, broken.phrase));
  }
}

TEST(MatrixMarketBroken, NonexistentFileAndDirectory) {
  const std::string missing = "/nonexistent-sprocket-dir/none.mtx";
  EXPECT_TRUE(parse_error_at([&] { read_matrix_market(missing); }, missing, 0,
                             "cannot open file"));
  TempDir dir;
  const std::string folder = dir.file("");
  EXPECT_TRUE(parse_error_at([&] { read_matrix_market(folder); }, folder, 0, "read error"));
}

TEST(MatrixMarketBroken, FileFromTheDataFolderNamesItsPath) {
  const std::string path = std::string(SPROCKET_TEST_DATA) + "/io/data/bad_index.mtx";
  EXPECT_TRUE(parse_error_at([&] { read_matrix_market(path); }, path, 5,
                             "column index 4 out of range [1, 3]"));
}

// Issue 19: a 78-byte file declaring 2e9 x 2e9 made a reader grow to 24 GB. Its CSR needs
// (rows + 1) x 24 bytes at the peak, far more than any test machine has: refused by
// ResourceError, with the bytes, before anything that size is allocated.
TEST(MatrixMarketBroken, HostileSizeIsRefusedBeforeAllocating) {
  const std::string path = std::string(SPROCKET_TEST_DATA) + "/io/data/hostile_size.mtx";
  // On a machine with more than 48 GB available the file would fit: cap it as a user would.
  const bool huge_host = Sprocket::host_available_bytes() > 40000000000LL;
  if (huge_host) Sprocket::set_host_memory_limit(16LL << 30);
  try {
    read_matrix_market(path);
    FAIL() << "a 2e9 x 2e9 matrix was read";
  } catch (const Sprocket::ResourceError& e) {
    EXPECT_GE(e.bytes_needed(), 2000000000LL * 24) << e.what();
    EXPECT_LT(e.bytes_available(), e.bytes_needed());
    EXPECT_NE(std::string(e.what()).find("2000000000 x 2000000000 matrix with 1 entries"), std::string::npos) << e.what();
  }
  if (huge_host) Sprocket::set_host_memory_limit(0);
}

// The caller's ceiling applies to honest files too, and 0 lifts it again.
TEST(MatrixMarketRead, HostMemoryLimitIsHonoured) {
  const std::string text = "%%MatrixMarket matrix coordinate real general\n1000000 1000000 1\n7 7 1.5\n";
  Sprocket::set_host_memory_limit(1 << 20);
  try {
    read_matrix_market_string(text);
    ADD_FAILURE() << "24 MB read under a 1 MiB limit";
  } catch (const Sprocket::ResourceError& e) {
    EXPECT_EQ(e.bytes_available(), 1 << 20);
    EXPECT_NE(std::string(e.what()).find("memory limit"), std::string::npos) << e.what();
  }
  Sprocket::set_host_memory_limit(0);
  EXPECT_EQ(Sprocket::host_memory_limit(), 0);
  const Sprocket::HostCsr A = read_matrix_market_string(text);
  EXPECT_EQ(A.num_rows, 1000000);
  EXPECT_EQ(A.nnz(), 1);
  EXPECT_THROW(Sprocket::set_host_memory_limit(-1), Sprocket::InvalidArgument);
}

class MatrixMarketBrokenGzip : public ::testing::Test {
 protected:
  void SetUp() override {
    // 2000 entries at distinct positions, so the written file has banner, comment and size
    // line plus one line per entry: lines 1..2003.
    Lcg random{11};
    std::vector<Sprocket::Triplet> triplets;
    for (int64_t i = 0; i < 400; ++i)
      for (int64_t c = 0; c < 5; ++c)
        triplets.push_back({i, (i + 80 * c) % 400, awkward_value(random)});
    matrix_ = HostCsr::from_triplets(400, 400, std::move(triplets));
    ASSERT_EQ(matrix_.nnz(), 2000);
  }
  std::string gzip_bytes() {
    write_matrix_market(dir_.file("good.mtx.gz"), matrix_);
    return read_bytes(dir_.file("good.mtx.gz"));
  }
  long last_line() const { return static_cast<long>(matrix_.nnz()) + 3; }

  TempDir dir_;
  HostCsr matrix_;
};

TEST_F(MatrixMarketBrokenGzip, IntactFileReads) {
  const std::string bytes = gzip_bytes();
  write_bytes(dir_.file("copy.mtx.gz"), bytes);
  EXPECT_TRUE(bitwise_equal(read_matrix_market(dir_.file("copy.mtx.gz")), matrix_));
  // Compression is detected by content: a gzip file without the .gz name still reads.
  write_bytes(dir_.file("renamed.mtx"), bytes);
  EXPECT_TRUE(bitwise_equal(read_matrix_market(dir_.file("renamed.mtx")), matrix_));
}

// zlib reports a damaged stream per decoded chunk and drops that chunk's text, so no exact line
// can be named: gzip damage is reported at line 0, with how far the text had been read.

TEST_F(MatrixMarketBrokenGzip, MissingTrailerIsTruncation) {
  // Without the 8-byte CRC and length trailer every line still decodes; the damage shows at
  // the end of the text.
  const std::string bytes = gzip_bytes();
  const std::string path = dir_.file("no_trailer.mtx.gz");
  write_bytes(path, bytes.substr(0, bytes.size() - 8));
  EXPECT_TRUE(parse_error_at([&] { read_matrix_market(path); }, path, 0,
                             "truncated gzip data (unexpected end of file); detected after line " +
                                 std::to_string(last_line())));
}

TEST_F(MatrixMarketBrokenGzip, CutInTheMiddleIsTruncation) {
  const std::string bytes = gzip_bytes();
  const std::string path = dir_.file("half.mtx.gz");
  write_bytes(path, bytes.substr(0, bytes.size() / 2));
  EXPECT_TRUE(parse_error_at([&] { read_matrix_market(path); }, path, 0,
                             "truncated gzip data (unexpected end of file)"));
}

TEST_F(MatrixMarketBrokenGzip, HeaderOnlyIsTruncation) {
  const std::string bytes = gzip_bytes();
  const std::string path = dir_.file("header_only.mtx.gz");
  write_bytes(path, bytes.substr(0, 10));
  EXPECT_TRUE(parse_error_at([&] { read_matrix_market(path); }, path, 0,
                             "truncated gzip data"));
}

TEST_F(MatrixMarketBrokenGzip, CorruptedBodyIsReported) {
  std::string bytes = gzip_bytes();
  for (std::size_t k = bytes.size() / 2; k < bytes.size() / 2 + 16; ++k) bytes[k] ^= 0x5a;
  const std::string path = dir_.file("corrupt_body.mtx.gz");
  write_bytes(path, bytes);
  EXPECT_TRUE(
      parse_error_at([&] { read_matrix_market(path); }, path, 0, "corrupt gzip data ("));
}

TEST_F(MatrixMarketBrokenGzip, CorruptedChecksumIsReported) {
  std::string bytes = gzip_bytes();
  bytes[bytes.size() - 6] ^= 0x01;  // inside the CRC-32 of the trailer
  const std::string path = dir_.file("bad_crc.mtx.gz");
  write_bytes(path, bytes);
  EXPECT_TRUE(parse_error_at([&] { read_matrix_market(path); }, path, 0,
                             "corrupt gzip data (incorrect data check)"));
}

/// CRC-32 as gzip uses it (reflected polynomial 0xEDB88320), bit by bit: slow but obvious.
uint32_t crc32_of(const std::string& data) {
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char byte : data) {
    crc ^= byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

/// A gzip file built by hand from uncompressed ("stored") deflate blocks, independent of the
/// writer under test, so the text inside can be anything, including broken Matrix Market.
std::string hand_made_gzip(const std::string& content, bool break_checksum) {
  auto little_endian = [](uint32_t value, int bytes) {
    std::string out;
    for (int b = 0; b < bytes; ++b) out += static_cast<char>((value >> (8 * b)) & 0xFF);
    return out;
  };
  std::string out("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff", 10);  // no name, unknown OS
  std::size_t position = 0;
  do {
    const std::size_t length = std::min<std::size_t>(content.size() - position, 65535);
    const bool last = position + length == content.size();
    out += static_cast<char>(last ? 1 : 0);  // BFINAL, BTYPE = 00 (stored)
    out += little_endian(static_cast<uint32_t>(length), 2);
    out += little_endian(static_cast<uint32_t>(~length & 0xFFFF), 2);
    out.append(content, position, length);
    position += length;
  } while (position < content.size());
  out += little_endian(crc32_of(content) ^ (break_checksum ? 1u : 0u), 4);
  out += little_endian(static_cast<uint32_t>(content.size()), 4);
  return out;
}

TEST(MatrixMarketHandMadeGzip, ValidStreamReads) {
  TempDir dir;
  const std::string path = dir.file("hand.mtx.gz");
  write_bytes(path, hand_made_gzip("%%MatrixMarket matrix coordinate real general\n"
                                   "2 2 2\n1 2 0.5\n2 1 -4\n",
                                   false));
  expect_csr(read_matrix_market(path), 2, 2, {0, 1, 2}, {1, 0}, {0.5, -4.0});
}

TEST(MatrixMarketHandMadeGzip, ParseErrorInsideGzipNamesTheLine) {
  TempDir dir;
  const std::string path = dir.file("bad_value.mtx.gz");
  write_bytes(path, hand_made_gzip("%%MatrixMarket matrix coordinate real general\n"
                                   "% comment\n2 2 1\n1 1 abc\n",
                                   false));
  EXPECT_TRUE(parse_error_at([&] { read_matrix_market(path); }, path, 4,
                             "non-numeric value 'abc'"));
}

TEST(MatrixMarketHandMadeGzip, DamageBehindAParseErrorIsReportedAsTheCause) {
  // A parse error in the first decoded chunk, then megabytes of text, then a bad checksum: the
  // reader must blame the damaged stream, mentioning the parse problem it ran into first.
  std::string content = "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 abc\n";
  const std::string filler = "% filler " + std::string(100, 'f') + "\n";
  while (content.size() < (9u << 20)) content += filler;
  TempDir dir;
  const std::string path = dir.file("damaged.mtx.gz");
  write_bytes(path, hand_made_gzip(content, true));
  EXPECT_TRUE(parse_error_at([&] { read_matrix_market(path); }, path, 0,
                             "corrupt gzip data (incorrect data check)"));
  EXPECT_TRUE(parse_error_at([&] { read_matrix_market(path); }, path, 0,
                             "failed to parse: line 3: non-numeric value 'abc'"));
}

}  // namespace
