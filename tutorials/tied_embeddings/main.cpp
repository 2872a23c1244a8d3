// A masked-language model whose output layer is tied to its input embedding, saved once and
// loaded into two other shapes of the same network:
//   1. a classifier body without the decoder: strict load, empty report;
//   2. a masked-language model whose decoder is NOT tied: strict load, empty report, the decoder
//      gets the embedding's values. (MXNet's Gluon stored a shared parameter under one name only,
//      so this load failed with the decoder weight "missing"; Ember's file stores the tensor once
//      and records every name it is reachable by.)
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <ember/ember.h>

using namespace ember;

namespace {

constexpr int64_t kVocab = 17;  // tokens 0..15, and 16 = [MASK]
constexpr int64_t kMask = 16;
constexpr int64_t kLen = 8, kDim = 32, kBatch = 64;

// Token embedding, learned positions and one Transformer encoder layer: what both heads share.
struct Body : nn::Module {
  Body() : nn::Module("Body") {
    tok = register_module("tok", std::make_shared<nn::Embedding>(kVocab, kDim));
    pos = register_module("pos", std::make_shared<nn::Embedding>(kLen, kDim));
    layer = register_module("layer", std::make_shared<nn::TransformerEncoderLayer>(nn::TransformerEncoderLayerOptions{
                                         .d_model = kDim, .nhead = 2, .dim_feedforward = 64, .dropout = 0.0,
                                         .batch_first = true}));
  }
  Tensor forward(const Tensor& tokens) override {  // [B, T] -> [B, T, D]
    return (*layer)((*tok)(tokens) + (*pos)(arange(kLen)));
  }
  std::shared_ptr<nn::Embedding> tok, pos;
  std::shared_ptr<nn::TransformerEncoderLayer> layer;
};

// Body -> decoder Linear(D, V): logits over the vocabulary at every position.
struct MaskedLM : nn::Module {
  explicit MaskedLM(bool tie) : nn::Module("MaskedLM") {
    body = register_module("body", std::make_shared<Body>());
    decoder = register_module("decoder", std::make_shared<nn::Linear>(kDim, kVocab));
    // NB: Linear's weight is [out, in] = [V, D], the embedding table's shape: one tensor serves both.
    if (tie) decoder->replace_parameter("weight", body->tok->parameter("weight"));
    // NB: N(0, 1) rows, right for an input table, make output logits of std ~sqrt(D); N(0, 0.02)
    // (BERT's choice) suits both ends of the tie.
    nn::init::normal_(body->tok->parameter("weight"), 0.0, 0.02);
    nn::init::normal_(body->pos->parameter("weight"), 0.0, 0.02);  // the same scale, or positions drown tokens
  }
  Tensor forward(const Tensor& tokens) override { return (*decoder)((*body)(tokens)); }
  std::shared_ptr<Body> body;
  std::shared_ptr<nn::Linear> decoder;
};

// Body -> mean over positions -> a new two-class head (not in the checkpoint).
struct Classifier : nn::Module {
  Classifier() : nn::Module("Classifier") {
    body = register_module("body", std::make_shared<Body>());
    head = register_module("head", std::make_shared<nn::Linear>(kDim, 2));
  }
  Tensor forward(const Tensor& tokens) override { return (*head)((*body)(tokens).mean({1})); }
  std::shared_ptr<Body> body;
  std::shared_ptr<nn::Linear> head;
};

// Each sequence repeats one token, with two positions replaced by random noise tokens and one other
// position by [MASK]; the target is the repeated token there and -100 (ignored) elsewhere.
struct Batch {
  Tensor inputs, targets;
};
Batch make_batch(std::mt19937& rng) {
  std::vector<int64_t> in(kBatch * kLen), tgt(kBatch * kLen, -100);
  for (int64_t b = 0; b < kBatch; ++b) {
    const int64_t token = rng() % 16, hidden = rng() % kLen;
    for (int64_t t = 0; t < kLen; ++t) in[b * kLen + t] = token;
    for (int noise = 0; noise < 2; ++noise) in[b * kLen + (hidden + 1 + rng() % (kLen - 1)) % kLen] = rng() % 16;
    tgt[b * kLen + hidden] = token;
    in[b * kLen + hidden] = kMask;
  }
  return {tensor(in, {kBatch, kLen}), tensor(tgt, {kBatch * kLen})};
}

double masked_accuracy(MaskedLM& model, const Batch& batch) {
  NoGradGuard no_grad;
  Tensor pred = model(batch.inputs).reshape({kBatch * kLen, kVocab}).argmax(1);
  Tensor scored = batch.targets.ne(-100);
  return pred.eq(batch.targets).to(kFloat32).sum().item<double>() / scored.to(kFloat32).sum().item<double>();
}

void print_report(const char* what, const nn::LoadResult& r) {
  std::printf("%s: %s\n", what, r.ok() ? "clean (no missing, unexpected or mismatched keys)" : r.str().c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : "tied_mlm.ember";
  manual_seed(0);
  std::mt19937 rng(0);

  // ---- 1. train the tied model a few steps
  MaskedLM mlm(/*tie=*/true);
  std::printf("tied: decoder.weight is body.tok.weight: %s\n",
              mlm.decoder->weight().is_same(mlm.body->tok->weight()) ? "yes" : "no");
  optim::Adam adam(mlm.named_parameters(), {.lr = 1e-2});
  Batch eval_batch = make_batch(rng);
  const double acc_before = masked_accuracy(mlm, eval_batch);
  double first = 0, last = 0;
  for (int step = 0; step < 100; ++step) {
    Batch b = make_batch(rng);
    Tensor logits = mlm(b.inputs).reshape({kBatch * kLen, kVocab});
    Tensor loss = nn::functional::cross_entropy(logits, b.targets);
    adam.zero_grad();
    loss.backward();
    adam.step();
    last = loss.item<double>();
    if (step == 0) first = last;
    if (step % 50 == 0) std::printf("step %3d  loss %.4f\n", step, last);
  }
  const double acc_after = masked_accuracy(mlm, eval_batch);
  std::printf("masked-token accuracy %.2f -> %.2f (loss %.3f -> %.3f)\n", acc_before, acc_after, first, last);

  // ---- 2. save: the tied tensor is stored once, under both names
  io::save(io::Value::dict({{"model", io::to_value(mlm)}, {"step", 100}}), path);
  int64_t tied_entries = 0;
  io::File file = io::File::open(path);  // the header only: which tensors, under which names
  for (const io::TensorInfo& info : file.tensors()) {
    if (info.names.size() < 2) continue;
    ++tied_entries;
    std::printf("stored once: %s, shape %s, reachable as", info.key.c_str(), shape_str(info.shape).c_str());
    for (const std::string& n : info.names) std::printf(" %s", n.c_str());
    std::printf("\n");
  }
  io::Value state = io::load(path).at("model");

  // ---- 3. a classifier without the decoder: keep the body.* keys, load the body strictly
  Classifier clf;
  io::KeyMap body_only = [](const std::string& key) -> std::optional<std::string> {
    if (key.starts_with("body.")) return key.substr(5);
    return std::nullopt;  // decoder.weight (an alias of body.tok.weight) and decoder.bias
  };
  nn::LoadResult to_clf = io::load_into(*clf.body, state, /*strict=*/true, body_only);
  print_report("classifier body (strict)", to_clf);
  Tensor clf_logits = clf(eval_batch.inputs);
  std::printf("classifier logits shape %s\n", shape_str(clf_logits.shape()).c_str());

  // ---- 4. the same network with an untied decoder: both names are in the file, so it loads
  MaskedLM untied(/*tie=*/false);
  nn::LoadResult to_untied = io::load_into(untied, state, /*strict=*/true);
  print_report("untied masked LM (strict)", to_untied);
  const bool separate = !untied.decoder->weight().is_same(untied.body->tok->weight());
  const bool equal =
      (untied.decoder->weight() - untied.body->tok->weight()).abs().max().item<double>() == 0.0;
  std::printf("untied: decoder.weight is a separate tensor: %s, equal to body.tok.weight: %s\n",
              separate ? "yes" : "no", equal ? "yes" : "no");
  std::printf("untied masked-token accuracy %.2f (tied model: %.2f)\n", masked_accuracy(untied, eval_batch),
              acc_after);

  const bool ok = acc_after > acc_before + 0.2 && tied_entries == 1 && to_clf.ok() && to_untied.ok() &&
                  separate && equal && masked_accuracy(untied, eval_batch) == acc_after;
  std::printf("%s\n", ok ? "tutorial OK" : "tutorial FAILED");
  return ok ? 0 : 1;
}
