// Systemd: see docs/ARCHITECTURE.md
