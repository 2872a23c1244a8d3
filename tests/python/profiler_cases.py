"""The scheduled profiles of test_profiler.py, run the same way on torch.profiler (for the fixture,
tests/fixtures/make_profiler_fixtures.py) and on ember.profiler.

Each case is a schedule's arguments and a number of steps. run() gives the action of every step
(schedule(step).name) and, for each time on_trace_ready ran, how many step ranges (ProfilerStep#N)
its trace holds and which steps' ops are in it."""

CASES = {
    "wait1_warm1_active2": dict(schedule=dict(wait=1, warmup=1, active=2), steps=12),
    "repeat2": dict(schedule=dict(wait=1, warmup=1, active=2, repeat=2), steps=14),
    "skip_first3": dict(schedule=dict(wait=0, warmup=1, active=1, repeat=3, skip_first=3), steps=12),
    "no_wait_active3": dict(schedule=dict(wait=0, warmup=2, active=3, repeat=1), steps=8),
    "stop_mid_cycle": dict(schedule=dict(wait=1, warmup=1, active=4, repeat=1), steps=4),
}


def run(lib, case):
    profiler = lib.profiler
    sched = profiler.schedule(**case["schedule"])
    actions = [sched(k).name for k in range(case["steps"] + 4)]
    traces = []

    def ready(prof):
        steps = sum(1 for e in prof.events() if e.name.startswith("ProfilerStep"))
        # One op per step, a neg of a tensor of the step's size: which steps' ops the trace holds.
        sizes = sorted({e.input_shapes[0][0] for e in prof.events() if e.name.endswith("neg")})
        traces.append({"step_ranges": steps, "op_sizes": sizes})

    with profiler.profile(activities=[profiler.ProfilerActivity.CPU], schedule=sched, on_trace_ready=ready,
                          record_shapes=True) as prof:
        for k in range(case["steps"]):
            lib.neg(lib.ones(k + 1))
            prof.step()
    return {"actions": actions, "traces": traces}
