// Matrix Market reader and writer.
//
// Reading is a three-layer pipeline, built for files with tens of millions of entries:
//   ByteSource  - hands out raw bytes in large chunks: a gzFile (zlib reads plain files
//                 transparently, so compression is detected from the content, not the name) or
//                 an in-memory string. Damage to a gzip stream is reported, never taken as EOF.
//   LineReader  - cuts the chunks into lines in place (memchr for '\n', the '\n' becomes '\0' so
//                 that strtod stops at the line end) and counts line numbers for error messages.
//   Parser      - checks the banner and the size line, then parses each entry line by hand
//                 (integers by a digit loop, reals by strtod on the token) into triplets, which
//                 HostCsr::from_triplets sorts and sums.
// Every problem becomes a ParseError(file, line, problem); gzip damage uses line 0, because zlib
// notices it per decoded chunk and drops that chunk. A parse error in a gzip file first drains
// the rest of the stream: a damaged stream can decode to garbage text, and "corrupt gzip data"
// is then the true cause, not "non-numeric value".
//
// Writing formats lines into a large buffer with snprintf("%.17g") and flushes it to a FILE* or,
// for a path ending in ".gz", to a gzFile.
#include "Sprocket_MatrixMarket.hpp"

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "Sprocket_Error.hpp"
#include "Sprocket_Memory.hpp"

namespace Sprocket {
namespace {

// ------------------------------------------------------------------------------------------------
// Byte sources

/// A stream of raw bytes, read in large chunks. Damage is returned as -1 plus a description
/// rather than thrown, because only the LineReader knows the line number to report.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  /// Bytes read into dst (at most capacity), 0 at the clean end of the input, -1 on damage.
  virtual long read(char* dst, std::size_t capacity) = 0;
  /// Why the last read returned -1.
  virtual std::string failure() const { return {}; }
  /// Reads whatever is left and returns why the stream is damaged, or "" when it is intact.
  /// Used on the error path only: a damaged gzip stream explains a garbage line better.
  virtual std::string damage_in_rest() { return {}; }
  /// An upper bound on the bytes the source will deliver, or -1 when it is not known (a file,
  /// compressed or not: its text may be far longer than the file).
  virtual int64_t size_bound() const { return -1; }
};

class StringSource final : public ByteSource {
 public:
  explicit StringSource(const std::string& text) : text_(text) {}
  int64_t size_bound() const override { return static_cast<int64_t>(text_.size()); }
  long read(char* dst, std::size_t capacity) override {
    const std::size_t count = std::min(capacity, text_.size() - position_);
    std::memcpy(dst, text_.data() + position_, count);
    position_ += count;
    return static_cast<long>(count);
  }

 private:
  const std::string& text_;
  std::size_t position_ = 0;
};

/// gzread-based source; plain files pass through zlib unchanged ("transparent" mode).
class GzFileSource final : public ByteSource {
 public:
  explicit GzFileSource(const std::string& path) : path_(path) {
    errno = 0;
    file_ = gzopen(path.c_str(), "rb");
    if (file_ == nullptr) {
      const int saved_errno = errno;
      throw ParseError(path, 0, std::string("cannot open file: ") +
                                    (saved_errno != 0 ? std::strerror(saved_errno)
                                                      : "zlib could not allocate its state"));
    }
    // Fewer system calls than zlib's 8 KiB default for large files; a small file keeps the
    // default (zlib allocates three times this size per open).
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || st.st_size > (1 << 16)) gzbuffer(file_, 1u << 18);
  }
  ~GzFileSource() override {
    if (file_ != nullptr) gzclose(file_);
  }
  GzFileSource(const GzFileSource&) = delete;
  GzFileSource& operator=(const GzFileSource&) = delete;

  long read(char* dst, std::size_t capacity) override {
    // gzread takes an unsigned and returns an int: stay well inside both.
    const unsigned request =
        static_cast<unsigned>(std::min<std::size_t>(capacity, std::size_t(1) << 30));
    const int count = gzread(file_, dst, request);
    if (count > 0) return count;
    // gzread reports a stream that stops mid-member as a short read plus Z_BUF_ERROR, so an
    // end of input is only clean when gzerror says so.
    int code = Z_OK;
    const char* message = gzerror(file_, &code);
    if (count == 0 && code == Z_OK) return 0;
    failure_ = describe(code, message);
    return -1;
  }
  std::string failure() const override { return failure_; }

