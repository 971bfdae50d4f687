# Runs one command and prints what its run cost, as JSON: wall time and the CPU
# time and page faults of the command and everything it waited for (wait4's
# rusage, microsecond resolution), which Node's spawnSync does not return.
#
#   python3 bench/rusage.py COMMAND [ARG...]
import json
import os
import subprocess
import sys
import time

started = time.monotonic_ns()
child = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(child.pid, 0)
wall_ns = time.monotonic_ns() - started
print(json.dumps({
    "status": os.waitstatus_to_exitcode(status),
    "wallMs": wall_ns / 1e6,
    "cpuMs": (usage.ru_utime + usage.ru_stime) * 1e3,
    "faults": usage.ru_minflt + usage.ru_majflt,
}))
