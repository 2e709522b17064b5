"""Durable background jobs (embed, enrich, classify, link, sync, ...) in the FalkorDB Redis."""
