#!/bin/sh
# The tutorial's ctest checks, on the first 600 training and test images:
#   run_test.sh short  <fashion_mnist> <scratch dir>: 2 epochs train and reach > 60% test accuracy.
#   run_test.sh resume <fashion_mnist> <scratch dir>: a run stopped at step 27 (epoch 2, batch 8
#     of 19) and resumed ends exactly as the uninterrupted run does (same step, loss, accuracy and
#     mean loss of each epoch, from the run state it keeps through cereal).
#   run_test.sh ddp <fashion_mnist> <scratch dir> <ember-run>: the short CNN run under
#     `ember-run --nproc 2` (each rank trains on half of every global batch) reaches the one-process
#     run's test accuracy within 0.5 points, and its checkpoint resumes in one process.
#   run_test.sh cuda   <fashion_mnist> <scratch dir>: --device cuda trains the short run on a GPU to
#     > 60% as well; on a machine without one, the program must stop at once with the clear
#     "no CUDA device" error (a failure instead when EMBER_REQUIRE_CUDA=1).
# Exits 77 (skipped) when the data set is not installed (scripts/install_deps.sh data).
set -eu
mode=$1 bin=$2 dir=$3 launcher=${4:-}
root=/usr/share/datasets/fashion-mnist
if [ ! -e "$root/train-images-idx3-ubyte.gz" ]; then
  echo "SKIP: Fashion-MNIST is not installed ($root); run scripts/install_deps.sh data"
  exit 77
fi
rm -rf "$dir" && mkdir -p "$dir"
common="--limit 600 --epochs 2 --batch-size 32 --checkpoint-every 7"
case $mode in
  short)
    "$bin" $common --run-dir "$dir/run" | tee "$dir/log"
    acc=$(sed -n 's/^test accuracy: \([0-9]*\)\..*/\1/p' "$dir/log")
    [ -n "$acc" ] && [ "$acc" -gt 60 ] || { echo "FAIL: test accuracy '$acc'% is not above 60%"; exit 1; }
    ;;
  resume)
    "$bin" $common --run-dir "$dir/whole" > "$dir/whole.log"
    "$bin" $common --run-dir "$dir/split" --stop-after 27 | tee "$dir/first.log"
    grep -q "^stopped at step 27" "$dir/first.log" || { echo "FAIL: the first part did not stop at step 27"; exit 1; }
    "$bin" $common --run-dir "$dir/split" --resume | tee "$dir/second.log"
    grep -q "^resumed from step 27 (epoch 2, batch 8 of 19)" "$dir/second.log" ||
      { echo "FAIL: the second part did not resume from step 27"; exit 1; }
    whole=$(grep -E '^(test accuracy|mean training loss|done: step)' "$dir/whole.log" | sed 's/, checkpoints in .*//')
    split=$(grep -E '^(test accuracy|mean training loss|done: step)' "$dir/second.log" | sed 's/, checkpoints in .*//')
    echo "uninterrupted: $whole"
    echo "resumed:       $split"
    [ "$whole" = "$split" ] || { echo "FAIL: the resumed run ends differently"; exit 1; }
    ;;
  ddp)
    "$bin" $common --model cnn --run-dir "$dir/one" > "$dir/one.log"
    "$launcher" --nproc 2 "$bin" $common --model cnn --run-dir "$dir/two" | tee "$dir/two.log"
    one=$(sed -n 's/^test accuracy: \([0-9.]*\)%.*/\1/p' "$dir/one.log")
    two=$(sed -n 's/^\[rank0\]: test accuracy: \([0-9.]*\)%.*/\1/p' "$dir/two.log")
    echo "one process: $one%, two ranks: $two%"
    [ -n "$one" ] && [ -n "$two" ] || { echo "FAIL: a run printed no test accuracy"; exit 1; }
    awk -v a="$one" -v b="$two" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.5) }' ||
      { echo "FAIL: two ranks reach $two%, one process $one% (more than 0.5 points apart)"; exit 1; }
    # The two ranks' checkpoint is a one-process checkpoint: one more epoch resumes from it.
    "$bin" $(echo "$common" | sed 's/--epochs 2/--epochs 3/') --model cnn --run-dir "$dir/two" --resume |
      tee "$dir/more.log"
    grep -q "^resumed from step 38 (epoch 2, batch 19 of 19)" "$dir/more.log" ||
      { echo "FAIL: one process did not resume the two ranks' run"; exit 1; }
    ;;
  cuda)
    status=0
    "$bin" $common --run-dir "$dir/gpu" --model cnn --device cuda > "$dir/log" 2>&1 || status=$?
    cat "$dir/log"
    if [ "$status" -ne 0 ]; then
      grep -q "^fashion_mnist: no CUDA device: --device on cuda:0: " "$dir/log" ||
        { echo "FAIL: --device cuda failed without saying that there is no CUDA device"; exit 1; }
      [ "${EMBER_REQUIRE_CUDA:-0}" != 1 ] || { echo "FAIL: EMBER_REQUIRE_CUDA=1 and no CUDA device"; exit 1; }
      echo "no CUDA device here: the error above is the expected one"
      exit 0
    fi
    acc=$(sed -n 's/^test accuracy: \([0-9]*\)\..*/\1/p' "$dir/log")
    [ -n "$acc" ] && [ "$acc" -gt 60 ] || { echo "FAIL: test accuracy on the GPU '$acc'% is not above 60%"; exit 1; }
    ;;
  *) echo "run_test.sh: unknown mode '$mode'"; exit 2 ;;
esac
