from __future__ import annotations

from hooks.client import main

raise SystemExit(main())
