"""Metrics and ratings computed from transcripts only (ARCHITECTURE principle 12)."""
