"""`python -m kimina_verify.server`: the same as `kimina-verify serve`."""

import sys

from kimina_verify.server.cli import main

sys.exit(main())
