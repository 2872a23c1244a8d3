// A character-level LSTM language model trained from C++ the way a long run is: a step-counted
// loop over a DataLoader, the whole run (model, Adam, the data order, the dropout generator, the
// step, the vocabulary) checkpointed as one io::TrainingState by a CheckpointManager, and
//   1. an exact resume: a run stopped at step 80 and restored into freshly built objects ends at
//      step 120 with the same parameters, bit for bit, as a run that never stopped;
//   2. incremental training: the model grows a second LSTM layer, keeps what the first learned
//      (loaded by name, non-strictly), carries Adam's moments over by name, and trains on.
#include <ember/ember.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

using namespace ember;

namespace {

constexpr int64_t kSeq = 32, kBatch = 16, kEmbed = 24, kHidden = 64;

// The corpus: short sentences from a tiny grammar, the same every run.
std::string corpus() {
  const char* subjects[] = {"the cat", "a dog", "the old man", "my sister", "the bird", "a child"};
  const char* verbs[] = {"sees", "likes", "follows", "finds", "hears", "paints"};
  const char* objects[] = {"the ball", "a tree", "the river", "the red house", "a small boat", "the moon"};
  std::string text;
  uint32_t r = 12345;
  auto pick = [&](int n) {
    r = r * 1664525u + 1013904223u;
    return static_cast<int>((r >> 16) % static_cast<uint32_t>(n));
  };
  for (int i = 0; i < 300; ++i)
    text += std::string(subjects[pick(6)]) + " " + verbs[pick(6)] + " " + objects[pick(6)] + ". ";
  return text;
}

struct CharLM : nn::Module {
  CharLM(int64_t vocab, int64_t layers) : nn::Module("CharLM") {
    embed = register_module("embed", std::make_shared<nn::Embedding>(vocab, kEmbed));
    drop = register_module("drop", std::make_shared<nn::Dropout>(0.1));
    lstm = register_module(
        "lstm", std::make_shared<nn::LSTM>(nn::RNNOptions{
                    .input_size = kEmbed, .hidden_size = kHidden, .num_layers = layers, .batch_first = true}));
    head = register_module("head", std::make_shared<nn::Linear>(kHidden, vocab));
  }
  // [B, T] character ids -> [B, T, vocab] logits. NB: an LSTM called with one argument returns its
  // output sequence alone, from zero states; lstm->forward(x, h0, c0) also gives (h_n, c_n).
  Tensor forward(const Tensor& ids) override { return (*head)((*lstm)((*drop)((*embed)(ids)))); }
  std::shared_ptr<nn::Embedding> embed;
  std::shared_ptr<nn::Dropout> drop;
  std::shared_ptr<nn::LSTM> lstm;
  std::shared_ptr<nn::Linear> head;
};

// The text as windows of kSeq characters and, for each, the window one character later.
data::DataLoader make_loader(const std::string& text, const std::string& vocab) {
  std::vector<int64_t> ids;
  for (char c : text) ids.push_back(static_cast<int64_t>(vocab.find(c)));
  const int64_t n = (static_cast<int64_t>(ids.size()) - 1) / kSeq;
  Tensor all = tensor(ids);
  Tensor inputs = all.narrow(0, 0, n * kSeq).reshape({n, kSeq});
  Tensor targets = all.narrow(0, 1, n * kSeq).reshape({n, kSeq});
  return data::DataLoader(inputs, targets, {.batch_size = kBatch, .shuffle = true, .drop_last = true, .seed = 7});
}

// One run's objects, built fresh as a new process would build them.
struct Run {
  Run(const std::string& vocab, const std::string& text, int64_t layers)
      : vocab_size(static_cast<int64_t>(vocab.size())),
        model(vocab_size, layers),
        adam(model.named_parameters(), {.lr = 3e-3}),
        loader(make_loader(text, vocab)) {
    state.model = &model;
    state.optimizer = &adam;
    state.loaders["train"] = &loader;
    state.extras = io::Value::dict({{"vocab", vocab}});
  }
  int64_t vocab_size;
  CharLM model;
  optim::Adam adam;
  data::DataLoader loader;
  io::TrainingState state;

  // Trains to step `last`, checkpointing every 40 steps; the mean loss of the last 10 steps.
  double train_to(int64_t last, io::CheckpointManager& manager) {
    const int64_t vocab = vocab_size;
    double recent = 0;
    while (state.step < last) {
      data::DataLoader::Batch b = loader.next_batch();
      Tensor loss = nn::functional::cross_entropy(model(b.inputs).reshape({-1, vocab}), b.targets.reshape({-1}));
      adam.zero_grad();
      loss.backward();
      optim::clip_grad_norm_(model.parameters(), 1.0);
      adam.step();
      ++state.step;
      if (last - state.step < 10) recent += loss.item<double>() / 10;
      if (state.step % 40 == 0) manager.save(state.to_value(), state.step);
    }
    return recent;
  }

