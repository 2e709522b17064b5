"""The memory lifecycle: relevance decay, archive and forgetting, per-type TTL, clustering,
scheduled consolidation and fsck (see docs/lifecycle.md)."""
