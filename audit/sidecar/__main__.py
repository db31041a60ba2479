"""`python -m audit.sidecar CONFIG [--metrics-port N]`: the same as `audit sidecar`."""
import sys

from audit.sidecar.service import main

sys.exit(main())
