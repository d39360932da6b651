#pragma once
// SciPy's eigsh on shared matrices, through unit_tests/solvers/lobpcg_reference.py (the oracle of
// the LOBPCG and sprocket-solve tests): the `count` smallest and largest eigenvalues per matrix.
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace Sprocket {
namespace test {

struct EigshReference {
  std::map<std::string, std::map<std::string, std::vector<double>>> values;  ///< name -> "smallest"/"largest" -> count values
  std::string error;                                                          ///< empty when every matrix came back
};

/// Runs the reference script once on SPROCKET_SHARED_MATRICES/<name>.mtx.gz for every name.
inline EigshReference eigsh_reference(const std::vector<std::string>& names, int count) {
  auto path_of = [](const std::string& name) { return std::string(SPROCKET_SHARED_MATRICES) + "/" + name + ".mtx.gz"; };
  EigshReference ref;
  std::string command = "/usr/bin/python3 " SPROCKET_TEST_DATA "/solvers/lobpcg_reference.py " + std::to_string(count);
  for (const auto& name : names) command += " " + path_of(name);
  command += " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) {
    ref.error = "could not start " + command;
    return ref;
  }
  std::string output;
  char buffer[4096];
  while (fgets(buffer, sizeof buffer, pipe)) output += buffer;
  const int status = pclose(pipe);
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream is(line);
    std::string path, end;
    is >> path >> end;
    std::vector<double> v;
    double x;
    while (is >> x) v.push_back(x);
    for (const auto& name : names)
      if (path == path_of(name) && static_cast<int>(v.size()) == count) ref.values[name][end] = v;
  }
  if (status != 0 || ref.values.size() != names.size())
    ref.error = "SciPy reference failed (exit status " + std::to_string(status) + "): " + command + "\n" + output;
  return ref;
}

}  // namespace test
}  // namespace Sprocket