  std::string damage_in_rest() override {
    // A plain file cannot be damaged in this sense, and draining a huge one would be slow.
    if (gzdirect(file_) != 0) return {};
    std::vector<char> scratch(1 << 16);
    long count;
    while ((count = read(scratch.data(), scratch.size())) > 0) {
    }
    return count < 0 ? failure_ : std::string();
  }

  /// Closes the file; a damaged stream that the reads did not notice shows up here.
  std::string close() {
    const int code = gzclose(file_);
    file_ = nullptr;
    if (code == Z_OK) return {};
    return describe(code, nullptr);
  }

 private:
  std::string describe(int code, const char* message) const {
    std::string detail = message != nullptr && *message != '\0' ? message : zError(code);
    // gzerror prefixes its text with the path, which ParseError already names.
    const std::string path_prefix = path_ + ": ";
    if (detail.compare(0, path_prefix.size(), path_prefix) == 0)
      detail.erase(0, path_prefix.size());
    if (code == Z_BUF_ERROR) return "truncated gzip data (" + detail + ")";
    if (code == Z_ERRNO) return std::string("read error: ") + std::strerror(errno);
    if (code == Z_MEM_ERROR) return "out of memory while decompressing";
    return "corrupt gzip data (" + detail + ")";
  }

  std::string path_;
  gzFile file_ = nullptr;
  std::string failure_;
};

/// Damage to a compressed stream is reported at line 0 (not tied to a line): zlib notices it
/// only per decoded chunk, and drops the chunk's text, so no exact line can be named. The
/// message says how far the text had been read.
std::string where_damage_was_found(long lines_read) {
  if (lines_read == 0) return "; detected before the first line was complete";
  return "; detected after line " + std::to_string(lines_read) + " of the decompressed text";
}

// ------------------------------------------------------------------------------------------------
// Line splitting

/// Splits a ByteSource into lines. A line handed out by next() is [begin, end) without its '\n'
/// and is followed by a '\0', so C parsing functions stop at the line end. The memory stays valid
/// until the next call.
class LineReader {
 public:
  LineReader(ByteSource& source, const std::string& name)
      : source_(source), name_(name), buffer_(first_capacity(source) + 1) {}

  /// False at the end of the input.
  bool next(char*& begin, char*& end) {
    for (;;) {
      char* const data = buffer_.data();
      if (start_ < filled_) {
        auto* newline =
            static_cast<char*>(std::memchr(data + start_, '\n', filled_ - start_));
        if (newline != nullptr) {
          begin = data + start_;
          end = newline;
          *newline = '\0';
          start_ = static_cast<std::size_t>(newline - data) + 1;
          ++line_number_;
          return true;
        }
        if (at_end_) {  // last line without a '\n'; the spare byte holds its '\0'
          begin = data + start_;
          end = data + filled_;
          *end = '\0';
          start_ = filled_;
          ++line_number_;
          return true;
        }
      } else if (at_end_) {
        return false;
      }
      refill();
    }
  }

  /// Number of the line last handed out (0 before the first).
  long line_number() const { return line_number_; }

 private:
  /// Chunks of 256 KiB for files, as large as zlib's own buffer (gzbuffer above): reading costs
  /// one gzread per chunk, and a small file does not pay for zeroing a large buffer. No more
  /// than the text for strings. The buffer doubles for a line longer than it.
  static constexpr std::size_t initial_capacity = std::size_t(1) << 18;

  static std::size_t first_capacity(const ByteSource& source) {
    const int64_t bound = source.size_bound();
    if (bound < 0) return initial_capacity;
    return std::max<std::size_t>(64, std::min<std::size_t>(initial_capacity, static_cast<std::size_t>(bound) + 1));
  }

