"""expect_exit.py CODE COMMAND [ARGS...]

Runs COMMAND, passes its output through, and succeeds only if it exited
with status CODE (lit's `not` accepts any failure, including a signal; the
tools document distinct exit codes for usage, I/O and mismatch).
"""
import subprocess
import sys

if len(sys.argv) < 3:
    sys.exit("usage: expect_exit.py CODE COMMAND [ARGS...]")
expected = int(sys.argv[1])
proc = subprocess.run(sys.argv[2:])
if proc.returncode != expected:
    how = ("killed by signal %d" % -proc.returncode if proc.returncode < 0
           else "exited with %d" % proc.returncode)
    sys.exit("expect_exit.py: %s %s, expected exit status %d"
             % (sys.argv[2], how, expected))
