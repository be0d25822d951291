"""`uv run apps/api`: the same as the `kimina-api` command."""

from kimina_api.main import main

raise SystemExit(main())
