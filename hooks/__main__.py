from __future__ import annotations

from memhooks.hooks.client import main

raise SystemExit(main())
