// HeartRate: see docs/ARCHITECTURE.md
