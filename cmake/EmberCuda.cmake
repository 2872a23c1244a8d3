# The CUDA backend (cuda/), decided before the layers: EMBER_CUDA=AUTO (the default) builds it when
# nvcc is found, ON insists (and fails loudly without the CUDA Toolkit or cuDNN), OFF leaves it out.
# Sets EMBER_WITH_CUDA and, when on, enables the CUDA language (NB: enable_language must run in the
# top-level CMakeLists.txt's scope, which include() keeps) and defines ember_cudnn.
#
# Measured on the CI machine (CUDA 13.0, cuDNN 9.19, CMake 3.25): CMake 3.25 knows no nvcc flag for
# C++20, and its default CUDA runtime is the static one; cuDNN ships no CMake package, so it is found
# by hand inside the toolkit's prefix.
# NB: build folders configured before AUTO existed hold EMBER_CUDA as the BOOL of an option()
# whose default was OFF; that default is not a choice, so it becomes AUTO (an ON stays ON).
get_property(ember_cuda_type CACHE EMBER_CUDA PROPERTY TYPE)
if(ember_cuda_type STREQUAL "BOOL" AND NOT EMBER_CUDA)
  set(EMBER_CUDA AUTO CACHE STRING "" FORCE)
endif()
set(EMBER_CUDA AUTO CACHE STRING "Build the CUDA backend (cuda/): AUTO (when nvcc is found), ON, OFF")
set_property(CACHE EMBER_CUDA PROPERTY TYPE STRING)
set_property(CACHE EMBER_CUDA PROPERTY STRINGS AUTO ON OFF)

set(EMBER_WITH_CUDA OFF)
# A wheel built on a prebuilt libember (make python) compiles no kernels: the library has them,
# and finds the CUDA libraries through its own RUNPATH.
if(SKBUILD AND EMBER_PREBUILT_DIR)
  return()
endif()
string(TOUPPER "${EMBER_CUDA}" ember_cuda_mode)
if(ember_cuda_mode STREQUAL "AUTO" AND EMBER_SANITIZE)
  # NB: AddressSanitizer sees nothing of device code, the CUDA runtime needs
  # ASAN_OPTIONS=protect_shadow_gap=0 under it, and `make test-asan` would compile every kernel a
  # second time: sanitizer builds leave the backend out unless asked (EMBER_CUDA=ON).
  message(STATUS "Ember: sanitizer build, without the CUDA backend (EMBER_CUDA=AUTO)")
elseif(ember_cuda_mode STREQUAL "AUTO")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(EMBER_WITH_CUDA ON)
  else()
    message(STATUS "Ember: no nvcc found, building without the CUDA backend (EMBER_CUDA=AUTO)")
  endif()
elseif(EMBER_CUDA)
  set(EMBER_WITH_CUDA ON)
endif()

if(EMBER_WITH_CUDA)
  # The GPUs the kernels are compiled for. sm_80 machine code runs on every Ampere and Ada GPU
  # (A100, A10, RTX 30xx/40xx: 8.x runs 8.0 code), sm_90 on Hopper (H100, H200), and the PTX of
  # compute_90 is compiled by the driver for anything newer (Blackwell), so a future GPU runs too.
  # Turing (sm_75, T4) is left out: it would add a third device compile of every kernel to CI for
  # GPUs without bfloat16 or TF32. Each architecture costs a full device compile of every .cu file,
  # so the list stays short; set CMAKE_CUDA_ARCHITECTURES for others (NB: "native" needs a GPU at
  # configure time, which CI does not have).
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES "80-real;90" CACHE STRING "CUDA architectures of the kernels")
  endif()
  find_program(EMBER_CCACHE ccache)
  if(EMBER_CCACHE AND NOT CMAKE_CUDA_COMPILER_LAUNCHER)
    set(CMAKE_CUDA_COMPILER_LAUNCHER ${EMBER_CCACHE})
  endif()
  if(NOT CMAKE_CUDA_HOST_COMPILER)
    set(CMAKE_CUDA_HOST_COMPILER ${CMAKE_CXX_COMPILER})
  endif()
  enable_language(CUDA)
  # NB: CMake 3.25 has no nvcc flag for C++20; without one, generating fails on CUDA_STANDARD_REQUIRED.
  if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  endif()
  set(CMAKE_CUDA_STANDARD 20)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  set(CMAKE_CUDA_EXTENSIONS OFF)
  # The shared runtime (libcudart.so), as libember.so is shared too: one runtime per process.
  set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)
  find_package(CUDAToolkit REQUIRED)
  find_path(EMBER_CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS} REQUIRED)
  find_library(EMBER_CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR} REQUIRED)
  add_library(ember_cudnn INTERFACE IMPORTED)
  target_include_directories(ember_cudnn SYSTEM INTERFACE ${EMBER_CUDNN_INCLUDE_DIR})
  target_link_libraries(ember_cudnn INTERFACE ${EMBER_CUDNN_LIBRARY})
  # NCCL (the nccl process group, distributed/process_group_nccl.cpp) sits in the same prefix,
  # with no CMake config either.
  find_path(EMBER_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} REQUIRED)
  find_library(EMBER_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} REQUIRED)
  add_library(ember_nccl INTERFACE IMPORTED)
  target_include_directories(ember_nccl SYSTEM INTERFACE ${EMBER_NCCL_INCLUDE_DIR})
  target_link_libraries(ember_nccl INTERFACE ${EMBER_NCCL_LIBRARY})
  # Flags of every .cu file: the front end's warnings are errors (--promote_warnings), so are nvcc's
  # own diagnostics and the host compiler's warnings. ptxas reports register spills and local-memory
  # use (-warn-spills, -warn-lmem-usage) as warnings in the build log, not errors: CUDA's own slow
  # paths of IEEE division and of large-argument sin/cos/tan keep a few bytes on the stack, and
  # whether a kernel that calls them shows it changes with the architecture (sm_90 but not sm_80)
  # and the register allocation, so an error there would fail builds over code Ember cannot change.
  # --expt-relaxed-constexpr lets the shared math call std::numeric_limits in device code.
  set(EMBER_CUDA_COMPILE_OPTIONS
      --expt-relaxed-constexpr
      -Xcudafe=--promote_warnings
      --Werror cross-execution-space-call,reorder,deprecated-declarations,default-stream-launch,ext-lambda-captures-this
      -Xcompiler=-Wall,-Wextra,-Wno-unused-parameter,-Werror)
  set(EMBER_CUDA_PTXAS_OPTIONS -Xptxas=-warn-spills,-warn-lmem-usage)
  # NB: CUDA's own double sin, cos and tan always keep their argument-reduction table in local
  # memory, so the files that call them (cuda/kernels/elementwise_trig.cu, complex.cu) report spills only.
  set(EMBER_CUDA_TRIG_PTXAS_OPTIONS -Xptxas=-warn-spills)
  message(STATUS "Ember: CUDA backend on (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, architectures "
                 "${CMAKE_CUDA_ARCHITECTURES}, cuDNN ${EMBER_CUDNN_LIBRARY})")
endif()
