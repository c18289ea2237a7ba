// Ingest: see docs/ARCHITECTURE.md
