#pragma once
// einsum (declared from the op table, ember/ops/functions.h) in PyTorch's equation syntax:
// subscripts [a-zA-Z], one "..." per operand for the dims it does not name (broadcast across
// operands, aligned from the right), "->" and the output's subscripts, or, without "->", the
// implicit output: "..." then the subscripts that appear once, in alphabetical order (upper case
// first). A subscript repeated within an operand takes its diagonal; subscripts missing from the
// output are summed. Operands are contracted left to right, each pair by one bmm after permutes
// and reshapes (and size-1 dims broadcast), so the gradient is that of those ops.
#include "ember/ops/functions.h"
