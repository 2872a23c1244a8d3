"""ember.profiler through its public API, as a PyTorch user profiles: profile with record_function,
key_averages().table(), argument sizes, memory, backward nodes, a Chrome trace (read back as JSON),
the schedule's steps against torch.profiler's (fixture), the TensorBoard handler and the older
ember.autograd.profiler.profile."""
import gzip
import json
import os
import re
import sys
import threading

import pytest

import ember
import ember.nn as nn
from ember.profiler import ProfilerAction, ProfilerActivity, profile, record_function, schedule

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from profiler_cases import CASES, run  # noqa: E402

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "profiler_schedule.json")
CPU = [ProfilerActivity.CPU]


def by_key(averages):
    return {a.key: a for a in averages}


def test_a_model_inference_range_holds_the_models_ops():
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    x = ember.randn(5, 8)
    with profile(activities=CPU) as prof:
        with record_function("model_inference"):
            model(x)
    events = prof.events()
    top = [e for e in events if e.name == "model_inference"]
    assert len(top) == 1 and not top[0].is_op and top[0].depth == 0
    inside = [e for e in events if e.depth == 1]
    assert inside and all(top[0].start_us <= e.start_us and e.end_us <= top[0].end_us for e in inside)
    assert {e.depth for e in events} == {0, 1}  # ops are outermost calls: nothing under an op
    avg = by_key(prof.key_averages())
    linear = [k for k in avg if "linear" in k]
    assert linear and sum(avg[k].count for k in linear) == 2, sorted(avg)
    assert avg["relu"].count == 1
    r = avg["model_inference"]
    assert r.count == 1
    assert r.self_cpu_time_total == pytest.approx(r.cpu_time_total - sum(e.cpu_time_total for e in inside), abs=1e-3)
    assert prof.key_averages().self_cpu_time_total == pytest.approx(r.cpu_time_total, rel=1e-6)


def test_table_has_pytorchs_columns_sorted_and_limited():
    x = ember.ones(4, 4)
    with profile(activities=CPU) as prof:
        for _ in range(3):
            ember.neg(x)
        ember.matmul(x, x)
    text = prof.key_averages().table(sort_by="count", row_limit=1)
    lines = text.splitlines()
    header = lines[1].split()
    assert header[:2] == ["Name", "Self"] and "#" in header and "Calls" in header
    for column in ("Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"):
        assert column in lines[1]
    rows = [line for line in lines[3:] if line and not line.startswith("-") and "total:" not in line]
    assert len(rows) == 1 and rows[0].split()[0] == "neg" and rows[0].split()[-1] == "3"
    assert re.search(r"Self CPU time total: \d+\.\d{3}(us|ms|s)", text)
    assert "CPU Mem" not in text and "CUDA" not in text
    sorted_rows = prof.key_averages().table(sort_by="self_cpu_time_total")
    assert "matmul" in sorted_rows and "neg" in sorted_rows
    with pytest.raises(ValueError, match=r"'cpu_time_totl'.*cpu_time_total"):
        prof.key_averages().table(sort_by="cpu_time_totl")


def test_shapes_group_and_show():
    with profile(activities=CPU, record_shapes=True) as prof:
        ember.matmul(ember.ones(2, 3), ember.ones(3, 4))
        ember.matmul(ember.ones(2, 3), ember.ones(3, 4))
        ember.matmul(ember.ones(5, 3), ember.ones(3, 1))
    mm = [e for e in prof.events() if e.name == "matmul"]
    assert [e.input_shapes for e in mm] == [[[2, 3], [3, 4]], [[2, 3], [3, 4]], [[5, 3], [3, 1]]]
    grouped = [a for a in prof.key_averages(group_by_input_shape=True) if a.key == "matmul"]
    assert [(a.input_shapes, a.count) for a in grouped] == [([[2, 3], [3, 4]], 2), ([[5, 3], [3, 1]], 1)]
    text = prof.key_averages(group_by_input_shape=True).table()
    assert "Input Shapes" in text and "[[2, 3], [3, 4]]" in text
    with profile(activities=CPU) as plain:
        ember.matmul(ember.ones(2, 3), ember.ones(3, 4))
    assert [e.input_shapes for e in plain.events() if e.name == "matmul"] == [[]]


