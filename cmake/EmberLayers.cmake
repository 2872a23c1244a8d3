# Ember's layers as separate CMake targets, linked into the one libember.so. Each layer compiles
# against an include root of its own that holds only the layers it may use, so an include that
# points up (core including ops/, ops including nn/) does not compile: the folder is not there.
# The generated headers of those layers (cmake/EmberCodegen.cmake) have a second root beside it.
#
#   ember_layer(ops USES core autograd)      # ops/*.cpp see ember/{core,autograd,ops}/
#
# The layers' object files, usage requirements aside, go into `ember` (ember_link_layers()), but for
# those of a layer marked PLUGIN (cuda/), which go into a library of their own that libember opens
# on first use (core/backend.h). EXCLUDE names a layer's files that are built elsewhere.

set(EMBER_LAYER_ROOTS ${CMAKE_BINARY_DIR}/layers)

# The include roots of `layer`: ember/<layer> and ember/<each of uses> linked to the sources, and
# generated/ember/<same> linked to their generated headers (when they have any).
function(ember_layer_include_root layer)
  set(root ${EMBER_LAYER_ROOTS}/${layer})
  file(REMOVE_RECURSE ${root})
  file(MAKE_DIRECTORY ${root}/ember ${root}/generated/ember)
  foreach(visible IN LISTS ARGN ITEMS ${layer})
    file(CREATE_LINK ${CMAKE_SOURCE_DIR}/${visible} ${root}/ember/${visible} SYMBOLIC)
    if(EXISTS ${EMBER_GENERATED}/include/ember/${visible})
      file(CREATE_LINK ${EMBER_GENERATED}/include/ember/${visible} ${root}/generated/ember/${visible} SYMBOLIC)
    endif()
  endforeach()
endfunction()

function(ember_layer layer)
  cmake_parse_arguments(PARSE_ARGV 1 arg "PLUGIN" "" "USES;LIBRARIES;GENERATED_SOURCES;EXCLUDE")
  ember_layer_include_root(${layer} ${arg_USES})
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/${layer}/*.cpp ${CMAKE_SOURCE_DIR}/${layer}/*.cu)
  foreach(excluded IN LISTS arg_EXCLUDE)
    list(REMOVE_ITEM sources ${CMAKE_SOURCE_DIR}/${excluded})
  endforeach()
  add_library(ember_${layer} OBJECT ${sources} ${arg_GENERATED_SOURCES})
  add_dependencies(ember_${layer} ember_codegen)
  target_include_directories(ember_${layer} PRIVATE ${EMBER_LAYER_ROOTS}/${layer}
                                                    ${EMBER_LAYER_ROOTS}/${layer}/generated)
  target_link_libraries(ember_${layer} PRIVATE ${arg_LIBRARIES} absl::inlined_vector Threads::Threads)
  # The C++ flags are for g++ only; .cu files (cuda/) get nvcc's (cmake/EmberCuda.cmake).
  target_compile_options(ember_${layer} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:${EMBER_COMPILE_OPTIONS}>")
  target_compile_definitions(ember_${layer} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:${EMBER_COMPILE_DEFINITIONS}>")
  if(NOT arg_PLUGIN)
    set_property(GLOBAL APPEND PROPERTY EMBER_LAYER_TARGETS ember_${layer})
  endif()
endfunction()

function(ember_link_layers target)
  get_property(layers GLOBAL PROPERTY EMBER_LAYER_TARGETS)
  foreach(layer IN LISTS layers)
    target_sources(${target} PRIVATE $<TARGET_OBJECTS:${layer}>)
  endforeach()
endfunction()
