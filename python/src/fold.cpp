// Unfold and Fold of ember._C.nn (nn/fold.h) and F.unfold / F.fold, with torch's signatures.
#include "ember/nn/fold.h"

#include <pybind11/stl.h>

#include "layer_binding.h"

namespace ember::python {

using namespace pybind11::literals;

void bind_fold_layers(py::module_& nn) {
  layer_with_fields<nn::Unfold>(nn, "Unfold", "im2col: every sliding window as a column (torch.nn.Unfold).")
      .def(layer_init<nn::Unfold>([](Size2 k, Size2 d, Size2 p, Size2 s) {
             return nn::UnfoldOptions{k, d, p, s};
           }),
           "kernel_size"_a, "dilation"_a = 1, "padding"_a = 0, "stride"_a = 1);
  layer_with_fields<nn::Fold>(nn, "Fold", "col2im: columns summed back into planes (torch.nn.Fold).")
      .def(layer_init<nn::Fold>([](Size2 size, Size2 k, Size2 d, Size2 p, Size2 s) {
             return nn::FoldOptions{size, k, d, p, s};
           }),
           "output_size"_a, "kernel_size"_a, "dilation"_a = 1, "padding"_a = 0, "stride"_a = 1);
}

void bind_fold_functions(py::module_& f) {
  f.def("unfold", &nn::functional::unfold, "input"_a, "kernel_size"_a, "dilation"_a = 1, "padding"_a = 0,
        "stride"_a = 1, "[N, C, H, W] -> [N, C kH kW, L]: every sliding window as a column.");
  f.def("fold", &nn::functional::fold, "input"_a, "output_size"_a, "kernel_size"_a, "dilation"_a = 1, "padding"_a = 0,
        "stride"_a = 1, "[N, C kH kW, L] columns summed back into [N, C, output_size].");
}

}  // namespace ember::python
