// Resource limits (issue 19).
// Integer overflow: offsets, nnz counts and products must never wrap silently. A matrix with more
// than 2^31 entries does not fit this machine's test budget, so the checks are driven with a
// 16-bit Offset (and Ordinal) type, whose limit small matrices pass: every counting path must
// refuse with InvalidArgument naming the count, never build a wrapped row map.
// Memory: workspaces sized by the caller's arguments (a BSR conversion's fill, a solver's basis)
// are checked against the memory ceiling before they are allocated: ResourceError with the bytes.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "Sprocket_BlockGmres.hpp"
#include "Sprocket_BsrMatrix.hpp"
#include "Sprocket_Crs.hpp"
#include "Sprocket_Lobpcg.hpp"
#include "Sprocket_Memory.hpp"
#include "Sprocket_MultiVectorOperator.hpp"
#include "Sprocket_Error.hpp"
#include "Sprocket_Generators.hpp"
#include "Sprocket_HostMatrix.hpp"
#include "Sprocket_Spgemm.hpp"
#include "Sprocket_Spmv.hpp"
#include "impl/common/host_memory_room.hpp"
#include "sprocket_test_utils.hpp"

namespace {

using namespace Sprocket;
using namespace Sprocket::test;
using Device = Kokkos::DefaultHostExecutionSpace::device_type;
using Crs16 = KokkosSparse::CrsMatrix<double, int, Device, void, int16_t>;
using CrsOrdinal16 = KokkosSparse::CrsMatrix<double, int16_t, Device, void, int>;

HostCsr dense_block(int64_t rows, int64_t cols) {
  std::vector<double> d(static_cast<size_t>(rows * cols), 1.0);
  return csr_from_dense(rows, cols, d);
}

TEST(Overflow, ToCrsRefusesCountsPastTheOffsetType) {
  const HostCsr fits = dense_block(181, 181);   // 32761 entries <= 32767
  const HostCsr wraps = dense_block(182, 182);  // 33124 entries
  EXPECT_NO_THROW(to_crs<Crs16>(fits));
  const std::string m = message_of<InvalidArgument>([&] { to_crs<Crs16>(wraps); });
  EXPECT_NE(m.find("33124 entries do not fit the matrix's offset type"), std::string::npos) << m;
}

TEST(Overflow, ToCrsRefusesDimensionsPastTheOrdinalType) {
  const HostCsr tall = no_entries(40000, 3);
  const std::string m = message_of<InvalidArgument>([&] { to_crs<CrsOrdinal16>(tall); });
  EXPECT_NE(m.find("40000 x 3 does not fit the matrix's ordinal type"), std::string::npos) << m;
}

TEST(Overflow, SpgemmOffsetCheckAtTheBoundary) {
  EXPECT_NO_THROW(Impl::spgemm_check_offset<int16_t>(32767, "nnz(C)"));
  const std::string past = message_of<InvalidArgument>([] { Impl::spgemm_check_offset<int16_t>(32768, "nnz(C)"); });
  EXPECT_NE(past.find("nnz(C) is 32768, more than the matrix's Offset type holds (32767)"), std::string::npos) << past;
  EXPECT_NE(message_of<InvalidArgument>([] { Impl::spgemm_check_offset<int16_t>(-1, "nnz(C)"); }), "");
  EXPECT_NE(message_of<InvalidArgument>([] { Impl::spgemm_check_offset<int>(int64_t{1} << 31, "nnz(C)"); }), "");
  EXPECT_NO_THROW(Impl::spgemm_check_offset<int>((int64_t{1} << 31) - 1, "nnz(C)"));
}

// A product whose inputs fit 16-bit offsets but whose result does not: a column times a row.
// Every backend's symbolic pass counts in 64 bits and refuses before the row map is written.
TEST(Overflow, SpgemmRefusesAProductPastTheOffsetType) {
  const HostCsr column = dense_block(200, 1), row = dense_block(1, 200);  // C = 200 x 200, 40000 entries
  const Crs16 a = to_crs<Crs16>(column), b = to_crs<Crs16>(row);
  for (const Backend backend : {Backend::automatic, Backend::portable}) {
    SpgemmOptions options;
    options.backend = backend;
    const std::string m = message_of<InvalidArgument>([&] { SpgemmPlan<Crs16> plan(a, b, options); });
    EXPECT_NE(m.find("nnz(C) is 40000, more than the matrix's Offset type holds (32767)"), std::string::npos)
        << to_string(backend) << ": " << m;
  }
  // 181 x 181 = 32761 entries fit: the same product shape one size down is computed.
  const HostCsr column_fits = dense_block(181, 1), row_fits = dense_block(1, 181);
  SpgemmPlan<Crs16> plan(to_crs<Crs16>(column_fits), to_crs<Crs16>(row_fits));
  EXPECT_EQ(plan.nnz(), 181 * 181);
}

// Products of dimensions in the generators are checked before they are formed (the grid sizes
// n^2, n^3 and dof * n^3 of 64-bit counts): a size that cannot exist is refused, never wrapped.
TEST(Overflow, GeneratorsRefuseSizesThatWrap) {
  for (const std::string spec : {"gen:poisson3d:n=3000000", "gen:poisson2d:n=4000000000", "gen:elasticity:n=2100000,dof=6",
                                 "gen:rmat:scale=70", "gen:uniform:n=9223372036854775807,avg=1",
                                 // a fuzz finding: the bytes of 4.4e17 edges overflowed before the check
                                 "gen:rmat:scale=2,ef=111111111111111112.1"}) {
    try {
      gen::from_spec(spec);
      ADD_FAILURE() << spec << " was generated";
    } catch (const ParseError&) {  // a specification's sizes: the policy's type for specs
    } catch (const ResourceError&) {
    } catch (const std::exception& e) {
      ADD_FAILURE() << spec << ": " << e.what();
    }
  }
}

/// Sets the host memory ceiling for one scope.
class MemoryCeiling {
 public:
  explicit MemoryCeiling(int64_t bytes) : saved_(host_memory_limit()) { set_host_memory_limit(bytes); }
  ~MemoryCeiling() { set_host_memory_limit(saved_); }
  MemoryCeiling(const MemoryCeiling&) = delete;
  MemoryCeiling& operator=(const MemoryCeiling&) = delete;

