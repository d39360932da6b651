#pragma once
/// \file Sprocket_Error.hpp
/// Exceptions thrown by Sprocket. Every check on user input throws one of these with a message
/// that names what was wrong (sizes, file and line, option) rather than asserting or crashing.

#include <sstream>
#include <stdexcept>
#include <string>

namespace Sprocket {

/// Base class of everything Sprocket throws.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}  ///< an error whose what() is `what`
};

/// An argument is inconsistent: mismatched extents, a bad option, an invalid matrix structure.
class InvalidArgument : public Error {
 public:
  explicit InvalidArgument(const std::string& what) : Error(what) {}  ///< an error whose what() is `what`
};

/// A matrix file (Matrix Market) or generator specification could not be read.
/// what() is "<file>:<line>: <problem>" (line 0 when the problem is not tied to a line).
class ParseError : public Error {
 public:
  ParseError(const std::string& file, long line, const std::string& problem)
      : Error(file + ":" + std::to_string(line) + ": " + problem),
        file_(file),
        line_(line),
        problem_(problem) {}  ///< `problem` at line `line` of `file` (line 0: not tied to a line)
  /// The file (or generator specification) that could not be read
  const std::string& file() const noexcept { return file_; }
  long line() const noexcept { return line_; }  ///< the line of the problem, 0 when it is not tied to a line
  const std::string& problem() const noexcept { return problem_; }  ///< the problem, without file and line

 private:
  std::string file_;
  long line_;
  std::string problem_;
};

/// A computation needs more memory than it may use: the device's (or host's) available memory or a
/// limit the caller set. Thrown before anything is allocated; what() names the bytes needed and
/// the limit, bytes_needed() / bytes_available() give them.
class ResourceError : public Error {
 public:
  ResourceError(const std::string& what, long long bytes_needed, long long bytes_available)
      /// Message `what`; `bytes_needed` bytes needed, `bytes_available` allowed
      : Error(what), bytes_needed_(bytes_needed), bytes_available_(bytes_available) {}
  long long bytes_needed() const noexcept { return bytes_needed_; }  ///< bytes the computation needs
  /// Bytes it may use: the limit checked against (0 when a library ran out on its own)
  long long bytes_available() const noexcept { return bytes_available_; }

 private:
  long long bytes_needed_;
  long long bytes_available_;
};

namespace Impl {
template <class... Args>
std::string concat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
}  // namespace Impl

}  // namespace Sprocket

/// Throws Sprocket::InvalidArgument with the streamed message when cond is false.
#define SPROCKET_REQUIRE(cond, ...)                                           \
  do {                                                                        \
    if (!(cond)) throw ::Sprocket::InvalidArgument(::Sprocket::Impl::concat( \
        __VA_ARGS__));                                                        \
  } while (0)
