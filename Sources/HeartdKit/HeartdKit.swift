// HeartdKit: see docs/ARCHITECTURE.md
