// BlueZ: see docs/ARCHITECTURE.md
