// The selection enum every operator shares (Sprocket_Operator.hpp, impl/common/backend.cpp):
// names round-trip, "auto" is accepted for automatic, anything else throws naming the valid ones.
#include <gtest/gtest.h>

#include <string>

#include "Sprocket_Operator.hpp"

namespace {

using Sprocket::Backend;

TEST(Backend, NamesRoundTrip) {
  for (Backend b : {Backend::automatic, Backend::portable, Backend::native})
    EXPECT_EQ(Sprocket::backend_from_string(Sprocket::to_string(b)), b) << Sprocket::to_string(b);
  EXPECT_STREQ(Sprocket::to_string(Backend::automatic), "automatic");
  EXPECT_STREQ(Sprocket::to_string(Backend::portable), "portable");
  EXPECT_STREQ(Sprocket::to_string(Backend::native), "native");
  EXPECT_EQ(Sprocket::backend_from_string("auto"), Backend::automatic);
  EXPECT_STREQ(Sprocket::to_string(static_cast<Backend>(7)), "invalid");
}

TEST(Backend, UnknownNameThrowsListingTheValidOnes) {
  try {
    Sprocket::backend_from_string("cuda");
    FAIL() << "no exception";
  } catch (const Sprocket::InvalidArgument& e) {
    const std::string what = e.what();
    for (const char* needle : {"\"cuda\"", "automatic", "portable", "native"})
      EXPECT_NE(what.find(needle), std::string::npos) << what;
  }
}

}  // namespace
