import sys

from epldb.cli import main

sys.exit(main())
