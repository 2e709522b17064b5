"""Enrichment: what the service derives from a memory's text after it is stored."""
