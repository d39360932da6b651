#pragma once
// Running a built program from a test (the tests of sprocket-bench, sprocket-cuda-profile): its
// stdout, stderr and exit status.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace Sprocket {
namespace test {

struct ToolOutput {
  std::string out;  // stdout
  std::string err;  // stderr
  int status = -1;  // exit status (-1: did not exit normally, or could not start)
};

/// Runs `program args` through the shell; `environment` (e.g. "env -u OMP_PROC_BIND") goes before it.
inline ToolOutput run_tool(const std::string& program, const std::string& args, const std::string& environment = "") {
  char err_path[] = "/tmp/sprocket_tool_test_XXXXXX";
  const int fd = mkstemp(err_path);
  ToolOutput out;
  if (fd < 0) return out;
  close(fd);
  const std::string command =
      (environment.empty() ? "" : environment + " ") + program + " " + args + " 2>" + err_path;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe) {
    char buffer[4096];
    while (fgets(buffer, sizeof buffer, pipe)) out.out += buffer;
    const int status = pclose(pipe);
    out.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::ifstream err(err_path);
  std::stringstream ss;
  ss << err.rdbuf();
  out.err = ss.str();
  std::remove(err_path);
  return out;
}

}  // namespace test
}  // namespace Sprocket