  void refill() {
    // Keep the unfinished line, move it to the front, and grow only when one line fills it all.
    const std::size_t kept = filled_ - start_;
    std::size_t capacity = buffer_.size() - 1;  // the last byte is reserved for a '\0'
    if (kept == capacity) {
      capacity *= 2;
      std::vector<char> larger(capacity + 1);
      std::memcpy(larger.data(), buffer_.data() + start_, kept);
      buffer_.swap(larger);
    } else if (start_ > 0 && kept > 0) {
      std::memmove(buffer_.data(), buffer_.data() + start_, kept);
    }
    start_ = 0;
    filled_ = kept;
    const long count = source_.read(buffer_.data() + filled_, capacity - filled_);
    if (count < 0)
      throw ParseError(name_, 0, source_.failure() + where_damage_was_found(line_number_));
    if (count == 0) at_end_ = true;
    filled_ += static_cast<std::size_t>(count);
  }

  ByteSource& source_;
  const std::string& name_;
  std::vector<char> buffer_;
  std::size_t start_ = 0;
  std::size_t filled_ = 0;
  bool at_end_ = false;
  long line_number_ = 0;
};

// ------------------------------------------------------------------------------------------------
// Token helpers

inline bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/// A whitespace-separated field of a line.
struct Token {
  const char* begin = nullptr;
  const char* end = nullptr;
  bool empty() const { return begin == end; }
  std::string text() const {
    // Long or binary tokens are shortened so that the message stays readable.
    constexpr std::ptrdiff_t shown = 40;
    std::string out(begin, std::min(end - begin, shown));
    for (char& c : out)
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
    if (end - begin > shown) out += "...";
    return out;
  }
};