 private:
  int64_t saved_;
};

// One entry per 32 x 32 block: the BSR form stores 1024 scalars per entry (8 KiB), so 3200
// entries need 26 MB. Under a 4 MB ceiling the conversion refuses before allocating; the same
// pattern with b = 1 (no fill) converts.
TEST(ResourceLimits, CsrToBsrFillIsCheckedBeforeAllocating) {
  std::vector<Triplet> t;
  for (int64_t k = 0; k < 3200; ++k) t.push_back({k, (k * 37) % 3200, 1.0});
  const HostCsr A = HostCsr::from_triplets(3200, 3200, t);
  const MemoryCeiling ceiling(int64_t{4} << 20);
  const std::string m = message_of<ResourceError>([&] { csr_to_host_bsr(A, 32); });
  EXPECT_NE(m.find("csr_to_bsr: 3200 blocks of 32x32 for 3200 entries: needs 26"), std::string::npos) << m;
  EXPECT_NO_THROW(csr_to_host_bsr(A, 1));
}

// Block GMRES keeps (restart + 1) x block basis vectors of n scalars (Sprocket_BlockGmres.hpp) and
// a few blocks of work: restart 500, block 8 and n = 10^4 need 4008 vectors of 10^4 doubles,
// 320.6 MB, and more; refused under a 64 MB ceiling before the first allocation with the bytes it
// needs, which cover the basis and at most a few work blocks beside it; a small restart runs.
TEST(ResourceLimits, BlockGmresBasisIsCheckedBeforeAllocating) {
  using Crs = KokkosSparse::CrsMatrix<double, int, Device, void, int>;
  using MV = Kokkos::View<double**, Kokkos::LayoutLeft, Device>;
  const HostCsr A = gen::poisson2d(100);
  auto op = make_operator(SpmvPlan<Crs>(to_crs<Crs>(A)));
  MV B("B", A.num_rows, 8), X("X", A.num_rows, 8);
  Kokkos::deep_copy(B, 1.0);
  const MemoryCeiling ceiling(int64_t{64} << 20);
  BlockGmresOptions options;
  options.restart = 500;
  const int64_t n = A.num_rows, block = 8, vector_bytes = n * int64_t{sizeof(double)};
  const int64_t basis_bytes = (options.restart + 1) * block * vector_bytes;
  try {
    block_gmres(*op, B, X, options);
    ADD_FAILURE() << "a basis of " << basis_bytes << " bytes was accepted under a 64 MiB ceiling";
  } catch (const ResourceError& e) {
    const std::string m = e.what();
    EXPECT_GE(e.bytes_needed(), basis_bytes) << m;
    EXPECT_LE(e.bytes_needed(), basis_bytes + 4 * block * vector_bytes) << "more than the basis and 4 work blocks: " << m;
    EXPECT_LE(e.bytes_available(), int64_t{64} << 20) << m;
    EXPECT_NE(m.find("block_gmres: the Krylov basis and work blocks (n = 10000, restart 500, block 8): needs " +
                     std::to_string(e.bytes_needed()) + " bytes"),
              std::string::npos)
        << m;
  }
  options.restart = 10;
  options.max_iterations = 2;
  EXPECT_NO_THROW(block_gmres(*op, B, X, options));
}

// LOBPCG's search space is 3 blocks of X's width, several times over: block 2000 on n = 10^4 is
// refused under a 64 MB ceiling.
TEST(ResourceLimits, LobpcgBlocksAreCheckedBeforeAllocating) {
  using Crs = KokkosSparse::CrsMatrix<double, int, Device, void, int>;
  using MV = Kokkos::View<double**, Kokkos::LayoutLeft, Device>;
  const HostCsr A = gen::poisson2d(100);
  auto op = make_operator(SpmvPlan<Crs>(to_crs<Crs>(A)));
  const MemoryCeiling ceiling(int64_t{64} << 20);
  LobpcgOptions options;
  options.nev = 1;
  options.block_size = 2000;
  const std::string m = message_of<ResourceError>([&] { Sprocket::lobpcg(*op, MV(), options); });
  EXPECT_NE(m.find("lobpcg: the search-space blocks (n = 10000, block 2000): needs"), std::string::npos) << m;
}

// ---- the ceiling's sources (issue 30, item 9) ----------------------------------------------------

// Headroom: a request never gets all of a room, and never less than 64 MiB is kept back.
TEST(HostMemoryCeiling, HeadroomIsKeptBack) {
  const int64_t MiB = int64_t{1} << 20;
  for (const int64_t room : {int64_t{0}, 10 * MiB, 64 * MiB, 65 * MiB, 512 * MiB, int64_t{24} << 30, int64_t{1} << 45}) {
    const int64_t usable = Impl::usable_bytes(room);
    EXPECT_GE(usable, 0) << room;
    EXPECT_LE(usable, room - std::min(room, 64 * MiB)) << room;
    EXPECT_LE(usable, room - room / 8) << room;
  }
  EXPECT_EQ(Impl::usable_bytes(1024 * MiB), 1024 * MiB - 128 * MiB);
  // The machine of issue 30's report: 24.0e9 bytes asked with a little more available is refused.
  EXPECT_LT(Impl::usable_bytes(int64_t{24100000000}), int64_t{24000000000});
  EXPECT_EQ(Impl::process_limit_room(-1, 123, "x").bytes, Impl::MemoryRoom::unlimited_room);
  EXPECT_EQ(Impl::process_limit_room(1000, 300, "x").bytes, 700);
  EXPECT_EQ(Impl::process_limit_room(1000, 3000, "x").bytes, 0);
}

/// A scratch directory tree for fake cgroup file systems (removed with the object).
class ScratchTree {
 public:
  ScratchTree() {
    char name[] = "/tmp/sprocket-cgroup-XXXXXX";
    root_ = mkdtemp(name);
  }
  ~ScratchTree() { std::system(("rm -rf '" + root_ + "'").c_str()); }
  ScratchTree(const ScratchTree&) = delete;
  ScratchTree& operator=(const ScratchTree&) = delete;
  const std::string& root() const { return root_; }
  void write(const std::string& relative, const std::string& text) const {
    std::system(("mkdir -p \"$(dirname '" + root_ + relative + "')\"").c_str());
    std::ofstream(root_ + relative) << text;
  }

