// HeartStore: see docs/ARCHITECTURE.md
