// Editing a checkpoint: read one tensor without the rest, change it, write the checkpoint back
// atomically, and check what the file holds. See README.md.
//   edit_checkpoint [ckpt.ember]
#include <cstdio>
#include <string>

#include <ember/ember.h>

using namespace ember;

int main(int argc, char** argv) {
  std::string path = argc > 1 ? argv[1] : "classifier.ember";
  manual_seed(0);

  // A checkpoint to edit: a small classifier and the epoch it reached.
  nn::Sequential model({std::make_shared<nn::Linear>(4, 8), std::make_shared<nn::ReLU>(),
                        std::make_shared<nn::Linear>(8, 3)});
  io::save(io::Value::dict({{"model", io::to_value(model)}, {"epoch", 7}}), path);

  // 1. One tensor, by name: the file is mapped and only that tensor's bytes are read (and their
  //    checksum verified).
  Tensor bias = io::load_tensor(path, "model/2.bias");
  std::printf("read model/2.bias: %s\n", bias.str().c_str());

  // 2. Change it: silence class 2 by giving it a very negative bias. Loaded tensors share the
  //    file's pages copy-on-write, so this edits memory, never the file.
  Tensor edited = bias.clone();
  {
    NoGradGuard no_grad;
    edited.narrow(0, 2, 1).fill_(-100.0);
  }

  // 3. Write it back: load the tree, replace the entry (keeping its kind), save. The save is
  //    atomic: a crash now leaves the old file whole.
  io::Value ckpt = io::load(path);
  io::Value& entry = ckpt.at("model").at("2.bias");
  entry = io::Value(edited, entry.tensor_kind(), entry.persistent());
  io::save(ckpt, path);

  // 4. Check: the new value is there, everything else is unchanged, the checksums verify.
  Tensor back = io::load_tensor(path, "model/2.bias");
  std::printf("now   model/2.bias: %s\n", back.str().c_str());
  io::File file = io::File::open(path);
  bool all_ok = true;
  for (const io::TensorInfo& info : file.tensors()) all_ok = all_ok && file.verify(info.key);
  io::load_into(model, io::load(path).at("model"));
  Tensor x = randn({16, 4});
  Tensor predicted = model.forward(x).argmax(1);
  bool never_two = predicted.eq(2).sum().item<int64_t>() == 0;
  std::printf("epoch kept: %lld; checksums %s; class 2 predicted for %s of 16 inputs\n",
              static_cast<long long>(io::load(path).at("epoch").as_int()), all_ok ? "ok" : "BAD",
              never_two ? "none" : "some");
  bool others_kept = back.narrow(0, 0, 2).eq(bias.narrow(0, 0, 2)).sum().item<int64_t>() == 2;
  bool ok = all_ok && never_two && others_kept && back.select(0, 2).item<double>() == -100.0;
  std::printf("tutorial %s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