 private:
  std::string root_;
};

// cgroup v1: the memory controller's line of /proc/self/cgroup; the smallest limit - usage over
// the cgroup and its parents; file pages do not count as used; v1's "no limit" (2^63 - 4096) and
// missing folders (a container's own view) are no limit.
TEST(HostMemoryCeiling, CgroupV1LimitsOfTheCgroupAndItsParents) {
  const ScratchTree t;
  const std::string self = "12:pids:/a\n4:memory:/jobs/job7\n0::/\n";
  t.write("/memory/memory.limit_in_bytes", "9223372036854771712\n");
  t.write("/memory/jobs/memory.limit_in_bytes", "8000000000\n");
  t.write("/memory/jobs/memory.usage_in_bytes", "3000000000\n");
  t.write("/memory/jobs/memory.stat", "cache 10\ntotal_inactive_file 500000000\ntotal_active_file 500000000\n");
  t.write("/memory/jobs/job7/memory.limit_in_bytes", "9223372036854771712\n");
  t.write("/memory/jobs/job7/memory.usage_in_bytes", "2000000000\n");
  const Impl::MemoryRoom room = Impl::cgroup_memory_room(self, t.root());
  EXPECT_EQ(room.bytes, 8000000000 - (3000000000 - 1000000000));
  EXPECT_NE(room.source.find("/memory/jobs/memory.limit_in_bytes"), std::string::npos) << room.source;
  // The child's own, smaller limit wins.
  t.write("/memory/jobs/job7/memory.limit_in_bytes", "2500000000\n");
  EXPECT_EQ(Impl::cgroup_memory_room(self, t.root()).bytes, 500000000);
  // A path this view does not have: the limits of the folders that exist, the root's among them.
  t.write("/memory/memory.limit_in_bytes", "4000000000\n");
  EXPECT_EQ(Impl::cgroup_memory_room("4:memory:/elsewhere/x\n", t.root()).bytes, 4000000000);
  EXPECT_EQ(Impl::cgroup_memory_room("4:cpu,cpuacct:/a\n", t.root()).bytes, Impl::MemoryRoom::unlimited_room);
}

// cgroup v2: "0::<path>", memory.max ("max": none) less memory.current, at the mount point or
// under unified/ (hybrid systems).
TEST(HostMemoryCeiling, CgroupV2LimitsOfTheCgroupAndItsParents) {
  for (const std::string mount : {"", "/unified"}) {
    const ScratchTree t;
    t.write(mount + "/cgroup.controllers", "cpu memory\n");
    t.write(mount + "/user.slice/memory.max", "max\n");
    t.write(mount + "/user.slice/job/memory.max", "1073741824\n");
    t.write(mount + "/user.slice/job/memory.current", "73741824\n");
    t.write(mount + "/user.slice/job/memory.stat", "anon 1\nactive_file 1000\ninactive_file 24\n");
    const Impl::MemoryRoom room = Impl::cgroup_memory_room("0::/user.slice/job\n", t.root());
    EXPECT_EQ(room.bytes, 1073741824 - (73741824 - 1024)) << mount;
    EXPECT_NE(room.source.find("memory.max"), std::string::npos) << room.source;
    EXPECT_EQ(Impl::cgroup_memory_room("0::/user.slice\n", t.root()).bytes, Impl::MemoryRoom::unlimited_room);
  }
}

/// Runs `body` in a forked child (the limits it sets stay there) and returns what it wrote: the
/// child must not touch Kokkos or OpenMP, only the memory ceiling.
template <class Body>
std::string in_child(Body&& body) {
  int fds[2];
  if (pipe(fds) != 0) return "<pipe failed>";
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const std::string out = body();
    (void)!write(fds[1], out.data(), out.size());
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  char buffer[512];
  for (ssize_t got; (got = read(fds[0], buffer, sizeof buffer)) > 0;) out.append(buffer, static_cast<size_t>(got));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return out;
}

/// The refusal of `bytes` under the current limits: "refused: <message>" or "accepted".
std::string request(int64_t bytes) {
  try {
    require_host_memory(bytes, "ceiling test");
    return "accepted";
  } catch (const ResourceError& e) {
    return std::string("refused: ") + e.what();
  }
}

// The process' own limits, set as `ulimit -v` and `ulimit -d` set them: a request past the room
// they leave is refused naming the limit, a small one passes; without a limit the same request
// passes (this machine has the memory).
TEST(HostMemoryCeiling, ProcessLimitsAreHonoured) {
  const int64_t GiB = int64_t{1} << 30;
  ASSERT_GT(host_memory_ceiling(true), GiB) << "the test needs 1 GiB of room";
  for (const int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    const std::string name = resource == RLIMIT_AS ? "RLIMIT_AS" : "RLIMIT_DATA";
    const std::string out = in_child([&] {
      std::ifstream status("/proc/self/status");
      std::string line;
      int64_t used = 0;
      while (std::getline(status, line))
        if (line.rfind(resource == RLIMIT_AS ? "VmSize:" : "VmData:", 0) == 0) used = std::stoll(line.substr(7)) * 1024;
      const rlimit limit{static_cast<rlim_t>(used + 512 * (int64_t{1} << 20)), RLIM_INFINITY};
      if (setrlimit(resource, &limit) != 0) return std::string("<setrlimit failed>");
      return request(GiB) + "\n" + request(int64_t{16} << 20);
    });
    EXPECT_EQ(out.rfind("refused: ceiling test: needs 1073741824 bytes", 0), 0u) << name << ": " << out;
    EXPECT_NE(out.find(name), std::string::npos) << out;
    EXPECT_NE(out.find("\naccepted"), std::string::npos) << name << ": 16 MiB must pass: " << out;
  }
  EXPECT_EQ(request(GiB), "accepted");
}

// The memory cgroup, for real where this process may create one (root with a writable cgroup
// file system: v1's memory controller or v2 with memory enabled for children): a child process in
// a cgroup limited to 256 MiB is refused 512 MiB naming the cgroup's file. Where no cgroup can be
// made the fake trees above are what is tested.
TEST(HostMemoryCeiling, CgroupLimitIsHonoured) {
  std::ifstream self("/proc/self/cgroup");
  std::string line, dir, limit_file;
  while (std::getline(self, line)) {
    const size_t a = line.find(':'), b = line.find(':', a + 1);
    const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (("," + controllers + ",").find(",memory,") != std::string::npos &&
        std::ifstream("/sys/fs/cgroup/memory" + path + "/memory.limit_in_bytes")) {
      dir = "/sys/fs/cgroup/memory" + path, limit_file = "memory.limit_in_bytes";
    } else if (line.rfind("0::", 0) == 0 && std::ifstream("/sys/fs/cgroup/cgroup.controllers")) {
      std::ifstream control("/sys/fs/cgroup" + path + "/cgroup.subtree_control");
      std::string enabled((std::istreambuf_iterator<char>(control)), std::istreambuf_iterator<char>());
      if (enabled.find("memory") != std::string::npos) dir = "/sys/fs/cgroup" + path, limit_file = "memory.max";
    }
  }
  const std::string cgroup = dir + "/sprocket-test-" + std::to_string(getpid());
  if (dir.empty() || mkdir(cgroup.c_str(), 0755) != 0)
    GTEST_SKIP() << "no memory cgroup can be created here (" << (dir.empty() ? "none found" : dir)
                 << "): CgroupV1/V2LimitsOfTheCgroupAndItsParents test the reading";
  std::ofstream(cgroup + "/" + limit_file) << (int64_t{256} << 20) << "\n";
  const std::string out = in_child([&] {
    std::ofstream(cgroup + "/cgroup.procs") << getpid() << "\n";
    return request(int64_t{512} << 20);
  });
  rmdir(cgroup.c_str());
  EXPECT_EQ(out.rfind("refused: ceiling test: needs 536870912 bytes", 0), 0u) << out;
  EXPECT_NE(out.find(cgroup + "/" + limit_file), std::string::npos) << out;
}

}  // namespace
