"""`python -m kimina_train`: the same as the `kimina-train` command."""

import sys

from kimina_train.main import main

sys.exit(main())
