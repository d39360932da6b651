// SPROCKET_HOST_ISA: the values it takes and the errors it gives. The kernels' baseline copies
// themselves are tested by running the kernel tests again with SPROCKET_HOST_ISA=baseline
// (the *_baseline_isa entries of unit_tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "impl/utils/host_isa.hpp"

using Sprocket::Impl::host_isa_choice;

TEST(HostIsa, UnsetEmptyOrAutoDetects) {
  for (bool cpu : {false, true}) {
    EXPECT_EQ(host_isa_choice(nullptr, cpu), cpu);
    EXPECT_EQ(host_isa_choice("", cpu), cpu);
    EXPECT_EQ(host_isa_choice("auto", cpu), cpu);
  }
}

TEST(HostIsa, BaselineTurnsTheAvx2CopiesOff) {
  EXPECT_FALSE(host_isa_choice("baseline", true));
  EXPECT_FALSE(host_isa_choice("baseline", false));
}

TEST(HostIsa, Avx2FmaInsistsAndFailsWhereMissing) {
  EXPECT_TRUE(host_isa_choice("avx2_fma", true));
  try {
    host_isa_choice("avx2_fma", false);
    FAIL() << "no error for avx2_fma on a CPU without it";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no AVX2 + FMA"), std::string::npos) << e.what();
  }
}

TEST(HostIsa, UnknownValueIsAnErrorNamingTheChoices) {
  for (const char* bad : {"AVX2", "avx512", "base", " baseline"}) {
    try {
      host_isa_choice(bad, true);
      FAIL() << "no error for SPROCKET_HOST_ISA=" << bad;
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("auto, baseline or avx2_fma"), std::string::npos) << what;
      EXPECT_NE(what.find(bad), std::string::npos) << what;
    }
  }
}

TEST(HostIsa, ProcessChoiceFollowsTheEnvironment) {
  // The process-wide answer agrees with the environment this test runs under (ctest runs it
  // both without the variable and with SPROCKET_HOST_ISA=baseline).
  const char* env = std::getenv("SPROCKET_HOST_ISA");
  const bool expected = host_isa_choice(env, Sprocket::Impl::host_cpu_has_avx2_fma());
  EXPECT_EQ(Sprocket::Impl::host_has_avx2_fma(), expected);
  EXPECT_STREQ(Sprocket::Impl::host_isa_name(), expected ? "avx2_fma" : "baseline");
  if (env && std::string(env) == "baseline") EXPECT_STREQ(Sprocket::Impl::host_isa_name(), "baseline");
}
