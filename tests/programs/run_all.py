"""Run several of these programs, one after another, in one process (one import of torch).

    python run_all.py 'lstm_digits.py --steps 3' 'gcn.py --steps 5'
    python -m jtorch run_all.py ...

Each program runs as ``python PROGRAM ARGS`` would run it (its own ``sys.argv``, as
``__main__``); its output is preceded by a line ``=== PROGRAM``.
"""

import os
import runpy
import shlex
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main(commands):
    for command in commands:
        script, *args = shlex.split(command)
        print(f"=== {script}", flush=True)
        sys.argv = [script, *args]
        runpy.run_path(os.path.join(HERE, script), run_name="__main__")
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