std::string lower_case(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

enum class IntegerParse { ok, not_a_number, overflow };

/// Parses the whole token as a base-10 integer with an optional sign.
IntegerParse parse_integer(const Token& token, int64_t& value) {
  const char* p = token.begin;
  bool negative = false;
  if (p < token.end && (*p == '+' || *p == '-')) negative = *p++ == '-';
  if (p == token.end) return IntegerParse::not_a_number;
  uint64_t magnitude = 0;
  bool overflow = false;
  for (; p < token.end; ++p) {
    const unsigned digit = static_cast<unsigned>(*p - '0');
    if (digit > 9) return IntegerParse::not_a_number;
    if (magnitude > (std::numeric_limits<uint64_t>::max() - digit) / 10) overflow = true;
    magnitude = magnitude * 10 + digit;
  }
  const uint64_t limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (overflow || magnitude > limit) return IntegerParse::overflow;
  value = negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
  return IntegerParse::ok;
}

// ------------------------------------------------------------------------------------------------
// Parser

enum class Field { real, integer, pattern };
enum class Symmetry { general, symmetric, skew_symmetric };

const char* field_name(Field field) {
  switch (field) {
    case Field::real: return "real";
    case Field::integer: return "integer";
    case Field::pattern: return "pattern";
  }
  return "?";
}

class Parser {
 public:
  Parser(ByteSource& source, const std::string& name)
      : source_(source), name_(name), lines_(source, name) {}

  HostCsr parse() {
    read_banner();
    read_size_line();
    read_entries();
    return HostCsr::from_triplets(num_rows_, num_cols_, std::move(triplets_));
  }

 private:
  [[noreturn]] void fail(long line, const std::string& problem) {
    // A damaged gzip stream decodes to garbage; report the damage, not the garbage.
    std::string damage;
    try {
      damage = source_.damage_in_rest();
    } catch (...) {
    }
    if (!damage.empty())
      throw ParseError(name_, 0,
                       damage + where_damage_was_found(lines_.line_number()) +
                           ", where the text decoded so far failed to parse: line " +
                           std::to_string(line) + ": " + problem);
    throw ParseError(name_, line, problem);
  }
  [[noreturn]] void fail(const std::string& problem) { fail(lines_.line_number(), problem); }

  /// Next whitespace-separated field of the current line (empty at the line end).
  Token next_token(const char*& p) {
    while (is_blank(*p)) ++p;
    if (*p == '\0' && p != line_end_)
      fail("line contains a NUL byte (binary data, or a compressed file that zlib did not "
           "recognise?)");
    Token token;
    token.begin = p;
    while (*p != '\0' && !is_blank(*p)) ++p;
    token.end = p;
    return token;
  }

  /// True for lines to skip: blank, or a '%' comment. A line that starts with a NUL byte is
  /// content, so that next_token reports it instead of it passing as blank.
  bool is_blank_or_comment(const char* p) const {
    while (is_blank(*p)) ++p;
    return (*p == '\0' && p == line_end_) || *p == '%';
  }

  bool next_line(const char*& p) {
    char* begin;
    char* end;
    if (!lines_.next(begin, end)) return false;
    line_end_ = end;
    p = begin;
    return true;
  }

  /// Next line that is not blank or a comment; false at the end of the input.
  bool next_content_line(const char*& p) {
    while (next_line(p))
      if (!is_blank_or_comment(p)) return true;
    return false;
  }

  void read_banner() {
    const char* p;
    if (!next_line(p)) fail(1, "empty input: missing %%MatrixMarket banner");
    const char* const expected =
        "expected '%%MatrixMarket matrix coordinate <real|integer|pattern> "
        "<general|symmetric|skew-symmetric>'";
    const Token banner = next_token(p);
    if (lower_case(std::string(banner.begin, banner.end)) != "%%matrixmarket")
      fail(std::string("missing %%MatrixMarket banner on the first line; ") + expected);

    Token words[4];
    const char* const roles[4] = {"object", "format", "field", "symmetry"};
    std::string values[4];
    for (int i = 0; i < 4; ++i) {
      words[i] = next_token(p);
      if (words[i].empty())
        fail(std::string("incomplete banner: the ") + roles[i] + " is missing; " + expected);
      values[i] = lower_case(std::string(words[i].begin, words[i].end));
    }
    const Token extra = next_token(p);
    if (!extra.empty())
      fail("unexpected '" + extra.text() + "' after the symmetry on the banner line; " +
           expected);

    if (values[0] != "matrix")
      fail("unsupported object '" + words[0].text() + "': only 'matrix' is supported");
    if (values[1] == "array")
      fail("unsupported format 'array' (dense): only 'coordinate' matrices are supported");
    if (values[1] != "coordinate")
      fail("unknown format '" + words[1].text() + "': only 'coordinate' is supported");

    if (values[2] == "real")
      field_ = Field::real;
    else if (values[2] == "integer")
      field_ = Field::integer;
    else if (values[2] == "pattern")
      field_ = Field::pattern;
    else if (values[2] == "complex")
      fail("unsupported field 'complex': only real, integer and pattern are supported");
    else
      fail("unknown field '" + words[2].text() + "': expected real, integer or pattern");

    if (values[3] == "general")
      symmetry_ = Symmetry::general;
    else if (values[3] == "symmetric")
      symmetry_ = Symmetry::symmetric;
    else if (values[3] == "skew-symmetric")
      symmetry_ = Symmetry::skew_symmetric;
    else if (values[3] == "hermitian")
      fail("unsupported symmetry 'hermitian': only general, symmetric and skew-symmetric are "
           "supported");
    else
      fail("unknown symmetry '" + words[3].text() +
           "': expected general, symmetric or skew-symmetric");

    // The Matrix Market definition allows no pattern skew-symmetric matrix: the mirrored
    // entries would need the value -1, which a pattern cannot express.
    if (field_ == Field::pattern && symmetry_ == Symmetry::skew_symmetric)
      fail("invalid combination 'pattern skew-symmetric': a pattern matrix cannot be "
           "skew-symmetric");
  }

  int64_t size_field(const char*& p, const char* what) {
    const Token token = next_token(p);
    if (token.empty())
      fail(std::string("bad size line: the ") + what +
           " is missing; expected '<rows> <columns> <entries>'");
    int64_t value = 0;
    switch (parse_integer(token, value)) {
      case IntegerParse::ok: break;
      case IntegerParse::not_a_number:
        fail(std::string("bad size line: ") + what + " '" + token.text() +
             "' is not a non-negative integer");
      case IntegerParse::overflow:
        fail(std::string("bad size line: ") + what + " '" + token.text() + "' is too large");
    }
    if (value < 0)
      fail(std::string("bad size line: ") + what + " " + std::to_string(value) +
           " is negative");
    return value;
  }

  void read_size_line() {
    const char* p;
    if (!next_content_line(p))
      fail("unexpected end of input: missing the size line '<rows> <columns> <entries>'");
    size_line_ = lines_.line_number();
    num_rows_ = size_field(p, "row count");
    num_cols_ = size_field(p, "column count");
    num_entries_ = size_field(p, "entry count");
    const Token extra = next_token(p);
    if (!extra.empty())
      fail("bad size line: unexpected '" + extra.text() +
           "' after '<rows> <columns> <entries>'");
    // from_triplets stores columns as int and needs the count itself below INT_MAX.
    const int64_t max_dimension = std::numeric_limits<int>::max() - 1;
    if (num_rows_ > max_dimension || num_cols_ > max_dimension)
      fail("matrix " + std::to_string(num_rows_) + " x " + std::to_string(num_cols_) +
           " does not fit the 32-bit int index type (at most " + std::to_string(max_dimension) +
           " rows and columns)");
    if (symmetry_ != Symmetry::general && num_rows_ != num_cols_)
      fail(std::string(symmetry_ == Symmetry::symmetric ? "symmetric" : "skew-symmetric") +
           " matrix must be square, but the size line says " + std::to_string(num_rows_) +
           " x " + std::to_string(num_cols_));
  }

  int64_t index_field(const char*& p, const char* what, int64_t bound) {
    const Token token = next_token(p);
    if (token.empty()) fail(std::string("missing ") + what + " index");
    int64_t index = 0;
    const IntegerParse result = parse_integer(token, index);
    if (result == IntegerParse::not_a_number)
      fail(std::string("non-numeric ") + what + " index '" + token.text() + "'");
    if (result == IntegerParse::overflow || index < 1 || index > bound)
      fail(std::string(what) + " index " + token.text() + " out of range [1, " +
           std::to_string(bound) + "] (indices are 1-based)");
    return index - 1;
  }

  double value_field(const char*& p) {
    if (field_ == Field::pattern) return 1.0;
    const Token token = next_token(p);
    if (token.empty())
      fail(std::string("missing value: a ") + field_name(field_) +
           " entry needs '<row> <column> <value>'");
    if (field_ == Field::integer) {
      int64_t value = 0;
      const IntegerParse result = parse_integer(token, value);
      if (result == IntegerParse::not_a_number)
        fail("non-integer value '" + token.text() + "' in an integer matrix");
      // Beyond 2^53 a double no longer holds every integer: refuse rather than round.
      constexpr int64_t exact_limit = int64_t(1) << 53;
      if (result == IntegerParse::overflow || value > exact_limit || value < -exact_limit)
        fail("integer value '" + token.text() + "' is too large to be stored exactly as a double");
      return static_cast<double>(value);
    }
    // strtod stops at the token end at the latest: the token is followed by a blank or '\0'.
    // Any text that strtod parses completely is accepted, including nan, inf and hex floats.
    char* parsed_end = nullptr;
    errno = 0;
    const double value = std::strtod(token.begin, &parsed_end);
    if (parsed_end != token.end) fail("non-numeric value '" + token.text() + "'");
    if (errno == ERANGE && std::isinf(value))
      fail("value '" + token.text() + "' overflows a double");
    return value;  // an underflow rounds towards zero, which is the closest double anyway
  }

  void read_entries() {
    const bool symmetric = symmetry_ != Symmetry::general;
    // Reserve for the declared count but not blindly: a corrupt size line may promise 10^15, so
    // memory follows the text. An entry line takes at least 4 bytes ("1 1\n"), which bounds the
    // count by what a text of known length can hold; for files (length unknown, maybe gzip) the
    // reservation stops at 2^20 entries and the array grows with what is actually read.
    const int64_t bound = source_.size_bound();
    const int64_t reserve_cap = bound >= 0 ? bound / 4 + 1 : int64_t(1) << 20;
    triplets_.reserve(static_cast<std::size_t>(
        std::min(reserve_cap, num_entries_) * (symmetric ? 2 : 1)));

    long first_lower_line = 0, first_upper_line = 0;
    int64_t found = 0;
    const char* p;
    while (next_line(p)) {
      if (is_blank_or_comment(p)) continue;
      if (found == num_entries_)
        fail("more entries than the " + std::to_string(num_entries_) + " declared on line " +
             std::to_string(size_line_));
      const int64_t row = index_field(p, "row", num_rows_);
      const int64_t col = index_field(p, "column", num_cols_);
      const double value = value_field(p);
      const Token extra = next_token(p);
      if (!extra.empty())
        fail("unexpected '" + extra.text() + "' after the " +
             (field_ == Field::pattern ? "column index (pattern entries have no value)"
                                       : "value"));
      ++found;

      if (!symmetric) {
        triplets_.push_back({row, col, value});
        continue;
      }
      if (row == col) {
        if (symmetry_ == Symmetry::skew_symmetric && value != 0.0)
          fail("nonzero diagonal entry (" + std::to_string(row + 1) + ", " +
               std::to_string(col + 1) + ") in a skew-symmetric matrix");
        triplets_.push_back({row, col, value});  // the diagonal is its own mirror: once
        continue;
      }
      // One triangle is stored and mirrored. A file that stores both would have every pair
      // counted twice after mirroring, so it is refused instead of silently doubled.
      long& this_side = row > col ? first_lower_line : first_upper_line;
      const long other_side = row > col ? first_upper_line : first_lower_line;
      if (this_side == 0) this_side = lines_.line_number();
      if (other_side != 0)
        fail(std::string("entry (") + std::to_string(row + 1) + ", " + std::to_string(col + 1) +
             ") is " + (row > col ? "below" : "above") + " the diagonal but line " +
             std::to_string(other_side) + " stored an entry " + (row > col ? "above" : "below") +
             " it: a " + (symmetry_ == Symmetry::symmetric ? "symmetric" : "skew-symmetric") +
             " file must store only one triangle (entries in both triangles)");
      const double mirrored = symmetry_ == Symmetry::skew_symmetric ? -value : value;
      triplets_.push_back({row, col, value});
      triplets_.push_back({col, row, mirrored});
    }
    if (found < num_entries_)
      fail("unexpected end of input: expected " + std::to_string(num_entries_) +
           " entries (declared on line " + std::to_string(size_line_) + ") but found " +
           std::to_string(found));
  }

  ByteSource& source_;
  const std::string& name_;
  LineReader lines_;
  const char* line_end_ = nullptr;

  Field field_ = Field::real;
  Symmetry symmetry_ = Symmetry::general;
  long size_line_ = 0;
  int64_t num_rows_ = 0, num_cols_ = 0, num_entries_ = 0;
  std::vector<Triplet> triplets_;
};

// ------------------------------------------------------------------------------------------------
// Writing

/// Destination of the writer: a plain FILE* or a gzFile, with errors thrown naming the path.
class OutputFile {
 public:
  explicit OutputFile(const std::string& path) : path_(path) {
    compressed_ = path.size() >= 3 && lower_case(path.substr(path.size() - 3)) == ".gz";
    errno = 0;
    // Level 1: on Matrix Market text it is about six times faster than zlib's default level 6
    // and the file only some 6% larger, which matters for files with tens of millions of lines.
    if (compressed_)
      gz_ = gzopen(path.c_str(), "wb1");
    else
      plain_ = std::fopen(path.c_str(), "wb");
    if (gz_ == nullptr && plain_ == nullptr) fail_with_errno("cannot open for writing");
  }
  // A failed write leaves its partial file behind rather than deleting the path, which might
  // name a device (/dev/stdout); the reader refuses such a file (too few entries, truncated gzip).
  ~OutputFile() {
    if (gz_ != nullptr) gzclose(gz_);
    if (plain_ != nullptr) std::fclose(plain_);
  }
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(const char* data, std::size_t size) {
    if (size == 0) return;
    if (compressed_) {
      while (size > 0) {
        const unsigned piece =
            static_cast<unsigned>(std::min<std::size_t>(size, std::size_t(1) << 30));
        if (gzwrite(gz_, data, piece) != static_cast<int>(piece)) fail_with_gz("write failed");
        data += piece;
        size -= piece;
      }
    } else if (std::fwrite(data, 1, size, plain_) != size) {
      fail_with_errno("write failed");
    }
  }

  /// Closing flushes the last buffered bytes, so a full disk may only show up here.
  void close() {
    int code;
    std::string reason;
    if (compressed_) {
      code = gzclose(gz_);
      gz_ = nullptr;
      if (code != Z_OK) reason = code == Z_ERRNO ? std::strerror(errno) : zError(code);
    } else {
      code = std::fclose(plain_);
      plain_ = nullptr;
      if (code != 0) reason = std::strerror(errno);
    }
    if (!reason.empty())
      throw Error("write_matrix_market: closing '" + path_ + "' failed: " + reason);
  }

 private:
  [[noreturn]] void fail_with_errno(const char* what) {
    const int saved_errno = errno;
    throw Error("write_matrix_market: " + std::string(what) + " '" + path_ + "': " +
                (saved_errno != 0 ? std::strerror(saved_errno) : "unknown error"));
  }
  [[noreturn]] void fail_with_gz(const char* what) {
    int code = Z_OK;
    const char* message = gzerror(gz_, &code);
    throw Error("write_matrix_market: " + std::string(what) + " '" + path_ + "': " +
                (code == Z_ERRNO ? std::strerror(errno) : message));
  }

  std::string path_;
  bool compressed_ = false;
  gzFile gz_ = nullptr;
  std::FILE* plain_ = nullptr;
};

/// Collects formatted lines and hands them to the OutputFile in large pieces.
class LineWriter {
 public:
  explicit LineWriter(OutputFile& file) : file_(file) { buffer_.reserve(flush_size + 256); }
  void text(const std::string& line) {
    buffer_ += line;
    maybe_flush();
  }
  void entry(int64_t row, int64_t col, double value) {
    char line[96];
    const int length = std::snprintf(line, sizeof line, "%lld %lld %.17g\n",
                                     static_cast<long long>(row), static_cast<long long>(col),
                                     value);
    buffer_.append(line, static_cast<std::size_t>(length));
    maybe_flush();
  }
  void finish() {
    file_.write(buffer_.data(), buffer_.size());
    buffer_.clear();
    file_.close();
  }

 private:
  static constexpr std::size_t flush_size = std::size_t(1) << 20;
  void maybe_flush() {
    if (buffer_.size() >= flush_size) {
      file_.write(buffer_.data(), buffer_.size());
      buffer_.clear();
    }
  }
  OutputFile& file_;
  std::string buffer_;
};

/// Transpose with columns sorted per row (a counting sort over the columns of a sorted matrix).
HostCsr transpose_of(const HostCsr& A) {
  HostCsr T;
  T.num_rows = A.num_cols;
  T.num_cols = A.num_rows;
  T.row_map.assign(static_cast<std::size_t>(A.num_cols) + 1, 0);
  for (int col : A.entries) ++T.row_map[static_cast<std::size_t>(col) + 1];
  for (int64_t j = 0; j < A.num_cols; ++j) T.row_map[j + 1] += T.row_map[j];
  T.entries.resize(A.entries.size());
  T.values.resize(A.values.size());
  std::vector<int64_t> next(T.row_map.begin(), T.row_map.end() - 1);
  for (int64_t i = 0; i < A.num_rows; ++i)
    for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k) {
      const int64_t slot = next[A.entries[k]]++;
      T.entries[slot] = static_cast<int>(i);
      T.values[slot] = A.values[k];
    }
  return T;
}

