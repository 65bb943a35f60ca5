"""python -m icdenoise.scaffold NAME [--outside PATH] (icdenoise.scaffold)."""

import sys

from icdenoise.scaffold import main

sys.exit(main())