  // Greedy continuation of `prompt`, one character at a time.
  std::string sample(const std::string& vocab, std::string text, int chars) {
    NoGradGuard no_grad;
    model.eval();
    for (int i = 0; i < chars; ++i) {
      std::vector<int64_t> ids;
      for (char c : text) ids.push_back(static_cast<int64_t>(vocab.find(c)));
      Tensor logits = model(tensor(ids).reshape({1, -1}));
      text += vocab[static_cast<size_t>(logits.select(1, -1).argmax(-1).item<int64_t>())];
    }
    model.train();
    return text;
  }
};

bool same_parameters(const nn::Module& a, const nn::Module& b) {
  auto pa = a.named_parameters(), pb = b.named_parameters();
  if (pa.size() != pb.size()) return false;
  for (size_t i = 0; i < pa.size(); ++i)
    if (pa[i].first != pb[i].first || !equal(pa[i].second, pb[i].second)) return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "char_lstm_runs";
  // The demonstration starts from nothing: its own run folders are emptied (a restore would
  // otherwise find the checkpoints of an earlier run of this program).
  for (const char* run : {"straight", "resumed", "grown"}) std::filesystem::remove_all(dir + "/" + run);
  const std::string text = corpus();
  std::string vocab;
  for (char c : text)
    if (vocab.find(c) == std::string::npos) vocab += c;
  std::printf("corpus: %zu characters, vocabulary of %zu\n", text.size(), vocab.size());

  // ---- an uninterrupted run of 120 steps
  manual_seed(0);
  Run straight(vocab, text, 1);
  io::CheckpointManager straight_ckpts(dir + "/straight", 3);
  const double loss_1layer = straight.train_to(120, straight_ckpts);
  std::printf("uninterrupted: step 120, loss %.3f\n", loss_1layer);

  // ---- the same run stopped at step 80, then restored into fresh objects and run to 120
  io::CheckpointManager ckpts(dir + "/resumed", 3);
  {
    manual_seed(0);
    Run first(vocab, text, 1);
    first.train_to(80, ckpts);
  }                 // the process "dies" here
  manual_seed(99);  // a different start: everything that matters comes from the checkpoint
  Run resumed(vocab, text, 1);
  std::optional<io::CheckpointManager::Restored> ckpt = ckpts.restore();
  resumed.state.load(ckpt->state);
  std::printf("restored step %lld from %s\n", static_cast<long long>(resumed.state.step), ckpt->path.c_str());
  resumed.train_to(120, ckpts);
  const bool exact = same_parameters(straight.model, resumed.model);
  std::printf("resumed run equals the uninterrupted one bit for bit: %s\n", exact ? "yes" : "NO");

  // ---- grow a second LSTM layer and train on from the newest checkpoint
  io::Value latest = ckpts.restore()->state;
  const std::string saved_vocab = latest.at("extras").at("vocab").as_string();
  Run grown(saved_vocab, text, 2);
  nn::LoadResult model_report = io::load_into(grown.model, latest.at("model"), /*strict=*/false);
  optim::OptimizerLoadReport opt_report = io::load_into(grown.adam, latest.at("optimizer"));
  std::printf("grown model, load report:\n%s\n", model_report.str().c_str());
  std::printf("optimizer: %zu parameters start fresh\n", opt_report.missing.size());
  const bool kept =
      equal(grown.model.lstm->named_parameters()[0].second, resumed.model.lstm->named_parameters()[0].second);
  grown.state.step = latest.at("step").as_int();
  io::CheckpointManager grown_ckpts(dir + "/grown", 3);  // another architecture: a folder of its own
  const double loss_2layer = grown.train_to(240, grown_ckpts);
  std::printf("two layers: step 240, loss %.3f (one layer ended at %.3f)\n", loss_2layer, loss_1layer);
  std::printf("sample: \"%s\"\n", grown.sample(saved_vocab, "the cat ", 40).c_str());

  const bool ok = exact && kept && model_report.missing_keys.size() == 4 && model_report.unexpected_keys.empty() &&
                  opt_report.missing.size() == 4 && loss_2layer < loss_1layer && loss_1layer < 1.5;
  std::printf("%s\n", ok ? "tutorial OK" : "tutorial FAILED");
  return ok ? 0 : 1;
}
