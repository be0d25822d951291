"""`python -m kimina_format`: the same command line as `kimina-format`."""

from kimina_format.cli import main

raise SystemExit(main())
