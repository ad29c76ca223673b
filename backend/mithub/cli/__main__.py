import sys

from mithub.cli import main

sys.exit(main())
