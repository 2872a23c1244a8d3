"""python -m ember.distributed.run --nproc N script.py args: starts N ranks of a Python program
(torchrun's role; `ember-run` is the same launcher for any program). Each rank runs
`python script.py args` with RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK,
MASTER_ADDR, MASTER_PORT set; output lines come prefixed "[rank<r>]: "; a failing rank stops the
others; --max-restarts K starts the whole job again up to K times (the script resumes from its
newest complete checkpoint).

On several machines, one launcher per machine, as torchrun's static rendezvous:
    python -m ember.distributed.run --nnodes 2 --node-rank 0 --nproc-per-node 4 \\
        --master-addr 10.0.0.1 --master-port 29500 train.py        # on 10.0.0.1
    ... --node-rank 1 ...                                            # on the other
A failure on any node stops every node, naming the node and the rank (distributed/launcher.h)."""
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
    p.add_argument("--nnodes", type=int, default=1, help="how many machines run the job")
    p.add_argument("--node-rank", "--node_rank", dest="node_rank", type=int, default=0, help="this machine's number")
    p.add_argument("--rdzv-endpoint", "--rdzv_endpoint", dest="rdzv_endpoint", default="",
                   help="host:port where the launchers meet (default: --master-addr:--master-port)")
    p.add_argument("--rdzv-backend", "--rdzv_backend", dest="rdzv_backend", default="static",
                   choices=["static", "c10d"], help="accepted for torchrun's scripts; both are the static rendezvous")
    p.add_argument("--join-timeout", dest="join_timeout", type=float, default=300.0,
                   help="seconds to wait for every node to join")
    p.add_argument("--node-timeout", dest="node_timeout", type=float, default=30.0,
                   help="seconds without a heartbeat after which another node counts as gone")
    p.add_argument("--local-addr", "--local_addr", dest="local_addr", default="",
                   help="this node's address for its ranks' connections")
    p.add_argument("--grace", type=float, default=5.0, help="seconds from SIGTERM to SIGKILL")
    p.add_argument("--no-python", "--no_python", dest="no_python", action="store_true",
                   help="run the program itself instead of `python program`")
    p.add_argument("--no-prefix", dest="no_prefix", action="store_true")
    p.add_argument("program")
    p.add_argument("args", nargs=argparse.REMAINDER)
    a = p.parse_args(argv)
    command = [a.program, *a.args] if a.no_python else [sys.executable, "-u", a.program, *a.args]
    return _C.distributed.launch(a.nproc, command, a.max_restarts, a.master_addr, a.master_port,
                                 a.grace, not a.no_prefix, nnodes=a.nnodes, node_rank=a.node_rank,
                                 rdzv_endpoint=a.rdzv_endpoint, join_timeout=a.join_timeout,
                                 node_timeout=a.node_timeout, local_addr=a.local_addr)


if __name__ == "__main__":
    sys.exit(main())
