"""python -m ember.distributed.run --nproc N script.py args: starts N ranks of a Python program
(torchrun's role; `ember-run` is the same launcher for any program). Each rank runs
`python script.py args` with RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT set; output
lines come prefixed "[rank<r>]: "; a failing rank stops the others; --max-restarts K starts the
whole job again up to K times (the script resumes from its newest complete checkpoint)."""
from __future__ import annotations

import argparse
import sys
from typing import List, Optional

from .. import _C


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python -m ember.distributed.run", description=__doc__)
    p.add_argument("--nproc", "--nproc-per-node", "--nproc_per_node", dest="nproc", type=int, required=True,
                   help="how many ranks to start")
    p.add_argument("--max-restarts", "--max_restarts", dest="max_restarts", type=int, default=0)
    p.add_argument("--master-addr", "--master_addr", dest="master_addr", default="127.0.0.1")
    p.add_argument("--master-port", "--master_port", dest="master_port", type=int, default=0)
    p.add_argument("--grace", type=float, default=5.0, help="seconds from SIGTERM to SIGKILL")
    p.add_argument("--no-python", "--no_python", dest="no_python", action="store_true",
                   help="run the program itself instead of `python program`")
    p.add_argument("--no-prefix", dest="no_prefix", action="store_true")
    p.add_argument("program")
    p.add_argument("args", nargs=argparse.REMAINDER)
    a = p.parse_args(argv)
    command = [a.program, *a.args] if a.no_python else [sys.executable, "-u", a.program, *a.args]
    return _C.distributed.launch(a.nproc, command, a.max_restarts, a.master_addr, a.master_port,
                                 a.grace, not a.no_prefix)


if __name__ == "__main__":
    sys.exit(main())
