from __future__ import annotations

from hooks.cli import main

raise SystemExit(main())
