# Kokkos Kernels' target under the name Sprocket links (Kokkos::kokkoskernels): a standalone
# Kokkos Kernels install exports it; a Trilinos install (TriBITS) exports the plain target
# kokkoskernels, whose headers come with Kokkos::kokkos (one include folder). Included by
# CMakeLists.txt and by SprocketConfig.cmake.
if(NOT TARGET Kokkos::kokkoskernels AND TARGET kokkoskernels)
  add_library(Kokkos::kokkoskernels INTERFACE IMPORTED)
  set_target_properties(Kokkos::kokkoskernels PROPERTIES INTERFACE_LINK_LIBRARIES "kokkoskernels;Kokkos::kokkos")
endif()
