// ember-convert: rewrites a checkpoint in another format, without the program that wrote it.
//
//   ember-convert model.pt model.ember             # PyTorch torch.save -> Ember checkpoint
//   ember-convert model.pt model.safetensors       # PyTorch -> plain safetensors
//   ember-convert ckpt.ember weights.safetensors   # Ember -> plain safetensors
//
// The input's kind is recognised by its content (io::load: Ember, safetensors or a PyTorch zip,
// whose pickle is read without executing anything). The output's kind follows its extension
// (".safetensors" is plain, anything else Ember) unless --format says. A plain safetensors file
// holds tensors only: every tensor goes in under its path ("model/fc.weight"), a tied one under
// each of its names, and the values that are not tensors are listed on stderr as left out.
// Exit status: 0 on success, 1 when the input cannot be read or the output written.
#include <CLI/CLI.hpp>

#include <iostream>
#include <string>

#include "ember/io/io.h"

int main(int argc, char** argv) {
  CLI::App app{"Converts a PyTorch .pt, Ember or safetensors file to an Ember checkpoint or a plain "
               "safetensors file."};
  std::string in, out, format = "auto";
  app.add_option("IN", in, "the file to read (.pt, Ember checkpoint or safetensors)")->required();
  app.add_option("OUT", out, "the file to write")->required();
  app.add_option("--format", format, "ember, safetensors, or auto (by OUT's extension)")
      ->check(CLI::IsMember({"auto", "ember", "safetensors"}));
  CLI11_PARSE(app, argc, argv);

  if (format == "auto") format = out.ends_with(".safetensors") ? "safetensors" : "ember";
  try {
    ember::io::Value value = ember::io::load(in);
    if (format == "ember") {
      ember::io::save(value, out);
      std::cout << "wrote Ember checkpoint " << out << " (" << ember::io::File::open(out).tensors().size()
                << " tensors)\n";
    } else {
      std::vector<std::string> dropped =
          ember::io::save_safetensors(value, out, {{"converted_from", in}});
      std::cout << "wrote safetensors file " << out << " ("
                << ember::io::File::open(out).tensors().size() << " tensors)\n";
      if (!dropped.empty()) {
        std::cerr << "left out " << dropped.size() << " value(s) that are not tensors:";
        for (const std::string& path : dropped) std::cerr << " '" << path << "'";
        std::cerr << '\n';
      }
    }
  } catch (const ember::Error& e) {
    std::cerr << "ember-convert: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
