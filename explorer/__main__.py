"""``python -m explorer``: the command line (:mod:`explorer.cli`)."""

from explorer.cli import main

raise SystemExit(main())
