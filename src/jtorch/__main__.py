"""``python -m jtorch SCRIPT.py [args]``: run an unmodified PyTorch program on jtorch.

The program sees ``sys.argv == [SCRIPT.py, *args]``, its own directory first on
``sys.path`` and ``__name__ == "__main__"``, exactly as under ``python SCRIPT.py``; every
``import torch`` inside it resolves to jtorch (``jtorch.install_alias``).
``python -m jtorch -m package.module [args]`` runs a module the same way.
"""

from __future__ import annotations

import contextlib
import os
import runpy
import sys

_USAGE = ("usage: python -m jtorch SCRIPT.py [args ...]\n"
          "       python -m jtorch -m MODULE [args ...]")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help") or (argv[0] == "-m" and len(argv) < 2):
        print(_USAGE, file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    script = argv[0]
    if script != "-m" and not os.path.exists(script):
        print(f"python -m jtorch: can't open file {script!r}: No such file or directory",
              file=sys.stderr)
        return 2
    import jtorch

    sys.path.pop(0)  # python's own entry for ``-m jtorch``; replaced by the script's below
    jtorch.install_alias()  # puts its shim directory first on sys.path
    if argv[0] == "-m":
        sys.argv = [argv[1], *argv[2:]]
        sys.path.insert(0, os.getcwd())
        with _naming_missing_tensor_api():
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return 0
    sys.argv = argv
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    with _naming_missing_tensor_api():
        runpy.run_path(script, run_name="__main__")
    return 0


@contextlib.contextmanager
def _naming_missing_tensor_api():
    """A program ended by a tensor attribute jtorch lacks ends with ``MissingTorchAPI``
    naming it, raised from Python's AttributeError (which the program itself sees)."""
    try:
        yield
    except AttributeError as error:
        from ._alias import missing_tensor_api

        missing = missing_tensor_api(error)
        if missing is None:
            raise
        raise missing from error


if __name__ == "__main__":
    sys.exit(main())
