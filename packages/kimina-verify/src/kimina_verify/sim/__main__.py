"""`python -m kimina_verify.sim`: the same as the `lean-repl-sim` command."""

import sys

from kimina_verify.sim.cli import main

sys.exit(main())