def test_memory_is_what_an_op_leaves_allocated():
    a, b = ember.ones(1000), ember.ones(1000)
    with profile(activities=CPU, profile_memory=True) as prof:
        with record_function("block"):
            kept = a + b  # 4000 bytes that outlive the range
            (a + b) * (a + b)
    assert kept.shape == (1000,)
    avg = by_key(prof.key_averages())
    assert avg["add"].cpu_memory_usage == 3 * 4000 and avg["add"].self_cpu_memory_usage == 3 * 4000
    assert avg["block"].cpu_memory_usage == 4000
    assert avg["block"].self_cpu_memory_usage == -12000  # the two temporaries and the product it freed
    text = prof.key_averages().table(sort_by="cpu_memory_usage")
    assert "CPU Mem" in text and "Self CPU Mem" in text and "11.72 Kb" in text and "-11.72 Kb" in text


def test_backward_nodes_are_ranges_around_their_ops():
    x = ember.randn(4, 4, requires_grad=True)
    with profile(activities=CPU) as prof:
        (x * x).sum().backward()
    events = prof.events()
    nodes = [e for e in events if not e.is_op and "Backward" in e.name]
    # Ember's node names (grad_fn.name()): PyTorch's without the trailing version number.
    assert {"MulBackward", "SumBackward"} <= {e.name for e in nodes}, [e.name for e in events]
    mul = next(e for e in nodes if e.name == "MulBackward")
    assert any(e.is_op and e.depth == mul.depth + 1 and mul.start_us <= e.start_us <= e.end_us <= mul.end_us
               for e in events)


def test_chrome_trace_opens_as_json_with_nested_complete_events(tmp_path):
    with profile(activities=CPU, record_shapes=True) as prof:
        with record_function("outer"):
            ember.matmul(ember.ones(2, 3), ember.ones(3, 1))
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    doc = json.loads(path.read_text())
    spans = {e["name"]: e for e in doc["traceEvents"] if e["ph"] == "X"}
    outer, mm = spans["outer"], spans["matmul"]
    assert outer["cat"] == "user_annotation" and mm["cat"] == "cpu_op"
    assert mm["args"]["Input Dims"] == [[2, 3], [3, 1]]
    assert outer["ts"] <= mm["ts"] and mm["ts"] + mm["dur"] <= outer["ts"] + outer["dur"] + 1e-3
    assert outer["pid"] == os.getpid() and outer["tid"] == mm["tid"]
    gz = tmp_path / "trace.json.gz"
    prof.export_chrome_trace(str(gz))
    with gzip.open(gz, "rt") as f:
        assert json.load(f)["traceEvents"] == doc["traceEvents"]
    assert not list(tmp_path.glob("*.partial"))
    with pytest.raises(FileNotFoundError, match="no-such-dir"):
        prof.export_chrome_trace(str(tmp_path / "no-such-dir" / "t.json"))


def test_schedule_actions_match_torch():
    with open(FIXTURE) as f:
        expected = json.load(f)
    for name, case in CASES.items():
        sched = schedule(**case["schedule"])
        got = [sched(k).name for k in range(case["steps"] + 4)]
        assert got == expected[name]["actions"], name


def test_scheduled_traces_hold_the_steps_torchs_do():
    with open(FIXTURE) as f:
        expected = json.load(f)
    for name, case in CASES.items():
        with pytest.warns(UserWarning) if case["schedule"]["warmup"] == 0 else _nothing():
            got = run(ember, case)
        assert got["traces"] == expected[name]["traces"], name


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_scheduled_steps_add_up_as_profiler_step_star():
    with profile(activities=CPU, schedule=schedule(wait=0, warmup=1, active=2, repeat=1)) as prof:
        for _ in range(4):
            ember.neg(ember.ones(3))
            prof.step()
    avg = by_key(prof.key_averages())
    assert avg["ProfilerStep*"].count == 2 and avg["neg"].count == 2
    assert sorted(e.name for e in prof.events() if e.name.startswith("ProfilerStep")) == \
        ["ProfilerStep#1", "ProfilerStep#2"]