std::string format_value(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

/// Throws InvalidArgument at the first (row-major) position where A(i,j) != A(j,i); entries
/// that are not stored count as zero. A must have sorted, unique columns per row.
void require_numerically_symmetric(const HostCsr& A) {
  SPROCKET_REQUIRE(A.num_rows == A.num_cols,
                   "write_matrix_market: a symmetric file needs a square matrix, got ",
                   A.num_rows, " x ", A.num_cols);
  const HostCsr T = transpose_of(A);
  auto same = [](double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); };
  for (int64_t i = 0; i < A.num_rows; ++i) {
    int64_t a = A.row_map[i], t = T.row_map[i];
    const int64_t a_end = A.row_map[i + 1], t_end = T.row_map[i + 1];
    while (a < a_end || t < t_end) {
      // Walk row i of A and of A^T together; a column missing on one side stands for 0.
      const int64_t col_a = a < a_end ? A.entries[a] : std::numeric_limits<int64_t>::max();
      const int64_t col_t = t < t_end ? T.entries[t] : std::numeric_limits<int64_t>::max();
      const int64_t j = std::min(col_a, col_t);
      const double a_ij = col_a == j ? A.values[a++] : 0.0;
      const double a_ji = col_t == j ? T.values[t++] : 0.0;
      if (!same(a_ij, a_ji))
        throw InvalidArgument("write_matrix_market: matrix is not symmetric: A(" +
                              std::to_string(i) + ", " + std::to_string(j) +
                              ") = " + format_value(a_ij) + " but A(" + std::to_string(j) +
                              ", " + std::to_string(i) + ") = " + format_value(a_ji) +
                              " (0-based indices)");
    }
  }
}

}  // namespace

