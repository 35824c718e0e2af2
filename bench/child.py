"""Run one measurement in a fresh process and print its result as one JSON line.

``python -m bench.child memory 20000`` or
``python -m bench.child projection umap 2000 points.npy [--cold-only] [--plain]``.
"""

from __future__ import annotations

import json
import os
import sys


def main(argv: list[str]) -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    task, *args = argv
    if task == "memory":
        from bench.embedding import memory_child

        result = memory_child(int(args[0]))
    elif task == "projection":
        from bench.projections import projection_child

        method, points, path, *flags = args
        result = projection_child(
            method, int(points), path, warm="--cold-only" not in flags, plain="--plain" in flags
        )
    else:
        raise SystemExit(f"Unknown task {task!r}; choose memory or projection.")
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])
