#include <gtest/gtest.h>
#include "Sprocket_Preconditioners.hpp"
TEST(Preconditioners, Placeholder) {}
