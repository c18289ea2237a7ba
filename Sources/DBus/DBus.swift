// DBus: see docs/ARCHITECTURE.md
