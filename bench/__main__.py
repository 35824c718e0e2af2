"""``python -m bench``: run the benchmarks, print a table and a final JSON line."""

from bench.run import main

raise SystemExit(main())
