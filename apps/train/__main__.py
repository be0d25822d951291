"""`uv run apps/train --recipe NAME [overrides...]`: run the training app from a checkout.

uv runs this file with the workspace's environment. When that environment lacks the app (a fresh clone after
`uv run nox`, which installs only the dev tools there), hand over to `uv run --package kimina-train`, which installs
it first.
"""

import os
import shutil
import sys

try:
    from kimina_train.main import main
except ModuleNotFoundError as exc:
    if exc.name is None or not exc.name.startswith("kimina") or os.environ.get("KIMINA_TRAIN_REEXEC"):
        raise
    uv = shutil.which("uv")
    if uv is None:
        sys.exit("kimina-train is not installed here and uv is not on PATH: run `uv sync --all-packages` first")
    os.environ["KIMINA_TRAIN_REEXEC"] = "1"
    os.execv(uv, [uv, "run", "--package", "kimina-train", "kimina-train", *sys.argv[1:]])

sys.exit(main())
