#pragma once
// The copy rule of every plan (Sprocket_Operator.hpp, "Copies"): a copy of a plan is independent
// of the original. What a plan analysed is read-only after construction and may be shared by its
// copies; what an apply, a numeric pass or update_values writes (workspaces, cached transposes,
// reordered copies of the values) must not be. Members of the second kind are wrapped here, so
// that a plan's implicit copy constructor stays correct when members are added.
#include <utility>

namespace Sprocket {
namespace Impl {

/// A plan member that its copies do not share: a copy starts from T's default state (an empty
/// cache or workspace, rebuilt by the copy's first call that needs it); a move keeps the state.
/// T is a std::shared_ptr or another default-constructible handle; the wrapper derives from it so
/// that the member reads as before (`if (!cache_)`, `cache_ = p`, `*cache_`).
template <class T>
struct EmptyOnCopy : T {
  using T::T;
  using T::operator=;
  EmptyOnCopy() = default;
  EmptyOnCopy(const T& value) : T(value) {}
  EmptyOnCopy(T&& value) : T(std::move(value)) {}
  EmptyOnCopy(const EmptyOnCopy&) : T() {}
  EmptyOnCopy(EmptyOnCopy&&) = default;
  EmptyOnCopy& operator=(const EmptyOnCopy& other) {
    if (this != &other) T::operator=(T());
    return *this;
  }
  EmptyOnCopy& operator=(EmptyOnCopy&&) = default;
  ~EmptyOnCopy() = default;
};

}  // namespace Impl
}  // namespace Sprocket
