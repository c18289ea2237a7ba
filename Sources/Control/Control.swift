// Control: see docs/ARCHITECTURE.md