HostCsr read_matrix_market(const std::string& path) {
  GzFileSource source(path);
  HostCsr result = Parser(source, path).parse();
  // gzclose is the last chance to notice a damaged stream that the reads let through.
  const std::string damage = source.close();
  if (!damage.empty()) throw ParseError(path, 0, damage);
  return result;
}

HostCsr read_matrix_market_string(const std::string& text, const std::string& name) {
  StringSource source(text);
  return Parser(source, name).parse();
}

void write_matrix_market(const std::string& path, const HostCsr& A,
                         MatrixMarketSymmetry symmetry) {
  A.validate();
  const bool symmetric = symmetry == MatrixMarketSymmetry::symmetric;
  // The symmetry check and the lower triangle need sorted, duplicate-free rows.
  HostCsr normalized;
  const HostCsr* source = &A;
  if (symmetric && !A.is_sorted_and_unique()) {
    std::vector<Triplet> triplets;
    triplets.reserve(A.entries.size());
    for (int64_t i = 0; i < A.num_rows; ++i)
      for (int64_t k = A.row_map[i]; k < A.row_map[i + 1]; ++k)
        triplets.push_back({i, A.entries[k], A.values[k]});
    normalized = HostCsr::from_triplets(A.num_rows, A.num_cols, std::move(triplets));
    source = &normalized;
  }
  const HostCsr& M = *source;
  int64_t count = M.nnz();
  if (symmetric) {
    // the transposed copy the symmetry check compares with
    require_host_memory((M.num_cols + 1) * int64_t{sizeof(int64_t)} + M.nnz() * int64_t{sizeof(int) + sizeof(double)} +
                            M.num_cols * int64_t{sizeof(int64_t)},
                        "write_matrix_market: the symmetry check of a " + std::to_string(M.num_rows) + " x " +
                            std::to_string(M.num_cols) + " matrix");
    require_numerically_symmetric(M);
    count = 0;
    for (int64_t i = 0; i < M.num_rows; ++i)
      for (int64_t k = M.row_map[i]; k < M.row_map[i + 1]; ++k) count += M.entries[k] <= i;
  }

  OutputFile file(path);
  LineWriter out(file);
  out.text(std::string("%%MatrixMarket matrix coordinate real ") +
           (symmetric ? "symmetric" : "general") + "\n% written by Sprocket\n");
  out.text(std::to_string(M.num_rows) + " " + std::to_string(M.num_cols) + " " +
           std::to_string(count) + "\n");
  for (int64_t i = 0; i < M.num_rows; ++i)
    for (int64_t k = M.row_map[i]; k < M.row_map[i + 1]; ++k)
      if (!symmetric || M.entries[k] <= i) out.entry(i + 1, int64_t(M.entries[k]) + 1, M.values[k]);
  out.finish();
}

}  // namespace Sprocket
