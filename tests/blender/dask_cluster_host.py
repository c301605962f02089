"""A real Dask LocalCluster (2 worker processes, 1 thread each) for the farm tests.

Started as a subprocess so the workers are spawned from a Python that never imported
bpy. Prints the scheduler address on one line, then runs until stdin closes.
"""

import sys

from distributed import LocalCluster


def main():
    cluster = LocalCluster(n_workers=int(sys.argv[1]) if len(sys.argv) > 1 else 2,
                           threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=None)
    print(cluster.scheduler_address, flush=True)
    sys.stdin.read()
    cluster.close()


if __name__ == "__main__":
    main()
