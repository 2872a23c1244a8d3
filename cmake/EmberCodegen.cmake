# The files generated from the op table (ops/ops.toml) by ops/codegen.py, into
# ${EMBER_GENERATED}: headers under include/ember/<layer>/ (each layer's include root links those
# of the layers it may use, cmake/EmberLayers.cmake), the Tensor methods' definitions (part of the
# ops layer), and the Python bindings and re-export lists (python/CMakeLists.txt). The target
# ember_codegen runs the generator whenever the table or the generator changes.
find_package(Python 3.9 REQUIRED COMPONENTS Interpreter)

set(EMBER_GENERATED ${CMAKE_BINARY_DIR}/generated)
set(EMBER_GENERATED_HEADERS
  ${EMBER_GENERATED}/include/ember/core/tensor_methods.inc
  ${EMBER_GENERATED}/include/ember/core/kernels/op_codes.h
  ${EMBER_GENERATED}/include/ember/ops/functions.h
  ${EMBER_GENERATED}/include/ember/ops/op_db.h)
set(EMBER_GENERATED_OPS_SOURCES ${EMBER_GENERATED}/ops/tensor_methods.cpp ${EMBER_GENERATED}/ops/traced_ops.cpp)
set(EMBER_GENERATED_JIT_SOURCES ${EMBER_GENERATED}/jit/table_ops.cpp)
set(EMBER_GENERATED_PYTHON
  ${EMBER_GENERATED}/python/op_bindings.cpp
  ${EMBER_GENERATED}/python/ember/_ops.py
  ${EMBER_GENERATED}/python/ember/_op_db.py
  ${EMBER_GENERATED}/python/ember/nn/_functional_ops.py)

add_custom_command(
  OUTPUT ${EMBER_GENERATED_HEADERS} ${EMBER_GENERATED_OPS_SOURCES} ${EMBER_GENERATED_JIT_SOURCES}
         ${EMBER_GENERATED_PYTHON}
  COMMAND ${Python_EXECUTABLE} ${CMAKE_SOURCE_DIR}/ops/codegen.py ${CMAKE_SOURCE_DIR}/ops/ops.toml
          ${EMBER_GENERATED}
  DEPENDS ${CMAKE_SOURCE_DIR}/ops/codegen.py ${CMAKE_SOURCE_DIR}/ops/ops.toml
  COMMENT "Generating the ops' declarations and bindings from ops/ops.toml"
  VERBATIM)
add_custom_target(ember_codegen DEPENDS ${EMBER_GENERATED_HEADERS} ${EMBER_GENERATED_OPS_SOURCES} ${EMBER_GENERATED_JIT_SOURCES}
                                        ${EMBER_GENERATED_PYTHON})
foreach(layer core ops)
  file(MAKE_DIRECTORY ${EMBER_GENERATED}/include/ember/${layer})
endforeach()
