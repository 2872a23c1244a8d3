"""Settings of the whole Python suite.

EMBER_TEST_MP_START (set by `make test-asan`): the multiprocessing start method of the run. Under
AddressSanitizer, a fork of the multi-threaded test process can copy a lock of ASan's allocator that
another thread holds at that moment, and the child (a DataLoader worker) then hangs at its first
allocation (GCC 12's runtime does not reset the lock at fork; CI hung once this way). forkserver
forks workers from a fresh single-threaded server instead. Tests that ask for fork still fork."""
import multiprocessing
import os

if os.environ.get("EMBER_TEST_MP_START"):
    multiprocessing.set_start_method(os.environ["EMBER_TEST_MP_START"], force=True)
    # NB: the server imports ember once, its workers inherit it (an instrumented import each took
    # seconds); importing starts no thread, so the server stays single-threaded.
    multiprocessing.set_forkserver_preload(["ember"])
