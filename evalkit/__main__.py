"""``python -m evalkit``: the same command line as the ``evalkit`` script."""

import sys

from .cli import main

sys.exit(main())