def test_schedule_rejects_bad_arguments():
    with pytest.raises(ValueError, match="active=0"):
        schedule(wait=1, warmup=1, active=0)
    assert schedule(wait=0, warmup=1, active=1)(0) == ProfilerAction.WARMUP


def test_tensorboard_trace_handler_writes_a_trace_per_cycle(tmp_path):
    handler = ember.profiler.tensorboard_trace_handler(str(tmp_path / "log"), worker_name="w0")
    with profile(activities=CPU, schedule=schedule(wait=0, warmup=1, active=1, repeat=2),
                 on_trace_ready=handler) as prof:
        for _ in range(6):
            ember.neg(ember.ones(2))
            prof.step()
    files = sorted((tmp_path / "log").iterdir())
    assert len(files) == 2 and all(re.fullmatch(r"w0\.\d+\.pt\.trace\.json", f.name) for f in files)
    for f in files:
        assert any(e["name"] == "neg" for e in json.loads(f.read_text())["traceEvents"])


def test_only_the_profiling_thread_is_watched():
    seen = []

    def other():
        ember.exp(ember.ones(3))
        seen.append(True)

    with profile(activities=CPU) as prof:
        ember.neg(ember.ones(3))
        t = threading.Thread(target=other)
        t.start()
        t.join()
    names = {e.name for e in prof.events()}
    assert seen and "neg" in names and "exp" not in names


def test_an_exception_inside_leaves_nothing_installed():
    x = ember.ones(1)
    with pytest.raises(RuntimeError, match="boom"):
        with profile(activities=CPU) as prof:
            with record_function("failing"):
                ember.neg(x)
                raise RuntimeError("boom")
    assert [e.name for e in prof.events()] == ["failing", "neg"]
    with profile(activities=CPU) as again:
        ember.exp(x)
    assert [e.name for e in again.events()] == ["exp"]


def test_record_function_as_a_decorator_and_outside_a_profile():
    @record_function("helper")
    def helper(t):
        return t * 2

    helper(ember.ones(2))  # nothing runs: no profile
    with profile(activities=CPU) as prof:
        helper(ember.ones(2))
        helper(ember.ones(2))
    assert by_key(prof.key_averages())["helper"].count == 2


def test_an_op_that_fails_is_closed():
    a = ember.ones(2, 3)
    with profile(activities=CPU) as prof:
        with pytest.raises(ValueError, match="cannot multiply"):
            ember.matmul(a, a)
        ember.neg(a)
    assert [(e.name, e.depth) for e in prof.events()] == [("matmul", 0), ("neg", 0)]


def test_nothing_before_a_recorded_step_is_an_error():
    prof = profile(activities=CPU, schedule=schedule(wait=5, warmup=1, active=1))
    with prof:
        ember.neg(ember.ones(1))
    with pytest.raises(RuntimeError, match="nothing was recorded"):
        prof.key_averages()


def test_unsupported_options_warn_and_activities_are_checked():
    with pytest.warns(UserWarning, match="with_stack"):
        profile(activities=CPU, with_stack=True)
    with pytest.raises(TypeError, match="ProfilerActivity"):
        profile(activities=["cpu"])
    assert ProfilerActivity.CPU in ember.profiler.supported_activities()


def test_the_older_autograd_profiler():
    x = ember.ones(3, requires_grad=True)
    with ember.autograd.profiler.profile(record_shapes=True) as prof:
        (x * 2).sum().backward()
    assert "mul" in {a.key for a in prof.key_averages()}
    assert "Self CPU time total" in prof.table(sort_by="cpu_time_total")
    assert prof.self_cpu_time_total > 0
    with ember.autograd.profiler.profile(enabled=False) as off:
        ember.neg(x)
    assert len(off.function_events) == 0


def test_optimizer_calls_are_ranges_named_as_pytorchs():
    model = nn.Linear(3, 2)
    opt = ember.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = ember.randn(4, 3)
    with profile(activities=CPU) as prof:
        for _ in range(2):
            opt.zero_grad()
            model(x).sum().backward()
            opt.step()
    avg = by_key(prof.key_averages())
    assert avg["Optimizer.step#SGD.step"].count == 2
    assert avg["Optimizer.zero_grad#SGD.zero_grad"].count == 2
